// The OpenAI Chat Completions wire format, for OpenAI and every compatible server (DeepSeek,
// Kimi, Qwen, GLM, local servers): our messages → request, and streamed chunks → deltas and
// the draft message. One attempt only: retries and the final `done` belong to stream.ts.
// The SDK is imported when `open` runs.

import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { resolveApiKey } from './models.js';
import type { Attempt, Draft } from './draft.js';
import { effortFields } from './effort.js';
import type { AssistantBlock, ImageBlock, ToolCallBlock, UserBlock } from '../types/conversation.js';
import type { ModelConfig, ProviderEvent, ProviderRequest, Usage } from '../types/providers.js';

export async function open(config: ModelConfig): Promise<Attempt> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({
    // Local servers need no key; a real server without one answers 401, explained like any bad key.
    apiKey: resolveApiKey(config) ?? 'none',
    baseURL: config.baseURL ?? null,
    organization: null, // never send OpenAI account ids from the environment to another server
    project: null,
    maxRetries: 0, // stream.ts retries, with events the interface can show
    logLevel: 'off',
  });
  return async function* attempt(request, draft, signal) {
    const stream = await client.chat.completions.create(buildParams(config, request), { signal });
    yield* readChunks(stream as AsyncIterable<Chunk>, draft);
  };
}

function buildParams(config: ModelConfig, request: ProviderRequest): ChatCompletionCreateParamsStreaming {
  const maxTokens = request.maxTokens ?? config.maxOutputTokens;
  const params: ChatCompletionCreateParamsStreaming = {
    model: config.model,
    messages: toWire(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  // OpenAI's reasoning models refuse max_tokens; compatible servers mostly know only max_tokens.
  if (/^(o\d|gpt-5)/.test(config.model)) params.max_completion_tokens = maxTokens;
  else params.max_tokens = maxTokens;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  // The SDK sends fields it does not know as they are: compatible servers' thinking switches.
  return { ...params, ...effortFields(config) };
}

function toWire(request: ProviderRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = request.system ? [{ role: 'system', content: request.system }] : [];
  const reasoning = new Map<ChatCompletionMessageParam, string>();
  for (const m of request.messages) {
    if (m.role === 'user') {
      out.push(...userMessages(m.content));
      continue;
    }
    const message = assistantMessage(m.content);
    if (!message) continue;
    out.push(message);
    const thinking = m.content.flatMap((b) => (b.type === 'thinking' && !b.signature ? [b.thinking] : [])).join('');
    if (thinking) reasoning.set(message, thinking);
  }
  sendReasoningBack(out, reasoning);
  return out;
}

/**
 * Reasoning goes back on every assistant message between two user messages where the model
 * called tools, the final answer included, and only reasoning a compatible server sent (no
 * signature): DeepSeek's and Kimi's thinking modes reject such a history without it. Elsewhere
 * it stays out: servers ignore or (older deepseek-reasoner) reject it there.
 */
function sendReasoningBack(out: ChatCompletionMessageParam[], reasoning: Map<ChatCompletionMessageParam, string>): void {
  let turn: ChatCompletionMessageParam[] = [];
  const flush = () => {
    if (turn.some((m) => m.role === 'assistant' && m.tool_calls?.length)) {
      for (const m of turn) if (reasoning.has(m)) (m as { reasoning_content?: string }).reasoning_content = reasoning.get(m);
    }
    turn = [];
  };
  for (const m of out) {
    if (m.role === 'user') flush();
    turn.push(m);
  }
  flush();
}

/**
 * Tool results become role:'tool' messages, which must directly follow the assistant's call.
 * They cannot carry images, so a tool's images (and the user's own text and images) follow in
 * one user message after them.
 */
function userMessages(blocks: UserBlock[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const parts: ChatCompletionContentPart[] = [];
  for (const b of blocks) {
    if (b.type === 'tool_result') {
      out.push({ role: 'tool', tool_call_id: b.callId, content: b.content });
      if (b.images?.length) parts.push({ type: 'text', text: `Images from tool result ${b.callId}:` }, ...b.images.map(imagePart));
    } else if (b.type === 'image') {
      parts.push(imagePart(b));
    } else if (b.text) {
      parts.push({ type: 'text', text: b.text });
    }
  }
  if (parts.length === 0) return out;
  // Several compatible servers accept only a string as user content: use parts only for images.
  const texts = parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  out.push({ role: 'user', content: texts.length === parts.length ? texts.join('\n\n') : parts });
  return out;
}

const imagePart = (i: ImageBlock): ChatCompletionContentPartImage => ({
  type: 'image_url',
  image_url: { url: `data:${i.mediaType};base64,${i.data}` },
});

/** An assistant message on the wire; undefined when nothing would be left of it. */
function assistantMessage(blocks: AssistantBlock[]): ChatCompletionMessageParam | undefined {
  const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  const calls = blocks.flatMap((b): ChatCompletionMessageToolCall[] =>
    b.type === 'tool_call'
      ? [{ ...b.extra, id: b.id, type: 'function', function: { name: b.name, arguments: b.invalidJson === undefined ? JSON.stringify(b.input) : '{}' } }]
      : [],
  );
  if (!text && calls.length === 0) return undefined;
  const message: ChatCompletionMessageParam = { role: 'assistant', content: text || null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

// The chunk fields we read, including vendor extensions the SDK's types do not name.
type WireUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  prompt_cache_hit_tokens?: number; // DeepSeek
  cached_tokens?: number; // Moonshot
};
type WireToolCall = { index?: number; id?: string; type?: string; function?: { name?: string | null; arguments?: unknown } } & Record<string, unknown>;
type Chunk = {
  usage?: WireUsage | null;
  choices?: {
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      refusal?: string | null;
      // TGI (before 3.1) sends one call as an object, not a list.
      tool_calls?: WireToolCall[] | WireToolCall | null;
    };
    finish_reason?: string | null;
    usage?: WireUsage | null; // Moonshot puts usage in the last choice
  }[];
};

async function* readChunks(stream: AsyncIterable<Chunk>, draft: Draft): AsyncGenerator<ProviderEvent> {
  const calls = new Map<number, ToolCallBlock>();
  for await (const chunk of stream) {
    draft.heard();
    const choice = chunk.choices?.[0];
    const usage = chunk.usage ?? choice?.usage;
    if (usage) draft.usage = usageOf(usage);
    if (!choice) continue;
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) yield appendText(draft, 'thinking', reasoning);
    if (delta.content) yield appendText(draft, 'text', delta.content);
    if (delta.refusal) draft.refusal = (draft.refusal ?? '') + delta.refusal;
    for (const tc of listOf(delta.tool_calls)) {
      // `index` ties the pieces of one call together; a server that omits it sends whole calls.
      const index = tc.index ?? (tc.id && ![...calls.values()].some((c) => c.id === tc.id) ? calls.size : Math.max(calls.size - 1, 0));
      let call = calls.get(index);
      if (!call) {
        const started = draft.startToolCall(tc.id || `call_${index}_${Date.now().toString(36)}`, tc.function?.name ?? '');
        calls.set(index, (call = started.block));
        yield started.event;
      } else if (!call.name && tc.function?.name) {
        call.name = tc.function.name;
      }
      const { index: _index, id: _id, type: _type, function: _function, ...extra } = tc;
      if (Object.keys(extra).length > 0) call.extra = { ...call.extra, ...extra };
      const args = tc.function?.arguments;
      const json = typeof args === 'string' ? args : args == null ? '' : JSON.stringify(args);
      if (json) yield draft.toolCallDelta(call, json);
    }
    if (choice.finish_reason) finish(draft, choice.finish_reason, calls);
  }
}

const listOf = <T>(value: T[] | T | null | undefined): T[] => (Array.isArray(value) ? value : value ? [value] : []);

function finish(draft: Draft, reason: string, calls: Map<number, ToolCallBlock>): void {
  // A refusal comes as a content filter stop (Azure, OpenAI) or as refusal text (structured outputs).
  if (reason === 'content_filter' || draft.refusal) {
    draft.stopReason = 'refusal';
    draft.refusal ||= 'finish_reason "content_filter"';
    return;
  }
  for (const call of calls.values()) draft.finishToolCall(call, reason === 'length');
  // Some servers end a reply with tool calls as "stop": the calls decide.
  draft.stopReason = reason === 'length' ? 'max_tokens' : calls.size > 0 ? 'tool_use' : 'end';
}

function appendText(draft: Draft, type: 'text' | 'thinking', text: string): ProviderEvent {
  const last = draft.content.at(-1);
  if (type === 'text' && last?.type === 'text') last.text += text;
  else if (type === 'thinking' && last?.type === 'thinking') last.thinking += text;
  else draft.content.push(type === 'text' ? { type, text } : { type, thinking: text });
  return type === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', text };
}

/** prompt_tokens includes cached tokens; feiyu's `input` does not. */
function usageOf(u: WireUsage): Usage {
  const cacheRead = u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens ?? u.cached_tokens ?? 0;
  return { input: Math.max(0, (u.prompt_tokens ?? 0) - cacheRead), output: u.completion_tokens ?? 0, cacheRead, cacheWrite: 0 };
}
