// Long tasks over real HTTP: on a 4,000-token window the agent compacts by itself (summary
// requests in between), the task finishes, no request ever exceeds the window, every request is
// a valid history, and the session file holds the compacted history; 300 rounds on a 16k window
// keep every request under it with the task verbatim; a request that cannot fit is never sent.
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { loadSession, SessionWriter } from '../src/session/store.js';
import type { AgentEvent } from '../src/types/events.js';
import type { FileVersion, Tool, ToolContext } from '../src/types/tools.js';
import type { Provider } from '../src/types/providers.js';
import { fakeModel, type FakeReply } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

const server = await useFakeServer();

const WINDOW = 4000;
const ROUNDS = 10;

/** About 1,000 tokens a call: three of them do not fit under 60% of the window. */
const readBig: Tool = {
  name: 'read_big',
  description: 'Reads a big file.',
  parameters: { type: 'object', properties: { n: { type: 'number' } } },
  kind: 'read',
  run: async (args: { n: number }) => ({ output: `part ${args.n}\n` + 'x'.repeat(3990) }),
};

/**
 * A real provider that scripts the fake server one request at a time: the summary requests (the
 * ones without tools) get `summary(n, round)`, the others `work(round)`, counting from 1.
 */
function scripted(inner: Provider, work: (round: number) => FakeReply, summary: (n: number, round: number) => string): Provider {
  let round = 0;
  let summaries = 0;
  return {
    config: inner.config,
    stream(request, signal) {
      server.enqueue(request.tools.length === 0 ? { text: summary(++summaries, round) } : work(++round));
      return inner.stream(request, signal);
    },
  };
}

describe.each(['anthropic', 'openai'] as const)('a long task over %s', (format) => {
  it('compacts by itself and finishes without any request passing the window', async () => {
    const state = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-long-')));
    const ctx: ToolContext = { root: state, signal: new AbortController().signal, files: new Map(), shell: { cwd: state }, env: {} };
    const provider = scripted(
      createProvider(fakeModel(server, format, { contextWindow: WINDOW, maxOutputTokens: 1000 }), { retry: { baseDelayMs: 1 } }),
      (round) => (round <= ROUNDS ? { toolCalls: [{ name: 'read_big', input: { n: round } }] } : { text: 'All done.' }),
      (n, round) => `Summary ${n}: reading parts; ${round - 1} read so far.`,
    );
    const agent = new Agent({ provider, tools: [readBig], system: 'You are a test.', ctx, maxRounds: 50, todo: () => '[ ] read all parts' });
    const events: AgentEvent[] = [];
    const session = SessionWriter.create(state, state, 'fake');
    agent.on((e) => {
      events.push(e);
      session.onEvent(e);
    });

    const result = await agent.send('Read parts 1 to 10 with read_big, then say "All done."');

    expect(result).toEqual({ stopReason: 'end', text: 'All done.', rounds: ROUNDS });
    expect(server.violations).toEqual([]);
    const sizes = server.requests.map((r) => JSON.stringify(r.body).length / 4 + (r.body.max_tokens ?? r.body.max_completion_tokens ?? 0));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW);
    const compactions = events.filter((e) => e.type === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    expect(compactions.every((c) => c.type === 'compaction' && c.method === 'summary' && c.after < WINDOW * 0.6)).toBe(true);
    // The summary requests were counted like any other.
    expect(agent.totals.requests).toBe(server.requests.length);
    expect(loadSession(session.file).messages).toEqual(agent.messages);
  });
});

describe('a request that would not fit the window', () => {
  const root = '/nonexistent-root';
  const ctx = (): ToolContext => ({ root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: {} });

  it('is never sent: the turn ends with an error and a notice saying why', async () => {
    const provider = createProvider(fakeModel(server, 'anthropic', { contextWindow: WINDOW, maxOutputTokens: 1000 }), { retry: { baseDelayMs: 1 } });
    const agent = new Agent({ provider, tools: [readBig], system: 'Rules. '.repeat(2000), ctx: ctx() });
    const notices: AgentEvent[] = [];
    agent.on((e) => e.type === 'notice' && notices.push(e));
    expect(await agent.send('hello')).toEqual({ stopReason: 'error', text: '', rounds: 0 });
    expect(server.requests).toEqual([]);
    expect(notices).toEqual([{ type: 'notice', code: 'context_full', params: { tokens: expect.any(Number), window: WINDOW } }]);
  });

  it('is sent with its output limit lowered to the room left in the window', async () => {
    server.enqueue({ text: 'ok' });
    const provider = createProvider(fakeModel(server, 'openai', { contextWindow: WINDOW, maxOutputTokens: 2000 }), { retry: { baseDelayMs: 1 } });
    const agent = new Agent({ provider, tools: [readBig], system: 'Rules. '.repeat(1300), ctx: ctx() });
    await agent.send('hello');
    const body = server.requests[0]!.body;
    const input = Math.ceil(JSON.stringify(body).length / 4);
    expect(body.max_completion_tokens ?? body.max_tokens).toBeLessThan(2000);
    expect(input + (body.max_completion_tokens ?? body.max_tokens)).toBeLessThanOrEqual(WINDOW);
  });
});

// A 300-round task on a 16,000-token window: the task is given once and then "go on" twice.
// Compaction happens again and again, yet every request (summary requests included) fits the
// window with its output limit, carries the task verbatim, and the context right after each
// summary stays far under the window: nothing wraps the previous compaction's blocks again.
const LONG_WINDOW = 16_000;
const ROUNDS_PER_MESSAGE = 100;
const TASK = 'Port every module of the legacy parser to the new AST, keeping the public API. TASK-MARKER ' + 'Keep the error messages as they are. '.repeat(12);
/** What the system prompt and tool schemas cost, as in a real session: about 1,500 tokens. */
const SYSTEM = 'You are a test. ' + 'Follow the project conventions. '.repeat(190);

/** Outputs of 200 to 1,500 tokens, in a fixed pattern. */
const readPart: Tool = {
  name: 'read_part',
  description: 'Reads a part of the legacy parser.',
  parameters: { type: 'object', properties: { n: { type: 'number' } } },
  kind: 'read',
  run: async (args: { n: number }, ctx) => {
    ctx.files.set(`${ctx.root}/src/part${args.n}.ts`, { hash: String(args.n).padStart(64, '0'), size: 1000 + args.n, mtimeMs: args.n } satisfies FileVersion);
    return { output: `part ${args.n}\n` + 'const x = parse(tokens);\n'.repeat(32 + ((args.n * 37) % 210)) };
  },
};

const requestTokens = (body: any) => Math.ceil(JSON.stringify(body).length / 4) + (body.max_tokens ?? body.max_completion_tokens ?? 0);

describe.each(['anthropic', 'openai'] as const)('300 rounds on a 16k window over %s', (format) => {
  it('keeps every request under the window and the task verbatim in each', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-long300-')));
    const ctx: ToolContext = { root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: {} };
    const provider = scripted(
      createProvider(fakeModel(server, format, { contextWindow: LONG_WINDOW, maxOutputTokens: 4000 }), { retry: { baseDelayMs: 1 } }),
      // Always a tool call, so each message ends at the round limit; with some text, as models write.
      (round) => ({ text: `Part ${round} next. ` + 'Checking how the old parser handles it. '.repeat(25), toolCalls: [{ name: 'read_part', input: { n: round } }] }),
      (n, round) => `Summary ${n}: porting parts; ${round} read so far. ` + 'Decisions and files as listed. '.repeat(100),
    );
    const agent = new Agent({ provider, tools: [readPart], system: SYSTEM, ctx, maxRounds: ROUNDS_PER_MESSAGE, todo: () => '[ ] port every part' });
    const compactions: Extract<AgentEvent, { type: 'compaction' }>[] = [];
    agent.on((e) => e.type === 'compaction' && compactions.push(e));

    const results = [await agent.send(TASK), await agent.send('go on'), await agent.send('go on')];

    expect(results.map((r) => r.stopReason)).toEqual(['max_rounds', 'max_rounds', 'max_rounds']);
    expect(server.violations).toEqual([]);
    const summaries = compactions.filter((c) => c.method === 'summary');
    expect(summaries.length).toBeGreaterThanOrEqual(20);
    expect(compactions.filter((c) => c.method === 'drop')).toEqual([]);
    const sizes = server.requests.map((r) => requestTokens(r.body));
    expect(sizes.filter((n) => n > LONG_WINDOW)).toEqual([]);
    const task = JSON.stringify(TASK).slice(1, -1);
    expect(server.requests.filter((r) => !JSON.stringify(r.body).includes(task)).length).toBe(0);
    // Summaries replace summaries: right after each one the context is about the same size, far under the window.
    expect(Math.max(...summaries.map((c) => c.after))).toBeLessThan(LONG_WINDOW * 0.3);
  });
});
