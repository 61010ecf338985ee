// The bash tool: runs one command in its own process group, in the persistent shell cwd, and
// returns its interleaved output, capped, with the exit code. Owns process lifetime (timeouts,
// interrupts, stray background children) and the shell's working directory (ctx.shell, which
// only this tool moves); must not decide whether a command may run. `background: true` hands the
// command to the context's jobs (jobs.ts). Keeps no state of its own between calls.

import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { ANSI, placeOf, runInGroup, shellQuote } from '../util/process.js';
import { inside, workspaceGone } from '../util/paths.js';
import { toolError, type Tool, type ToolContext, type ToolGrant, type ToolOutput } from '../types/tools.js';

const DEFAULT_TIMEOUT_S = 120;
const MAX_TIMEOUT_S = 600;
type BashArgs = { command: string; timeout?: number; description?: string; background?: boolean };

/** Contract: runTool hands the decision's profile; without one (an approval by a hook) the command may write. */
async function bashTool(args: BashArgs, ctx: ToolContext, grant?: ToolGrant): Promise<ToolOutput> {
  const profile = grant?.sandbox ?? 'write';
  if (typeof args.command !== 'string' || args.command.trim() === '') return toolError('command is empty');
  if (args.command.includes('\0')) return toolError('command contains a NUL byte');
  const timeoutS = Math.min(MAX_TIMEOUT_S, Math.max(1, Number(args.timeout) || DEFAULT_TIMEOUT_S));
  const gone = await workspaceGone(ctx.root);
  if (gone) return toolError(gone);
  const notes: string[] = [];
  const shell = ctx.shell;
  const cwdOk = await stat(shell.cwd).then((st) => st.isDirectory(), () => false);
  if (!cwdOk || !inside(ctx.root, shell.cwd)) {
    notes.push(`[the working directory ${shell.cwd} is gone; this command ran in ${ctx.root}]`);
    shell.cwd = ctx.root;
  }
  if (args.background) {
    if (!ctx.jobs) return toolError('background jobs are not available here; run the command without background');
    const started = await ctx.jobs.startForModel(args.command, ctx, profile);
    return notes.length ? { ...started, output: [...notes, started.output].join('\n') } : started;
  }
  // The EXIT trap reports where the shell ended, on fd 3, behind a token the command cannot know
  // in advance; it also fires on `exit N` and keeps N. The command runs through eval so that the
  // trap is set even when the command does not parse, and bash's errors quote the command alone.
  const token = `__feiyu_cwd_${randomBytes(8).toString('hex')}:`;
  const script = `trap 'printf "\\n${token}%s\\n" "$(pwd -P)" 2>/dev/null >&3' EXIT; exec 2>&1; eval ${shellQuote(args.command)}`;
  const started = Date.now();
  const run = await runInGroup(script, placeOf(ctx, profile), { timeoutMs: timeoutS * 1000, signal: ctx.signal, merge: true, fd3: true, reap: true, onOutput: ctx.progress });
  const { ending, stdout: output, lingered } = run;
  const at = run.fd3.lastIndexOf(token);
  const cwd = at >= 0 ? run.fd3.slice(at + token.length).split('\n')[0] : undefined;
  const secs = Math.round((Date.now() - started) / 100) / 10;
  if (cwd && inside(ctx.root, cwd)) shell.cwd = cwd;
  else if (cwd) {
    notes.push(`[the command ended in ${cwd}, outside the workspace; the next command starts in ${ctx.root}]`);
    shell.cwd = ctx.root;
  }
  if (lingered) notes.push('[background processes still holding the output were stopped when the command ended]');
  const body = [output.replace(ANSI, '').replace(/\n$/, '') || '(no output)', ...notes];
  switch (ending.kind) {
    case 'spawn':
      return toolError(`could not start bash: ${ending.message}`);
    case 'timeout':
      body.push(`[timed out after ${timeoutS} s; the command and its child processes were killed]`);
      return toolError(body.join('\n'), { summary: { key: 'timeout', secs: timeoutS } });
    case 'abort':
      body.push('[interrupted]');
      return toolError(body.join('\n'));
    case 'exit': {
      const code = ending.code ?? 128;
      body.push(ending.signal ? `killed by signal ${ending.signal}` : `exit code ${code}`);
      return { output: body.join('\n'), isError: code !== 0 || ending.signal !== null, summary: { key: 'exit', code, secs } };
    }
  }
}

export const bash: Tool<BashArgs> = {
  name: 'bash',
  description:
    'Run a bash command; the working directory persists between calls. No stdin; stdout and stderr merged, cut in the middle past 30,000 chars. Timeout 120 s by default; processes left running are stopped unless background.',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string' },
      timeout: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_S },
      description: { type: 'string', description: 'A few words for the user' },
      background: { type: 'boolean', description: 'A job (servers, watchers): see job' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  kind: 'exec',
  describe: (a) => ({ title: a.command, command: a.command }),
  run: bashTool,
};
