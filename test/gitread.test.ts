// git_read, the review specialist's view of the repository: git diff, log, show and status over a
// real repository, through the launcher's read profile (the real bwrap sandbox where it works,
// else the plain launcher: needs no root), and the options that would write or run something refused.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitReadTool } from '../src/delegate/gitread.js';
import { createLauncher } from '../src/safety/sandboxhost.js';
import { probeSandbox } from '../src/safety/sandboxprobe.js';
import { workspace } from './tools-helpers.js';

const probe = await probeSandbox();

async function repo() {
  const ctx = await workspace({ 'a.txt': 'one\n' });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ctx.root, env: { ...ctx.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'first');
  writeFileSync(join(ctx.root, 'a.txt'), 'one\ntwo\n');
  const features = probe.ok ? probe.features : { userns: false, disableUserns: false };
  const level = probe.ok ? 'workspace' : 'off';
  const wrapCommand = createLauncher({ level, root: ctx.root, home: join(ctx.root, '..'), configDir: join(ctx.root, '..', 'c'), stateDir: join(ctx.root, '..', 's'), network: false, features, contain: false });
  return { ...ctx, wrapCommand };
}

describe(`git_read (${probe.ok ? 'in the bwrap read profile' : 'bwrap unavailable: plain launcher'})`, () => {
  it('shows the working changes, the log and a commit', async () => {
    const ctx = await repo();
    const tool = gitReadTool();
    const diff = await tool.run({ command: 'diff' }, ctx);
    expect(diff.isError).toBeUndefined();
    expect(diff.output).toMatch(/^diff --git a\/a.txt b\/a.txt\n[^]*\n one\n\+two\n$/);
    expect((await tool.run({ command: 'log', args: ['--format=%s'] }, ctx)).output).toBe('first\n');
    expect((await tool.run({ command: 'show', args: ['--stat', '--format=%s', 'HEAD'] }, ctx)).output).toMatch(/^first\n\n a.txt \| 1 \+\n/);
    expect((await tool.run({ command: 'status', args: ['--short'] }, ctx)).output).toBe(' M a.txt\n');
  });

  it('refuses options that write a file or reach outside the repository, and reports git failures', async () => {
    const ctx = await repo();
    const tool = gitReadTool();
    expect(await tool.run({ command: 'diff', args: ['--output=/tmp/x'] }, ctx)).toEqual({ output: 'git_read does not take --output=/tmp/x: it only reads the repository', isError: true });
    expect(await tool.run({ command: 'diff', args: ['--no-index', '/etc/passwd', 'a.txt'] }, ctx)).toMatchObject({ isError: true });
    expect(await tool.run({ command: 'show', args: ['no-such-rev'] }, ctx)).toMatchObject({ isError: true, output: expect.stringMatching(/^git show failed \(exit 128\): /) });
  });
});
