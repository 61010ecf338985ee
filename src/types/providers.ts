// Models and providers: a configured model, its price, the request feiyu sends, the events a
// provider streams back, usage and errors. Part of the shared vocabulary (types/): owns only
// types and one helper (zeroUsage); imports nothing but the vocabulary.

import type { AssistantMessage, Message } from './conversation.js';

/** A JSON Schema, as a tool's parameters or a structured answer's shape. */
export type JsonSchema = { [key: string]: unknown };

export type WireFormat = 'anthropic' | 'openai';

/** Reasoning effort for models that have it (/effort): providers/effort.ts says what each level sends. */
export type Effort = 'low' | 'medium' | 'high';

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
  /** Set with /effort for this session: overrides thinkingBudget where the model takes an effort. */
  effort?: Effort;
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
