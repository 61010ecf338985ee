// Running commands in process groups: spawning a script as the leader of its own group (through
// the sandbox when one is set), running it to the end with a time limit (the bash tool, hooks and
// verify), signalling and killing the whole group, and collecting a long output's head and tail.
// Background jobs spawn through the same path and manage their lifetime themselves.

import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { capOutput, countNewlines, OUTPUT_CAP } from './cap.js';
import { forgetGroup, noteGroup } from './groups.js';
import type { Launch, SandboxProfile, ToolContext, WrapCommand } from '../types/tools.js';

/** Bytes of output kept at each end; the middle of a runaway output is counted, not stored. */
const KEEP_BYTES = 128 * 1024;
/** Room for the notes and the exit line, so runTool's cap never cuts ours again. */
const BASH_CAP = OUTPUT_CAP - 1000;

/** After SIGTERM, the group gets this long before SIGKILL. */
export const KILL_GRACE_MS = 2000;
// CSI and OSC escape sequences: colours and titles cost tokens and mean nothing to the model.
export const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** Keeps the head and tail of a stream and counts what falls out of the middle, decoded in order. */
export class OutputCollector {
  private readonly decoder = new StringDecoder('utf8');
  private head = '';
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = { chars: 0, lines: 0 };
  private overflow = false;

  push(chunk: Buffer): void {
    if (this.headBytes < KEEP_BYTES) {
      const take = chunk.subarray(0, KEEP_BYTES - this.headBytes);
      this.head += this.decoder.write(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= KEEP_BYTES) {
      const old = this.tail.shift() as Buffer;
      this.tailBytes -= old.length;
      const text = this.decoder.write(old);
      this.dropped.chars += text.length;
      this.dropped.lines += countNewlines(text);
      this.overflow = true;
    }
  }

  /** Everything collected, cut in the middle to `max` characters. */
  text(max = BASH_CAP): string {
    const tail = this.tail.map((b) => this.decoder.write(b)).join('') + this.decoder.end();
    const gap = this.overflow ? { at: this.head.length, ...this.dropped } : undefined;
    return capOutput(this.head + tail, max, gap);
  }
}

/** One decoder per stream, so a character split between chunks arrives whole. */
function liveDecoders(onOutput: (text: string) => void) {
  const decode = () => {
    const decoder = new StringDecoder('utf8');
    return (chunk: Buffer) => {
      const text = decoder.write(chunk);
      if (text) onOutput(text);
    };
  };
  return { stdout: decode(), stderr: decode() };
}

/** Signals every process of the group led by `pid`; false when the group is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the whole group now, SIGKILL to whatever is left a little later. */
export function killGroup(pid: number): void {
  if (!signalGroup(pid, 'SIGTERM')) return;
  setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
}

/** Single-quotes `text` for bash. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** bash by absolute path: a PATH may reach into the workspace. */
export const BASH = '/bin/bash';

/** A command run with bash as it is, outside any sandbox, with `env`. */
export const plainBash = (command: string, env: NodeJS.ProcessEnv): Launch => ({ file: BASH, args: ['-c', command], env, release: () => {} });

/**
 * Where and how a command runs: its directory, its environment, and the sandbox launcher with the
 * profile the call was granted (absent: plain bash, for hooks, verify and tests of the tools alone).
 */
export type Place = { cwd: string; env: NodeJS.ProcessEnv; sandbox?: { wrap: WrapCommand; profile: SandboxProfile } };

/** A tool call's place: the shell's directory, the context's environment and launcher, with `profile`. */
export const placeOf = (ctx: ToolContext, profile: SandboxProfile): Place => ({
  cwd: ctx.shell.cwd,
  env: ctx.env,
  ...(ctx.wrapCommand && { sandbox: { wrap: ctx.wrapCommand, profile } }),
});

/**
 * Spawns `script` with bash as the leader of a new process group at `place`; `fds` pipes from
 * fd 1 up, and stdin a pipe when `stdin` is set (else none). What the launch holds (placeholders
 * of protected paths) is released once the process has exited.
 */
export function spawnInGroup(script: string, place: Place, fds: number, stdin = false): ChildProcess {
  const { sandbox } = place;
  const launch = sandbox ? sandbox.wrap({ command: script, cwd: place.cwd, profile: sandbox.profile, env: place.env }) : plainBash(script, place.env);
  const stdio: ('ignore' | 'pipe')[] = [stdin ? 'pipe' : 'ignore', ...Array<'pipe'>(fds).fill('pipe')];
  // Named as bash names itself in its errors.
  const argv0 = launch.file === BASH ? 'bash' : undefined;
  const child = spawn(launch.file, launch.args, { argv0, cwd: place.cwd, env: launch.env, stdio, detached: true });
  child.once('exit', launch.release);
  child.once('error', launch.release);
  // Recorded (when containment is unavailable) so that the next start can stop what a killed feiyu left.
  const pid = child.pid;
  if (pid !== undefined) {
    noteGroup(pid);
    child.once('close', () => forgetGroup(pid));
  }
  return child;
}

/** After the command exits, how long its pipes may stay open (a backgrounded child holds them). */
const PIPE_GRACE_MS = 250;

/** How a command ended: `abort` is the caller's signal, `timeout` the time limit. */
export type Ending =
  | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'timeout' }
  | { kind: 'abort' }
  | { kind: 'spawn'; message: string };

export type RunOptions = {
  /** Written to the command's stdin; absent: no stdin. */
  stdin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Characters kept of each output (head and tail). */
  cap?: number;
  /** stderr into the same collector as stdout, in arrival order. */
  merge?: boolean;
  /** Read fd 3 too (the first 64 KB). */
  fd3?: boolean;
  /** Called with stdout and stderr as they arrive, decoded (for a live view; the result has it all). */
  onOutput?: (text: string) => void;
  /**
   * When the command exits, stop what it left in its group (a bash call outlives no command);
   * `lingered` says whether anything was. Without it, leftovers keep running once the pipes are cut.
   */
  reap?: boolean;
};

export type RunResult = { ending: Ending; stdout: string; stderr: string; fd3: string; lingered: boolean };

/**
 * The one command runner (the bash tool, hooks, verify): spawns `script` in its own process group,
 * kills the group on timeout or abort, and settles once the command is gone and its pipes are
 * drained or, after a grace period, cut.
 */
export function runInGroup(script: string, place: Place, o: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const out = new OutputCollector();
    const err = o.merge ? out : new OutputCollector();
    let fd3 = '';
    let ending: Ending | undefined;
    let lingered = false;
    let settled = false;
    const child = spawnInGroup(script, place, o.fd3 ? 3 : 2, o.stdin !== undefined);
    const stop = (why: Ending): void => {
      ending ??= why;
      if (child.pid !== undefined) killGroup(child.pid);
    };
    const timer = setTimeout(() => stop({ kind: 'timeout' }), o.timeoutMs);
    const onAbort = (): void => stop({ kind: 'abort' });
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (o.reap && child.pid !== undefined) killGroup(child.pid);
      for (const stream of child.stdio) stream?.destroy();
      const stdout = out.text(o.cap);
      resolve({ ending: ending ?? { kind: 'exit', code: null, signal: null }, stdout, stderr: o.merge ? '' : err.text(o.cap), fd3, lingered });
    };
    const live = o.onOutput && liveDecoders(o.onOutput);
    child.stdout?.on('data', (chunk: Buffer) => {
      out.push(chunk);
      live?.stdout(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err.push(chunk);
      live?.stderr(chunk);
    });
    child.stdio[3]?.on('data', (chunk: Buffer) => {
      if (fd3.length < 1 << 16) fd3 += chunk.toString('utf8');
    });
    // A command that does not read its input closes the pipe early: that is not a failure.
    child.stdin?.on('error', () => {});
    child.stdin?.end(o.stdin ?? '');
    child.on('error', (e) => {
      ending ??= { kind: 'spawn', message: e.message };
      finish();
    });
    child.on('exit', (code, signal) => {
      ending ??= { kind: 'exit', code, signal };
      // A backgrounded child keeps the pipes open after the shell is gone: give them a moment, then cut.
      setTimeout(() => {
        if (settled || !o.reap || child.pid === undefined) return finish();
        lingered = ending?.kind === 'exit' && signalGroup(child.pid, 0);
        killGroup(child.pid);
        setTimeout(finish, PIPE_GRACE_MS);
      }, PIPE_GRACE_MS);
    });
    child.on('close', finish);
  });
}
