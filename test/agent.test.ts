// The loop end to end over real HTTP: the real SDKs talk to the fake model server, real tools
// run in a temporary workspace. Conversations are stated as data; whole results are compared.
import { mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Agent, type AgentConfig } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { coreTools } from '../src/tools/index.js';
import type { AgentEvent } from '../src/types/events.js';
import type { Tool, ToolContext } from '../src/types/tools.js';
import type { WireFormat } from '../src/types/providers.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

let root: string;

const server = await useFakeServer();

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-agent-')));
});

function makeAgent(format: WireFormat, extra: Partial<AgentConfig> = {}) {
  const ctx: ToolContext = { root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: process.env };
  const provider = createProvider(fakeModel(server, format, { price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }), {
    retry: { baseDelayMs: 5 },
  });
  const agent = new Agent({ provider, tools: coreTools(), system: 'You are a test.', ctx, ...extra });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, events, ctx };
}

const results = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === 'tool_result' ? [{ name: e.name, isError: e.isError, output: e.output }] : []));

describe.each(['anthropic', 'openai'] as const)('agent loop over %s', (format) => {
  it('answers without tools', async () => {
    const { agent, events } = makeAgent(format);
    server.enqueue({ text: 'Hello there.', usage: { input: 100, output: 10 } });
    const result = await agent.send('hi');
    expect(result).toEqual({ stopReason: 'end', text: 'Hello there.', rounds: 0 });
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text).join('')).toBe('Hello there.');
    expect(agent.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello there.' }] },
    ]);
    const usage = events.find((e) => e.type === 'usage');
    expect(usage).toMatchObject({ input: 100, output: 10, estimated: false });
    expect((usage as { cost: number }).cost).toBeCloseTo((100 * 3 + 10 * 15) / 1e6, 10);
    expect(server.violations).toEqual([]);
  });

  it('runs a tool, sends its result back, and finishes', async () => {
    await writeFile(join(root, 'a.txt'), 'alpha\nbeta\n');
    const { agent, events } = makeAgent(format);
    server.enqueue({ toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.txt' } }] }, { text: 'It says alpha, beta.' });
    const result = await agent.send('what is in a.txt?');
    expect(result).toEqual({ stopReason: 'end', text: 'It says alpha, beta.', rounds: 1 });
    expect(results(events)).toEqual([{ name: 'read_file', isError: false, output: expect.stringContaining('alpha') }]);
    const second = JSON.stringify(server.requests[1]!.body);
    expect(second).toContain('beta');
    expect(server.violations).toEqual([]);
  });

  it('answers malformed, unknown and incomplete calls with errors the model can act on', async () => {
    const { agent, events } = makeAgent(format);
    server.enqueue(
      {
        toolCalls: [
          { id: 'm1', name: 'read_file', rawArguments: '{"path": "a.txt"' },
          { id: 'm2', name: 'frobnicate', input: {} },
          { id: 'm3', name: 'read_file', input: {} },
        ],
      },
      { text: 'Sorry.' },
    );
    const result = await agent.send('go');
    expect(result.stopReason).toBe('end');
    expect(results(events)).toEqual([
      { name: 'read_file', isError: true, output: 'invalid arguments: not valid JSON ({"path": "a.txt"); send the arguments as one JSON object' },
      { name: 'frobnicate', isError: true, output: 'unknown tool "frobnicate"; available: read_file, list_files, search, write_file, edit_file, bash' },
      { name: 'read_file', isError: true, output: 'invalid arguments: path is required' },
    ]);
    expect(server.violations).toEqual([]);
  });

  it('stops at the round cap and continues on the next message', async () => {
    const { agent, events } = makeAgent(format, { maxRounds: 2 });
    const call = (id: string) => ({ toolCalls: [{ id, name: 'list_files', input: {} }] });
    server.enqueue(call('r1'), call('r2'));
    const result = await agent.send('loop');
    expect(result).toEqual({ stopReason: 'max_rounds', text: '', rounds: 2 });
    expect(events).toContainEqual({ type: 'notice', code: 'max_rounds', params: { n: 2 } });
    expect(server.requests).toHaveLength(2);
    server.enqueue({ text: 'Done now.' });
    expect(await agent.send('continue')).toEqual({ stopReason: 'end', text: 'Done now.', rounds: 0 });
    expect(server.violations).toEqual([]);
  });

  it('explains a call cut off at max_tokens', async () => {
    const { agent, events } = makeAgent(format);
    server.enqueue({ toolCalls: [{ id: 'x1', name: 'write_file', rawArguments: '{"path": "big.txt", "content": "aaaa' }], stop: 'max_tokens' }, { text: 'ok' });
    await agent.send('write it');
    expect(results(events)[0]).toEqual({ name: 'write_file', isError: true, output: expect.stringContaining('cut off at the output token limit') });
    expect(server.violations).toEqual([]);
  });

  it('is cancelled mid-stream and keeps a valid history', async () => {
    const { agent } = makeAgent(format);
    server.enqueue({ text: 'This answer never ends', hang: true });
    const controller = new AbortController();
    const off = agent.on((e) => e.type === 'text_delta' && controller.abort());
    const result = await agent.send('talk', controller.signal);
    off();
    expect(result.stopReason).toBe('aborted');
    server.enqueue({ text: 'fine' });
    expect((await agent.send('again')).text).toBe('fine');
    expect(server.violations).toEqual([]);
  });

  it('is cancelled mid-tool: the process group dies and every call gets a result', async () => {
    const { agent, events } = makeAgent(format);
    server.enqueue({
      toolCalls: [
        { id: 'b1', name: 'bash', input: { command: 'sleep 30' } },
        { id: 'b2', name: 'bash', input: { command: 'echo never' } },
      ],
    });
    const controller = new AbortController();
    const off = agent.on((e) => e.type === 'tool_call' && setTimeout(() => controller.abort(), 200));
    const result = await agent.send('sleep', controller.signal);
    off();
    expect(result.stopReason).toBe('aborted');
    const last = agent.messages.at(-1)!;
    expect(last.content.map((b) => b.type === 'tool_result' && [b.callId, b.isError])).toEqual([
      ['b1', true],
      ['b2', true],
    ]);
    expect(results(events)).toHaveLength(1);
    server.enqueue({ text: 'ok' });
    await agent.send('go on');
    expect(server.violations).toEqual([]);
  });
});

describe('batching', () => {
  /** A read tool that records how many of its calls overlap. */
  function probeTools(log: string[]): Tool[] {
    let running = 0;
    const make = (name: string, kind: Tool['kind']): Tool => ({
      name,
      kind,
      description: name,
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      async run(args: { n: number }) {
        running++;
        log.push(`${name}${args.n} start ${running}`);
        await new Promise((r) => setTimeout(r, 30));
        running--;
        log.push(`${name}${args.n} end`);
        return { output: `${name} ${args.n}` };
      },
    });
    return [make('peek', 'read'), make('poke', 'exec')];
  }

  it('runs consecutive reads together (at most 4) and anything else alone, in order', async () => {
    const log: string[] = [];
    const { agent } = makeAgent('anthropic', { tools: probeTools(log) });
    const calls = [1, 2, 3, 4, 5].map((n) => ({ name: 'peek', input: { n } }));
    server.enqueue({ toolCalls: [...calls, { name: 'poke', input: { n: 6 } }, { name: 'peek', input: { n: 7 } }] }, { text: 'done' });
    await agent.send('go');
    const starts = log.filter((l) => l.includes('start'));
    expect(Math.max(...starts.map((l) => Number(l.split(' ')[2])))).toBe(4);
    expect(log.slice(-4)).toEqual(['poke6 start 1', 'poke6 end', 'peek7 start 1', 'peek7 end']);
    const results = agent.messages[2]!.content.map((b) => (b.type === 'tool_result' ? b.content : ''));
    expect(results).toEqual(['peek 1', 'peek 2', 'peek 3', 'peek 4', 'peek 5', 'poke 6', 'peek 7']);
  });
});

describe('permissions and structured output', () => {
  it('turns a refusal into an error result and an event', async () => {
    const { agent, events } = makeAgent('openai', {
      beforeToolCall: async (call) => ({ decision: 'deny', reason: `no ${call.name} today` }),
    });
    server.enqueue({ toolCalls: [{ id: 'p1', name: 'bash', input: { command: 'ls' } }] }, { text: 'ok' });
    await agent.send('ls');
    expect(events).toContainEqual({ type: 'permission', id: 'p1', name: 'bash', decision: 'deny', reason: 'no bash today' });
    expect(results(events)).toEqual([{ name: 'bash', isError: true, output: 'Permission denied: no bash today' }]);
  });

  it('treats submit_result as an unknown tool when no output schema was asked for', async () => {
    const { agent, events } = makeAgent('anthropic');
    server.enqueue({ toolCalls: [{ id: 'u1', name: 'submit_result', input: { answer: 1 } }] }, { text: 'Plain answer.' });
    expect(await agent.send('go')).toEqual({ stopReason: 'end', text: 'Plain answer.', rounds: 1 });
    expect(results(events)[0]).toMatchObject({ name: 'submit_result', isError: true, output: expect.stringMatching(/^unknown tool "submit_result"/) });
  });

  const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };

  it('returns a structured result after one correction', async () => {
    const { agent, events } = makeAgent('anthropic', { outputSchema: schema });
    server.enqueue(
      { text: 'The answer is 42.' },
      { toolCalls: [{ id: 's1', name: 'submit_result', input: { answer: 'many' } }] },
    );
    const failed = await agent.send('answer');
    expect(failed).toEqual({ stopReason: 'error', text: 'invalid arguments: answer must be number', rounds: 1 });
    expect(events.filter((e) => e.type === 'notice')).toEqual([
      { type: 'notice', code: 'schema_retry' },
      { type: 'notice', code: 'schema_failed' },
    ]);
    server.enqueue({ toolCalls: [{ id: 's2', name: 'submit_result', input: { answer: 'x' } }] }, { toolCalls: [{ id: 's3', name: 'submit_result', input: { answer: 42 } }] });
    expect(await agent.send('again')).toEqual({ stopReason: 'end', text: '{"answer":42}', rounds: 2, structured: { answer: 42 } });
    const tools = (server.requests.at(-1)!.body as { tools: { name: string; input_schema: unknown }[] }).tools;
    expect(tools.find((t) => t.name === 'submit_result')?.input_schema).toEqual(schema);
    expect(server.violations).toEqual([]);
  });
});
