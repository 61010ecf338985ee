// Permissions: modes, sandbox levels, the decision about a call, the question put to the user and
// the answers, and the two hooks around a tool call. Part of the shared vocabulary (types/): owns
// only types and their constant lists; imports nothing but the vocabulary.

import type { ToolCallBlock } from './conversation.js';
import type { CallPreview, SandboxProfile, Tool, ToolOutput } from './tools.js';

export type PermissionMode = 'default' | 'auto' | 'plan' | 'readonly';
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'auto', 'plan', 'readonly'];

/** How bash commands are confined: not at all, writes only in the workspace, or that and no network. */
export type SandboxLevel = 'off' | 'workspace' | 'strict';
export const SANDBOX_LEVELS: readonly SandboxLevel[] = ['off', 'workspace', 'strict'];

/** `code` names the rule that decided (for the interface and the trace); `sandbox` is how an
 *  allowed bash command is confined (read-only when allowed as read-only). */
export type Decision =
  /** `input`: the arguments to run with instead of the model's (a PreToolUse hook's updatedInput). */
  | { decision: 'allow'; reason?: string; code?: string; sandbox?: SandboxProfile; input?: Record<string, unknown> }
  /** `stop`: a hook ended the whole turn (continue: false); the words are for the user. */
  | { decision: 'deny'; reason: string; code?: string; stop?: string };

/**
 * A question about one tool call for the user: exactly what runs or is touched, why it asks
 * (`reasonCode`, translated by the interface with `reasonParams`), and what "always" would save.
 */
export type AskRequest = {
  tool: string;
  input: Record<string, unknown>;
  /** Exactly what will run or be touched: the command (hidden characters made visible), path or URL. */
  display: string;
  reasonCode: string;
  reasonParams: Record<string, string>;
  /** What "always" saves; empty when no rule can allow this call (then do not offer "always"). */
  suggestedRules: string[];
  /** It destroys work (git reset --hard, rm -rf ~ …): show it prominently. */
  destructive: boolean;
  /** What would be lost: files with uncommitted changes, the paths removed, pushed commits. */
  lost?: string[];
  /** What the call would change, for the user to see before answering. */
  preview?: CallPreview;
};

/** The user's answer about a call: y, n (with a reason for the model), always (save a rule), auto (switch modes). */
export type AskAnswer = { answer: 'yes' } | { answer: 'no'; reason?: string } | { answer: 'always' } | { answer: 'auto' };

/** The user's answer about a plan (exit_plan). */
export type PlanVerdict = { approved: true } | { approved: false; feedback?: string };

/** What waits for the user: a tool call to allow, or a plan to approve. */
/** `agent`: the specialist that made the call (absent: the main conversation). */
export type Approval = { kind: 'call'; callId: string; request: AskRequest; agent?: string } | { kind: 'plan'; plan: string };

/** The one decision point between the loop and the rules (permissions, hooks, confirmations). */
export type BeforeToolCall = (call: ToolCallBlock, tool: Tool, signal: AbortSignal) => Promise<Decision>;

/** Runs after a tool succeeded or failed (PostToolUse hooks, verify:); may amend the result. */
export type AfterToolCall = (call: ToolCallBlock, tool: Tool, result: ToolOutput, signal: AbortSignal) => Promise<ToolOutput>;
