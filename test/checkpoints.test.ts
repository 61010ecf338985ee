// Checkpoints over real files, a real git and real bash: a turn whose bash command edits, creates
// and deletes files is put back byte for byte; ignored and huge files are left alone and named;
// a file changed by someone else since is reported before anything is overwritten; the log
// survives a new process (resume); the user's repository is never written and its config never
// runs a program.
import { chmodSync, existsSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../src/session/checkpoints.js';
import { applyRewind, planRewind, sessionPatch } from '../src/session/rewindfiles.js';
import { gitRepo } from './attacks.js';
import { bash, open, place, planned, turn, write } from './checkpoint-fixture.js';

const read = (p: string) => readFileSync(p);

describe('checkpoints', () => {
  it('puts back what a bash command edited, created and deleted, byte for byte, after a new process loads the log', async () => {
    const crlf = Buffer.from('one\r\ntwo\r\n');
    const binary = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const p = await place({ 'a.txt': crlf, 'bin.dat': binary, 'gone.txt': 'keep me\n', 'src/run.sh': '#!/bin/sh\necho hi\n' });
    chmodSync(join(p.ws, 'src/run.sh'), 0o755);
    symlinkSync('a.txt', join(p.ws, 'link'));
    const { cp, said } = open(p);
    await turn(cp, 'tidy up with bash', () =>
      bash(p.ws, "printf 'changed\\n' > a.txt && printf '\\x00x' >> bin.dat && rm gone.txt && mkdir -p new/deep && echo made > new/deep/made.txt && chmod -x src/run.sh && rm link"),
    );
    expect(cp.turns.map(({ n, text, files, count }) => ({ n, text, files, count }))).toEqual([
      { n: 1, text: 'tidy up with bash', files: ['a.txt', 'bin.dat', 'gone.txt', 'link', 'new/deep/made.txt', 'src/run.sh'], count: 6 },
    ]);

    // Another process (--resume) reads the log and rewinds.
    const again = open(p).cp;
    expect(again.listed().map((t) => [t.n, t.text, t.count])).toEqual([[1, 'tidy up with bash', 6]]);
    const plan = await planned(again, 1);
    expect({ restore: plan.restore, remove: plan.remove, conflicts: plan.conflicts, tooBig: plan.tooBig }).toEqual({
      restore: ['a.txt', 'bin.dat', 'gone.txt', 'link', 'src/run.sh'],
      remove: ['new/deep/made.txt'],
      conflicts: [],
      tooBig: [],
    });
    const outcome = await applyRewind(again, plan, false);
    expect({ ...outcome, after: undefined }).toEqual({ restored: ['a.txt', 'bin.dat', 'gone.txt', 'link', 'src/run.sh'], removed: ['new/deep/made.txt'], kept: [], tooBig: [], failed: [], after: undefined });
    expect(read(join(p.ws, 'a.txt'))).toEqual(crlf);
    expect(read(join(p.ws, 'bin.dat'))).toEqual(binary);
    expect(readFileSync(join(p.ws, 'gone.txt'), 'utf8')).toBe('keep me\n');
    expect(statSync(join(p.ws, 'src/run.sh')).mode & 0o777).toBe(0o755);
    expect(readlinkSync(join(p.ws, 'link'))).toBe('a.txt');
    // The folders the turn made went with the file.
    expect(existsSync(join(p.ws, 'new'))).toBe(false);
    expect(said).toEqual({ off: [], failed: [], skipped: [] });
    // Everything kept is private.
    const dir = join(p.state, 'checkpoints');
    const [key] = readdirSync(dir);
    expect((statSync(join(dir, key!, 's1.jsonl')).mode & 0o777)).toBe(0o600);
    expect((statSync(join(dir, key!)).mode & 0o777)).toBe(0o700);
  });

  it('asks about a file someone else changed after the turn, and keeps it when told to', async () => {
    const p = await place({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
    const { cp } = open(p);
    await turn(cp, 'edit both', () => write(p.ws, { 'a.txt': 'a1\n', 'b.txt': 'b1\n' }));
    // The user edits b.txt in an editor, and then feiyu runs a turn that changes nothing.
    write(p.ws, { 'b.txt': 'b-user\n' });
    await turn(cp, 'look around', () => {});
    write(p.ws, { 'c.txt': 'c-user\n' });
    const plan = await planned(cp, 1);
    // c.txt is new since the turn, made by the user: removing it is overwriting their work too.
    expect({ restore: plan.restore, remove: plan.remove, conflicts: plan.conflicts }).toEqual({ restore: ['a.txt', 'b.txt'], remove: ['c.txt'], conflicts: ['b.txt', 'c.txt'] });
    const outcome = await applyRewind(cp, plan, false);
    expect({ restored: outcome.restored, removed: outcome.removed, kept: outcome.kept }).toEqual({ restored: ['a.txt'], removed: [], kept: ['b.txt', 'c.txt'] });
    expect(['a.txt', 'b.txt', 'c.txt'].map((f) => readFileSync(join(p.ws, f), 'utf8'))).toEqual(['a0\n', 'b-user\n', 'c-user\n']);
    // The rewind is feiyu's own doing: rewinding further back later does not count it as someone else's.
    write(p.ws, { 'a.txt': 'a2\n' });
    await turn(cp, 'edit a again', () => write(p.ws, { 'a.txt': 'a3\n' }));
    const later = await planned(cp, 3);
    expect({ restore: later.restore, conflicts: later.conflicts }).toEqual({ restore: ['a.txt'], conflicts: [] });
    const back = await planned(cp, 1);
    expect({ restore: back.restore, remove: back.remove, conflicts: back.conflicts }).toEqual({ restore: ['a.txt', 'b.txt'], remove: ['c.txt'], conflicts: ['a.txt', 'b.txt', 'c.txt'] });
  });

  it('leaves ignored and huge files alone and names what it left out', async () => {
    const p = await place({ '.gitignore': 'build/\n', 'small.txt': 's\n' });
    const { cp, said } = open(p);
    const huge = Buffer.alloc(MAX_FILE_BYTES + 1, 'x');
    await turn(cp, 'build', () => write(p.ws, { 'build/out.js': 'compiled\n', 'huge.bin': huge, 'small.txt': 's2\n' }));
    expect(said.skipped).toEqual([{ path: 'huge.bin', why: 'big', size: MAX_FILE_BYTES + 1 }]);
    expect(cp.turns[0]!.files).toEqual(['small.txt']);
    const plan = await planned(cp, 1);
    await applyRewind(cp, plan, true);
    expect(readFileSync(join(p.ws, 'small.txt'), 'utf8')).toBe('s\n');
    expect(readFileSync(join(p.ws, 'build/out.js'), 'utf8')).toBe('compiled\n');
    expect(statSync(join(p.ws, 'huge.bin')).size).toBe(MAX_FILE_BYTES + 1);
    // Named once a session, not at every checkpoint.
    await turn(cp, 'again', () => write(p.ws, { 'small.txt': 's3\n' }));
    expect(said.skipped).toHaveLength(1);
  });

  it("never writes the user's repository nor runs its config, and honours the .gitignore above a subfolder workspace", async () => {
    const p = await place();
    const repo = join(p.base, 'repo');
    const marker = join(p.base, 'ran');
    const { git } = gitRepo(repo, p.home, { '.gitignore': '*.log\n', '.gitattributes': '*.txt filter=evil\n*.txt filter=lfs\n' });
    // Planted as a malicious clone would find them: programs named by the repository's config.
    for (const [k, v] of [['core.fsmonitor', `touch ${marker}`], ['filter.evil.clean', `touch ${marker}; cat`], ['filter.evil.smudge', `touch ${marker}; cat`], ['core.hooksPath', join(p.base, 'hooks')]]) git('config', k!, v!);
    // …and by the user's global config.
    writeFileSync(join(p.home, '.gitconfig'), `[filter "lfs"]\n\tclean = touch ${marker}; cat\n\tsmudge = touch ${marker}; cat\n[core]\n\tfsmonitor = touch ${marker}\n`);
    write(repo, { 'pkg/a.txt': 'a0\n', 'pkg/debug.log': 'old log\n' });
    const dotGit = () => bash(repo, "find .git -printf '%p %s %T@\\n' | sort").toString();
    const before = dotGit();
    const ws = join(repo, 'pkg');
    const { cp } = open(p, ws);
    await turn(cp, 'edit', () => write(ws, { 'a.txt': 'a1\n', 'debug.log': 'new log\n', 'b.txt': 'b\n' }));
    expect(cp.turns[0]!.files).toEqual(['a.txt', 'b.txt']);
    await applyRewind(cp, await planned(cp, 1), true);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('a0\n');
    expect(existsSync(join(ws, 'b.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'debug.log'), 'utf8')).toBe('new log\n');
    expect(existsSync(marker)).toBe(false);
    expect(dotGit()).toBe(before);
    expect((await sessionPatch(cp))!.files).toEqual([]);
  });

  it('shows the session as one patch from its first checkpoint, paths relative to the workspace', async () => {
    const p = await place({ 'a.txt': 'one\ntwo\n' });
    const { cp } = open(p);
    await turn(cp, 'first', () => write(p.ws, { 'a.txt': 'one\n2\n' }));
    await turn(cp, 'second', () => bash(p.ws, 'echo new > b.txt'));
    const diff = (await sessionPatch(cp))!;
    expect(diff.files).toEqual(['a.txt', 'b.txt']);
    expect(diff.patch).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n');
    expect(diff.patch).toContain('new file mode 100644');
    expect(diff.patch).toContain('+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n');
  });

  it('is off in the home folder and without git, and says so once', async () => {
    const p = await place();
    const home = open({ ...p, env: { ...p.env, HOME: p.ws } });
    await turn(home.cp, 'x', () => {});
    expect(home.said.off).toEqual([{ off: 'home' }]);
    const noGit = open({ ...p, env: { ...p.env, PATH: join(p.base, 'nothing') } }, p.ws, 's2');
    await turn(noGit.cp, 'x', () => {});
    await turn(noGit.cp, 'y', () => {});
    expect(noGit.said.off).toEqual([{ off: 'no_git' }]);
    expect(await planRewind(noGit.cp, 1)).toBe(null);
  });
});
