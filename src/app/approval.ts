// The approval step between the policy and the call: the policy's verdict, and for a question the
// user's answer through whatever interface is installed; headless (nothing can ask) the call is
// refused with instructions. Carries out what an answer implies: "always" saves its rules
// (approvals.json), "auto" switches the mode. Must not judge a call itself: safety/policy.ts does.

import { answerDecision, CANCELLED, checkCall, headlessRefusal, type AskAnswer, type AskRequest, type PolicyDecision, type PolicyInput } from '../safety/policy.js';
import { saveApprovals } from '../safety/approvals.js';
import { parseRule, type Rule } from '../safety/rules.js';
import type { PermissionMode, Tool, ToolCallBlock } from '../types.js';

export type ApprovalOptions = {
  /** The policy's input as it is now (mode, rules, the shell's directory). */
  policyInput(): PolicyInput;
  /** Puts the question to the user; absent when no one can answer (headless). */
  ask?: (req: AskRequest, signal: AbortSignal) => Promise<AskAnswer>;
  /** Where "always" answers are saved (approvals.json); the workspace is the policy input's root. */
  approvalsFile: string;
  setMode(mode: PermissionMode): void;
};

/** The permission decision for one call, asking the user when the policy says so. */
export function approvalStep(o: ApprovalOptions): (call: ToolCallBlock, tool: Tool, signal: AbortSignal) => Promise<PolicyDecision> {
  // Rules saved by "always" during this run: approvals.json has them for the next run.
  const saved: Rule[] = [];
  return async (call, tool, signal) => {
    const input = o.policyInput();
    const rules = saved.length ? { ...input.rules, allow: [...input.rules.allow, ...saved] } : input.rules;
    const verdict = await checkCall(call, tool, { ...input, rules });
    if (verdict.decision !== 'ask') return verdict;
    if (!o.ask) return { decision: 'deny', code: 'headless', reason: headlessRefusal(verdict.request) };
    if (signal.aborted) return CANCELLED;
    let answer: AskAnswer;
    try {
      answer = await o.ask(verdict.request, signal);
    } catch (err) {
      if (signal.aborted) return CANCELLED;
      throw err;
    }
    const { decision, save, mode } = answerDecision(verdict.request, answer);
    if (save) {
      saveApprovals(o.approvalsFile, input.root, save);
      saved.push(...save.map(parseRule));
    }
    if (mode) o.setMode(mode);
    return decision;
  };
}
