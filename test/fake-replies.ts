// The fake model server's scripted replies in each wire format: one FakeContentReply as an
// Anthropic or OpenAI JSON body or SSE event stream, with usage that grows with the request.
// Must not know HTTP or the queue: fake-server.ts plays what these build.

import type { FakeContentReply, FakeToolCall, FakeUsage } from './fake-server.js';

type Content = FakeContentReply & { toolCalls: (FakeToolCall & { id: string })[] };
type Tokens = Required<FakeUsage>;

const argumentsOf = (c: FakeToolCall) => c.rawArguments ?? JSON.stringify(c.input ?? {});
const stopOf = (c: Content) => c.stop ?? (c.toolCalls.length > 0 ? 'tool_use' : 'end');
const signatureOf = (c: Content, n: number) => c.signature ?? `sig-${n}`;

/** `cached`: what the server's prompt cache simulation found for the request, when it is on. */
export function usageFor(c: Content, requestChars: number, cached?: Omit<Tokens, 'output'>): Tokens {
  const replyChars = (c.text ?? '').length + (c.thinking ?? '').length + c.toolCalls.reduce((sum, t) => sum + t.name.length + argumentsOf(t).length, 0);
  return {
    input: c.usage?.input ?? cached?.input ?? Math.ceil(requestChars / 4),
    output: c.usage?.output ?? Math.max(1, Math.ceil(replyChars / 4)),
    cacheRead: c.usage?.cacheRead ?? cached?.cacheRead ?? 0,
    cacheWrite: c.usage?.cacheWrite ?? cached?.cacheWrite ?? 0,
  };
}

/** Splits text into up to three pieces, on code points (never inside a surrogate pair). */
function chunks(text: string): string[] {
  const points = Array.from(text);
  const size = Math.max(1, Math.ceil(points.length / 3));
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

const ANTHROPIC_STOP = { end: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens' } as const;
const OPENAI_STOP = { end: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;

const anthropicUsage = (u: Tokens) => ({
  input_tokens: u.input,
  output_tokens: u.output,
  cache_read_input_tokens: u.cacheRead,
  cache_creation_input_tokens: u.cacheWrite,
});
const openaiUsage = (u: Tokens) => ({
  prompt_tokens: u.input + u.cacheRead,
  completion_tokens: u.output,
  total_tokens: u.input + u.cacheRead + u.output,
  prompt_tokens_details: { cached_tokens: u.cacheRead },
});

export function anthropicJson(c: Content, u: Tokens, body: any, n: number) {
  const content: unknown[] = [];
  if (c.thinking !== undefined) content.push({ type: 'thinking', thinking: c.thinking, signature: signatureOf(c, n) });
  if (c.text !== undefined) content.push({ type: 'text', text: c.text });
  for (const t of c.toolCalls) content.push({ type: 'tool_use', id: t.id, name: t.name, input: parseOr(argumentsOf(t), {}) });
  return { id: `msg_${n}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason: ANTHROPIC_STOP[stopOf(c)], stop_sequence: null, usage: anthropicUsage(u) };
}

export function anthropicEvents(c: Content, u: Tokens, body: any, n: number) {
  const sse = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [sse('message_start', { message: { ...anthropicJson({ ...c, text: undefined, thinking: undefined, toolCalls: [] }, { ...u, output: 1 }, body, n), stop_reason: null } })];
  let index = 0;
  const block = (start: object, deltas: object[]) => {
    events.push(sse('content_block_start', { index, content_block: start }));
    for (const delta of deltas) events.push(sse('content_block_delta', { index, delta }));
    events.push(sse('content_block_stop', { index }));
    index++;
  };
  if (c.thinking !== undefined) {
    const deltas: object[] = chunks(c.thinking).map((thinking) => ({ type: 'thinking_delta', thinking }));
    block({ type: 'thinking', thinking: '', signature: '' }, [...deltas, { type: 'signature_delta', signature: signatureOf(c, n) }]);
  }
  if (c.text !== undefined) block({ type: 'text', text: '' }, chunks(c.text).map((text) => ({ type: 'text_delta', text })));
  for (const t of c.toolCalls) {
    block({ type: 'tool_use', id: t.id, name: t.name, input: {} }, chunks(argumentsOf(t)).map((partial_json) => ({ type: 'input_json_delta', partial_json })));
  }
  const end = [
    sse('message_delta', { delta: { stop_reason: ANTHROPIC_STOP[stopOf(c)], stop_sequence: null }, usage: { output_tokens: u.output } }),
    sse('message_stop', {}),
  ];
  return { events, end };
}

export function openaiJson(c: Content, u: Tokens, body: any, n: number) {
  const message: Record<string, unknown> = { role: 'assistant', content: c.text ?? null };
  if (c.thinking !== undefined) message.reasoning_content = c.thinking;
  if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: argumentsOf(t) } }));
  const reply: Record<string, unknown> = {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: 1700000000,
    model: body.model,
    choices: [{ index: 0, message, finish_reason: OPENAI_STOP[stopOf(c)] }],
  };
  if (!c.noUsage) reply.usage = openaiUsage(u);
  return reply;
}

export function openaiEvents(c: Content, u: Tokens, body: any, n: number) {
  const base = { id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 1700000000, model: body.model };
  const chunk = (delta: object, finish_reason: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  const events = [chunk({ role: 'assistant', content: '' })];
  for (const piece of chunks(c.thinking ?? '')) events.push(chunk({ reasoning_content: piece }));
  for (const piece of chunks(c.text ?? '')) events.push(chunk({ content: piece }));
  c.toolCalls.forEach((t, index) => {
    events.push(chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }));
    for (const piece of chunks(argumentsOf(t))) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const end = [chunk({}, OPENAI_STOP[stopOf(c)])];
  if (body.stream_options?.include_usage && !c.noUsage) end.push(`data: ${JSON.stringify({ ...base, choices: [], usage: openaiUsage(u) })}\n\n`);
  end.push('data: [DONE]\n\n');
  return { events, end };
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
