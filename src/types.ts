// The shared vocabulary of feiyu: messages, provider events, tools and agent events.
// Owns only types and a few constants; imports nothing of ours, so every module may import it.

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
export type ToolCallBlock = { type: 'tool_call'; id: string; name: string; input: Record<string, unknown>; invalidJson?: string };
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
  /** HTTP status, or undefined for a connection failure. */
  status?: number;
  kind: 'auth' | 'forbidden' | 'not_found' | 'bad_request' | 'rate_limit' | 'overloaded' | 'server' | 'connection' | 'other';
  message: string;
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

export type FileChange = { path: string; before: string | null; after: string };

/** The version of a file as the agent last read or wrote it. */
export type FileVersion = { hash: string; size: number; mtimeMs: number };

/** Everything a tool may use. One per agent; tools keep no global state. */
export interface ToolContext {
  /** The workspace root (a realpath). */
  readonly root: string;
  /** The current turn's signal; the agent replaces it at the start of each turn. */
  signal: AbortSignal;
  /** Read-before-write records, keyed by realpath. */
  readonly files: Map<string, FileVersion>;
  /** The bash tool's persistent working directory. */
  shellCwd: string;
  /** Environment for child processes (already filtered). */
  readonly env: NodeJS.ProcessEnv;
  /** The current model's provider, for tools that make their own model requests. */
  provider?: () => Provider;
  /** Wraps a bash command for the sandbox; identity when off. */
  readonly wrapCommand?: (command: string, cwd: string) => { file: string; args: string[] };
}

export interface Tool<A = any> {
  name: string;
  /** States the tool's limits; sent to the model. Keep it short: it is paid on every request. */
  description: string;
  parameters: JsonSchema;
  kind: ToolKind;
  /** The argument the interface shows on the tool's line (a path, a command, a pattern). */
  mainArg?: (args: A) => string;
  run(args: A, ctx: ToolContext): Promise<ToolOutput>;
}

// ---------------------------------------------------------------------------------------------
// Permissions

export type PermissionMode = 'default' | 'auto' | 'plan' | 'readonly';
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'auto', 'plan', 'readonly'];

/** How bash commands are confined: not at all, writes only in the workspace, or that and no network. */
export type SandboxLevel = 'off' | 'workspace' | 'strict';
export const SANDBOX_LEVELS: readonly SandboxLevel[] = ['off', 'workspace', 'strict'];

/** `code` names the rule that decided (for the interface and the trace); `destructive` marks a
 *  work-destroying command that auto mode lets through, so the interface shows it prominently. */
export type Decision =
  | { decision: 'allow'; reason?: string; code?: string; destructive?: string }
  | { decision: 'deny'; reason: string; code?: string };

/** The one decision point between the loop and the rules (permissions, hooks, confirmations). */
export type BeforeToolCall = (call: ToolCallBlock, tool: Tool, signal: AbortSignal) => Promise<Decision>;

/** Runs after a tool succeeded or failed (PostToolUse hooks, verify:); may amend the result. */
export type AfterToolCall = (call: ToolCallBlock, tool: Tool, result: ToolOutput, signal: AbortSignal) => Promise<ToolOutput>;

// ---------------------------------------------------------------------------------------------
// Agent events: the one stream the REPL, headless mode, sessions and the trace consume.

export type TurnStopReason = 'end' | 'max_rounds' | 'error' | 'aborted' | 'max_tokens';

/** A user-facing notice; the interface translates `code` through the i18n catalogue. */
export type NoticeCode =
  | 'max_rounds'
  | 'max_tokens'
  | 'usage_estimated'
  | 'schema_retry'
  | 'schema_failed'
  | 'context_full';

export type AgentEvent =
  | { type: 'turn_start'; text: string }
  | { type: 'request_start'; round: number; model: string }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'toolcall_start'; id: string; name: string }
  | { type: 'toolcall_delta'; id: string; json: string }
  | { type: 'tool_call'; id: string; name: string; input: Record<string, unknown>; mainArg?: string }
  | { type: 'permission'; id: string; name: string; decision: 'allow' | 'deny'; reason?: string; code?: string; destructive?: string }
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
  | { type: 'notice'; code: NoticeCode; params?: Record<string, string | number> }
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
  | { type: 'turn_end'; stopReason: TurnStopReason; text: string; rounds: number; structured?: unknown };
