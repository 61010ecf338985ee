// A long task with a 4,000-token window, end to end over real HTTP: the agent compacts by itself
// (summary requests in between), the task finishes, no request ever exceeds the window, every
// request is a valid history, and the session file holds the compacted history.
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { loadSession, SessionWriter } from '../src/session/store.js';
import type { AgentEvent } from '../src/types/events.js';
import type { Provider } from '../src/types/providers.js';
import type { Tool, ToolContext } from '../src/types/tools.js';
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

/** A real provider that scripts the fake server one request at a time: the summary requests are the ones without tools. */
function scripted(inner: Provider): Provider {
  let round = 0;
  let summaries = 0;
  return {
    config: inner.config,
    stream(request, signal) {
      let reply: FakeReply;
      if (request.tools.length === 0) reply = { text: `Summary ${++summaries}: reading parts; ${round} read so far.` };
      else if (++round <= ROUNDS) reply = { toolCalls: [{ name: 'read_big', input: { n: round } }] };
      else reply = { text: 'All done.' };
      server.enqueue(reply);
      return inner.stream(request, signal);
    },
  };
}

describe.each(['anthropic', 'openai'] as const)('a long task over %s', (format) => {
  it('compacts by itself and finishes without any request passing the window', async () => {
    const state = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-long-')));
    const ctx: ToolContext = { root: state, signal: new AbortController().signal, files: new Map(), shell: { cwd: state }, env: {} };
    const provider = scripted(createProvider(fakeModel(server, format, { contextWindow: WINDOW, maxOutputTokens: 1000 }), { retry: { baseDelayMs: 1 } }));
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
