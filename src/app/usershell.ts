// The user's own shell commands (`!command` at the prompt): run as the user would run them in a
// terminal — no question, no sandbox — in the shell's folder with the filtered environment, their
// output streamed as it comes and kept (head and tail) for the screen and the model's next message.

import { ANSI, runInGroup } from '../util/process.js';
import type { Summary } from '../types/tools.js';

/** A command of the user's may run this long; Ctrl+C stops it sooner. */
const USER_TIMEOUT_MS = 30 * 60 * 1000;

export type UserRun = { output: string; summary: Summary; interrupted: boolean };

export async function runUserCommand(command: string, place: { cwd: string; env: NodeJS.ProcessEnv }, signal: AbortSignal, onOutput: (text: string) => void): Promise<UserRun> {
  const started = Date.now();
  const run = await runInGroup(command, place, { timeoutMs: USER_TIMEOUT_MS, signal, merge: true, reap: true, onOutput });
  const secs = Math.round((Date.now() - started) / 100) / 10;
  const output = run.stdout.replace(ANSI, '').replace(/\n$/, '');
  const { ending } = run;
  switch (ending.kind) {
    case 'exit':
      return { output, summary: { key: 'exit', code: ending.code ?? 128, secs }, interrupted: false };
    case 'timeout':
      return { output, summary: { key: 'timeout', secs: USER_TIMEOUT_MS / 1000 }, interrupted: false };
    case 'abort':
      return { output, summary: { key: 'exit', code: 130, secs }, interrupted: true };
    case 'spawn':
      return { output: ending.message, summary: { key: 'exit', code: 127, secs }, interrupted: false };
  }
}
