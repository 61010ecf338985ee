// Approvals: what waits for the user's answer, and the permission step that uses it. A question
// goes out on the event stream as an `approval` event and whoever drives the app (the REPL, a
// host) answers it by id; a cancelled turn drops it. The step takes the policy's verdict and, for
// a question, the answer, or headless (no one to ask) refuses with instructions; it carries out
// what an answer implies: "always" saves rules (approvals.json), "auto" switches the mode; an
// approved bash call keeps the sandbox profile the policy chose for it. Must not judge a call
// itself: safety/policy.ts does.

import { saveApprovals } from '../safety/approvals.js';
import { answerDecision, CANCELLED, checkCall, headlessRefusal, type HookVerdict, type PolicyDecision, type PolicyInput } from '../safety/policy.js';
import { parseRule, type Rule } from '../safety/rules.js';
import type { RepoFacts } from '../safety/destructive.js';
import type { AgentEvent } from '../types/events.js';
import type { Approval, AskAnswer, PermissionMode, PlanVerdict } from '../types/permissions.js';
import type { Tool } from '../types/tools.js';
import type { ToolCallBlock } from '../types/conversation.js';

type AnswerOf<A extends Approval> = A extends { kind: 'call' } ? AskAnswer : PlanVerdict;
type Waiting = { approval: Approval; settle: (answer: AskAnswer | PlanVerdict | undefined) => void };

/** The questions waiting for the user, each known by an id. */
export class ApprovalDesk {
  private last = 0;
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly emit: (event: AgentEvent) => void) {}

  /** Emits the question and resolves with its answer, or undefined once `signal` aborts. */
  ask<A extends Approval>(approval: A, signal: AbortSignal): Promise<AnswerOf<A> | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const id = `approval-${++this.last}`;
    return new Promise((resolve) => {
      const drop = () => this.settle(id, undefined);
      signal.addEventListener('abort', drop, { once: true });
      this.waiting.set(id, {
        approval,
        settle: (answer) => {
          signal.removeEventListener('abort', drop);
          resolve(answer as AnswerOf<A> | undefined);
        },
      });
      this.emit({ type: 'approval', id, approval });
    });
  }

  /** Answers question `id`; false when nothing waits under that id or the answer is of the other kind. */
  answer(id: string, answer: AskAnswer | PlanVerdict): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting || (waiting.approval.kind === 'call') !== 'answer' in answer) return false;
    return this.settle(id, answer);
  }

  private settle(id: string, answer: AskAnswer | PlanVerdict | undefined): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.waiting.delete(id);
    waiting.settle(answer);
    return true;
  }
}

export type ApprovalOptions = {
  /** The policy's input as it is now (mode, rules, the shell's directory). */
  policyInput(): PolicyInput;
  /** Where questions go; absent when no one can answer (headless). */
  desk?: ApprovalDesk;
  /** Where "always" answers are saved (approvals.json); the workspace is the policy input's root. Absent: for this run only. */
  approvalsFile?: string;
  setMode(mode: PermissionMode): void;
  /** The user allowed a call they were asked about. */
  approved?(): void;
  /** Facts about the repository for the destructive check (git, read-only); absent = unknown. */
  facts?: RepoFacts;
};

/**
 * The permission decision for one call, asking the user when the policy says so; `hook`: what its
 * PreToolUse hooks said; `agent`: the specialist making the call, named in the question.
 */
export function approvalStep(o: ApprovalOptions): (call: ToolCallBlock, tool: Tool, signal: AbortSignal, hook?: HookVerdict, agent?: string) => Promise<PolicyDecision> {
  // Rules saved by "always" during this run: approvals.json has them for the next run.
  const saved: Rule[] = [];
  return async (call, tool, signal, hook, agent) => {
    const input = o.policyInput();
    const rules = saved.length ? { ...input.rules, allow: [...input.rules.allow, ...saved] } : input.rules;
    const verdict = await checkCall(call, tool, { ...input, rules, ...(hook && { hook }) }, o.facts);
    if (verdict.decision !== 'ask') return verdict;
    if (!o.desk) return { decision: 'deny', code: 'headless', reason: headlessRefusal(verdict.request) };
    const answer = await o.desk.ask({ kind: 'call', callId: call.id, request: verdict.request, ...(agent && { agent }) }, signal);
    if (!answer) return CANCELLED;
    const { decision, save, mode } = answerDecision(verdict.request, answer);
    if (save) {
      if (o.approvalsFile) saveApprovals(o.approvalsFile, input.root, save);
      saved.push(...save.map(parseRule));
    }
    if (mode) o.setMode(mode);
    if (decision.decision === 'allow') o.approved?.();
    return decision.decision === 'allow' && verdict.sandbox ? { ...decision, sandbox: verdict.sandbox } : decision;
  };
}
