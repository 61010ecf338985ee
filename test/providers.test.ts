// The provider layer through the real SDKs over real HTTP to the fake model server, both wire
// formats: streaming, tool calls, thinking, usage, request shape, retries, abort, and the
// never-throwing contract. Also checks the fake server itself (history checks, JSON replies).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createProvider, type ProviderOptions } from '../src/providers/stream.js';
import { estimateTokens } from '../src/util/tokens.js';
import { describeFailure } from '../src/providers/retry.js';
import type { Message } from '../src/types/conversation.js';
import type { ModelConfig, Provider, ProviderEvent, ProviderRequest, ToolSpec, WireFormat } from '../src/types/providers.js';
import { fakeModel, startFakeServer } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

type Done = Extract<ProviderEvent, { type: 'done' }>;

const server = await useFakeServer();

const FAST: ProviderOptions = { retry: { baseDelayMs: 5 } };
const provider = (format: WireFormat, overrides: Partial<ModelConfig> = {}, retry = FAST.retry) =>
  createProvider(fakeModel(server, format, overrides), { retry });

const TOOLS: ToolSpec[] = [
  { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'bash', description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
];
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const request = (messages: Message[] = [user('hi')], tools: ToolSpec[] = []): ProviderRequest => ({ system: 'You are a test.', messages, tools });

async function collect(p: Provider, req: ProviderRequest = request(), signal?: AbortSignal, onEvent?: (e: ProviderEvent) => void) {
  const events: ProviderEvent[] = [];
  for await (const e of p.stream(req, signal)) {
    events.push(e);
    onEvent?.(e);
  }
  expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
  const done = events.at(-1) as Done;
  expect(done.type).toBe('done');
  const of = <T extends ProviderEvent['type']>(type: T) => events.filter((e): e is Extract<ProviderEvent, { type: T }> => e.type === type);
  return { events, done, of };
}

describe.each(['anthropic', 'openai'] as const)('%s wire format', (format) => {
  it('streams text in deltas that add up to the final message', async () => {
    const text = 'Hello, 世界! This reply comes in pieces.';
    server.enqueue({ text, usage: { input: 12, output: 7 } });
    const { done, of } = await collect(provider(format));
    expect(of('text_delta').length).toBeGreaterThan(1);
    expect(of('text_delta').map((e) => e.text).join('')).toBe(text);
    expect(done).toEqual({
      type: 'done',
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      stopReason: 'end',
      usage: { input: 12, output: 7, cacheRead: 0, cacheWrite: 0 },
    });
  });

  it('reassembles parallel tool calls whose arguments arrive in chunks', async () => {
    server.enqueue({
      text: 'Let me look.',
      toolCalls: [
        { id: 'c1', name: 'read_file', input: { path: 'src/a.ts' } },
        { id: 'c2', name: 'bash', input: { command: 'ls -la && echo "done"' } },
      ],
    });
    const { done, of } = await collect(provider(format), request([user('look')], TOOLS));
    expect(of('toolcall_start')).toEqual([
      { type: 'toolcall_start', id: 'c1', name: 'read_file' },
      { type: 'toolcall_start', id: 'c2', name: 'bash' },
    ]);
    const c2 = of('toolcall_delta').filter((e) => e.id === 'c2');
    expect(c2.length).toBeGreaterThan(1);
    expect(c2.map((e) => e.json).join('')).toBe(JSON.stringify({ command: 'ls -la && echo "done"' }));
    expect(done.stopReason).toBe('tool_use');
    expect(done.message.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'src/a.ts' } },
      { type: 'tool_call', id: 'c2', name: 'bash', input: { command: 'ls -la && echo "done"' } },
    ]);
  });

  it('keeps arguments that do not parse as invalidJson, with empty input', async () => {
    server.enqueue({ toolCalls: [{ id: 'bad', name: 'read_file', rawArguments: '{"path": "a.txt"' }, { id: 'none', name: 'bash', rawArguments: '' }] });
    const { done } = await collect(provider(format), request([user('go')], TOOLS));
    expect(done.message.content).toEqual([
      { type: 'tool_call', id: 'bad', name: 'read_file', input: {}, invalidJson: '{"path": "a.txt"' },
      { type: 'tool_call', id: 'none', name: 'bash', input: {} },
    ]);
  });

  it('maps max_tokens and cache usage', async () => {
    server.enqueue({ text: 'cut', stop: 'max_tokens', usage: { input: 100, output: 20, cacheRead: 300, cacheWrite: 50 } });
    const { done } = await collect(provider(format));
    expect(done.stopReason).toBe('max_tokens');
    // OpenAI-compatible servers report no cache writes.
    expect(done.usage).toEqual({ input: 100, output: 20, cacheRead: 300, cacheWrite: format === 'anthropic' ? 50 : 0 });
  });

  it('retries 429 (honouring retry-after), overload, 500 and a dropped connection, then succeeds', async () => {
    const overloaded = format === 'anthropic' ? 529 : 503;
    server.enqueue(
      { status: 429, headers: { 'retry-after': '0' } },
      { status: overloaded },
      { status: 500 },
      { dropConnection: true },
      { text: 'finally' },
    );
    const { done, of } = await collect(provider(format));
    expect(of('retry').map((r) => [r.attempt, r.maxAttempts, r.error.kind, r.error.status])).toEqual([
      [1, 5, 'rate_limit', 429],
      [2, 5, format === 'anthropic' ? 'overloaded' : 'server', overloaded],
      [3, 5, 'server', 500],
      [4, 5, 'connection', undefined],
    ]);
    expect(of('retry')[0]!.delayMs).toBe(0);
    expect(server.requests).toHaveLength(5);
    expect(done).toMatchObject({ stopReason: 'end', message: { role: 'assistant', content: [{ type: 'text', text: 'finally' }] } });
    expect(done.error).toBeUndefined();
  });

  it('waits as long as retry-after-ms or an HTTP-date retry-after asks', async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    server.enqueue({ status: 429, headers: { 'retry-after-ms': '7' } }, { status: 429, headers: { 'retry-after': past } }, { text: 'ok' });
    const { of } = await collect(provider(format));
    expect(of('retry').map((r) => r.delayMs)).toEqual([7, 0]);
  });

  it('gives up when retry-after is beyond the time budget', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '120' }, body: limitBody(format, 'slow down') });
    const { done, of } = await collect(provider(format));
    expect(of('retry')).toEqual([]);
    expect(done).toMatchObject({ stopReason: 'error', error: { status: 429, kind: 'rate_limit', message: 'slow down' } });
  });

  it('gives up after the last attempt', async () => {
    server.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const { done, of } = await collect(provider(format, {}, { baseDelayMs: 1, maxAttempts: 3 }));
    expect(of('retry').map((r) => r.attempt)).toEqual([1, 2]);
    expect(server.requests).toHaveLength(3);
    expect(done).toEqual({
      type: 'done',
      message: { role: 'assistant', content: [] },
      stopReason: 'error',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      error: { status: 500, kind: 'server', message: 'fake 500', attempts: 3 },
    });
  });

  it.each([
    [400, 'bad_request'],
    [401, 'auth'],
    [403, 'forbidden'],
    [404, 'not_found'],
  ] as const)('does not retry %i: one request, error kind %s with the server message', async (status, kind) => {
    server.enqueue({ status, body: limitBody(format, `the server says ${status}`) });
    const { done, of } = await collect(provider(format));
    expect(server.requests).toHaveLength(1);
    expect(of('retry')).toEqual([]);
    expect(done).toMatchObject({ stopReason: 'error', error: { status, kind, message: `the server says ${status}` } });
  });

  it('stops at abort with the partial text and without the unfinished tool call', async () => {
    server.enqueue({ text: 'Working on it.', toolCalls: [{ name: 'bash', input: { command: 'sleep 1' } }], hang: true });
    const controller = new AbortController();
    const { done } = await collect(provider(format), request([user('go')], TOOLS), controller.signal, (e) => {
      if (e.type === 'toolcall_start') controller.abort();
    });
    expect(done.stopReason).toBe('aborted');
    expect(done.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Working on it.' }] });
    expect(done.error).toBeUndefined();
  });

  it('stops at once when aborted during a retry wait', async () => {
    server.enqueue({ status: 500 });
    const controller = new AbortController();
    const p = provider(format, {}, { baseDelayMs: 60_000, maxTotalMs: 600_000 });
    const { done, of } = await collect(p, request(), controller.signal, (e) => e.type === 'retry' && controller.abort());
    expect(of('retry')).toHaveLength(1);
    expect(done.stopReason).toBe('aborted');
  });

  it('ends with an error and keeps the partial message when the stream breaks after content', async () => {
    const own = await startFakeServer();
    own.enqueue({ text: 'Half an answer', hang: true });
    const p = createProvider(fakeModel(own, format), FAST);
    const { done, of } = await collect(p, request(), undefined, (e) => e.type === 'text_delta' && void own.close());
    expect(of('retry')).toEqual([]);
    expect(done.stopReason).toBe('error');
    expect(done.error?.kind).toBe('connection');
    expect(done.message.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Half/) }]);
  });

  it('never throws: a closed port ends in a connection error after retries', async () => {
    const port = await closedPort();
    const p = createProvider(fakeModel(server, format, { baseURL: `http://127.0.0.1:${port}${format === 'openai' ? '/v1' : ''}` }), {
      retry: { baseDelayMs: 1, maxAttempts: 2 },
    });
    const { done, of } = await collect(p);
    expect(of('retry')).toHaveLength(1);
    expect(done).toMatchObject({ stopReason: 'error', error: { kind: 'connection' } });
    expect(done.error!.message).toMatch(/ECONNREFUSED|connect/i);
  });
});

describe('anthropic request and thinking', () => {
  it('marks the system prompt, the last tool and the latest user turn for caching', async () => {
    server.enqueue({ text: 'ok' });
    const history: Message[] = [
      user('first'),
      { role: 'assistant', content: [{ type: 'text', text: 'reply' }] },
      { role: 'user', content: [{ type: 'text', text: 'second' }, { type: 'image', mediaType: 'image/png', data: 'iVBORw0K' }] },
    ];
    await collect(provider('anthropic'), request(history, TOOLS));
    const body = server.requests[0]!.body;
    const cache = { type: 'ephemeral' };
    expect(body.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: cache }]);
    expect(body.tools.map((t: { cache_control?: unknown }) => t.cache_control)).toEqual([undefined, cache]);
    expect(body.tools[0]).toEqual({ name: 'read_file', description: 'Read a file.', input_schema: TOOLS[0]!.parameters });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'reply' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'second' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' }, cache_control: cache },
        ],
      },
    ]);
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(3);
    expect(body).toMatchObject({ model: 'claude-fake', max_tokens: 4096, stream: true });
    expect(body.thinking).toBeUndefined();
    expect(server.requests[0]!.headers['x-api-key']).toBe('test-key');
  });

  it('converts tool calls, results with images, and redacted thinking', async () => {
    server.enqueue({ text: 'ok' });
    const history: Message[] = [
      user('look'),
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'thinking', thinking: 'cut off before its signature' },
          { type: 'tool_call', id: 't1', name: 'read_file', input: { path: 'a.png' } },
          { type: 'tool_call', id: 't2', name: 'read_file', input: {}, invalidJson: '{"pa' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'also this' },
          { type: 'tool_result', callId: 't1', content: 'an image', images: [{ type: 'image', mediaType: 'image/jpeg', data: 'AAAA' }] },
          { type: 'tool_result', callId: 't2', content: 'invalid arguments', isError: true },
        ],
      },
    ];
    await collect(provider('anthropic'), request(history, TOOLS));
    const [, assistant, results] = server.requests[0]!.body.messages;
    expect(assistant.content).toEqual([
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.png' } },
      { type: 'tool_use', id: 't2', name: 'read_file', input: {} },
    ]);
    expect(results.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: [
          { type: 'text', text: 'an image' },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
        ],
      },
      { type: 'tool_result', tool_use_id: 't2', content: 'invalid arguments', is_error: true },
      { type: 'text', text: 'also this', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('asks for thinking, keeps it with its signature, and sends it back unchanged', async () => {
    server.enqueue({ thinking: 'Let me think this through.', signature: 'sig-abc', text: 'Answer.' });
    const p = provider('anthropic', { thinkingBudget: 2048, maxOutputTokens: 1024 });
    const { done, of } = await collect(p);
    expect(of('thinking_delta').map((e) => e.text).join('')).toBe('Let me think this through.');
    const thinking = { type: 'thinking', thinking: 'Let me think this through.', signature: 'sig-abc' };
    expect(done.message.content).toEqual([thinking, { type: 'text', text: 'Answer.' }]);
    const first = server.requests[0]!.body;
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(first.max_tokens).toBeGreaterThan(2048);

    server.enqueue({ text: 'ok' });
    await collect(p, request([user('hi'), done.message, user('and?')]));
    expect(server.requests[1]!.body.messages[1]).toEqual({ role: 'assistant', content: [thinking, { type: 'text', text: 'Answer.' }] });
  });
});

describe('openai request and reasoning', () => {
  it('sends the OpenAI shape: system message, function tools, tool messages, images after them', async () => {
    server.enqueue({ text: 'ok' });
    const history: Message[] = [
      user('look'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 't1', name: 'read_file', input: { path: 'a.png' } },
          { type: 'tool_call', id: 't2', name: 'read_file', input: {}, invalidJson: '{"pa' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', callId: 't1', content: 'an image', images: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] },
          { type: 'tool_result', callId: 't2', content: 'invalid arguments', isError: true },
          { type: 'text', text: 'and this' },
        ],
      },
    ];
    await collect(provider('openai'), request(history, TOOLS));
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({ model: 'gpt-fake', stream: true, stream_options: { include_usage: true }, max_tokens: 4096 });
    expect(body.tools[0]).toEqual({ type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: TOOLS[0]!.parameters } });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'look' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.png"}' } },
          { id: 't2', type: 'function', function: { name: 'read_file', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'an image' },
      { role: 'tool', tool_call_id: 't2', content: 'invalid arguments' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images from tool result t1:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'text', text: 'and this' },
        ],
      },
    ]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
  });

  it('sends reasoning_content back on a reply that called tools (DeepSeek and Kimi thinking modes require it)', async () => {
    server.enqueue({ thinking: 'Need the file list.', toolCalls: [{ id: 'call_r', name: 'list_files', input: {} }] });
    const p = provider('openai');
    const { done } = await collect(p);
    server.enqueue({ text: 'ok' });
    const result = { role: 'user' as const, content: [{ type: 'tool_result' as const, callId: 'call_r', content: 'a.ts' }] };
    await collect(p, request([user('hi'), done.message, result]));
    expect(server.requests[1]!.body.messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_r', type: 'function', function: { name: 'list_files', arguments: '{}' } }],
      reasoning_content: 'Need the file list.',
    });
  });

  it('keeps reasoning_content as thinking but does not send it back on a plain answer', async () => {
    server.enqueue({ thinking: 'Hmm, 想一想.', text: 'Done.' });
    const p = provider('openai');
    const { done, of } = await collect(p);
    expect(of('thinking_delta').map((e) => e.text).join('')).toBe('Hmm, 想一想.');
    expect(done.message.content).toEqual([
      { type: 'thinking', thinking: 'Hmm, 想一想.' },
      { type: 'text', text: 'Done.' },
    ]);
    server.enqueue({ text: 'ok' });
    await collect(p, request([user('hi'), done.message, user('and?')]));
    expect(server.requests[1]!.body.messages[2]).toEqual({ role: 'assistant', content: 'Done.' });
  });

  it('estimates usage when the server sends none', async () => {
    const text = 'a reply of forty characters, more or le';
    server.enqueue({ text, noUsage: true });
    const { done } = await collect(provider('openai'));
    expect(done.usageEstimated).toBe(true);
    expect(done.usage.output).toBe(estimateTokens(text));
    expect(done.usage.input).toBeGreaterThan(estimateTokens('You are a test.'));
    expect(done.usage).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
  });

  it('uses max_completion_tokens for OpenAI reasoning models', async () => {
    server.enqueue({ text: 'ok' });
    await collect(provider('openai', { model: 'gpt-5-mini', maxOutputTokens: 999 }));
    expect(server.requests[0]!.body.max_completion_tokens).toBe(999);
    expect(server.requests[0]!.body.max_tokens).toBeUndefined();
  });
});

describe('estimateTokens', () => {
  it('counts ASCII at four characters a token and other characters at one', () => {
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('你好世界')).toBe(4);
    expect(estimateTokens('')).toBe(0);
  });
});

describe('describeFailure', () => {
  it('classifies what the SDKs and the network throw', () => {
    const headers = new Headers({ 'retry-after': '2' });
    expect(describeFailure(Object.assign(new Error('529 busy'), { status: 529, headers, error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }))).toEqual({
      error: { status: 529, kind: 'overloaded', message: 'Overloaded' },
      retryAfterMs: 2000,
    });
    // An `error` event inside a stream: a body but no status.
    expect(describeFailure(Object.assign(new Error('x'), { status: undefined, headers, error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }))).toEqual({
      error: { kind: 'overloaded', message: 'Overloaded' },
    });
    // A proxy's HTML page (nginx's own) is shown by its title, not as markup.
    const page = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
    expect(describeFailure(Object.assign(new Error(`502 ${page}`), { status: 502, headers: new Headers(), error: undefined }))).toEqual({
      error: { status: 502, kind: 'server', message: '502 Bad Gateway' },
      retryAfterMs: undefined,
    });
    expect(describeFailure(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }))).toEqual({
      error: { kind: 'connection', message: 'other side closed' },
    });
    expect(describeFailure(new SyntaxError('Unexpected token'))).toEqual({ error: { kind: 'other', message: 'Unexpected token' } });
    expect(describeFailure('a string')).toEqual({ error: { kind: 'other', message: 'a string' } });
  });
});

describe('a provider that cannot even start', () => {
  it('ends with an error event instead of throwing', async () => {
    const p = createProvider({ ...fakeModel(server, 'openai'), provider: 'gemini' as WireFormat });
    const { done } = await collect(p);
    expect(done).toMatchObject({ stopReason: 'error', error: { kind: 'other' } });
  });
});

describe('the fake server', () => {
  const post = (path: string, body: unknown) =>
    fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers non-streaming requests in each format', async () => {
    server.enqueue({ text: 'plain', toolCalls: [{ id: 'x', name: 'bash', input: { command: 'ls' } }], usage: { input: 5, output: 2, cacheRead: 1 } });
    const anthropic = await (await post('/v1/messages', { model: 'm', messages: [] })).json();
    expect(anthropic).toMatchObject({
      content: [
        { type: 'text', text: 'plain' },
        { type: 'tool_use', id: 'x', name: 'bash', input: { command: 'ls' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 1, cache_creation_input_tokens: 0 },
    });
    server.enqueue({ text: 'plain' });
    const openai = await (await post('/v1/chat/completions', { model: 'm', messages: [] })).json();
    expect(openai).toMatchObject({
      choices: [{ message: { role: 'assistant', content: 'plain' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
    });
  });

  it('rejects histories with unanswered or orphan tool calls, like the real APIs', async () => {
    const anthropic = await post('/v1/messages', {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: '' }] },
      ],
    });
    const openai = await post('/v1/chat/completions', {
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }] },
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'a', content: '' },
      ],
    });
    expect([anthropic.status, openai.status]).toEqual([400, 400]);
    expect(server.violations).toEqual([
      'request 1: messages[1]: tool_use a has 0 tool_result blocks in the next message (expected 1)',
      'request 1: messages[2]: tool_result b answers no tool_use of the previous message',
      'request 2: messages[0]: tool call a has 0 tool messages after it (expected 1)',
      'request 2: messages[2]: tool message a answers no tool call',
    ]);
    server.violations.length = 0;
  });

  it('answers 500 and records a violation when the script runs out', async () => {
    const response = await post('/v1/messages', { messages: [] });
    expect(response.status).toBe(500);
    expect(server.violations).toEqual(['fake server: the script ran out of replies at request 1 (anthropic)']);
    server.violations.length = 0;
  });
});

/** An error body in the wire format's shape, so the message the provider reports can be checked. */
function limitBody(format: WireFormat, message: string) {
  return format === 'anthropic' ? { type: 'error', error: { type: 'error', message } } : { error: { message, type: 'error' } };
}

/** A port that was free a moment ago and has nothing listening now. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
