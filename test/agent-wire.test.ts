// What the loop does with the provider endings of recorded real streams: a refusal takes the
// refused exchange out of the history (and of the session file), a tool call the output limit cut
// off mid-arguments is answered so the model can make it smaller. Real HTTP, real tools.
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { loadSession, SessionWriter } from '../src/session/store.js';
import { coreTools } from '../src/tools/index.js';
import type { AgentEvent, Message, ToolContext } from '../src/types.js';
import { fakeModel, startFakeServer, type FakeServer } from './fake-server.js';

let server: FakeServer;
let root: string;

beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-agent-wire-')));
});
afterEach(() => {
  const violations = [...server.violations];
  const pending = server.pending();
  server.reset();
  expect(violations).toEqual([]);
  expect(pending).toBe(0);
});

function makeAgent() {
  const ctx: ToolContext = { root, signal: new AbortController().signal, files: new Map(), shellCwd: root, env: process.env };
  const agent = new Agent({ provider: createProvider(fakeModel(server, 'anthropic'), { retry: { baseDelayMs: 5 } }), tools: coreTools(), system: 'You are a test.', ctx });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, events };
}

const sse = (...events: object[]) => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`);
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', stop_reason: null, usage: { input_tokens: 50, output_tokens: 1 } } };
const refusal = sse(
  start,
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Here is how' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null }, usage: { output_tokens: 5 } },
  { type: 'message_stop' },
);

describe('a refusal', () => {
  it('ends the turn as an error and takes the whole refused exchange out of the history and the session', async () => {
    const { agent, events } = makeAgent();
    const state = await mkdtemp(join(tmpdir(), 'feiyu-agent-wire-state-'));
    const session = SessionWriter.create(state, root, 'fake-anthropic');
    agent.on((e) => session.onEvent(e));
    server.enqueue({ text: 'Hello.' });
    await agent.send('hi');
    const kept: Message[] = structuredClone(agent.messages);

    // The refusal comes after a tool round: that round goes too, or the next request is refused again.
    server.enqueue({ toolCalls: [{ id: 't1', name: 'list_files', input: {} }] }, { raw: refusal });
    expect(await agent.send('something refused')).toEqual({ stopReason: 'error', text: '', rounds: 1 });
    expect(agent.messages).toEqual(kept);
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', model: 'fake-anthropic', error: { kind: 'refusal', message: 'stop_reason "refusal"' } }]);
    expect(events.filter((e) => e.type === 'turn_end').at(-1)).toMatchObject({ stopReason: 'error', text: '' });
    expect(loadSession(session.file).messages).toEqual(kept);

    server.enqueue({ text: 'Sure.' });
    await agent.send('something else');
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain('something refused');
    expect(loadSession(session.file).messages).toEqual(agent.messages);
  });
});

describe('a tool call cut off by the output limit before its block closed', () => {
  it('is answered with a result telling the model to make the call smaller', async () => {
    const { agent, events } = makeAgent();
    server.enqueue(
      {
        raw: sse(
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_cut', name: 'write_file', input: {} } },
          { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path": "big.txt", "content": "aaaa' } },
          { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 4096 } },
          { type: 'message_stop' },
        ),
      },
      { text: 'I will write it in parts.' },
    );
    expect(await agent.send('write a big file')).toEqual({ stopReason: 'end', text: 'I will write it in parts.', rounds: 1 });
    const result = events.find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({ name: 'write_file', isError: true, output: expect.stringContaining('cut off at the output token limit') });
    expect(server.requests[1]!.body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_cut', is_error: true });
  });
});
