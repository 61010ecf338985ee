// The bash tool: runs one command in its own process group, in the persistent shell cwd, and
// returns its interleaved output, capped, with the exit code. Owns process lifetime (timeouts,
// interrupts, stray background children) and how a command is spawned; must not decide whether a
// command may run. `background: true` hands the command to the context's job manager (jobs.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { capOutput, countNewlines, OUTPUT_CAP } from './cap.js';
import { inside } from './paths.js';
import type { Tool, ToolContext, ToolOutput } from './types.js';

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;
/** After SIGTERM, the group gets this long before SIGKILL. */
export const KILL_GRACE_MS = 2000;
/** After the shell exits, how long its pipes may stay open (a backgrounded child holds them). */
const PIPE_GRACE_MS = 250;
/** Bytes of output kept at each end; the middle of a runaway output is counted, not stored. */
const KEEP_BYTES = 128 * 1024;
/** Room for the notes and the exit line, so runTool's cap never cuts ours again. */
const BASH_CAP = OUTPUT_CAP - 1000;

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
  return spawn(file, args, { cwd: ctx.shellCwd, env: ctx.env, stdio, detached: true });
}

/** Starts a command as a background job and reports it to the model; jobs.ts registers one per context. */
export type StartBackground = (command: string, ctx: ToolContext) => Promise<ToolOutput>;

// Keyed by context: ToolContext (types.ts) has no field for the job manager, and one agent has one context.
const backgrounds = new WeakMap<ToolContext, StartBackground>();

/** Lets bash calls running with `ctx` take `background: true`. */
export function allowBackground(ctx: ToolContext, start: StartBackground): void {
  backgrounds.set(ctx, start);
}

type BashArgs = { command: string; timeout?: number; description?: string; background?: boolean };

type Ending = { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null } | { kind: 'timeout' } | { kind: 'abort' } | { kind: 'spawn'; message: string };

async function bashTool(args: BashArgs, ctx: ToolContext): Promise<ToolOutput> {
  if (typeof args.command !== 'string' || args.command.trim() === '') return { output: 'command is empty', isError: true };
  if (args.command.includes('\0')) return { output: 'command contains a NUL byte', isError: true };
  const timeoutS = Math.min(MAX_TIMEOUT_S, Math.max(1, Number(args.timeout) || DEFAULT_TIMEOUT_S));
  const notes: string[] = [];
  const cwdOk = await stat(ctx.shellCwd).then((st) => st.isDirectory(), () => false);
  if (!cwdOk || !inside(ctx.root, ctx.shellCwd)) {
    notes.push(`[the working directory ${ctx.shellCwd} is gone; this command ran in ${ctx.root}]`);
    ctx.shellCwd = ctx.root;
  }
  if (args.background) {
    const start = backgrounds.get(ctx);
    if (!start) return { output: 'background jobs are not available here; run the command without background', isError: true };
    const started = await start(args.command, ctx);
    return notes.length ? { ...started, output: [...notes, started.output].join('\n') } : started;
  }
  // The EXIT trap reports where the shell ended, on fd 3, behind a token the command cannot know
  // in advance; it also fires on `exit N` and keeps N. The command runs through eval so that the
  // trap is set even when the command does not parse, and bash's errors quote the command alone.
  const token = `__feiyu_cwd_${randomBytes(8).toString('hex')}:`;
  const script = `trap 'printf "\\n${token}%s\\n" "$(pwd -P)" 2>/dev/null >&3' EXIT; exec 2>&1; eval ${shellQuote(args.command)}`;
  const started = Date.now();
  const { ending, output, cwd, lingered } = await runScript(script, ctx, timeoutS, token);
  const secs = Math.round((Date.now() - started) / 100) / 10;
  if (cwd && inside(ctx.root, cwd)) ctx.shellCwd = cwd;
  else if (cwd) {
    notes.push(`[the command ended in ${cwd}, outside the workspace; the next command starts in ${ctx.root}]`);
    ctx.shellCwd = ctx.root;
  }
  if (lingered) notes.push('[background processes still holding the output were stopped when the command ended]');
  const body = [output.replace(ANSI, '').replace(/\n$/, '') || '(no output)', ...notes];
  switch (ending.kind) {
    case 'spawn':
      return { output: `could not start bash: ${ending.message}`, isError: true };
    case 'timeout':
      body.push(`[timed out after ${timeoutS} s; the command and its child processes were killed]`);
      return { output: body.join('\n'), isError: true, summary: { key: 'timeout', secs: timeoutS } };
    case 'abort':
      body.push('[interrupted]');
      return { output: body.join('\n'), isError: true };
    case 'exit': {
      const code = ending.code ?? 128;
      body.push(ending.signal ? `killed by signal ${ending.signal}` : `exit code ${code}`);
      return { output: body.join('\n'), isError: code !== 0 || ending.signal !== null, summary: { key: 'exit', code, secs } };
    }
  }
}

type Run = { ending: Ending; output: string; cwd?: string; lingered: boolean };

/** Spawns the script in its own process group and settles once the shell is gone and its pipes are drained or cut. */
function runScript(script: string, ctx: ToolContext, timeoutS: number, token: string): Promise<Run> {
  return new Promise((resolve) => {
    const collector = new OutputCollector();
    let report = '';
    let ending: Ending | undefined;
    let lingered = false;
    let settled = false;
    const child = spawnInGroup(script, ctx, 3);
    const stop = (why: 'timeout' | 'abort'): void => {
      ending ??= { kind: why };
      if (child.pid !== undefined) killGroup(child.pid);
    };
    const timer = setTimeout(() => stop('timeout'), timeoutS * 1000);
    const onAbort = (): void => stop('abort');
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      // Anything left in the group (a child that closed its output) goes too: it outlives no command.
      if (child.pid !== undefined) killGroup(child.pid);
      for (const stream of child.stdio) stream?.destroy();
      const at = report.lastIndexOf(token);
      const cwd = at >= 0 ? report.slice(at + token.length).split('\n')[0] : undefined;
      resolve({ ending: ending ?? { kind: 'exit', code: null, signal: null }, output: collector.text(), cwd, lingered });
    };
    child.stdout?.on('data', (chunk: Buffer) => collector.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => collector.push(chunk));
    child.stdio[3]?.on('data', (chunk: Buffer) => {
      if (report.length < 1 << 16) report += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      ending ??= { kind: 'spawn', message: err.message };
      finish();
    });
    child.on('exit', (code, signal) => {
      ending ??= { kind: 'exit', code, signal };
      // A backgrounded child keeps the pipes open after the shell is gone: give them a moment, then cut.
      setTimeout(() => {
        if (settled || child.pid === undefined) return;
        lingered = ending?.kind === 'exit' && signalGroup(child.pid, 0);
        killGroup(child.pid);
        setTimeout(finish, PIPE_GRACE_MS);
      }, PIPE_GRACE_MS);
    });
    child.on('close', finish);
  });
}

export const bash: Tool<BashArgs> = {
  name: 'bash',
  description:
    'Run a bash command in the workspace; the working directory persists between calls. No stdin. stdout and stderr merged, cut in the middle past 30,000 chars. Timeout 120 s default, 600 max; processes left running are stopped unless background is set.',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string' },
      timeout: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_S, description: 'Seconds' },
      description: { type: 'string', description: 'A few words on what it does' },
      background: { type: 'boolean', description: 'Run as a job (servers, watchers), see the job tool' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  kind: 'exec',
  mainArg: (a) => a.command,
  run: bashTool,
};
