// What a hook printed on stdout, read as Claude Code reads it: a JSON object (continue, stopReason,
// systemMessage, suppressOutput, decision + reason, hookSpecificOutput with permissionDecision,
// permissionDecisionReason, additionalContext, updatedInput) or else plain text. Fields of the
// wrong type are ignored, as a hook's other output is. Pure.

import { isObject } from '../util/jsonfile.js';

/** A hook's JSON reply; every field optional. */
export type HookReply = {
  /** false: stop the whole turn after this (`stopReason` is for the user). */
  continue?: boolean;
  stopReason?: string;
  /** A warning for the user. */
  systemMessage?: string;
  /** Claude hides the hook's stdout from its transcript; feiyu never shows it. */
  suppressOutput?: boolean;
  /** `block` (PostToolUse, Stop, SubagentStop, UserPromptSubmit; PreToolUse's older spelling of deny), or `approve` (the older allow). */
  decision?: 'block' | 'approve';
  reason?: string;
  permissionDecision?: 'allow' | 'deny' | 'ask';
  permissionDecisionReason?: string;
  additionalContext?: string;
  updatedInput?: Record<string, unknown>;
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The reply in `stdout`, or null when it is not a JSON object (then it is plain text). */
export function parseReply(stdout: string): HookReply | null {
  const text = stdout.trim();
  if (!text.startsWith('{')) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(data)) return null;
  const specific = isObject(data.hookSpecificOutput) ? data.hookSpecificOutput : {};
  const reply: HookReply = {
    continue: typeof data.continue === 'boolean' ? data.continue : undefined,
    stopReason: str(data.stopReason),
    systemMessage: str(data.systemMessage),
    suppressOutput: typeof data.suppressOutput === 'boolean' ? data.suppressOutput : undefined,
    decision: data.decision === 'block' || data.decision === 'approve' ? data.decision : undefined,
    reason: str(data.reason),
    permissionDecision: ['allow', 'deny', 'ask'].includes(specific.permissionDecision as string) ? (specific.permissionDecision as HookReply['permissionDecision']) : undefined,
    permissionDecisionReason: str(specific.permissionDecisionReason),
    additionalContext: str(specific.additionalContext),
    updatedInput: isObject(specific.updatedInput) ? specific.updatedInput : undefined,
  };
  return Object.fromEntries(Object.entries(reply).filter(([, v]) => v !== undefined)) as HookReply;
}
