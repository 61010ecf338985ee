// git runs nothing named by repository data in read-only commands: the config reader (syntax,
// includes, a worktree's common dir), the -c pairs it derives, and real git with the environment
// the launcher gives a read-only command, sandbox off (contained or not): a repository whose config
// plants fsmonitor, a pager, a hooks folder, textconv, filters, an external diff and an alias runs
// none of them, however git is spelled, while the same commands without it do run them.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitLayout, parseGitConfig, repoConfig } from '../src/safety/gitconfig.js';
import { gitHardeningEnv, hardeningPairs } from '../src/safety/githarden.js';
import { probeContainment } from '../src/safety/contain.js';
import { createLauncher } from '../src/safety/sandboxhost.js';
import { gitRepo } from './attacks.js';

const base = realpathSync(mkdtempSync('/var/tmp/feiyu-githarden-'));
const containWorks = await probeContainment();
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('parseGitConfig', () => {
  it('reads sections, subsections old and new, quotes, escapes, comments and continuations', () => {
    const text = [
      '# comment',
      '[core]',
      '\tfsmonitor = "sh -c \\"touch x\\"" ; trailing comment',
      '\tbare',
      '[diff "Evil Driver"]',
      '  textconv = cat \\',
      '    -v',
      '[Filter.lfs]',
      'CLEAN = git-lfs clean -- %f',
      '[include]',
      'path = ../shared.cfg',
    ].join('\n');
    expect(parseGitConfig(text, 'f').map(({ key, value }) => [key, value])).toEqual([
      ['core.fsmonitor', 'sh -c "touch x"'],
      ['core.bare', 'true'],
      ['diff.Evil Driver.textconv', 'cat     -v'],
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['include.path', '../shared.cfg'],
    ]);
  });

  it("follows a worktree's .git file to its git dir and common dir, and include paths", () => {
    const main = join(base, 'main.git');
    const wt = join(base, 'wt');
    mkdirSync(join(main, 'worktrees', 'wt'), { recursive: true });
    mkdirSync(wt);
    writeFileSync(join(wt, '.git'), `gitdir: ${join(main, 'worktrees', 'wt')}\n`);
    writeFileSync(join(main, 'worktrees', 'wt', 'commondir'), '../..\n');
    writeFileSync(join(main, 'config'), '[include]\n\tpath = extra.cfg\n[core]\n\thooksPath = .husky\n');
    writeFileSync(join(main, 'extra.cfg'), '[diff "x"]\n\tcommand = evil\n');
    const layout = gitLayout(wt)!;
    expect(layout).toEqual({ dotGit: join(wt, '.git'), dotGitKind: 'file', gitDir: join(main, 'worktrees', 'wt'), commonDir: main });
    expect(repoConfig(layout).map((e) => e.key)).toEqual(['include.path', 'diff.x.command', 'core.hookspath']);
  });

  it('hardeningPairs: the fixed list, then a neutral value for each program-valued key the repository sets', () => {
    const entries = parseGitConfig('[diff "pdf"]\ntextconv = x\n[filter "f"]\nsmudge = y\nrequired\n[alias]\nst = !sh\n[user]\nname = u\n');
    expect(hardeningPairs(entries)).toEqual([
      ['core.fsmonitor', ''],
      ['core.pager', 'cat'],
      ['diff.external', ''],
      ['core.hooksPath', '/dev/null'],
      ['diff.pdf.textconv', 'cat'],
      ['filter.f.smudge', ''],
      ['filter.f.required', 'false'],
      ['alias.st', ''],
    ]);
  });

  it('appends after config pairs the environment already has', () => {
    const env = gitHardeningEnv(join(base, 'nowhere'), { GIT_CONFIG_COUNT: '2' });
    expect([env.GIT_CONFIG_COUNT, env.GIT_CONFIG_KEY_2, env.GIT_CONFIG_VALUE_5]).toEqual(['6', 'core.fsmonitor', '/dev/null']);
  });
});

describe('a repository that plants programs in its config', () => {
  const ws = join(base, 'planted');
  const marks = join(base, 'marks');
  const home = join(base, 'home');
  mkdirSync(marks, { recursive: true });
  mkdirSync(home, { recursive: true });
  const { env } = gitRepo(ws, home, { '.gitattributes': '*.txt diff=evil filter=evil\n', 'a.txt': 'one\n' });
  writeFileSync(join(ws, 'a.txt'), 'two\n');
  const touch = (name: string) => `sh -c 'touch ${marks}/${name}; cat'`;
  const hook = join(ws, 'hooks-planted');
  mkdirSync(hook);
  writeFileSync(join(hook, 'post-checkout'), `#!/bin/sh\ntouch ${marks}/hook\n`);
  chmodSync(join(hook, 'post-checkout'), 0o755);
  writeFileSync(join(ws, '.git', 'config'), [
    '[core]',
    `\tfsmonitor = ${JSON.stringify(`touch ${marks}/fsmonitor; false`)}`,
    `\tpager = ${JSON.stringify(`touch ${marks}/pager; cat`)}`,
    `\thooksPath = ${hook}`,
    '[diff "evil"]',
    `\ttextconv = ${JSON.stringify(touch('textconv'))}`,
    `\tcommand = ${JSON.stringify(`touch ${marks}/extdiff`)}`,
    '[filter "evil"]',
    `\tclean = ${JSON.stringify(touch('clean'))}`,
    `\tsmudge = ${JSON.stringify(touch('smudge'))}`,
    '[alias]',
    `\tst = ${JSON.stringify(`!touch ${marks}/alias`)}`,
    '',
  ].join('\n'));
  const commands = 'git status; git diff; git log -p -1; git show HEAD; git -c color.ui=always diff --stat; git st; env git status; (cd . && command git diff); git checkout -q -b side 2>/dev/null; true';

  function runAs(profile: 'read' | 'write', contain: boolean): string[] {
    for (const f of readdirSync(marks)) rmSync(join(marks, f));
    const launcher = createLauncher({ level: 'off', root: ws, home, configDir: join(home, 'c'), stateDir: join(home, 's'), network: false, features: { userns: false, disableUserns: false }, contain });
    const launch = launcher({ command: commands, cwd: ws, profile, env });
    spawnSync(launch.file, launch.args, { cwd: ws, env: { ...launch.env, GIT_PAGER_IN_USE: undefined }, stdio: 'ignore' });
    launch.release();
    return readdirSync(marks).sort();
  }

  for (const contain of containWorks ? [false, true] : [false]) {
    const how = contain ? 'contained' : 'as they are';
    it(`read-only commands run none of them, with the sandbox off (${how})`, () => {
      expect(runAs('read', contain)).toEqual([]);
    });

    it(`the same commands without the hardening do run them (the check above can fail; ${how})`, () => {
      expect(runAs('write', contain)).toEqual(['alias', 'clean', 'extdiff', 'fsmonitor', 'smudge', 'textconv']);
    });
  }
});
