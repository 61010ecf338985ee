// Keeping what commands start from outliving feiyu without the sandbox: the containment argv (the
// whole file system as it is, a PID namespace that dies with feiyu) as the `off` level's launch,
// which keeps the read profile's environment; and where bwrap cannot be used, the record of
// process groups a killed feiyu leaves, which the next start stops.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containArgv, probeContainment } from '../src/safety/contain.js';
import { createLauncher } from '../src/safety/sandboxhost.js';
import { reapOrphanGroups } from '../src/util/groups.js';
import { runLaunch } from './attacks.js';
import { bundleForChildren } from './child-bundle.js';
import { currentTest, runningWith as running, waitFor } from './scope.js';

const containWorks = await probeContainment();

describe('containment', () => {
  it('keeps the file system as it is and adds only a PID namespace that dies with feiyu', () => {
    expect(containArgv('make test', '/work/p/src')).toEqual([
      '/usr/bin/bwrap', '--bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--chdir', '/work/p/src', '--', '/bin/bash', '-c', 'make test',
    ]);
  });
});

describe("the off level's launcher", () => {
  const root = '/work/p';
  const env = { PATH: '/usr/bin:/bin', HOME: '/home/u', SSH_AUTH_SOCK: '/run/user/1000/agent.sock', TERM: 'dumb' };
  const off = (contain: boolean) =>
    createLauncher({ level: 'off', root, home: '/home/u', configDir: '/c', stateDir: '/s', network: false, features: { userns: false, disableUserns: false }, contain });
  /** A launch with the environment reduced to what the read profile changes. */
  const seen = (contain: boolean, profile: 'read' | 'write') => {
    const { file, args, env: e } = off(contain)({ command: 'git log', cwd: '/work/p/src', profile, env });
    return { file, args, agent: e.SSH_AUTH_SOCK, gitHardened: e.GIT_CONFIG_NOSYSTEM === '1' && e.GIT_CONFIG_KEY_0 === 'core.fsmonitor' };
  };

  it('runs commands contained where containment works, and a read-only one still without the agent socket and with git hardened', () => {
    expect([seen(true, 'read'), seen(true, 'write')]).toEqual([
      { file: '/usr/bin/bwrap', args: containArgv('git log', '/work/p/src').slice(1), agent: undefined, gitHardened: true },
      { file: '/usr/bin/bwrap', args: containArgv('git log', '/work/p/src').slice(1), agent: env.SSH_AUTH_SOCK, gitHardened: false },
    ]);
  });

  it('runs plain bash where it does not, with the same environments', () => {
    expect([seen(false, 'read'), seen(false, 'write')]).toEqual([
      { file: '/bin/bash', args: ['-c', 'git log'], agent: undefined, gitHardened: true },
      { file: '/bin/bash', args: ['-c', 'git log'], agent: env.SSH_AUTH_SOCK, gitHardened: false },
    ]);
  });

  it.runIf(containWorks)('contained: a daemon a command started is gone when the command ends, and the file system is as it is', async () => {
    const mark = `feiyu-contain-${Math.random().toString(36).slice(2)}`;
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-contain-')));
    const launch = off(true)({ command: `setsid bash -c 'exec -a ${mark} sleep 300' & echo made > made.txt; cat made.txt`, cwd: dir, profile: 'write', env: { ...env, ...currentTest().env } });
    expect(await runLaunch(launch, dir)).toEqual({ code: 0, out: 'made\n' });
    expect(readFileSync(join(dir, 'made.txt'), 'utf8')).toBe('made\n');
    await waitFor(() => running(mark).length === 0, 'the daemon to be gone with its command');
  });
});

describe('without bwrap: the record of process groups', () => {
  it('lets the next start stop the groups of a feiyu killed with SIGKILL, and forgets them', async () => {
    const state = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-groups-')));
    const mark = `feiyu-orphan-${Math.random().toString(36).slice(2)}`;
    const bundle = await bundleForChildren(["export { recordGroupsIn } from './src/util/groups.ts';", "export { spawnInGroup } from './src/util/process.ts';"]);
    const script = `const m = await import(${JSON.stringify(bundle)}); m.recordGroupsIn(${JSON.stringify(state)});
      m.spawnInGroup('exec -a ${mark} sleep 300', { cwd: '/', env: process.env }, 2); setTimeout(() => console.log('ready'), 200); setInterval(() => {}, 1000);`;
    const feiyu = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...currentTest().env }, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((r) => feiyu.stdout.once('data', r));
    feiyu.kill('SIGKILL');
    await new Promise((r) => feiyu.once('close', r));
    expect(running(mark).length).toBe(1);
    expect(reapOrphanGroups(state)).toBe(1);
    await waitFor(() => running(mark).length === 0, 'the left group to be stopped');
    expect(running(mark)).toEqual([]);
    expect(existsSync(join(state, 'groups', `${feiyu.pid}.json`))).toBe(false);
    expect(reapOrphanGroups(state)).toBe(0);
  });
});
