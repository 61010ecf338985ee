// Hooks and verify: runs the user's hook commands at PreToolUse, PostToolUse, UserPromptSubmit and
// Stop with the protocol of DESIGN.md §4, and the `verify:` command after every successful write,
// outside the sandbox, in the workspace, each with a timeout. Must not decide trust: the caller
// passes only the hooks and verify commands that may run.

import { runInGroup, shellQuote, type Ending } from '../util/process.js';
import { Problem } from '../i18n/index.js';
import type { HookSpec } from '../config/settings.js';
import type { AgentEvent, CommandFailure, HookEvent } from '../types/events.js';
import type { Decision } from '../types/permissions.js';
import type { ToolCallBlock } from '../types/conversation.js';
import type { ToolOutput } from '../types/tools.js';

const HOOK_TIMEOUT_S = 60;
const VERIFY_TIMEOUT_S = 120;
/** Characters of a hook's stdout or stderr passed on. */
const HOOK_CAP = 4000;
/** Characters of a failed verify's output given to the model (head and tail). */
const VERIFY_CAP = 6000;
/** Tools after which verify runs: the file tools, not bash (that would test after every ls). */
const VERIFIED_TOOLS = new Set(['write_file', 'edit_file']);

/** How a command ended; `abort` is the user's Ctrl+C, never reported as a failure. */
type End = CommandFailure | { kind: 'abort' };

export type HookRunnerOptions = {
  /** Only hooks that may run: the user's, and the project's once trusted. */
  hooks: Partial<Record<HookEvent, HookSpec[]>>;
  /** The verify command(s), run in order after each successful write_file / edit_file; only once trusted. */
  verify?: string | string[];
  /** The workspace: every hook and verify runs there. */
  root: string;
  /** A getter: resuming another session changes the id. */
  sessionId: () => string;
  /** The user's own environment: hooks are the user's commands, not the model's. */
  env: NodeJS.ProcessEnv;
  /** Receives hook_failed and verify events for the interface and the trace. */
  emit?: (event: AgentEvent) => void;
  /** Seconds; default 120. */
  verifyTimeout?: number;
};

export interface HookRunner {
  /** null: no hook objects (the permission policy decides); a deny: a hook blocked the call or failed. */
  preToolUse(call: ToolCallBlock, signal?: AbortSignal): Promise<Decision | null>;
  /** PostToolUse hooks, then verify after a successful write; returns the result, amended. */
  postToolUse(call: ToolCallBlock, result: ToolOutput, signal?: AbortSignal): Promise<ToolOutput>;
  /** `block`: do not send the prompt (the reason is for the user); `context`: add it to the prompt. */
  userPromptSubmit(prompt: string, signal?: AbortSignal): Promise<{ block?: string; context?: string }>;
  /** For the agent's onStop: a reason sends the model back to work, at most once per user message. */
  stop(text: string, signal?: AbortSignal): Promise<string | null>;
  /** Call at each user message. */
  resetForTurn(): void;
}

type Hook = HookSpec & { match: RegExp | null };

/** How a command ended and what it printed (each stream capped). */
type Ran = { end: End; stdout: string; stderr: string };

/** Throws on a matcher that is not a regular expression: bad configuration, at start-up. */
function compile(event: HookEvent, specs: HookSpec[]): Hook[] {
  return specs.map((spec, i) => {
    const source = spec.matcher?.trim() ?? '';
    if (!source || source === '*') return { ...spec, match: null };
    try {
      // Anchored: "bash" must not also match a future "bash_session"; write "edit.*" for a family.
      return { ...spec, match: new RegExp(`^(?:${source})$`) };
    } catch (err) {
      throw new Problem('hooks.matcher', { event, index: i, matcher: source, detail: (err as Error).message });
    }
  });
}

/** Builds the runner. Throws on an invalid matcher (bad configuration). */
export function createHookRunner(opts: HookRunnerOptions): HookRunner {
  const hooks = Object.fromEntries(
    Object.entries(opts.hooks).map(([event, specs]) => [event, compile(event as HookEvent, specs ?? [])]),
  ) as Partial<Record<HookEvent, Hook[]>>;
  const verify = typeof opts.verify === 'string' ? [opts.verify] : (opts.verify ?? []);
  const emit = (event: AgentEvent) => opts.emit?.(event);
  let sentBack = false;

  /**
   * Runs the event's hooks in order until one blocks (exit 2). Any other failure is shown to the
   * user, and blocks too when `failClosed`; the stdout of those that passed is collected.
   */
  async function run(event: HookEvent, payload: Record<string, unknown>, failClosed: boolean, signal?: AbortSignal): Promise<{ block?: string; stdout: string[] }> {
    const tool = typeof payload.tool === 'string' ? payload.tool : undefined;
    const stdin = JSON.stringify({ event, ...payload, cwd: opts.root, session_id: opts.sessionId() });
    const stdout: string[] = [];
    for (const hook of hooks[event] ?? []) {
      if (tool !== undefined && hook.match && !hook.match.test(tool)) continue;
      const ran = await runShell(hook.command, { cwd: opts.root, env: opts.env, stdin, timeout: hook.timeout ?? HOOK_TIMEOUT_S, signal });
      const { end } = ran;
      if (end.kind === 'abort') return failClosed ? { block: 'cancelled by the user', stdout } : { stdout };
      if (end.kind === 'exit' && end.code === 0) {
        if (ran.stdout.trim()) stdout.push(ran.stdout.trim());
        continue;
      }
      if (end.kind === 'exit' && end.code === 2) return { block: ran.stderr.trim() || `the ${event} hook gave no reason`, stdout };
      const stderr = firstLine(ran.stderr);
      emit({ type: 'hook_failed', event, command: hook.command, failure: end, stderr, blocked: failClosed });
      if (failClosed) return { block: `the hook ${hook.command} failed (it ${failureWords(end)}${stderr ? `: ${stderr}` : ''}), so the call is refused; tell the user if this persists`, stdout };
    }
    return { stdout };
  }

  async function runVerify(signal?: AbortSignal): Promise<string> {
    for (const command of verify) {
      const started = Date.now();
      // Merged, so the model reads errors in the order they were printed.
      const ran = await runShell(`exec 2>&1; eval ${shellQuote(command)}`, {
        cwd: opts.root,
        env: opts.env,
        timeout: opts.verifyTimeout ?? VERIFY_TIMEOUT_S,
        signal,
        cap: VERIFY_CAP,
      });
      const secs = Math.round((Date.now() - started) / 100) / 10;
      const { end } = ran;
      if (end.kind === 'abort') return '[verify was interrupted]';
      if (end.kind === 'exit' && end.code === 0) {
        emit({ type: 'verify', command, secs });
        continue;
      }
      emit({ type: 'verify', command, secs, failure: end });
      return `[verify failed: \`${command}\` ${failureWords(end)}. The change was written; fix what it reports.]\n${ran.stdout.trimEnd() || '(no output)'}`;
    }
    return `[verify passed: ${verify.join('; ')}]`;
  }

  return {
    async preToolUse(call, signal) {
      const { block } = await run('PreToolUse', { tool: call.name, input: call.input }, true, signal);
      return block === undefined ? null : { decision: 'deny', reason: `blocked by a PreToolUse hook: ${block}` };
    },

    async postToolUse(call, result, signal) {
      const { block } = await run('PostToolUse', { tool: call.name, input: call.input, output: result.output }, false, signal);
      const notes: string[] = [];
      if (block !== undefined) notes.push(`[PostToolUse hook: ${block}]`);
      if (verify.length && VERIFIED_TOOLS.has(call.name) && !result.isError && !signal?.aborted) notes.push(await runVerify(signal));
      return notes.length ? { ...result, output: [result.output, ...notes].join('\n') } : result;
    },

    async userPromptSubmit(prompt, signal) {
      const { block, stdout } = await run('UserPromptSubmit', { prompt }, false, signal);
      if (block !== undefined) return { block };
      return stdout.length ? { context: stdout.join('\n\n') } : {};
    },

    async stop(text, signal) {
      const { block } = await run('Stop', { text }, false, signal);
      if (block === undefined || sentBack) return null;
      sentBack = true;
      return `A Stop hook sent you back to work: ${block}`;
    },

    resetForTurn() {
      sentBack = false;
    },
  };
}

/** How a command failed, in a few words, for the model. */
function failureWords(failure: CommandFailure): string {
  switch (failure.kind) {
    case 'exit':
      return `exited with code ${failure.code}`;
    case 'signal':
      return `was killed by ${failure.signal}`;
    case 'timeout':
      return `timed out after ${failure.secs} s and was stopped`;
    case 'spawn':
      return `could not start: ${failure.message}`;
  }
}

const firstLine = (text: string): string => text.trim().split('\n')[0]!.slice(0, 200);

type ShellOptions = { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeout: number; signal?: AbortSignal; cap?: number };

/** Runs `script` with bash in its own process group, outside the sandbox; a timeout or abort kills the group. */
async function runShell(script: string, o: ShellOptions): Promise<Ran> {
  const cap = o.cap ?? HOOK_CAP;
  const run = await runInGroup(script, { cwd: o.cwd, env: o.env }, { stdin: o.stdin, timeoutMs: o.timeout * 1000, signal: o.signal, cap });
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
