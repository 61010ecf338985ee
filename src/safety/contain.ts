// Containment for commands that run without the sandbox (--sandbox off): bwrap with the file
// system as it is (all of it, writable as usual) and only a PID namespace of its own that dies
// with feiyu, so nothing a command starts (a `setsid` daemon included) outlives its command, its
// job or feiyu, however feiyu ends. Must not confine files or the network: that is the sandbox's job.

import { spawn } from 'node:child_process';
import { BASH } from '../util/process.js';
import { BWRAP } from './sandbox.js';

// /dev again with its devices: a plain bind of / leaves /dev/null unwritable in the namespace.
const CONTAIN = ['--bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent'];

/** The argv, starting with /usr/bin/bwrap, that runs `command` with bash in `cwd`, contained. */
export function containArgv(command: string, cwd: string): string[] {
  return [BWRAP, ...CONTAIN, '--chdir', cwd, '--', BASH, '-c', command];
}

/**
 * Whether containment works here: the containment argv runs, and the command inside sees a PID
 * namespace of its own (bash's own pid is small). A bwrap that runs commands without one does not count.
 */
export function probeContainment(bwrap = BWRAP, timeoutMs = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    const args = [...CONTAIN, '--', BASH, '-c', '[ $$ -le 4 ]'];
    const child = spawn(bwrap, args, { stdio: 'ignore', timeout: timeoutMs, env: { PATH: '/usr/bin:/bin' } });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
