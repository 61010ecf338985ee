// Runs the built CLI (dist/cli.js) as a child process with an isolated home, config and state,
// for the end-to-end suites. Every CLI belongs to the test that started it (test/scope.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { currentTest } from './scope.js';

export const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

export type CliRun = { code: number | null; stdout: string; stderr: string };
export type StartedCli = { child: ChildProcess; done: Promise<CliRun> };

/** The environment of a user whose home is `home`: XDG folders inside it, English, no trace log. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    LANG: 'en_US.UTF-8',
    FEIYU_NO_LOG: '1',
    ...extra,
  };
}

/** Starts the CLI in `cwd`; `done` resolves with its exit code and output. Killed when the test ends. */
export function startCli(args: string[], o: { cwd: string; home: string; env?: Record<string, string>; input?: string }): StartedCli {
  const env = cliEnv(o.home, { ...currentTest().env, ...o.env });
  const child = spawn(process.execPath, [CLI, ...args], { cwd: o.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdin!.on('error', () => {}); // a CLI that exits before reading its input
  child.stdin!.end(o.input ?? '');
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}
