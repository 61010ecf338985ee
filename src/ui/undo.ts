// /undo: the files each turn wrote or edited, as they were before the turn, put back on request
// (the latest turn first) in each file's own encoding, BOM and line endings. A file changed again
// since the turn is left alone. Changes made through bash are not seen here. Memory is bounded:
// the latest turns only, and of each file the text before the turn and a hash of the text after.

import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { decode, encode, sniffType } from '../content/filetype.js';
import { openForRead, unlinkInside, writeInside } from '../util/paths.js';
import type { AgentEvent } from '../types/events.js';
import type { FileVersion } from '../types/tools.js';

/** `after` is a hash: enough to tell whether the file is still as the turn left it. */
type Change = { shown: string; before: string | null; after: string };

/** Turns kept for /undo… */
export const UNDO_TURNS = 20;
/** …and at most this much text in all (the oldest turns go first). */
const UNDO_CHARS = 16 << 20;

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

export type UndoResult = { restored: string[]; skipped: { path: string; why: 'changed' | 'failed' }[] };

export class UndoStack {
  private readonly turns: Map<string, Change>[] = [];
  private current: Map<string, Change> | undefined;

  constructor(private readonly root: string) {}

  /** Feed every AgentEvent. */
  observe(event: AgentEvent): void {
    if (event.type === 'turn_start') this.current = new Map();
    if (event.type === 'tool_result' && event.change && !event.isError) {
      this.current ??= new Map();
      const { path, before, after } = event.change;
      const abs = resolve(this.root, path);
      // The first write of a turn holds the state before it; later ones only move `after`.
      const seen = this.current.get(abs);
      this.current.set(abs, seen ? { ...seen, after: hashOf(after) } : { shown: path, before, after: hashOf(after) });
    }
    if (event.type === 'turn_end') this.close();
  }

  get empty(): boolean {
    return this.turns.length === 0 && !this.current?.size;
  }

  clear(): void {
    this.turns.length = 0;
    this.current = undefined;
  }

  /**
   * Puts back the files of the latest turn that changed any; null when there is none. Drops the
   * read records of the files it touched, so the model reads them again before editing.
   */
  async undo(files: Map<string, FileVersion>): Promise<UndoResult | null> {
    this.close();
    const turn = this.turns.pop();
    if (!turn) return null;
    const result: UndoResult = { restored: [], skipped: [] };
    for (const [abs, change] of turn) {
      const outcome = await restore(this.root, abs, change).catch(() => 'failed' as const);
      if (outcome === 'restored') result.restored.push(change.shown);
      else result.skipped.push({ path: change.shown, why: outcome });
      files.delete(abs);
    }
    return result;
  }

  /** Each file the kept turns changed, as it was before the first of them (/diff without checkpoints). */
  changedFiles(): { abs: string; shown: string; before: string | null }[] {
    const first = new Map<string, Change>();
    for (const turn of [...this.turns, ...(this.current ? [this.current] : [])]) for (const [abs, c] of turn) if (!first.has(abs)) first.set(abs, c);
    return [...first].map(([abs, c]) => ({ abs, shown: c.shown, before: c.before }));
  }

  private close(): void {
    if (this.current?.size) this.turns.push(this.current);
    this.current = undefined;
    let chars = 0;
    for (let i = this.turns.length - 1; i >= 0; i--) {
      for (const change of this.turns[i]!.values()) chars += change.before?.length ?? 0;
      if (this.turns.length - i > UNDO_TURNS || (chars > UNDO_CHARS && i < this.turns.length - 1)) {
        this.turns.splice(0, i + 1);
        break;
      }
    }
  }
}

/**
 * Reads and writes as the file tools do (util/paths.ts): through descriptors, so a symbolic link
 * swapped into the workspace since the turn cannot redirect the read or the write outside it.
 */
async function restore(root: string, abs: string, change: Change): Promise<'restored' | 'changed' | 'failed'> {
  if (!(await lstat(abs).then(() => true, () => false))) return 'changed';
  const opened = await openForRead(root, abs, change.shown);
  if ('error' in opened) return 'failed';
  const bytes = await opened.fh.readFile().finally(() => opened.fh.close());
  const sniffed = sniffType(bytes);
  if (sniffed.kind !== 'text' || hashOf(decode(bytes, sniffed.encoding, false)) !== change.after) return 'changed';
  if (change.before === null) await unlinkInside(root, abs);
  else await writeInside(root, abs, encode(change.before, sniffed.encoding));
  return 'restored';
}
