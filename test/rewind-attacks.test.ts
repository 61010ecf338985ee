// Checkpoints and rewinds under attack and accident: a folder swapped for a symbolic link to the
// outside while files are put back, a checkpoint killed mid-way (its index lock and a torn log
// line left behind), a disk that fills up (git's writes limited by a file size limit), and two
// processes checkpointing the same workspace at once.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointsDir } from '../src/session/checkpoints.js';
import { applyRewind, planRewind } from '../src/session/rewindfiles.js';
import { swapper } from './attacks.js';
import { bash, fullDiskPath, open, place, planned, turn, write } from './checkpoint-fixture.js';

const text = (p: string) => readFileSync(p, 'utf8');

describe('checkpoints under attack', () => {
  it('puts files back and removes them only inside the workspace while a folder is swapped for a link to the outside', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `dir/f${String(i).padStart(3, '0')}.txt`);
    const p = await place(Object.fromEntries(names.map((n) => [n, 'v0\n'])));
    const { cp } = open(p);
    await turn(cp, 'change them all', () => bash(p.ws, 'for f in dir/*.txt; do echo v1 > "$f"; done; echo made > dir/new.txt'));
    const plan = await planned(cp, 1);
    expect({ restore: plan.restore, remove: plan.remove, conflicts: plan.conflicts }).toEqual({ restore: names, remove: ['dir/new.txt'], conflicts: [] });
    const outside = join(p.base, 'outside');
    write(outside, { 'f000.txt': 'OUTSIDE\n', 'new.txt': 'OUTSIDE\n' });
    const stop = swapper(join(p.ws, 'dir'), outside);
    let restored = 0;
    for (let i = 0; i < 4; i++) restored += (await applyRewind(cp, plan, true)).restored.length;
    await stop();
    expect(readdirSync(outside).sort()).toEqual(['f000.txt', 'new.txt']);
    expect([text(join(outside, 'f000.txt')), text(join(outside, 'new.txt'))]).toEqual(['OUTSIDE\n', 'OUTSIDE\n']);
    expect(restored).toBeGreaterThan(0);
  });

  it('goes on after a checkpoint killed mid-way: the index lock it left and a torn log line', async () => {
    const p = await place({ 'a.txt': 'a0\n' });
    const first = open(p);
    await turn(first.cp, 'one', () => write(p.ws, { 'a.txt': 'a1\n' }));
    // What SIGKILL leaves in the middle of `git update-index` and of a log append.
    const dir = checkpointsDir(p.state, p.ws);
    writeFileSync(join(dir, 's1.index.lock'), '');
    appendFileSync(join(dir, 's1.jsonl'), '{"type":"end","n":2,"comm');
    const { cp, said } = open(p);
    await turn(cp, 'two', () => write(p.ws, { 'a.txt': 'a2\n', 'b.txt': 'b\n' }));
    expect(said.failed).toEqual([]);
    expect(cp.listed().map((t) => [t.n, t.files])).toEqual([[1, ['a.txt']], [2, ['a.txt', 'b.txt']]]);
    await applyRewind(cp, await planned(cp, 1), false);
    expect([text(join(p.ws, 'a.txt')), existsSync(join(p.ws, 'b.txt'))]).toEqual(['a0\n', false]);
  });

  it('on a full disk says once why a checkpoint failed, and the turns go on; later ones can rewind to before them', async () => {
    const p = await place({ 'a.txt': 'a0\n' });
    // The shadow repository was made by an earlier session, while there was room.
    await open(p, p.ws, 's0').cp.git();
    const full = open({ ...p, env: { ...p.env, PATH: fullDiskPath(p.base, p.env.PATH!) } });
    await turn(full.cp, 'big', () => write(p.ws, { 'big.bin': randomBytes(64 << 10) }));
    await turn(full.cp, 'bigger', () => write(p.ws, { 'a.txt': 'a1\n', 'big2.bin': randomBytes(64 << 10) }));
    expect(full.said.failed).toHaveLength(1);
    expect(full.said.failed[0]).toMatch(/^git update-index: .*File too large/);
    expect(full.cp.listed().map((t) => [t.n, t.start !== undefined, t.end])).toEqual([[1, true, undefined], [2, false, undefined]]);
    // A rewind needs a checkpoint of the files now: it says why there is none, and touches nothing.
    expect(await planRewind(full.cp, 1)).toEqual({ error: full.said.failed[0] });
    expect(readdirSync(p.ws).sort()).toEqual(['a.txt', 'big.bin', 'big2.bin']);
    // Room again (a new process): the checkpoint before the first turn still puts everything back.
    const { cp, said } = open(p);
    await applyRewind(cp, await planned(cp, 1), true);
    expect(said.failed).toEqual([]);
    expect(readdirSync(p.ws).sort()).toEqual(['a.txt']);
    expect(text(join(p.ws, 'a.txt'))).toBe('a0\n');
  });

  it('two processes checkpoint the same workspace at once: one shadow repository, made once, sound', async () => {
    const p = await place({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
    const [one, two] = [open(p, p.ws, 's1'), open(p, p.ws, 's2')];
    one.cp.turnStarted('one', { messages: 0 });
    two.cp.turnStarted('two', { messages: 0 });
    await Promise.all([one.cp.beforeChange(), two.cp.beforeChange()]);
    write(p.ws, { 'a.txt': 'a1\n', 'c.txt': 'c\n' });
    one.cp.turnEnded();
    two.cp.turnEnded();
    await Promise.all([one.cp.idle(), two.cp.idle()]);
    expect([one.said, two.said]).toEqual([{ off: [], failed: [], skipped: [] }, { off: [], failed: [], skipped: [] }]);
    expect([one.cp.turns[0]!.files, two.cp.turns[0]!.files]).toEqual([['a.txt', 'c.txt'], ['a.txt', 'c.txt']]);
    await applyRewind(one.cp, await planned(one.cp, 1), false);
    expect([text(join(p.ws, 'a.txt')), existsSync(join(p.ws, 'c.txt'))]).toEqual(['a0\n', false]);
    // The other process sees the files as its turn began: nothing to put back.
    const other = await planned(two.cp, 1);
    expect([other.restore, other.remove]).toEqual([[], []]);
    execFileSync('git', ['--git-dir', join(checkpointsDir(p.state, p.ws), 'repo.git'), 'fsck', '--strict', '--no-dangling'], { stdio: 'pipe' });
  });
});
