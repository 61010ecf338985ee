// Containment for commands that run without the sandbox (--sandbox off): bwrap with the file
// system as it is (all of it, writable as usual) and only a PID namespace of its own that dies
// with feiyu, so nothing a command starts (a `setsid` daemon included) outlives its command, its
// job or feiyu, however feiyu ends. Must not confine files or the network: that is the sandbox's job.

import { spawn } from 'node:child_process';
import { BWRAP } from './sandbox.js';
import type { WrapCommand } from '../types.js';

// /dev again with its devices: a plain bind of / leaves /dev/null unwritable in the namespace.
const CONTAIN = ['--bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent'];

/** The argv that runs `command` with bash in `cwd`, contained. */
export function containArgv(command: string, cwd: string): string[] {
  return [BWRAP, ...CONTAIN, '--chdir', cwd, '--', '/bin/bash', '-c', command];
}

/** The wrapCommand for --sandbox off when containment works. */
export const containCommand: WrapCommand = (command, cwd) => {
  const [file, ...args] = containArgv(command, cwd);
  return { file: file!, args };
};

/** Whether containment works here (bwrap installed, user namespaces allowed). */
export function probeContainment(bwrap = BWRAP, timeoutMs = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(bwrap, [...CONTAIN, '--', '/bin/true'], { stdio: 'ignore', timeout: timeoutMs });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
