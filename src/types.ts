// The shared vocabulary of feiyu: messages, provider events, tools and agent events.
// Owns only types, a few constants and one-line helpers over them (toolError, specOf); imports
// nothing of ours, so every module may import it.

// ---------------------------------------------------------------------------------------------
// Conversation

export type TextBlock = { type: 'text'; text: string };
/** Extended thinking; Anthropic requires the signature to be sent back during tool use. */
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature?: string };
export type RedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
/** An image. `data` is base64; `path` and `bytes` describe it for placeholders (sessions, summaries). */
export type ImageBlock = { type: 'image'; mediaType: string; data: string; path?: string; bytes?: number };
/**
 * A tool call as the model made it. `input` is the parsed arguments; when the model sent JSON
 * that does not parse, `input` is {} and `invalidJson` holds the raw text, so the loop can
 * answer with an error the model can act on.
 */
export type ToolCallBlock = {
  type: 'tool_call';
  id: string;
  name: string;
  input: Record<string, unknown>;
  invalidJson?: string;
  /** Fields of the wire's tool call that feiyu does not read, sent back unchanged (Gemini's
   *  `extra_content` with its thought signature: the next request is rejected without it). */
  extra?: Record<string, unknown>;
};
export type ToolResultBlock = { type: 'tool_result'; callId: string; content: string; isError?: boolean; images?: ImageBlock[] };

export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock;
export type UserBlock = TextBlock | ImageBlock | ToolResultBlock;

export type UserMessage = { role: 'user'; content: UserBlock[] };
export type AssistantMessage = { role: 'assistant'; content: AssistantBlock[] };
export type Message = UserMessage | AssistantMessage;

// ---------------------------------------------------------------------------------------------
// Models and providers

export type WireFormat = 'anthropic' | 'openai';

/** USD per million tokens. */
export type Price = { input: number; output: number; cacheRead?: number; cacheWrite?: number };

/** One configured model, as in keys.json (DESIGN.md §4), with the built-in table's defaults filled in. */
export type ModelConfig = {
  name: string;
  provider: WireFormat;
  model: string;
  baseURL?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  vision?: boolean;
  contextWindow: number;
  maxOutputTokens: number;
  price?: Price;
  /** Extended thinking budget in tokens (Anthropic); absent or 0 = off. */
  thinkingBudget?: number;
};

export type Usage = {
  /** Input tokens not served from or written to the cache. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
};

export const zeroUsage = (): Usage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export type ToolSpec = { name: string; description: string; parameters: JsonSchema };

export type ProviderRequest = {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  /** Overrides the model's maxOutputTokens. */
  maxTokens?: number;
};

export type StopReason = 'end' | 'tool_use' | 'max_tokens' | 'error' | 'aborted';

/** What went wrong with a provider request, in terms the interface can explain. */
export type ProviderError = {
  /** HTTP status, or undefined for a connection failure or an error inside a stream. */
  status?: number;
  /** `quota`: the account has no credit or quota left (not worth retrying); `timeout`: the server
   *  sent nothing for the idle timeout; `refusal`: the model or a content filter declined the request. */
  kind:
    | 'auth' | 'forbidden' | 'not_found' | 'bad_request' | 'rate_limit' | 'quota' | 'overloaded' | 'server'
    | 'connection' | 'timeout' | 'refusal' | 'other';
  message: string;
  /** Requests made, when more than one (retries). */
  attempts?: number;
  /** How long the server asked to wait (retry-after), when it said. */
  retryAfterMs?: number;
  /** For a timeout: how long the server had been silent. */
  idleMs?: number;
};

export type ProviderEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'toolcall_start'; id: string; name: string }
  | { type: 'toolcall_delta'; id: string; json: string }
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; error: ProviderError }
  | {
      type: 'done';
      message: AssistantMessage;
      stopReason: StopReason;
      usage: Usage;
      /** True when the server sent no usage and the numbers are an estimate. */
      usageEstimated?: boolean;
      error?: ProviderError;
    };

/** Contract: stream() never throws; the last event is always `done`. */
export interface Provider {
  readonly config: ModelConfig;
  stream(request: ProviderRequest, signal?: AbortSignal): AsyncIterable<ProviderEvent>;
}

// ---------------------------------------------------------------------------------------------
// Tools

export type JsonSchema = { [key: string]: unknown };

export type ToolKind = 'read' | 'write' | 'exec' | 'meta';

export type ToolOutput = {
  output: string;
  isError?: boolean;
  images?: ImageBlock[];
  /** A short line for the interface; the model sees `output`. Translated through i18n. */
  summary?: Summary;
  /** For write tools: the file before and after, so the interface can show a diff and /undo can restore. */
  change?: FileChange;
  /** Tokens a tool spent on its own model requests (web_fetch questions, sub-agents): counted in the totals. */
  sideUsage?: Usage;
  /** Ends the turn after this call (structured output, an approved plan in headless mode). */
  endTurn?: { text?: string; structured?: unknown };
};

/**
 * A tool's one-line result summary for the interface, as an i18n key and its parameters:
 * lines {n} · wrote {n} (lines) · edited {n} (replacements) · files {n} · matches {n} ·
 * exit {code, secs} · timeout {secs} · ok (nothing to count).
 */
export type Summary =
  | { key: 'lines' | 'wrote' | 'edited' | 'files' | 'matches'; n: number }
  | { key: 'exit'; code: number; secs: number }
  | { key: 'timeout'; secs: number }
  | { key: 'ok' }
  | { key: 'not_approved' };

/** A failed call's result: what went wrong, worded for the model, and anything else it carries. */
export const toolError = (output: string, extra: Omit<ToolOutput, 'output' | 'isError'> = {}): ToolOutput => ({ ...extra, output, isError: true });

/** What the model is told of a tool: its name, description and parameters, nothing else. */
export const specOf = ({ name, description, parameters }: Tool): ToolSpec => ({ name, description, parameters });

export type FileChange = { path: string; before: string | null; after: string };

/** The version of a file as the agent last read or wrote it. */
export type FileVersion = { hash: string; size: number; mtimeMs: number };

/** The bash tool's working directory between calls. Contract: only the bash tool moves it. */
export type ShellState = { cwd: string };

/** Starts one bash command in the sandbox (safety/sandboxhost.ts): its launch for the request's profile. */
export type WrapCommand = (req: LaunchRequest) => Launch;

/** Starts bash commands as background jobs (`background: true`); tools/jobs.ts JobManager. */
export interface BackgroundJobs {
  /** Starts `command` in the context's shell directory, sandbox and environment; says how it went, for the model. */
  startForModel(command: string, ctx: ToolContext, profile: SandboxProfile): Promise<ToolOutput>;
}

/**
 * What a session gives every tool call: built once, never reassigned. What changes lives in
 * small state objects with one writer each (`files`, `shell`) or behind functions (`provider`,
 * `wrapCommand` follow the model and the sandbox level the app has now).
 */
export interface ToolSession {
  /** The workspace root (a realpath). */
  readonly root: string;
  /** Read-before-write records, keyed by realpath: the file tools record what they read and wrote. */
  readonly files: Map<string, FileVersion>;
  readonly shell: ShellState;
  /** Environment for child processes (already filtered). */
  readonly env: NodeJS.ProcessEnv;
  /** The current model's provider, for tools that make their own model requests. */
  readonly provider?: () => Provider;
  /** Starts bash commands in the sandbox level in force; absent = plain bash, as in tests of the tools alone. */
  readonly wrapCommand?: WrapCommand;
  /** Background jobs; absent where none may start (then bash refuses `background: true`). */
  readonly jobs?: BackgroundJobs;
  /** Folders outside the workspace that read_file may read (the user's skills), as realpaths; the app keeps the list. */
  readonly readRoots?: readonly string[];
}

/** Everything a tool call may use: the session's context and the turn's signal. */
export interface ToolContext extends ToolSession {
  /** Aborts when the user cancels the turn. */
  readonly signal: AbortSignal;
}

/**
 * How one bash command is confined, chosen with the permission decision: `read` (judged
 * read-only: nothing writable, no network), `write` (the workspace, but not its protected paths),
 * `write_git` (that and the repository's data: git commands the user approved).
 */
export type SandboxProfile = 'read' | 'write' | 'write_git';

export type LaunchRequest = { command: string; cwd: string; profile: SandboxProfile; env: NodeJS.ProcessEnv };
/** How to start one command; `release` once it has exited (placeholders of protected paths go). */
export type Launch = { file: string; args: string[]; env: NodeJS.ProcessEnv; release(): void };

/** What the permission decision grants one call, handed to the tool by runTool. */
export type ToolGrant = { sandbox?: SandboxProfile };

export interface Tool<A = any> {
  name: string;
  /** States the tool's limits; sent to the model. Keep it short: it is paid on every request. */
  description: string;
  parameters: JsonSchema;
  kind: ToolKind;
  /**
   * What a call is about, from its arguments alone (they may be malformed: check types). The
   * interface names the call by it, the policy judges its path, command or URL, compaction stubs
   * and confirmations use it. Absent: the call is named by its tool alone.
   */
  describe?: (args: A) => CallDescription;
  /** `grant`: what the permission decision allowed (runTool hands it); absent when nothing decided. */
  run(args: A, ctx: ToolContext, grant?: ToolGrant): Promise<ToolOutput>;
}

/** A tool call in its own words; `title` is the line the interface shows after the tool's name. */
export type CallDescription = {
  title: string;
  /** The file or folder it reads or changes, as the model gave it. */
  path?: string;
  /** The shell command it runs. */
  command?: string;
  /** The URL it reaches. */
  url?: string;
  preview?: CallPreview;
};

/**
 * What a call will do, shown before it does: a replacement in a file, a whole file written, or
 * lines (a todo list as it will read).
 */
export type CallPreview =
  | { kind: 'edit'; path: string; before: string; after: string }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'lines'; lines: string[] };

// ---------------------------------------------------------------------------------------------
// Permissions

export type PermissionMode = 'default' | 'auto' | 'plan' | 'readonly';
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'auto', 'plan', 'readonly'];

/** How bash commands are confined: not at all, writes only in the workspace, or that and no network. */
export type SandboxLevel = 'off' | 'workspace' | 'strict';
export const SANDBOX_LEVELS: readonly SandboxLevel[] = ['off', 'workspace', 'strict'];

/** `code` names the rule that decided (for the interface and the trace); `sandbox` is how an
 *  allowed bash command is confined (read-only when allowed as read-only). */
export type Decision =
  | { decision: 'allow'; reason?: string; code?: string; sandbox?: SandboxProfile }
  | { decision: 'deny'; reason: string; code?: string };

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
export type Approval = { kind: 'call'; callId: string; request: AskRequest } | { kind: 'plan'; plan: string };

/** The one decision point between the loop and the rules (permissions, hooks, confirmations). */
export type BeforeToolCall = (call: ToolCallBlock, tool: Tool, signal: AbortSignal) => Promise<Decision>;

/** Runs after a tool succeeded or failed (PostToolUse hooks, verify:); may amend the result. */
export type AfterToolCall = (call: ToolCallBlock, tool: Tool, result: ToolOutput, signal: AbortSignal) => Promise<ToolOutput>;

// ---------------------------------------------------------------------------------------------
// Agent events: the one stream the REPL, headless mode, sessions and the trace consume. The loop
// emits most of them; the app adds what happens around it (hooks, verify, its own notices).

export type TurnStopReason = 'end' | 'max_rounds' | 'error' | 'aborted' | 'max_tokens';

/** The points where the user's hooks run (settings.json "hooks"). */
export type HookEvent = 'PreToolUse' | 'PostToolUse' | 'UserPromptSubmit' | 'Stop';
export const HOOK_EVENTS: readonly HookEvent[] = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'];

/** How a hook or verify command failed (the user's Ctrl+C is not a failure). */
export type CommandFailure =
  | { kind: 'exit'; code: number }
  | { kind: 'signal'; signal: string }
  | { kind: 'timeout'; secs: number }
  | { kind: 'spawn'; message: string };

/**
 * A user-facing notice; the interface translates `code` through the i18n catalogue. From the loop:
 * max_rounds … schema_failed; from the app around it: the rest.
 */
export type NoticeCode =
  | 'max_rounds'
  | 'max_tokens'
  | 'usage_estimated'
  | 'schema_retry'
  | 'schema_failed'
  | 'no_model'
  | 'trust_ignored'
  | 'memory_dropped'
  | 'read_unenforced'
  | 'auto_unsandboxed'
  | 'todo_reminded'
  | 'stop_hook_sent_back'
  | 'prompt_blocked'
  | 'session_write_failed'
  | 'trace_write_failed'
  | 'resume_model'
  | 'session_skipped'
  | 'files_changed'
  | 'instructions_cut'
  | 'instructions_import_refused'
  | 'instruction_unreadable'
  | 'verify_not_run'
  | 'skill_skipped'
  | 'skills_shortened'
  | 'skills_omitted'
  | 'command_skipped'
  | 'command_untrusted'
  | 'command_unknown_tools'
  | 'command_model_unknown'
  | 'command_shell'
  | 'command_shell_refused'
  | 'command_file_skipped';

export type NoticeEvent = { type: 'notice'; code: NoticeCode; params?: Record<string, string | number> };

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
  | {
      type: 'tool_result';
      id: string;
      name: string;
      output: string;
      summary?: Summary;
      isError: boolean;
      durationMs: number;
      change?: FileChange;
    }
  /** One model request's tokens; `side` marks requests made by tools (sub-agents, web_fetch questions). */
  | ({ type: 'usage'; model: string; cost: number | null; estimated: boolean; side?: boolean } & Usage)
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; error: ProviderError }
  | NoticeEvent
  /** A hook failed; `blocked`: it was a PreToolUse hook, so the call was refused (fail closed). */
  | { type: 'hook_failed'; event: HookEvent; command: string; failure: CommandFailure; stderr: string; blocked: boolean }
  /** Something waits for the user's answer, given by id (App.answer); a cancelled turn drops it. */
  | { type: 'approval'; id: string; approval: Approval }
  /** The `verify:` command ran after a write; `failure` absent means it passed. */
  | { type: 'verify'; command: string; secs: number; failure?: CommandFailure }
  | { type: 'message'; message: Message }
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
  /** The history was set back (the refused exchange removed); `message` events with the whole new history follow. */
  | { type: 'history_reset'; reason: 'refusal' }
  | { type: 'turn_end'; stopReason: TurnStopReason; text: string; rounds: number; structured?: unknown };
