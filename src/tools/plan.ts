// exit_plan: how the model leaves plan mode. It hands over its plan; the user approves it (the mode
// before plan mode comes back) or answers with feedback (plan mode stays); headless, the run ends
// with the plan as its result. Must not ask the user itself or set the mode other than through
// the injected callbacks.

import { toolError, type Tool } from '../types/tools.js';
import type { PlanVerdict } from '../types/permissions.js';

export type PlanOptions = {
  /** Shows the plan and asks the user (the REPL). Absent: headless, the run ends with the plan. */
  approvePlan?: (plan: string, signal: AbortSignal) => Promise<PlanVerdict>;
  /** Puts back the mode that was in force before plan mode. */
  restoreMode: () => void;
  inPlanMode: () => boolean;
};

export const PLAN_APPROVED = 'Plan approved; proceed.';

/** The `exit_plan` tool. */
export function exitPlanTool(opts: PlanOptions): Tool<{ plan: string }> {
  return {
    name: 'exit_plan',
    brief: 'submit your plan for approval (plan mode)',
    description: 'In plan mode, when your plan is ready: submit it (Markdown) for the user to approve before you change anything.',
    parameters: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'], additionalProperties: false },
    kind: 'meta',
    async run({ plan }, ctx) {
      if (!plan.trim()) return toolError('the plan is empty; write the plan in Markdown');
      if (!opts.inPlanMode()) return { output: 'You are not in plan mode, so there is nothing to approve; go ahead.' };
      if (!opts.approvePlan) return { output: 'Plan submitted; the run ends with it as the result.', endTurn: { text: plan } };
      const verdict = await opts.approvePlan(plan, ctx.signal);
      if (verdict.approved) {
        opts.restoreMode();
        return { output: PLAN_APPROVED };
      }
      const feedback = verdict.feedback?.trim();
      const said = feedback ? `The user's feedback: ${feedback}` : 'The user gave no reason; ask what they want changed.';
      return { output: `The user did not approve the plan. ${said}\nYou are still in plan mode: revise the plan, then call exit_plan again.`, summary: { key: 'not_approved' } };
    },
  };
}
