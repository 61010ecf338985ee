// The REPL's input history, kept across sessions in <state>/history (0600, folder 0700): one JSON
// string a line, so multi-line messages survive; capped, oldest dropped. Several feiyu processes
// share the file: entries are appended under its lock, and the file is cut back from itself (never
// from one process's memory), so no process loses another's entries. A history file that cannot
// be read or written (a FIFO, a huge file, a full disk) only costs the history, never the session.

import { appendFileSync, chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { withFileLock } from '../util/lock.js';
import { FileReadError, readRegularFile } from '../util/readfile.js';

export const HISTORY_CAP = 1000;
/** Past this the history file is not read: it is not one feiyu wrote. */
const MAX_BYTES = 16 << 20;

export class History {
  /** Oldest first. */
  readonly entries: string[] = [];
  /** Why the history file is left alone this session (not a regular file, or huge), for a warning. */
  readonly problem: FileReadError | undefined;
  private lines = 0;
  private broken = false;

  constructor(
    private readonly file: string | undefined,
    private readonly cap = HISTORY_CAP,
  ) {
    if (!file) return;
    try {
      this.entries = parse(readRegularFile(file, MAX_BYTES) ?? '');
    } catch (e) {
      this.broken = true;
      if (e instanceof FileReadError) this.problem = e;
    }
    this.lines = this.entries.length;
    this.entries.splice(0, Math.max(0, this.entries.length - cap));
  }

  /** Adds an entry (not a repeat of the last one) and saves it. */
  add(entry: string): void {
    if (!entry.trim() || this.entries.at(-1) === entry) return;
    this.entries.push(entry);
    if (this.entries.length > this.cap) this.entries.shift();
    const file = this.file;
    if (!file || this.broken) return;
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      withFileLock(file, () => {
        appendFileSync(file, JSON.stringify(entry) + '\n', { mode: 0o600 });
        // Appending is cheap; the file is cut back to the cap once it holds half as much again.
        if (++this.lines > this.cap * 1.5) this.cutBack(file);
      });
      chmodSync(file, 0o600);
    } catch {
      this.broken = true;
    }
  }

  /** The file's own last `cap` entries, written back whole (under the lock the caller holds). */
  private cutBack(file: string): void {
    const kept = parse(readRegularFile(file, MAX_BYTES) ?? '').slice(-this.cap);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, kept.map((e) => JSON.stringify(e) + '\n').join(''), { mode: 0o600 });
    renameSync(temp, file);
    this.lines = kept.length;
  }
}

function parse(text: string): string[] {
  return text.split('\n').flatMap((line) => {
    try {
      const entry: unknown = JSON.parse(line);
      return typeof entry === 'string' ? [entry] : [];
    } catch {
      return [];
    }
  });
}
