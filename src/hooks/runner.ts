// Hooks (DESIGN.md §4): runs the user's hook commands at Claude Code's events with its protocol —
// the JSON on stdin (protocol.ts names the call as Claude does), $CLAUDE_PROJECT_DIR, exit 0 / 2 /
// other, the JSON reply (reply.ts) — every hook an event matches at once, outside the sandbox, in
// the workspace, each with a timeout; and says what they decided. Must not decide trust (the
// caller passes only hooks that may run) nor judge a call (safety/policy.ts weighs an allow or ask).

import { Problem } from '../i18n/index.js';
import { claudeToolName, toolNames } from '../util/claudenames.js';
import type { HookSpec, HookTable } from '../config/hooks.js';
import type { HookVerdict } from '../safety/policy.js';
import { claudeInput, feiyuInput, toolResponse, type ClaudeMode } from './protocol.js';
import { parseReply, type HookReply } from './reply.js';
import { couldNotRun, failureWords, stderrGist, runShell, type Ran } from './shell.js';
import { createVerify } from './verify.js';
import type { AgentEvent, HookEvent } from '../types/events.js';
import type { ToolCallBlock } from '../types/conversation.js';
import type { ToolOutput } from '../types/tools.js';

const HOOK_TIMEOUT_S = 60;
/** Characters of a hook's stdout or stderr read. */
const HOOK_CAP = 16_000;

export type HookRunnerOptions = {
  /** Only hooks that may run: the user's, and the project's once trusted. */
  hooks: HookTable;
  /** The verify command(s), run in order after each successful write_file / edit_file; only once trusted. */
  verify?: string | string[];
  /** The workspace: every hook and verify runs there. */
  root: string;
  /** The session as it is now (resuming another changes it): its id and its file, the hooks' transcript_path. */
  session: () => { id: string; file: string };
  /** The permission mode as hooks read it; default 'default'. */
  mode?: () => ClaudeMode;
  /** The user's own environment: hooks are the user's commands, not the model's. */
  env: NodeJS.ProcessEnv;
  /** Receives hook_failed, notices and verify events for the interface and the trace. */
  emit?: (event: AgentEvent) => void;
  /** Seconds; default 120. */
  verifyTimeout?: number;
};

/** What PreToolUse hooks said: a refusal (`stop`: they ended the turn), or an allow or ask for the policy, and arguments they changed. */
export type PreToolUse = { deny?: { reason: string; stop?: string }; verdict?: HookVerdict; input?: Record<string, unknown> };

export interface HookRunner {
  preToolUse(call: ToolCallBlock, signal?: AbortSignal): Promise<PreToolUse>;
  /** PostToolUse hooks (PostToolUseFailure after a failed call), then verify after a successful write; returns the result, amended. */
  postToolUse(call: ToolCallBlock, result: ToolOutput, signal?: AbortSignal): Promise<ToolOutput>;
  /** `block`: do not send the prompt (the reason is for the user); `context`: add it to the prompt. */
  userPromptSubmit(prompt: string, signal?: AbortSignal): Promise<{ block?: string; context?: string }>;
  /** Why the hooks send the model (or the sub-agent) back to work (sentBack words it), or null; `active`: a Stop hook already did in this turn. */
  stop(event: 'Stop' | 'SubagentStop', text: string, active: boolean, signal?: AbortSignal): Promise<string | null>;
  /** What SessionStart hooks add to the conversation's context. */
  sessionStart(source: 'startup' | 'resume' | 'clear' | 'compact'): Promise<string | undefined>;
  sessionEnd(reason: 'clear' | 'prompt_input_exit' | 'other'): Promise<void>;
  preCompact(trigger: 'manual' | 'auto', instructions: string | undefined, signal?: AbortSignal): Promise<void>;
  /** When feiyu asks the user something (`permission_prompt`). */
  notification(message: string, type: string): Promise<void>;
}

type Hook = HookSpec & { match: ((name: string) => boolean) | null };
type Outcome = Ran & { hook: Hook; reply: HookReply | null };

/**
 * A matcher as Claude Code reads it: none, "" or "*" match everything; letters, digits, `_` and `|`
 * alone are names, each matched whole ("Bash" is not "BashOutput"); anything else is a regular
 * expression found anywhere in the name ("^mcp__github", "Notebook.*"). feiyu's older flat form
 * keeps its anchored reading. Throws on an invalid regular expression: bad configuration, at start-up.
 */
function compileMatcher(event: HookEvent, index: number, matcher: string | undefined, flat = false): ((name: string) => boolean) | null {
  const source = matcher?.trim() ?? '';
  if (!source || source === '*') return null;
  if (/^[A-Za-z0-9_|]+$/.test(source)) {
    const names = new Set(source.split('|'));
    return (name) => names.has(name);
  }
  try {
    const re = new RegExp(flat ? `^(?:${source})$` : source);
    return (name) => re.test(name);
  } catch (err) {
    throw new Problem('hooks.matcher', { event, index, matcher: source, detail: (err as Error).message });
  }
}

function compile(event: HookEvent, specs: HookSpec[]): Hook[] {
  return specs.map((spec, i) => ({ ...spec, match: compileMatcher(event, i, spec.matcher, spec.flat) }));
}

/** What the model reads when a Stop or SubagentStop hook sends it back to work. */
export const sentBack = (event: 'Stop' | 'SubagentStop', reason: string): string => `A ${event} hook sent you back to work: ${reason}`;

const exitCode = (o: Outcome): number | null => (o.end.kind === 'exit' ? o.end.code : null);

/** Builds the runner. Throws on an invalid matcher (bad configuration). */
export function createHookRunner(opts: HookRunnerOptions): HookRunner {
  const hooks = Object.fromEntries(Object.entries(opts.hooks).map(([event, specs]) => [event, compile(event as HookEvent, specs ?? [])])) as Partial<Record<HookEvent, Hook[]>>;
  const emit = (event: AgentEvent) => opts.emit?.(event);
  const env = { ...opts.env, CLAUDE_PROJECT_DIR: opts.root, FEIYU_PROJECT_DIR: opts.root };
  const verify = createVerify({ commands: typeof opts.verify === 'string' ? [opts.verify] : (opts.verify ?? []), root: opts.root, env: opts.env, emit, timeout: opts.verifyTimeout });
  /** What PreToolUse hooks added for the model, given with the call's result. */
  const pending = new Map<string, string>();

  /**
   * Runs the event's hooks that match one of `subjects` (all of them without subjects), at once,
   * each command once. `legacy`: the fields feiyu's older flat-form hooks read, given to those only;
   * `also`: hooks of another event that run here too.
   */
  async function run(event: HookEvent, fields: Record<string, unknown>, o: { subjects?: string[]; legacy?: Record<string, unknown>; signal?: AbortSignal; also?: Hook[] } = {}): Promise<Outcome[]> {
    const matching = [...(hooks[event] ?? []), ...(o.also ?? [])].filter((h) => !o.subjects || !h.match || o.subjects.some((s) => h.match!(s)));
    // The same command from two settings files runs once, as in Claude Code.
    const matched = matching.filter((h, i) => matching.findIndex((other) => other.command === h.command) === i);
    if (!matched.length) return [];
    const session = opts.session();
    const payload = { session_id: session.id, transcript_path: session.file, cwd: opts.root, permission_mode: opts.mode?.() ?? 'default', hook_event_name: event, ...fields };
    const stdin = JSON.stringify(payload);
    const flat = o.legacy ? JSON.stringify({ ...payload, ...o.legacy }) : stdin;
    return Promise.all(
      matched.map(async (hook) => {
        const ran = await runShell(hook.command, { cwd: opts.root, env, stdin: hook.flat ? flat : stdin, timeout: hook.timeout ?? HOOK_TIMEOUT_S, signal: o.signal, cap: HOOK_CAP });
        const reply = ran.end.kind === 'exit' && ran.end.code === 0 ? parseReply(ran.stdout) : null;
        if (reply?.systemMessage) emit({ type: 'notice', code: 'hook_message', params: { event, message: reply.systemMessage } });
        if (reply?.continue === false) emit({ type: 'notice', code: 'hook_stopped', params: { event, reason: reply.stopReason ?? '' } });
        return { ...ran, hook, reply };
      }),
    );
  }

  /** Reports a hook that failed (`blocked`: its PreToolUse call is refused for it). */
  function failed(event: HookEvent, o: Outcome, blocked: boolean): void {
    if (o.end.kind === 'abort' || (o.end.kind === 'exit' && o.end.code === 0)) return;
    emit({ type: 'hook_failed', event, command: o.hook.command, failure: o.end, stderr: stderrGist(o.stderr), blocked });
  }

  /** Reports every failure except exit 2 where the event gives exit 2 a meaning. */
  const reportFailures = (event: HookEvent, outcomes: Outcome[], exit2Means: boolean) => {
    for (const o of outcomes) if (!(exit2Means && exitCode(o) === 2)) failed(event, o, false);
  };

  const stopped = (outcomes: Outcome[]) => outcomes.find((o) => o.reply?.continue === false)?.reply;
  const contexts = (outcomes: Outcome[], plain: boolean) =>
    outcomes.flatMap((o) => (exitCode(o) !== 0 ? [] : o.reply ? (o.reply.additionalContext ? [o.reply.additionalContext] : []) : plain && o.stdout.trim() ? [o.stdout.trim()] : []));

  function preToolVerdict(outcomes: Outcome[], call: ToolCallBlock): PreToolUse {
    let deny: PreToolUse['deny'];
    let ask: HookVerdict | undefined;
    let allow: HookVerdict | undefined;
    let updated: Record<string, unknown> | undefined;
    for (const o of outcomes) {
      const { end, reply } = o;
      if (end.kind === 'abort') deny ??= { reason: 'cancelled by the user' };
      else if (couldNotRun(end)) {
        failed('PreToolUse', o, true);
        const why = stderrGist(o.stderr);
        deny ??= { reason: `the hook ${o.hook.command} ${failureWords(end)}${why ? ` (${why})` : ''}, so the call is refused; tell the user if this persists` };
      } else if (exitCode(o) === 2) deny ??= { reason: o.stderr.trim() || 'the PreToolUse hook gave no reason' };
      else if (exitCode(o) !== 0) failed('PreToolUse', o, false);
      else if (reply?.continue === false) deny ??= { reason: reply.stopReason || 'a PreToolUse hook stopped the turn', stop: reply.stopReason ?? '' };
      else if (reply?.permissionDecision === 'deny' || (!reply?.permissionDecision && reply?.decision === 'block')) {
        deny ??= { reason: reply.permissionDecisionReason || reply.reason || 'a PreToolUse hook denied this call' };
      } else if (reply?.permissionDecision === 'ask') ask ??= { decision: 'ask', reason: reply.permissionDecisionReason ?? reply.reason };
      else if (reply?.permissionDecision === 'allow' || reply?.decision === 'approve') allow ??= { decision: 'allow', reason: reply.permissionDecisionReason ?? reply.reason };
      if (reply?.updatedInput) updated ??= reply.updatedInput;
    }
    if (deny) return { deny };
    const context = contexts(outcomes, false);
    if (context.length) pending.set(call.id, context.join('\n'));
    const verdict = ask ?? allow;
    return { ...(verdict && { verdict }), ...(updated && { input: feiyuInput(call.name, call.input, updated, opts.root) }) };
  }

  return {
    async preToolUse(call, signal) {
      const fields = { tool_name: claudeToolName(call.name, call.input), tool_input: claudeInput(call.name, call.input, opts.root), tool_use_id: call.id };
      const outcomes = await run('PreToolUse', fields, { subjects: toolNames(call.name, call.input), legacy: { event: 'PreToolUse', tool: call.name, input: call.input }, signal });
      const verdict = preToolVerdict(outcomes, call);
      if (verdict.deny) pending.delete(call.id);
      return verdict;
    },

    async postToolUse(call, result, signal) {
      // As in Claude Code, PostToolUse follows a call that succeeded, PostToolUseFailure one that
      // failed (a command's non-zero exit too); feiyu's older flat-form hooks follow every call.
      const failed = result.isError === true;
      const event: HookEvent = failed ? 'PostToolUseFailure' : 'PostToolUse';
      const base = { tool_name: claudeToolName(call.name, call.input), tool_input: claudeInput(call.name, call.input, opts.root) };
      const fields = failed
        ? { ...base, tool_use_id: call.id, error: result.output, is_interrupt: signal?.aborted === true }
        : { ...base, tool_response: toolResponse(call.name, call.input, result, opts.root), tool_use_id: call.id };
      const legacy = { event: 'PostToolUse', tool: call.name, input: call.input, output: result.output };
      const flat = failed ? (hooks.PostToolUse ?? []).filter((h) => h.flat) : [];
      const outcomes = await run(event, fields, { subjects: toolNames(call.name, call.input), legacy, signal, also: flat });
      reportFailures(event, outcomes, true);
      const before = pending.get(call.id);
      pending.delete(call.id);
      const said = [
        ...(before ? [before] : []),
        ...outcomes.flatMap((o) => (exitCode(o) === 2 ? [o.stderr.trim() || `the ${event} hook gave no reason`] : o.reply?.decision === 'block' ? [o.reply.reason || `a ${event} hook objected`] : [])),
        ...contexts(outcomes, false),
      ];
      const notes = said.map((text) => `[${event} hook: ${text}]`);
      const checked = await verify(call, result, signal);
      if (checked) notes.push(checked);
      const stop = stopped(outcomes);
      const amended = notes.length ? { ...result, output: [result.output, ...notes].join('\n') } : result;
      return stop ? { ...amended, endTurn: { text: stop.stopReason ?? '' } } : amended;
    },

    async userPromptSubmit(prompt, signal) {
      const outcomes = await run('UserPromptSubmit', { prompt }, { legacy: { event: 'UserPromptSubmit' }, signal });
      reportFailures('UserPromptSubmit', outcomes, true);
      const blocked = outcomes.find((o) => exitCode(o) === 2 || o.reply?.decision === 'block' || o.reply?.continue === false);
      if (blocked) return { block: (exitCode(blocked) === 2 ? blocked.stderr.trim() : (blocked.reply?.reason ?? blocked.reply?.stopReason)) || 'a UserPromptSubmit hook blocked it' };
      const context = contexts(outcomes, true);
      return context.length ? { context: context.join('\n\n') } : {};
    },

    async stop(event, text, active, signal) {
      const outcomes = await run(event, { stop_hook_active: active, last_assistant_message: text }, { legacy: { event, text }, signal });
      reportFailures(event, outcomes, true);
      // continue: false wins over a block: the hook wants everything to stop.
      if (stopped(outcomes)) return null;
      const back = outcomes.find((o) => exitCode(o) === 2 || o.reply?.decision === 'block');
      if (!back) return null;
      return (exitCode(back) === 2 ? back.stderr.trim() : back.reply?.reason) || `a ${event} hook asked you to go on`;
    },

    async sessionStart(source) {
      const outcomes = await run('SessionStart', { source }, { subjects: [source] });
      reportFailures('SessionStart', outcomes, false);
      const context = contexts(outcomes, true);
      return context.length ? context.join('\n\n') : undefined;
    },

    async sessionEnd(reason) {
      reportFailures('SessionEnd', await run('SessionEnd', { reason }, { subjects: [reason] }), false);
    },

    async preCompact(trigger, instructions, signal) {
      reportFailures('PreCompact', await run('PreCompact', { trigger, custom_instructions: instructions ?? '' }, { subjects: [trigger], signal }), false);
    },

    async notification(message, type) {
      reportFailures('Notification', await run('Notification', { message, notification_type: type }, { subjects: [type] }), false);
    },
  };
}
