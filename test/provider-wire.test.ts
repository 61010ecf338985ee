// Recorded streams of real servers played byte for byte by the fake server, through the real SDKs:
// shapes the scripted replies do not make (no usage, TGI's tool call object, Gemini's opaque
// extras, refusals, a tool call cut off by the output limit, DeepSeek's reasoning), the failures
// real servers send (quota, retry-after, an HTML page, overload mid-answer), and the idle timeout.
// Sources: the Anthropic docs' streaming examples, TGI's integration snapshots, Gemini's OpenAI
// compatibility layer, OpenAI's error codes, the DeepSeek thinking-mode guide.
import { describe, expect, it } from 'vitest';
import { createProvider, type ProviderOptions } from '../src/providers/stream.js';
import { explainError } from '../src/i18n/explain.js';
import { setLang } from '../src/i18n/index.js';
import type { Message } from '../src/types/conversation.js';
import type { ModelConfig, Provider, ProviderEvent, ProviderRequest, ToolSpec, WireFormat } from '../src/types/providers.js';
import { fakeModel } from './fake-server.js';
import { anthropicSse, messageEnd, messageStart, openaiSse, textBlock } from './wire-fixtures.js';
import { useFakeServer } from './fixtures.js';

type Done = Extract<ProviderEvent, { type: 'done' }>;

const server = await useFakeServer();

const provider = (format: WireFormat, opts: ProviderOptions = {}, overrides: Partial<ModelConfig> = {}) =>
  createProvider(fakeModel(server, format, overrides), { retry: { baseDelayMs: 5 }, ...opts });
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const TOOLS: ToolSpec[] = [{ name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
const request = (messages: Message[] = [user('hi')]): ProviderRequest => ({ system: 'You are a test.', messages, tools: TOOLS });

async function collect(p: Provider, req: ProviderRequest = request()) {
  const events: ProviderEvent[] = [];
  for await (const e of p.stream(req)) events.push(e);
  const done = events.at(-1) as Done;
  expect(done.type).toBe('done');
  return { events, done, deltas: events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text).join('') };
}

describe('Anthropic streams without usage', () => {
  // The extended-thinking streaming example of the Anthropic docs, as printed there: neither
  // message_start nor message_delta carries usage (MiniMax's compatible endpoint sends the same).
  const docsThinkingExample = anthropicSse(
    messageStart('claude-3-7-sonnet-20250219'),
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me solve this step by step:\n\n1. First break down 27 * 453' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: '\n2. 453 = 400 + 50 + 3' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' } },
    { type: 'content_block_stop', index: 0 },
    ...textBlock(1, '27 * 453 = 12,231'),
    ...messageEnd('end_turn'),
  );

  it('keeps the reply and estimates the usage', async () => {
    server.enqueue({ raw: docsThinkingExample });
    const { done } = await collect(provider('anthropic'));
    expect(done.error).toBeUndefined();
    expect(done.stopReason).toBe('end');
    expect(done.message.content).toEqual([
      { type: 'thinking', thinking: 'Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'text', text: '27 * 453 = 12,231' },
    ]);
    expect(done.usageEstimated).toBe(true);
    expect(done.usage.output).toBeGreaterThan(0);
  });

  it('keeps message_start usage when message_delta has none', async () => {
    server.enqueue({
      raw: anthropicSse(
        messageStart('MiniMax-M2', { input_tokens: 21, output_tokens: 1 }),
        ...textBlock(0, 'Hi.'),
        ...messageEnd('end_turn'),
      ),
    });
    const { done } = await collect(provider('anthropic'));
    expect(done).toMatchObject({ stopReason: 'end', usage: { input: 21, output: 1, cacheRead: 0, cacheWrite: 0 } });
    expect(done.usageEstimated).toBeUndefined();
  });
});

describe('OpenAI-compatible tool call shapes', () => {
  it("reads TGI's tool call sent as an object, not a list", async () => {
    // TGI 2.x–3.0: `delta.tool_calls` is one object; the id is empty and the name repeats.
    const chunk = (args: string, finish: string | null = null) => ({
      object: 'chat.completion.chunk', id: '', created: 1732293254, model: 'meta-llama/Llama-3.1-8B-Instruct', system_fingerprint: '2.4.1-dev0-native',
      choices: [{ index: 0, delta: { role: 'assistant', tool_calls: { index: 0, id: '', type: 'function', function: { name: 'read_file', arguments: args } } }, logprobs: null, finish_reason: finish }],
      usage: null,
    });
    server.enqueue({ raw: openaiSse(chunk('{"path":'), chunk(' "src/a.ts"'), chunk('}', 'stop')) });
    const { done } = await collect(provider('openai'));
    expect(done.stopReason).toBe('tool_use');
    expect(done.message.content).toEqual([{ type: 'tool_call', id: expect.stringMatching(/^call_0_/), name: 'read_file', input: { path: 'src/a.ts' } }]);
  });

  it("carries Gemini's extra_content (the thought signature) back unchanged", async () => {
    // Gemini's OpenAI compatibility: the whole call in one chunk, without index, with the signature.
    const extra = { google: { thought_signature: 'Eo4GCosG===' } };
    server.enqueue({
      raw: openaiSse(
        { choices: [{ delta: { role: 'assistant', tool_calls: [{ extra_content: extra, function: { arguments: '{"path":"a.ts"}', name: 'read_file' }, id: 'FL1tqiJ9', type: 'function' }] }, index: 0 }], created: 1760000000, id: 'x1', model: 'models/gemini-3-flash', object: 'chat.completion.chunk' },
        { choices: [{ delta: { role: 'assistant' }, finish_reason: 'tool_calls', index: 0 }], created: 1760000000, id: 'x1', model: 'models/gemini-3-flash', object: 'chat.completion.chunk', usage: { completion_tokens: 12, prompt_tokens: 40, total_tokens: 52 } },
      ),
    });
    const p = provider('openai');
    const { done } = await collect(p);
    expect(done.message.content).toEqual([{ type: 'tool_call', id: 'FL1tqiJ9', name: 'read_file', input: { path: 'a.ts' }, extra: { extra_content: extra } }]);
    server.enqueue({ text: 'ok' });
    const result: Message = { role: 'user', content: [{ type: 'tool_result', callId: 'FL1tqiJ9', content: 'export {}' }] };
    await collect(p, request([user('look'), done.message, result]));
    expect(server.requests[1]!.body.messages[2].tool_calls).toEqual([
      { extra_content: extra, id: 'FL1tqiJ9', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
    ]);
  });
});

describe('refusals end as errors', () => {
  it("Anthropic's stop_reason refusal, with its explanation", async () => {
    server.enqueue({
      raw: anthropicSse(
        messageStart('claude-sonnet-4-5', { input_tokens: 30, output_tokens: 1 }),
        ...textBlock(0, 'Hello..'),
        ...messageEnd('refusal', { stop_details: { type: 'refusal', category: 'cyber', explanation: 'This request was declined because it could enable cyber harm.' }, usage: { output_tokens: 3 } }),
      ),
    });
    const { done } = await collect(provider('anthropic'));
    expect(done).toMatchObject({ stopReason: 'error', error: { kind: 'refusal', message: 'This request was declined because it could enable cyber harm.' }, usage: { input: 30, output: 3 } });
  });

  it.each([
    ['content_filter', { content: 'I cannot' }, 'finish_reason "content_filter"'],
    ['stop', { refusal: "I'm sorry, I can't help with that." }, "I'm sorry, I can't help with that."],
  ])('OpenAI finish_reason %s', async (finish, delta, message) => {
    const base = { id: 'chatcmpl-r', object: 'chat.completion.chunk', created: 1733195424, model: 'gpt-4o-mini' };
    server.enqueue({ raw: openaiSse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', ...delta }, finish_reason: null }] }, { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }) });
    const { done } = await collect(provider('openai'));
    expect(done).toMatchObject({ stopReason: 'error', error: { kind: 'refusal', message } });
  });
});

describe('a tool call cut off by the output limit', () => {
  it('is kept as a truncated call when the server never closed its block', async () => {
    server.enqueue({
      raw: anthropicSse(
        messageStart('m', { input_tokens: 10, output_tokens: 1 }),
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_cut', name: 'read_file', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path": "very/long/pa' } },
        ...messageEnd('max_tokens', { usage: { output_tokens: 4096 } }),
      ),
    });
    const { done } = await collect(provider('anthropic'));
    expect(done.stopReason).toBe('max_tokens');
    expect(done.message.content).toEqual([{ type: 'tool_call', id: 'toolu_cut', name: 'read_file', input: {}, invalidJson: '{"path": "very/long/pa' }]);
  });

  it('is kept as truncated even with no arguments yet (OpenAI finish_reason length)', async () => {
    const base = { id: 'chatcmpl-c', object: 'chat.completion.chunk', created: 1, model: 'gpt' };
    server.enqueue({
      raw: openaiSse(
        { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_cut', type: 'function', function: { name: 'read_file', arguments: '' } }] }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
      ),
    });
    const { done } = await collect(provider('openai'));
    expect(done.message.content).toEqual([{ type: 'tool_call', id: 'call_cut', name: 'read_file', input: {}, invalidJson: '' }]);
  });
});

describe('DeepSeek thinking mode', () => {
  it('sends back the reasoning of every assistant message of a tool turn, the final answer included', async () => {
    const history: Message[] = [
      user('what is in a.txt?'),
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'I should read it.' }, { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a.txt' } }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c1', content: 'alpha' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'It says alpha.' }, { type: 'text', text: 'It says alpha.' }] },
      user('thanks, and 2+2?'),
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Simple.' }, { type: 'text', text: '4' }] },
      user('bye'),
    ];
    server.enqueue({ text: 'bye' });
    await collect(provider('openai'), request(history));
    const assistants = server.requests[0]!.body.messages.filter((m: { role: string }) => m.role === 'assistant');
    expect(assistants.map((m: { reasoning_content?: string }) => m.reasoning_content)).toEqual(['I should read it.', 'It says alpha.', undefined]);
  });
});

describe('failures real servers send', () => {
  it('does not retry an exhausted quota and says so', async () => {
    const body = { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };
    server.enqueue({ status: 429, body });
    const { done, events } = await collect(provider('openai'));
    expect(server.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(done.error).toEqual({ status: 429, kind: 'quota', message: body.error.message });
    setLang('en');
    expect(explainError(done.error!, fakeModel(server, 'openai'))).toBe(
      'The account behind "fake-openai" has no credit or quota left (HTTP 429): You exceeded your current quota, please check your plan and billing details. Retrying will not help: top up or raise the limit with the provider, or switch to another model.',
    );
  });

  it('says when to come back after a 429 with retry-after: 3600, after one request', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '3600' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your daily rate limit.' } } });
    const { done } = await collect(provider('anthropic'));
    expect(server.requests).toHaveLength(1);
    expect(done.error).toEqual({ status: 429, kind: 'rate_limit', message: 'Number of request tokens has exceeded your daily rate limit.', retryAfterMs: 3_600_000 });
    const now = new Date(2026, 0, 5, 13, 20).getTime();
    setLang('en');
    expect(explainError(done.error!, fakeModel(server, 'anthropic'), now)).toBe(
      'The server for "fake-anthropic" is limiting requests (HTTP 429): Number of request tokens has exceeded your daily rate limit. The server asks to wait 60 min, until 14:20.',
    );
    setLang('zh');
    expect(explainError(done.error!, fakeModel(server, 'anthropic'), now)).toBe(
      '“fake-anthropic”的服务器正在限流 (HTTP 429)：Number of request tokens has exceeded your daily rate limit。 服务器要求等待 60 分钟，到 14:20 再试。',
    );
    setLang('en');
  });

  it('shows a 502 HTML page by its status and title', async () => {
    const page = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0 (Ubuntu)</center>\r\n</body>\r\n</html>\r\n';
    server.enqueue(...Array.from({ length: 3 }, () => ({ raw: [page], status: 502, headers: { 'content-type': 'text/html' } })));
    const { done } = await collect(provider('openai', { retry: { baseDelayMs: 1, maxAttempts: 3 } }));
    expect(done.error).toEqual({ status: 502, kind: 'server', message: '502 Bad Gateway', attempts: 3 });
    setLang('en');
    expect(explainError(done.error!, fakeModel(server, 'openai'))).toBe('The server for "fake-openai" failed (HTTP 502): 502 Bad Gateway. Tried 3 times.');
  });

  it('does not claim retries for an overload that came after text was shown', async () => {
    server.enqueue({
      raw: anthropicSse(
        messageStart('m', { input_tokens: 10, output_tokens: 1 }),
        ...textBlock(0, 'The first half', true),
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ),
    });
    const { done, deltas } = await collect(provider('anthropic'));
    expect(deltas).toBe('The first half');
    expect(done.error).toEqual({ kind: 'overloaded', message: 'Overloaded' });
    setLang('en');
    expect(explainError(done.error!, fakeModel(server, 'anthropic'))).toBe('The server for "fake-anthropic" is overloaded: Overloaded. Try again in a little while.');
  });
});

describe('the stream idle timeout', () => {
  it('stops a request that never sends a byte (retried within the time budget), with words that say so', async () => {
    server.enqueue({ raw: [], hang: true }, { raw: [], hang: true });
    const { done, events } = await collect(provider('anthropic', { idleTimeoutMs: 300, retry: { baseDelayMs: 1, maxAttempts: 2 } }));
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { error: { kind: string } }).error.kind)).toEqual(['timeout']);
    expect(done).toMatchObject({ stopReason: 'error', error: { kind: 'timeout', idleMs: 300, attempts: 2 } });
    setLang('en');
    expect(explainError({ ...done.error!, idleMs: 120_000 }, fakeModel(server, 'anthropic'))).toBe(
      'The server for "fake-anthropic" sent nothing for 120 s, so the request was stopped. It may be overloaded or the connection stuck: send again, or raise "streamIdleTimeout" (seconds) in settings.json for a slow server. Tried 2 times.',
    );
  });

  it('keeps what came before the stream stalled, and lets a slow but steady stream finish', async () => {
    const base = { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'gpt' };
    const piece = (content: string) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    server.enqueue({ raw: [piece('Half '), piece('an answer')], hang: true });
    const stalled = await collect(provider('openai', { idleTimeoutMs: 300 }));
    expect(stalled.done).toMatchObject({ stopReason: 'error', error: { kind: 'timeout' }, message: { content: [{ type: 'text', text: 'Half an answer' }] } });
    // Each gap (150 ms) is well under the timeout (800 ms), the whole reply (1.5 s) well over it.
    const letters = [...'abcdefghi'];
    server.enqueue({ raw: openaiSse(...letters.map((c) => ({ ...base, choices: [{ index: 0, delta: { content: c }, finish_reason: null }] })), { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }), chunkDelayMs: 150 });
    const steady = await collect(provider('openai', { idleTimeoutMs: 800 }));
    expect(steady.done).toMatchObject({ stopReason: 'end', message: { content: [{ type: 'text', text: letters.join('') }] } });
  });
});
