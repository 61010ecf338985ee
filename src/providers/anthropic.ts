// The Anthropic Messages wire format: our messages → request (prompt caching, extended thinking),
// and the raw SSE events → deltas and the draft message. One attempt only: retries, stop
// handling and the final `done` belong to stream.ts. The SDK is imported when `open` runs.

import type Anthropic from '@anthropic-ai/sdk';
import { resolveApiKey } from './models.js';
import { ANSWER_ROOM, thinkingBudget } from './effort.js';
import type { Attempt, Draft } from './draft.js';
import { zeroUsage, type ModelConfig, type ProviderEvent, type ProviderRequest, type Usage } from '../types/providers.js';
import type { AssistantBlock, Message, UserBlock } from '../types/conversation.js';

type Wire = Anthropic.MessageParam;
type WireBlock = Anthropic.ContentBlockParam;
type ImageMediaType = Anthropic.Base64ImageSource['media_type'];

const CACHE = { type: 'ephemeral' } as const;

export async function open(config: ModelConfig): Promise<Attempt> {
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
  const client = new AnthropicClient({
    // Without a key the request still goes out, so the server's 401 explains it like any bad key;
    // ANTHROPIC_AUTH_TOKEN is not read behind the user's back (keys.json names the key).
    apiKey: resolveApiKey(config) ?? 'none',
    authToken: null,
    baseURL: config.baseURL ?? null,
    maxRetries: 0, // stream.ts retries, with events the interface can show
    logLevel: 'off',
  });
  return async function* attempt(request, draft, signal) {
    const stream = await client.messages.create(buildParams(config, request), { signal });
    yield* readEvents(stream, draft);
  };
}

function buildParams(config: ModelConfig, request: ProviderRequest): Anthropic.MessageCreateParamsStreaming {
  const budget = thinkingBudget(config);
  const maxTokens = request.maxTokens ?? config.maxOutputTokens;
  const params: Anthropic.MessageCreateParamsStreaming = {
    model: config.model,
    // The thinking budget is part of max_tokens and must stay below it; leave room for the answer.
    max_tokens: budget > 0 ? Math.max(maxTokens, budget + ANSWER_ROOM) : maxTokens,
    messages: toWire(request.messages),
    stream: true,
  };
  // Cache breakpoints (at most 4): the system prompt, the tool list, and the latest user turn,
  // so each round reads the whole conversation so far from the cache.
  if (request.system) params.system = [{ type: 'text', text: request.system, cache_control: CACHE }];
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Anthropic.Tool.InputSchema }));
    params.tools[params.tools.length - 1]!.cache_control = CACHE;
  }
  const lastUser = params.messages.filter((m) => m.role === 'user').at(-1);
  const lastBlock = Array.isArray(lastUser?.content) ? lastUser.content.at(-1) : undefined;
  if (lastBlock && lastBlock.type !== 'thinking' && lastBlock.type !== 'redacted_thinking') lastBlock.cache_control = CACHE;
  if (budget > 0) params.thinking = { type: 'enabled', budget_tokens: budget };
  return params;
}

/** Our history → Anthropic messages. Messages left with no content are dropped (the API rejects them). */
function toWire(messages: Message[]): Wire[] {
  const out: Wire[] = [];
  for (const m of messages) {
    const content = m.role === 'user' ? userContent(m.content) : m.content.flatMap(assistantBlock);
    if (content.length > 0) out.push({ role: m.role, content });
  }
  return out;
}

function userContent(blocks: UserBlock[]): WireBlock[] {
  // The API requires tool results before any other block of the user turn.
  const ordered = [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
  return ordered.flatMap((b): WireBlock[] => {
    if (b.type === 'text') return b.text ? [{ type: 'text', text: b.text }] : [];
    if (b.type === 'image') return [image(b.mediaType, b.data)];
    const content = b.images?.length ? [{ type: 'text' as const, text: b.content }, ...b.images.map((i) => image(i.mediaType, i.data))] : b.content;
    return [{ type: 'tool_result', tool_use_id: b.callId, content, ...(b.isError ? { is_error: true } : {}) }];
  });
}

const image = (mediaType: string, data: string) =>
  ({ type: 'image', source: { type: 'base64', media_type: mediaType as ImageMediaType, data } }) as const;

function assistantBlock(b: AssistantBlock): WireBlock[] {
  switch (b.type) {
    case 'text':
      return b.text ? [{ type: 'text', text: b.text }] : [];
    // Thinking goes back exactly as received; without a signature (cut off, or from another
    // provider) the API would reject it, so it stays out.
    case 'thinking':
      return b.signature ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }] : [];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: b.data }];
    case 'tool_call':
      return [{ type: 'tool_use', id: b.id, name: b.name, input: b.invalidJson === undefined ? b.input : {} }];
  }
}

async function* readEvents(stream: AsyncIterable<Anthropic.RawMessageStreamEvent>, draft: Draft): AsyncGenerator<ProviderEvent> {
  const blocks = new Map<number, AssistantBlock>();
  for await (const event of stream) {
    draft.heard();
    switch (event.type) {
      case 'message_start':
        // Compatible servers (and the docs' own thinking example) may send no usage at all.
        if (event.message.usage) draft.usage = usageOf(event.message.usage, draft.usage);
        break;
      case 'content_block_start': {
        const cb = event.content_block;
        if (cb.type === 'tool_use') {
          const { block, event: start } = draft.startToolCall(cb.id, cb.name);
          blocks.set(event.index, block);
          yield start;
          break;
        }
        const block: AssistantBlock | undefined =
          cb.type === 'text' ? { type: 'text', text: cb.text }
          : cb.type === 'thinking' ? { type: 'thinking', thinking: cb.thinking }
          : cb.type === 'redacted_thinking' ? { type: 'redacted_thinking', data: cb.data }
          : undefined; // server tools and their results: not ours to keep
        if (!block) break;
        blocks.set(event.index, block);
        draft.content.push(block);
        if (block.type === 'text' && block.text) yield { type: 'text_delta', text: block.text };
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(event.index);
        const d = event.delta;
        if (block?.type === 'text' && d.type === 'text_delta') {
          block.text += d.text;
          yield { type: 'text_delta', text: d.text };
        } else if (block?.type === 'thinking' && d.type === 'thinking_delta') {
          block.thinking += d.thinking;
          yield { type: 'thinking_delta', text: d.thinking };
        } else if (block?.type === 'thinking' && d.type === 'signature_delta') {
          block.signature = (block.signature ?? '') + d.signature;
        } else if (block?.type === 'tool_call' && d.type === 'input_json_delta') {
          yield draft.toolCallDelta(block, d.partial_json);
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(event.index);
        if (block?.type === 'tool_call') draft.finishToolCall(block);
        break;
      }
      case 'message_delta':
        if (event.usage) draft.usage = usageOf(event.usage, draft.usage);
        stop(draft, event as MessageDelta, blocks);
        break;
    }
  }
}

type MessageDelta = { delta: { stop_reason: string | null }; stop_details?: { explanation?: string } | null };

function stop(draft: Draft, event: MessageDelta, blocks: Map<number, AssistantBlock>): void {
  const reason = event.delta.stop_reason;
  if (reason === 'refusal') {
    draft.stopReason = 'refusal';
    draft.refusal = event.stop_details?.explanation || 'stop_reason "refusal"';
    return;
  }
  const cut = reason === 'max_tokens' || reason === 'model_context_window_exceeded';
  // A block the server never closed was cut off by the limit (some compatible servers send no
  // content_block_stop then): finishing it marks its arguments as truncated instead of losing it.
  for (const block of blocks.values()) if (block.type === 'tool_call') draft.finishToolCall(block, cut);
  draft.stopReason = cut ? 'max_tokens' : reason === 'tool_use' ? 'tool_use' : 'end';
}

type WireUsage = Partial<Record<'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens', number | null>>;

/** message_start carries input and cache counts; message_delta the final (cumulative) output. */
function usageOf(u: WireUsage, prev: Usage = zeroUsage()): Usage {
  return {
    input: u.input_tokens ?? prev.input,
    output: u.output_tokens ?? prev.output,
    cacheRead: u.cache_read_input_tokens ?? prev.cacheRead,
    cacheWrite: u.cache_creation_input_tokens ?? prev.cacheWrite,
  };
}
