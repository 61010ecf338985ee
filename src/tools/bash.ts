// The bash tool: runs one command in its own process group, in the persistent shell cwd, and
// returns its interleaved output, capped, with the exit code. Owns process lifetime (timeouts,
// interrupts, stray background children) and how a command is spawned; must not decide whether a
// command may run. `background: true` hands the command to the context's job manager (jobs.ts).

import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { ANSI, killGroup, OutputCollector, shellQuote, signalGroup, spawnInGroup } from '../util/process.js';
import { inside, workspaceGone } from '../util/paths.js';
import type { Tool, ToolContext, ToolOutput } from '../types.js';

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;
/** After the shell exits, how long its pipes may stay open (a backgrounded child holds them). */
const PIPE_GRACE_MS = 250;

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
  const gone = await workspaceGone(ctx.root);
  if (gone) return { output: gone, isError: true };
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
