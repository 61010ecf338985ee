// What the loop does with the provider endings of recorded real streams: a refusal takes the
// refused exchange out of the history (and of the session file), a tool call the output limit cut
// off mid-arguments is answered so the model can make it smaller. Real HTTP, real tools.
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { loadSession, SessionWriter } from '../src/session/store.js';
import { coreTools } from '../src/tools/index.js';
import type { AgentEvent } from '../src/types/events.js';
import type { Message } from '../src/types/conversation.js';
import type { ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { anthropicSse, messageEnd, messageStart, textBlock } from './wire-fixtures.js';
import { useFakeServer } from './fixtures.js';
import { currentTest } from './scope.js';

const server = await useFakeServer();
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-agent-wire-')));
});

/** An agent on the Anthropic wire with the core tools, in a fresh workspace, recording its events. */
function agentWithEvents() {
  const ctx: ToolContext = { root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: { ...process.env, ...currentTest().env } };
  const provider = createProvider(fakeModel(server, 'anthropic'), { retry: { baseDelayMs: 5 } });
  const events: AgentEvent[] = [];
  const agent = new Agent({ provider, tools: coreTools(), system: 'You are a test.', ctx });
  agent.on((e) => events.push(e));
  return { agent, events };
}

const start = messageStart('claude-sonnet-4-5', { input_tokens: 50, output_tokens: 1 });
const refusal = anthropicSse(start, ...textBlock(0, 'Here is how'), ...messageEnd('refusal', { usage: { output_tokens: 5 } }));

describe('a refusal', () => {
  it('ends the turn as an error and takes the whole refused exchange out of the history and the session', async () => {
    const { agent, events } = agentWithEvents();
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
    const { agent, events } = agentWithEvents();
    server.enqueue(
      {
        raw: anthropicSse(
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_cut', name: 'write_file', input: {} } },
          { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path": "big.txt", "content": "aaaa' } },
          ...messageEnd('max_tokens', { usage: { output_tokens: 4096 } }),
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
