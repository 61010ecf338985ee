// /undo's memory is bounded: the latest 20 turns are kept, older ones let go; a kept turn still
// restores its files, and a file changed since (told by a hash of the text the turn left) is not touched;
// a symbolic link swapped into the workspace since cannot send the restore outside it.
import { mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { UNDO_TURNS, UndoStack } from '../src/ui/undo.js';
import type { AgentEvent } from '../src/types/events.js';
import { workspace } from './tools-helpers.js';

/** One turn writing `after` over `before` in `path`, as the agent reports it. */
const turn = (path: string, before: string | null, after: string): AgentEvent[] => [
  { type: 'turn_start', text: 'edit' },
  { type: 'tool_result', id: 'c', name: 'write_file', output: 'ok', isError: false, durationMs: 1, change: { path, before, after } },
  { type: 'turn_end', stopReason: 'end', text: '', rounds: 1 },
];

describe('/undo', () => {
  it('keeps the latest turns only, and restores them newest first', async () => {
    const ctx = await workspace();
    const undo = new UndoStack(ctx.root);
    const version = (n: number) => `version ${n}\n`;
    for (let n = 1; n <= 30; n++) {
      await writeFile(join(ctx.root, 'a.txt'), version(n));
      for (const e of turn('a.txt', version(n - 1), version(n))) undo.observe(e);
    }
    const restored: string[] = [];
    for (let result = await undo.undo(ctx.files); result; result = await undo.undo(ctx.files)) restored.push(await readFile(join(ctx.root, 'a.txt'), 'utf8'));
    expect(restored).toEqual(Array.from({ length: UNDO_TURNS }, (_, i) => version(29 - i)));
  });

  it('leaves a file changed since its turn alone', async () => {
    const ctx = await workspace({ 'b.txt': 'mine\n' });
    const undo = new UndoStack(ctx.root);
    for (const e of turn('b.txt', 'old\n', 'new\n')) undo.observe(e);
    expect(await undo.undo(ctx.files)).toEqual({ restored: [], skipped: [{ path: 'b.txt', why: 'changed' }] });
    expect(await readFile(join(ctx.root, 'b.txt'), 'utf8')).toBe('mine\n');
  });

  it('never writes or removes through a symbolic link swapped in since the turn', async () => {
    const ctx = await workspace({ 'sub/f.txt': 'new\n', 'sub/made.txt': 'made\n', 'g.txt': 'new\n' });
    const outside = await mkdtemp(join(tmpdir(), 'feiyu-undo-out-'));
    onTestFinished(() => rm(outside, { recursive: true, force: true }));
    // Outside, files as the turn left them: the hash matches, only the place differs.
    await writeFile(join(outside, 'f.txt'), 'new\n');
    await writeFile(join(outside, 'made.txt'), 'made\n');
    await writeFile(join(outside, 'g.txt'), 'new\n');
    const undo = new UndoStack(ctx.root);
    for (const e of [...turn('sub/f.txt', 'old\n', 'new\n'), ...turn('sub/made.txt', null, 'made\n'), ...turn('g.txt', 'old\n', 'new\n')]) undo.observe(e);
    await rename(join(ctx.root, 'sub'), join(ctx.root, 'sub-moved'));
    await symlink(outside, join(ctx.root, 'sub'));
    await rm(join(ctx.root, 'g.txt'));
    await symlink(join(outside, 'g.txt'), join(ctx.root, 'g.txt'));
    const results = [await undo.undo(ctx.files), await undo.undo(ctx.files), await undo.undo(ctx.files)];
    expect(results).toEqual([
      { restored: [], skipped: [{ path: 'g.txt', why: 'failed' }] },
      { restored: [], skipped: [{ path: 'sub/made.txt', why: 'failed' }] },
      { restored: [], skipped: [{ path: 'sub/f.txt', why: 'failed' }] },
    ]);
    expect(await Promise.all(['f.txt', 'made.txt', 'g.txt'].map((f) => readFile(join(outside, f), 'utf8')))).toEqual(['new\n', 'made\n', 'new\n']);
  });
});
