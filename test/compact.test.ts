// Compaction against the fake model server with a 4,000-token window: the cheap step alone when
// it suffices; one summary request (no tools, newest content first, within the window) when it
// does not, and the next request carrying the summary, the latest request and the todo list; a
// failing summary request dropping the oldest rounds instead; every history valid for the API.
import { describe, expect, it } from 'vitest';
import { compactHistory, elideOldToolResults, estimateTokens, imagePlaceholder, needsCompaction, type CompactOptions, type TitleOf } from '../src/core/compact.js';
import { readFileTool } from '../src/tools/fs.js';
import { describeCall } from '../src/util/calls.js';
import { createProvider } from '../src/providers/stream.js';
import type { FileVersion } from '../src/types/tools.js';
import type { Message, ToolResultBlock } from '../src/types/conversation.js';
import type { ModelConfig, WireFormat } from '../src/types/providers.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

const server = await useFakeServer();
const WINDOW = 4000;
const ROOT = '/work/project';
const TOOLS = [{ name: 'read_file', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
/** What the system prompt and tool schemas cost on every request, in this test's terms. */
const OVERHEAD = 600;


function model(format: WireFormat, overrides: Partial<ModelConfig> = {}) {
  return createProvider(fakeModel(server, format, { contextWindow: WINDOW, ...overrides }), { retry: { baseDelayMs: 1, maxAttempts: 2 } });
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
/** A file of `lines` lines, about 8 characters each. */
const fileText = (lines: number, marker = '') => marker + Array.from({ length: lines }, (_, i) => `line ${String(i).padStart(3, '0')}`).join('\n');

/** One tool round: read_file src/f<i>.ts and its result. */
function round(i: number, content: string, extra: Partial<ToolResultBlock> = {}): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'text', text: `Reading f${i}.` }, { type: 'tool_call', id: `c${i}`, name: 'read_file', input: { path: `src/f${i}.ts` } }] },
    { role: 'user', content: [{ type: 'tool_result', callId: `c${i}`, content, ...extra }] },
  ];
}

const files = new Map<string, FileVersion>([[`${ROOT}/src/f1.ts`, { hash: 'ab'.repeat(32), size: 1919, mtimeMs: 1 }]]);
const TODO = '[x] read the parser\n[ ] fix tab handling';

/** Calls named as the agent names them: by their tool's describe(). */
const titleOf: TitleOf = (call) => describeCall(readFileTool, call.input)?.title;

function options(provider: ReturnType<typeof model>, messages: Message[], extra: Partial<CompactOptions> = {}): CompactOptions {
  return { provider, messages, contextWindow: WINDOW, contextTokens: OVERHEAD + estimateTokens(messages), todo: TODO, files, root: ROOT, titleOf, ...extra };
}

/** Sends `messages` as the agent's next request would; returns the recorded body and what the server found wrong. */
async function nextRequest(provider: ReturnType<typeof model>, messages: Message[]) {
  server.enqueue({ text: 'ok' });
  for await (const _event of provider.stream({ system: 'You are a test.', messages, tools: TOOLS })) {
    // drained
  }
  return { body: JSON.stringify(server.requests.at(-1)!.body), violations: [...server.violations] };
}

describe('estimates', () => {
  it('counts text at about four characters a token and images at a flat rate, not by their base64', () => {
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'A'.repeat(400_000) };
    expect(estimateTokens('x'.repeat(400))).toBe(100);
    expect(estimateTokens([{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }, image] }])).toBe(4 + 100 + 1600);
    expect(imagePlaceholder({ ...image, path: 'shot.png' })).toBe('[image: shot.png, 293 KB]');
  });

  it('asks for compaction at 75% of the window', () => {
    expect(needsCompaction(2999, WINDOW)).toBe(false);
    expect(needsCompaction(3000, WINDOW)).toBe(true);
  });
});

describe('the cheap step', () => {
  it('cuts tool results outside the last rounds to stubs, keeping short errors and the input untouched', () => {
    const messages = [
      user('fix it'),
      ...round(1, fileText(240)),
      ...round(2, 'ENOENT: no such file', { isError: true }),
      ...round(3, fileText(300), { isError: true }),
      ...round(4, 'tiny'),
      ...round(5, fileText(100)),
      ...round(6, fileText(100)),
      ...round(7, fileText(100)),
    ];
    const copy = structuredClone(messages);
    const { messages: out, elided } = elideOldToolResults(messages, 3, titleOf);
    expect(messages).toEqual(copy);
    expect(elided).toBe(2);
    const results = out.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => (b as ToolResultBlock).content.split('\n')[0]));
    expect(results).toEqual([
      '[read_file src/f1.ts: 240 lines, elided]',
      'ENOENT: no such file',
      '[read_file src/f3.ts: 300 lines, failed, elided]',
      'tiny',
      'line 000',
      'line 000',
      'line 000',
    ]);
    expect(out[6]).toEqual({ role: 'user', content: [{ type: 'tool_result', callId: 'c3', content: '[read_file src/f3.ts: 300 lines, failed, elided]', isError: true }] });
    expect(out[0]).toBe(messages[0]);
    expect(elideOldToolResults(messages.slice(0, 5), 3, titleOf)).toEqual({ messages: messages.slice(0, 5), elided: 0 });
  });

  it('stops there when that brings the context under 60%: no model request', async () => {
    const provider = model('anthropic');
    const messages = [user('fix it'), ...round(1, fileText(500)), ...round(2, fileText(500)), ...round(3, fileText(80)), ...round(4, fileText(80)), ...round(5, fileText(80))];
    const o = options(provider, messages);
    expect(o.contextTokens).toBeGreaterThan(WINDOW * 0.75);
    const result = await compactHistory(o);
    expect(server.requests.length).toBe(0);
    expect(result!.event).toEqual({ type: 'compaction', method: 'elide', before: o.contextTokens, after: OVERHEAD + estimateTokens(result!.messages), elided: 2, removed: 0 });
    expect(result!.event.after).toBeLessThanOrEqual(WINDOW * 0.6);
    expect(result!.usage).toBeUndefined();
    expect((await nextRequest(provider, result!.messages)).violations).toEqual([]);
  });
});

describe.each(['anthropic', 'openai'] as const)('the summary over %s', (format) => {
  const REQUEST = 'Refactor the parser so tabs work. ' + 'Details follow. '.repeat(150);
  const history = () => [user(REQUEST), ...round(1, fileText(240, 'OLDEST-MARKER ')), ...round(2, fileText(240)), ...round(3, fileText(220)), ...round(4, fileText(220)), ...round(5, fileText(220, 'NEWEST-MARKER '))];
  const SUMMARY = 'Goal: tabs in the parser. Next step: run the tests.';

  it('is one request without tools, the first request then the newest content, that fits the window; the next request carries it', async () => {
    const provider = model(format);
    const messages = history();
    server.enqueue({ text: SUMMARY, usage: { input: 1500, output: 40 } });
    const result = await compactHistory(options(provider, messages));

    expect(server.requests.length).toBe(1);
    const { body } = server.requests[0]!;
    const sent = JSON.stringify(body);
    expect(body.tools).toBeUndefined();
    expect(sent).toContain('USER (first request): Refactor the parser so tabs work. Details follow.');
    expect(sent).toContain('NEWEST-MARKER');
    expect(sent).not.toContain('OLDEST-MARKER');
    expect(sent.length / 4 + body.max_tokens).toBeLessThanOrEqual(WINDOW);

    expect(result!.usage).toEqual({ input: 1500, output: 40, cacheRead: 0, cacheWrite: 0 });
    expect(result!.event).toMatchObject({ type: 'compaction', method: 'summary', elided: 0, removed: messages.length });
    expect(result!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: expect.stringMatching(new RegExp(`summary of our earlier conversation[^]*${SUMMARY}$`)) }] },
      { role: 'assistant', content: [{ type: 'text', text: expect.stringContaining('continue') }] },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `Current todo list:\n${TODO}\n\nFiles read earlier (you may edit them; read one again if you need its content):\n- src/f1.ts (1919 bytes, sha256 abababababab)`,
          },
          { type: 'text', text: 'My first request in this conversation, verbatim:' },
          { type: 'text', text: REQUEST },
          { type: 'text', text: 'Continue the task from where it stopped.' },
        ],
      },
    ]);
    expect(result!.event.after).toBe(OVERHEAD + estimateTokens(result!.messages));

    const next = await nextRequest(provider, result!.messages);
    expect(next.violations).toEqual([]);
    for (const text of [SUMMARY, REQUEST, TODO]) expect(next.body).toContain(JSON.stringify(text).slice(1, -1));
    expect(next.body.length / 4).toBeLessThan(WINDOW * 0.75);
  });

  it('drops the oldest rounds instead when the summary request fails, and says so', async () => {
    const provider = model(format);
    const messages = history();
    server.enqueue({ status: 500 }, { status: 500 });
    const result = await compactHistory(options(provider, messages));
    expect(server.requests.length).toBe(2); // one attempt and its retry: no second summary
    expect(result!.event).toMatchObject({ type: 'compaction', method: 'drop', error: expect.stringContaining('500'), elided: 2 });
    expect(result!.event.after).toBeLessThanOrEqual(WINDOW * 0.6);
    const [head, ...kept] = result!.messages;
    expect(head!.role).toBe('user');
    expect(head!.content).toEqual([
      { type: 'text', text: `[${result!.event.removed} earlier messages were dropped to fit the context window.]` },
      { type: 'text', text: expect.stringMatching(/^Current todo list:/) },
      { type: 'text', text: 'My first request in this conversation, verbatim:' },
      { type: 'text', text: REQUEST },
    ]);
    expect(kept).toEqual(messages.slice(result!.event.removed));
    expect(kept[0]!.role).toBe('assistant');
    expect((await nextRequest(provider, result!.messages)).violations).toEqual([]);
  });
});

describe('compaction edge cases', () => {
  it('only elides when the summary request is cancelled: nothing the user said is dropped', async () => {
    const provider = model('anthropic');
    const messages = [user('x'.repeat(8000)), ...round(1, fileText(240)), ...round(2, 'small'), ...round(3, 'small'), ...round(4, 'small')];
    const abort = new AbortController();
    abort.abort();
    const result = await compactHistory(options(provider, messages, { signal: abort.signal }));
    expect(result!.event).toMatchObject({ method: 'elide', error: 'aborted', elided: 1 });
    expect(result!.messages).toEqual(elideOldToolResults(messages, 3, titleOf).messages);
  });

  it('/compact between turns summarises a short history with its focus, and the history ends with the acknowledgement', async () => {
    const provider = model('openai');
    const messages = [user('What does f1 do?'), ...round(1, 'it parses. ' + 'detail '.repeat(1200)), { role: 'assistant', content: [{ type: 'text', text: 'It parses.' }] } as Message];
    server.enqueue({ text: 'Goal: explain f1.' });
    const result = await compactHistory(options(provider, messages, { force: true, focus: 'the parser API', todo: undefined, files: new Map() }));
    expect(JSON.stringify(server.requests[0]!.body)).toContain('Pay particular attention to: the parser API');
    expect(result!.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: expect.stringContaining('Goal: explain f1.') },
          { type: 'text', text: 'My first request in this conversation, verbatim (you answered it before this summary):' },
          { type: 'text', text: 'What does f1 do?' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: expect.any(String) }] },
    ]);
    expect((await nextRequest(provider, [...result!.messages, user('and f2?')])).violations).toEqual([]);
  });

  it('/compact on a history shorter than any summary sends nothing and changes nothing', async () => {
    const provider = model('openai');
    const messages = [user('What does f1 do?'), ...round(1, 'it parses'), { role: 'assistant', content: [{ type: 'text', text: 'It parses.' }] } as Message];
    expect(await compactHistory(options(provider, messages, { force: true, files: new Map() }))).toBeNull();
    expect(server.requests).toEqual([]);
  });

  it('keeps the summary request within the window for Chinese text, about a token a character', async () => {
    const provider = model('anthropic');
    const zh = (n: number) => '修复解析器中的制表符问题。'.repeat(n);
    const messages = [user('先看看'), ...round(1, zh(150)), { role: 'assistant', content: [{ type: 'text', text: '好的。' }] } as Message, user(zh(600) + '最新内容')];
    server.enqueue({ text: '目标：修复制表符。' });
    const result = await compactHistory(options(provider, messages));
    const { body } = server.requests[0]!;
    expect(result!.event.method).toBe('summary');
    expect(JSON.stringify(body)).toContain('最新内容');
    expect(estimateTokens(JSON.stringify(body)) + body.max_tokens).toBeLessThanOrEqual(WINDOW);
  });

  it('does nothing for a history with nothing to cut', async () => {
    expect(await compactHistory(options(model('anthropic'), [user('hi')]))).toBeNull();
    const short = [user('hi'), { role: 'assistant', content: [{ type: 'text', text: 'hello' }] } as Message];
    expect(await compactHistory({ ...options(model('anthropic'), short), contextTokens: 100 })).toBeNull();
    expect(server.requests.length).toBe(0);
  });
});

describe('compacting a compacted history', () => {
  const TASK = 'Port the lexer to the new AST. ' + 'Keep every error message. '.repeat(40);
  const texts = (ms: Message[]) => ms.flatMap((m) => (m.content as { type: string; text?: string }[]).flatMap((b) => (b.type === 'text' ? [b.text!] : [])));
  const summaryBlocks = (ms: Message[]) => texts(ms).filter((t) => t.startsWith('This is a summary'));

  it('keeps one summary, the first request and the latest verbatim, and never wraps the old head again', async () => {
    const provider = model('anthropic');
    let messages: Message[] = [user(TASK), ...round(1, fileText(240)), ...round(2, fileText(240)), ...round(3, fileText(240))];
    const sizes: number[] = [];
    for (let n = 1; n <= 4; n++) {
      server.enqueue({ text: `Summary ${n}: lexer half done.` });
      const result = await compactHistory(options(provider, messages));
      expect(result!.event.method).toBe('summary');
      messages = result!.messages;
      sizes.push(estimateTokens(messages));
      expect(summaryBlocks(messages)).toEqual([expect.stringMatching(new RegExp(`Summary ${n}: lexer half done\\.$`))]);
      expect(texts(messages).filter((t) => t === TASK)).toHaveLength(1);
      expect(texts(messages).filter((t) => t === 'go on')).toHaveLength(n === 1 ? 0 : 1);
      expect(texts(messages).filter((t) => t.startsWith('My '))).toHaveLength(n === 1 ? 1 : 2);
      // The next summary request builds on this summary.
      if (n > 1) expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(`EARLIER SUMMARY:\\nSummary ${n - 1}`);
      const paused: Message = { role: 'assistant', content: [{ type: 'text', text: 'Paused.' }] };
      messages = [...messages, paused, user('go on'), ...round(10 + n, fileText(240)), ...round(20 + n, fileText(240)), ...round(30 + n, fileText(240))];
      expect((await nextRequest(provider, messages)).violations).toEqual([]);
    }
    expect(Math.max(...sizes.slice(1)) - Math.min(...sizes.slice(1))).toBeLessThanOrEqual(2);
  });

  it('reads the first request out of a head written by an earlier version', async () => {
    const provider = model('openai');
    const old: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'This is a summary of our earlier conversation, made to save context; the full history is no longer available.\n\nOld summary.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Understood. I have the summary of our earlier conversation and will continue from it.' }] },
      { role: 'user', content: [{ type: 'text', text: 'My latest request, verbatim:' }, { type: 'text', text: TASK }] },
      ...round(1, fileText(240)),
      ...round(2, fileText(240)),
      ...round(3, fileText(240)),
    ];
    server.enqueue({ text: 'New summary.' });
    const result = await compactHistory(options(provider, old, { todo: undefined, files: new Map() }));
    expect(result!.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'My first request in this conversation, verbatim:' },
        { type: 'text', text: TASK },
        { type: 'text', text: 'Continue the task from where it stopped.' },
      ],
    });
    expect(JSON.stringify(server.requests[0]!.body)).toContain('EARLIER SUMMARY:\\nOld summary.');
  });

  it('cuts a first request too big for the window in the middle, saying so', async () => {
    const provider = model('anthropic');
    const huge = 'START ' + 'word '.repeat(4000) + ' END';
    server.enqueue({ text: 'Summary.' });
    const result = await compactHistory(options(provider, [user(huge), ...round(1, fileText(240)), ...round(2, fileText(240)), ...round(3, fileText(240))]));
    const kept = texts(result!.messages).find((t) => t.startsWith('START'))!;
    expect(kept).toMatch(/^START word[^]*\[… \d+ characters cut here to fit the context window …\][^]* END$/);
    expect(estimateTokens(kept)).toBeLessThanOrEqual(WINDOW * 0.25);
    expect(result!.event.after).toBeLessThanOrEqual(WINDOW * 0.6);
  });
});

