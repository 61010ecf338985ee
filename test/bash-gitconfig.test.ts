// Issue 11: git runs nothing named by repository data. A repository whose configuration (or a
// file it includes) sets a program-valued key makes every git command ask, read from the files
// without running git: .git folders, .git files naming another folder, planted bare repositories.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBash, type BashAnalysis } from '../src/safety/bash/analysis.js';
import { parseGitConfig } from '../src/safety/bash/gitconfig.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-gitcfg-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const home = join(base, 'home');
const configDir = join(home, '.config', 'feiyu');
mkdirSync(configDir, { recursive: true });
let n = 0;

/** A fresh repository (git init) whose .git/config gets `extra` appended; returns the workspace. */
function repo(extra = ''): string {
  const root = join(base, `ws${++n}`);
  mkdirSync(root);
  execFileSync('git', ['init', '-q', root], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home } });
  writeFileSync(join(root, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n${extra}`, { flag: 'w' });
  writeFileSync(join(root, 'a.txt'), 'x');
  return root;
}

type Summary = { verdict: BashAnalysis['verdict']; code?: string };
const judge = async (root: string, command: string, cwd = root): Promise<Summary> => {
  const r = await analyzeBash(command, { root, cwd, home, configDir, path: '/usr/bin:/bin' });
  return { verdict: r.verdict, code: r.code };
};
const safe: Summary = { verdict: 'safe', code: undefined };
const asks: Summary = { verdict: 'ask', code: 'git_config' };

describe('a repository whose configuration names a program', () => {
  it('a clean repository runs read-only git commands without asking', async () => {
    const root = repo();
    for (const c of ['git status', 'git log --oneline -5', 'git diff HEAD', 'git rev-parse HEAD', 'git config --get core.bare']) expect(await judge(root, c)).toEqual(safe);
  });

  const keys: [string, Summary][] = [
    ['[core]\n\tfsmonitor = ./.git/hooks/query.sh', asks],
    ['[core]\n\tsshCommand = ./evil', asks],
    ['[core]\n\taskPass = ./evil', asks],
    ['[core]\n\teditor = ./evil', asks],
    ['[core]\n\tpager = ./evil', asks],
    ['[Core]\n\tFSMonitor = "./evil"', asks],
    ['[pager]\n\tlog = ./evil', asks],
    ['[filter "x"]\n\tsmudge = ./evil', asks],
    ['[filter "lfs"]\n\tprocess = ./evil', asks],
    ['[diff "x"]\n\ttextconv = ./evil', asks],
    ['[diff.x]\n\ttextconv = ./evil', asks],
    ['[diff]\n\texternal = ./evil', asks],
    ['[merge "x"]\n\tdriver = ./evil %A', asks],
    ['[alias]\n\tst = "!sh -c id"', asks],
    ['[credential]\n\thelper = !./evil', asks],
    ['[gpg]\n\tprogram = ./evil', asks],
    ['[gpg "ssh"]\n\tprogram = ./evil', asks],
    ['[include]\n\tpath = /tmp/somewhere-else.conf', asks],
    ['[includeIf "gitdir:/"]\n\tpath = ../../elsewhere.conf', asks],
    ['[core] pager = ./evil', asks],
    ['[core]\n\tpager = \\\n./evil', asks],
    // Booleans and plain values run nothing.
    ['[core]\n\tfsmonitor = true', safe],
    ['[core]\n\tfsmonitor = false', safe],
    ['[pager]\n\tlog = false', safe],
    ['[alias]\n\tst = status', safe],
    ['[user]\n\tname = "pager = ./evil"', safe],
    ['# [core]\n# pager = ./evil', safe],
  ];
  it.each(keys)('%j', async (extra, expected) => {
    const root = repo(`${extra}\n`);
    expect(await judge(root, 'git status')).toEqual(expected);
    expect(await judge(root, 'git log --oneline -1')).toEqual(expected);
  });

  it('a file the configuration includes counts like the configuration itself', async () => {
    const root = repo('[include]\n\tpath = extra.conf\n');
    writeFileSync(join(root, '.git', 'extra.conf'), '[core]\n\tpager = ./evil\n');
    expect(await judge(root, 'git status')).toEqual(asks);
    writeFileSync(join(root, '.git', 'extra.conf'), '[core]\n\tabbrev = 12\n');
    expect(await judge(root, 'git status')).toEqual(safe);
  });

  it('a .git file naming another folder, a planted bare repository and --git-dir are read too', async () => {
    const root = repo();
    const evil = join(root, 'vendor', 'evil.git');
    mkdirSync(evil, { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', evil]);
    writeFileSync(join(evil, 'config'), '[core]\n\tbare = true\n\tpager = ./evil\n');
    const sub = join(root, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, '.git'), 'gitdir: ../vendor/evil.git\n');
    expect(await judge(root, 'git status')).toEqual(safe);
    expect(await judge(root, 'git -C sub status')).toEqual(asks);
    expect(await judge(root, 'cd sub && git log')).toEqual(asks);
    expect(await judge(root, 'git log', sub)).toEqual(asks);
    expect(await judge(root, 'cd vendor/evil.git && git log')).toEqual(asks);
    expect(await judge(root, 'git --git-dir=vendor/evil.git log')).toEqual(asks);
  });

  it('an include that is a FIFO inside the workspace asks instead of hanging the analysis', async () => {
    const root = repo('[include]\n\tpath = ../pipe\n');
    execFileSync('mkfifo', [join(root, 'pipe')]);
    expect(await judge(root, 'git status')).toEqual(asks);
  });

  it('a worktree reads the main repository configuration through commondir', async () => {
    const root = repo('[core]\n\tfsmonitor = ./evil\n');
    const wt = join(root, 'wt');
    mkdirSync(join(root, '.git', 'worktrees', 'wt'), { recursive: true });
    writeFileSync(join(root, '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    mkdirSync(wt);
    writeFileSync(join(wt, '.git'), `gitdir: ${join(root, '.git', 'worktrees', 'wt')}\n`);
    expect(await judge(root, 'git status', wt)).toEqual(asks);
  });
});

describe('parseGitConfig', () => {
  it('reads sections, subsections, bare keys, quotes, escapes, comments and continuations', () => {
    const text = '[core]\n\tPager = "less -R" ; comment\n\tbare\n[diff "My Driver"]\n\ttextconv = a\\\\b \\\n c\n[a.B]\n\tk = v # c\n';
    expect(parseGitConfig(text, 'f').map(({ section, sub, key, value }) => [section, sub, key, value])).toEqual([
      ['core', null, 'pager', 'less -R'],
      ['core', null, 'bare', null],
      ['diff', 'My Driver', 'textconv', 'a\\b  c'],
      ['a', 'b', 'k', 'v'],
    ]);
  });
});
