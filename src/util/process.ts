// Running commands in process groups: spawning a script as the leader of its own group (through
// the sandbox when one is set), signalling and killing the whole group, and collecting a long
// output's head and tail. One runner for the bash tool, background jobs and hooks.

import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { capOutput, countNewlines, OUTPUT_CAP } from './cap.js';
import { forgetGroup, noteGroup } from './groups.js';
import type { ToolContext } from '../types.js';

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

/**
 * Spawns `script` with bash as the leader of a new process group, in the shell cwd, with the
 * context's environment, through the sandbox when one is set; `fds` pipes from fd 1 up.
 */
export function spawnInGroup(script: string, ctx: ToolContext, fds: number): ChildProcess {
  const { file, args } = ctx.wrapCommand ? ctx.wrapCommand(script, ctx.shellCwd) : { file: 'bash', args: ['-c', script] };
  const stdio: ('ignore' | 'pipe')[] = ['ignore', ...Array<'pipe'>(fds).fill('pipe')];
  const child = spawn(file, args, { cwd: ctx.shellCwd, env: ctx.env, stdio, detached: true });
  const pid = child.pid;
  if (pid !== undefined) {
    noteGroup(pid);
    child.once('close', () => forgetGroup(pid));
  }
  return child;
}
