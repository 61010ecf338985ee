// The app's hooks: the hook runner wired to the session's points — a call's decision (hooks first,
// then the permission step), the model's and a sub-agent's stop, compaction, the user's message
// and the context SessionStart hooks add to it, a question for the user (Notification), the start,
// /clear and the end of a session. Owns the per-session hook state; judges nothing itself.

import { createHookRunner, sentBack, type HookRunnerOptions } from '../hooks/runner.js';
import type { HookVerdict } from '../safety/policy.js';
import { claudeToolName } from '../util/claudenames.js';
import type { AgentEvent } from '../types/events.js';
import type { AfterToolCall, Approval, BeforeToolCall, Decision } from '../types/permissions.js';
import type { ToolCallBlock } from '../types/conversation.js';
import type { Tool } from '../types/tools.js';

export type HookWiringOptions = HookRunnerOptions & {
  /** The permission step, given what the hooks said; `agent`: the specialist making the call. */
  decide: (call: ToolCallBlock, tool: Tool, signal: AbortSignal, hook?: HookVerdict, agent?: string) => Promise<Decision>;
  /** Whether a person drives the session (the reason SessionEnd gives at the end). */
  interactive: boolean;
};

/** Throws on an invalid matcher (bad configuration). */
export function wireHooks(o: HookWiringOptions) {
  const hooks = createHookRunner(o);
  /** What SessionStart hooks said, given with the next message. */
  let sessionContext: Promise<string | undefined> = Promise.resolve(undefined);
  /** A Stop hook sent the model back during this turn. */
  let stopActive = false;
  /** Notification hooks run beside the question; close() waits for them. */
  const notifying = new Set<Promise<void>>();

  /**
   * Hooks first: a refusal is final; an allow or ask and changed arguments go to the permission
   * step. `agent`: the specialist whose calls these are (a question names it).
   */
  const decisionFor =
    (agent?: string): BeforeToolCall =>
    async (call, tool, signal) => {
      const hook = await hooks.preToolUse(call, signal);
      if (hook.deny) return { decision: 'deny', code: 'hook_deny', reason: `blocked by a PreToolUse hook: ${hook.deny.reason}`, ...(hook.deny.stop !== undefined && { stop: hook.deny.stop }) };
      const decision = await o.decide(hook.input ? { ...call, input: hook.input } : call, tool, signal, hook.verdict, agent);
      return hook.input && decision.decision === 'allow' ? { ...decision, input: hook.input } : decision;
    };

  return {
    runner: hooks,

    /** The main conversation's calls' decision. */
    beforeToolCall: decisionFor(),
    /** A specialist's calls' decision. */
    decisionFor,

    /** PostToolUse hooks (and verify) on a call's result. */
    afterToolCall: ((call, _tool, result, signal) => hooks.postToolUse(call, result, signal)) satisfies AfterToolCall,

    /** Stop hooks when the model would finish: why they send it back, and what it reads then. */
    async stop(text: string, signal: AbortSignal): Promise<{ reason: string; message: string } | null> {
      const reason = await hooks.stop('Stop', text, stopActive, signal);
      if (!reason) return null;
      stopActive = true;
      return { reason, message: sentBack('Stop', reason) };
    },

    /** SubagentStop hooks, for the task tool. */
    async subagentStop(text: string, active: boolean, signal: AbortSignal): Promise<string | null> {
      const reason = await hooks.stop('SubagentStop', text, active, signal);
      return reason && sentBack('SubagentStop', reason);
    },

    /** Feed it every event of the session. */
    onEvent(event: AgentEvent): void {
      if (event.type === 'turn_start') stopActive = false;
      // Claude Code runs SessionStart again after a compaction; what it says joins the next message.
      if (event.type === 'compaction') sessionContext = joinContext(sessionContext, hooks.sessionStart('compact'));
      if (event.type === 'approval') {
        const running = hooks.notification(notificationText(event.approval), 'permission_prompt').finally(() => notifying.delete(running));
        notifying.add(running);
      }
    },

    /** UserPromptSubmit hooks on the user's message: blocked (why), or the text to send with the hooks' context. */
    async prompt(text: string, signal: AbortSignal): Promise<{ block: string } | { text: string }> {
      const gate = await hooks.userPromptSubmit(text, signal);
      if (gate.block) return { block: gate.block };
      const context = [await sessionContext, gate.context].filter((c) => c !== undefined).join('\n\n');
      sessionContext = Promise.resolve(undefined);
      return { text: context ? `${text}\n\n<hook_context>\n${context}\n</hook_context>` : text };
    },

    /** SessionStart when the session starts or is resumed. */
    start(resumed: boolean): void {
      sessionContext = hooks.sessionStart(resumed ? 'resume' : 'startup');
    },

    /** /clear: SessionEnd for the old conversation, then SessionStart for the new one, as Claude Code does. */
    cleared(): void {
      sessionContext = sessionContext.then(() => hooks.sessionEnd('clear')).then(() => hooks.sessionStart('clear'));
    },

    /** SessionEnd, once the hooks still running are done. */
    async close(): Promise<void> {
      await Promise.all([sessionContext, ...notifying]);
      await hooks.sessionEnd(o.interactive ? 'prompt_input_exit' : 'other');
    },
  };
}

/** What a Notification hook is told when feiyu asks the user something (Claude Code's wording). */
function notificationText(approval: Approval): string {
  return approval.kind === 'call' ? `feiyu needs your permission to use ${claudeToolName(approval.request.tool, approval.request.input)}` : 'feiyu needs your approval of the plan';
}

/** Two hooks' contexts, in order. */
async function joinContext(a: Promise<string | undefined>, b: Promise<string | undefined>): Promise<string | undefined> {
  const parts = (await Promise.all([a, b])).filter((c): c is string => c !== undefined);
  return parts.length ? parts.join('\n\n') : undefined;
}
