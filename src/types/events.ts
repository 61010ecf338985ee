// Agent events: the one stream the REPL, headless mode, sessions and the trace consume. The loop
// emits most of them; the app adds what happens around it (hooks, verify, its own notices).
// Part of the shared vocabulary (types/): owns only types; imports nothing but the vocabulary.

import type { Message } from './conversation.js';
import type { ProviderError, Usage } from './providers.js';
import type { Approval } from './permissions.js';
import type { CallPreview, FileChange, SandboxProfile, Summary } from './tools.js';

export type TurnStopReason = 'end' | 'max_rounds' | 'error' | 'aborted' | 'max_tokens';

/** The points where the user's hooks run (settings.json "hooks"), named as in Claude Code. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'SessionStart', 'SessionEnd', 'PreCompact', 'Notification'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** How a hook or verify command failed (the user's Ctrl+C is not a failure). */
export type CommandFailure =
  | { kind: 'exit'; code: number }
  | { kind: 'signal'; signal: string }
  | { kind: 'timeout'; secs: number }
  | { kind: 'spawn'; message: string };

/**
 * A user-facing notice; the interface translates `code` through the i18n catalogue. From the loop:
 * max_rounds … schema_failed; from the app around it: the rest. `resumed` carries the session's
 * `id`, first `request`, `rounds` and `updated` (epoch ms); `broad_root` the workspace `root`;
 * `attached` a `path` and `what` (file, folder, image) with `n` lines or entries; `not_attached`
 * a `path` and `why` (secret, outside, no_vision, too_big, unreadable).
 */
export type NoticeCode =
  | 'max_rounds'
  | 'max_tokens'
  | 'usage_estimated'
  | 'schema_retry'
  | 'schema_failed'
  | 'context_full'
  | 'no_model'
  | 'trust_ignored'
  | 'memory_dropped'
  | 'read_unenforced'
  | 'auto_unsandboxed'
  | 'todo_reminded'
  | 'stop_hook_sent_back'
  | 'prompt_blocked'
  | 'hook_message'
  | 'hook_stopped'
  | 'hook_event_unknown'
  | 'hook_type_unsupported'
  | 'session_write_failed'
  | 'session_write_recovered'
  | 'trace_write_failed'
  | 'trace_write_recovered'
  | 'resume_model'
  | 'resume_forked'
  | 'session_skipped'
  | 'files_changed'
  | 'file_not_regular'
  | 'file_too_big'
  | 'keys_made_private'
  | 'keys_exposed'
  | 'groups_reaped'
  | 'agent_file_broken'
  | 'agent_unknown_tools'
  | 'agent_model_unknown'
  | 'side_model_unknown'
  /** An MCP server failed to start, crashed or hangs (params: server, why = an McpFailure code, detail, stderr). */
  | 'mcp_failed'
  | 'mcp_config_broken'
  | 'instructions_cut'
  | 'instructions_import_refused'
  | 'instruction_unreadable'
  | 'verify_not_run'
  | 'skill_skipped'
  | 'skills_shortened'
  | 'skills_omitted'
  | 'command_skipped'
  | 'front_matter_broken'
  | 'command_untrusted'
  | 'command_unknown_tools'
  | 'command_model_unknown'
  | 'command_shell'
  | 'command_shell_refused'
  | 'command_file_skipped'
  | 'codeindex_ready'
  | 'codeindex_cache_corrupt'
  | 'codeindex_build_failed'
  | 'codeindex_save_failed'
  | 'checkpoints_off'
  | 'checkpoint_failed'
  | 'checkpoint_skipped'
  | 'resumed'
  | 'resume_mode'
  | 'auto_mode'
  | 'broad_root'
  | 'attached'
  | 'not_attached'
  | 'keys_broken';

export type NoticeEvent = { type: 'notice'; code: NoticeCode; params?: Record<string, string | number> };

/**
 * A specialist (the task tool) started, called a tool or ended; `run` tells parallel ones apart.
 * At the end: its status (done, partial, blocked, aborted, failed), note id, tokens and cost.
 */
export type SpecialistEvent = {
  type: 'specialist';
  run: number;
  agent: string;
  phase: 'start' | 'tool' | 'end';
  tool?: string;
  title?: string;
  status?: string;
  note?: string;
  tokens?: number;
  cost?: number | null;
};

export type AgentEvent =
  | { type: 'turn_start'; text: string }
  | { type: 'request_start'; round: number; model: string }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'toolcall_start'; id: string; name: string }
  | { type: 'toolcall_delta'; id: string; json: string }
  /** `title` and `preview` come from the tool's describe(). */
  | { type: 'tool_call'; id: string; name: string; input: Record<string, unknown>; title?: string; preview?: CallPreview }
  | { type: 'permission'; id: string; name: string; decision: 'allow' | 'deny'; reason?: string; code?: string; sandbox?: SandboxProfile }
  /** Output of a running call as it comes (a command's stdout and stderr), for the interface only. */
  | { type: 'tool_progress'; id: string; name: string; text: string }
  | {
      type: 'tool_result';
      id: string;
      name: string;
      output: string;
      summary?: Summary;
      isError: boolean;
      /** How long the tool ran, from when it was allowed: a question's answering time is not in it. */
      durationMs: number;
      change?: FileChange;
    }
  /** One model request's tokens; `side` marks requests made by tools (sub-agents, web_fetch questions), `by` the specialist. */
  | ({ type: 'usage'; model: string; cost: number | null; estimated: boolean; side?: boolean; by?: string } & Usage)
  | SpecialistEvent
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; error: ProviderError }
  | NoticeEvent
  /** A hook failed; `blocked`: it was a PreToolUse hook, so the call was refused (fail closed). */
  | { type: 'hook_failed'; event: HookEvent; command: string; failure: CommandFailure; stderr: string; blocked: boolean }
  /** Something waits for the user's answer, given by id (App.answer); a cancelled turn drops it. */
  | { type: 'approval'; id: string; approval: Approval }
  /** The `verify:` command ran after a write; `failure` absent means it passed. */
  | { type: 'verify'; command: string; secs: number; failure?: CommandFailure }
  | { type: 'message'; message: Message }
  /** The cold tools the model has loaded so far changed (a session records them). */
  | { type: 'tools_loaded'; names: string[] }
  | {
      type: 'compaction';
      /** Estimated context tokens before and after. */
      before: number;
      after: number;
      /** elide: old tool results cut to stubs; summary: history replaced by a summary; drop: oldest rounds dropped. */
      method: 'elide' | 'summary' | 'drop';
      /** What was cut: tool results elided to stubs, and messages summarised or dropped. */
      elided: number;
      removed: number;
      /** Why a summary could not be made, when method is drop. */
      error?: string;
    }
  | { type: 'error'; error: ProviderError; model: string }
  /** The history was set back (the refused exchange removed, /rewind); `message` events with the whole new history follow. */
  | { type: 'history_reset'; reason: 'refusal' | 'rewind' }
  | { type: 'turn_end'; stopReason: TurnStopReason; text: string; rounds: number; structured?: unknown };
