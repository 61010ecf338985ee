// Keeping what commands start from outliving feiyu without the sandbox: the containment argv (the
// whole file system as it is, a PID namespace that dies with feiyu), and where bwrap cannot be
// used, the record of process groups a killed feiyu leaves, which the next start stops.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containArgv } from '../src/safety/contain.js';
import { reapOrphanGroups } from '../src/util/groups.js';
import { bundleForChildren } from './child-bundle.js';
import { currentTest } from './scope.js';

/** Live processes (not zombies) whose command line holds `marker`. */
const running = (marker: string) =>
  readdirSync('/proc').filter((d) => {
    try {
      return /^\d+$/.test(d) && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker) && readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
    } catch {
      return false;
    }
  });

describe('containment', () => {
  it('keeps the file system as it is and adds only a PID namespace that dies with feiyu', () => {
    expect(containArgv('make test', '/work/p/src')).toEqual([
      '/usr/bin/bwrap', '--bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--chdir', '/work/p/src', '--', '/bin/bash', '-c', 'make test',
    ]);
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
    for (const deadline = Date.now() + 5000; running(mark).length && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(running(mark)).toEqual([]);
    expect(existsSync(join(state, 'groups', `${feiyu.pid}.json`))).toBe(false);
    expect(reapOrphanGroups(state)).toBe(0);
  });
});
