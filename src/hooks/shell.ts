// Running one hook or verify command: bash in its own process group (util/process.ts runInGroup),
// outside the sandbox, in the workspace, with a timeout; and how it ended, in a few words for the
// model. Must not interpret what the command printed: runner.ts and verify.ts do.

import { runInGroup, type Ending } from '../util/process.js';
import type { CommandFailure } from '../types/events.js';

/** How a command ended; `abort` is the user's Ctrl+C, never reported as a failure. */
export type End = CommandFailure | { kind: 'abort' };

/** How a command ended and what it printed (each stream capped). */
export type Ran = { end: End; stdout: string; stderr: string };

export type ShellOptions = { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeout: number; signal?: AbortSignal; cap: number };

/** Runs `script` with bash in its own process group, outside the sandbox; a timeout or abort kills the group. */
export async function runShell(script: string, o: ShellOptions): Promise<Ran> {
  const run = await runInGroup(script, { cwd: o.cwd, env: o.env }, { stdin: o.stdin, timeoutMs: o.timeout * 1000, signal: o.signal, cap: o.cap });
  return { end: endOf(run.ending, o.timeout), stdout: run.stdout, stderr: run.stderr };
}

function endOf(ending: Ending, secs: number): End {
  switch (ending.kind) {
    case 'exit':
      if (ending.signal) return { kind: 'signal', signal: ending.signal };
      return ending.code === null ? { kind: 'spawn', message: 'no exit status' } : { kind: 'exit', code: ending.code };
    case 'timeout':
      return { kind: 'timeout', secs };
    default:
      return ending;
  }
}

/**
 * The command never ran its course: it could not start, bash could not find or execute it (126,
 * 127), it was killed or it timed out. Unlike an ordinary failure, this blocks a PreToolUse call.
 */
export function couldNotRun(end: CommandFailure): boolean {
  return end.kind !== 'exit' || end.code === 126 || end.code === 127;
}

/** How a command failed, in a few words, for the model. */
export function failureWords(failure: CommandFailure): string {
  switch (failure.kind) {
    case 'exit':
      return failure.code === 127 ? 'was not found (exit code 127)' : failure.code === 126 ? 'could not be executed (exit code 126)' : `exited with code ${failure.code}`;
    case 'signal':
      return `was killed by ${failure.signal}`;
    case 'timeout':
      return `timed out after ${failure.secs} s and was stopped`;
    case 'spawn':
      return `could not start: ${failure.message}`;
  }
}

/**
 * What a failed command said, in one line: its first line and, when there are more, its last (a
 * Python traceback's first line says nothing, its last says what went wrong).
 */
export function stderrGist(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length <= 1) return (lines[0] ?? '').slice(0, 200);
  return `${lines[0]!.slice(0, 100)} … ${lines.at(-1)!.slice(0, 100)}`;
}
