// The task tool through real Agent runs on the fake model server: two sub-agents in parallel (a
// barrier tool proves they overlap), only their conclusions reaching the main conversation, their
// tokens counted as side usage; the round cap, the read-only tool set, cancellation.
import { describe, expect, it } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { taskTool } from '../src/delegate/task.js';
import { coreTools } from '../src/tools/index.js';
import type { AgentEvent } from '../src/types/events.js';
import type { Tool, ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { waitFor } from './scope.js';
import { workspace } from './tools-helpers.js';

const server = await useFakeServer();

/** Returns "together" once `n` callers have arrived; a lone caller gives up after a while with "alone". */
function barrier(n: number): Tool {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  return {
    name: 'meet',
    description: 'test barrier',
    parameters: { type: 'object', properties: {} },
    kind: 'read',
    async run() {
      if (++arrived === n) release();
      const met = await Promise.race([all.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      return { output: met ? 'together' : 'alone' };
    },
  };
}

const byName = (...names: string[]) => coreTools().filter((t) => names.includes(t.name));
const SECRET = 'NOTES-BODY-7731';

async function setup(tools: () => Tool[], maxRounds?: number) {
  const provider = createProvider(fakeModel(server, 'anthropic', { price: { input: 3, output: 15 } }), { retry: { baseDelayMs: 5 } });
  const files = { 'notes.txt': `${SECRET}\nalpha is configured here\n`, 'src/beta.ts': 'export const beta = 2;\n' };
  const ctx: ToolContext = { ...(await workspace(files)), provider: () => provider };
  const task = taskTool({ tools, maxRounds });
  const agent = new Agent({ provider, tools: [task, ...byName('read_file')], system: 'main system', ctx });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, events, ctx, task };
}

describe('the task sub-agent', () => {
  it('runs two sub-agents in parallel; the main conversation gets only their conclusions', async () => {
    const meet = barrier(2);
    const { agent, events } = await setup(() => [...byName('read_file', 'list_files', 'search', 'bash', 'write_file'), meet]);
    const conclusions = ['Alpha is configured in notes.txt:2.', 'beta is exported from src/beta.ts:1.'];
    server.enqueue(
      {
        toolCalls: [
          { id: 't1', name: 'task', input: { description: 'find alpha', prompt: 'Where is alpha configured?' } },
          { id: 't2', name: 'task', input: { description: 'find beta', prompt: 'Where is beta defined?' } },
        ],
        usage: { input: 1000, output: 60 },
      },
      // Both sub-agents' first replies, in whichever order they ask.
      { toolCalls: [{ name: 'meet' }, { name: 'read_file', input: { path: 'notes.txt' } }], usage: { input: 200, output: 10 } },
      { toolCalls: [{ name: 'meet' }, { name: 'read_file', input: { path: 'notes.txt' } }], usage: { input: 200, output: 10 } },
      { text: conclusions[0], usage: { input: 300, output: 20 } },
      { text: conclusions[1], usage: { input: 300, output: 20 } },
      { text: 'Both found.', usage: { input: 1200, output: 5 } },
    );
    expect(await agent.send('find alpha and beta')).toMatchObject({ stopReason: 'end', text: 'Both found.', rounds: 1 });
    expect(server.violations).toEqual([]);

    const bodies = server.requests.map((r) => JSON.stringify(r.body));
    const subs = server.requests.slice(1, 5);
    // Sub-agents: their own system prompt, only read tools, and they met (ran at the same time).
    for (const r of subs) {
      expect(r.body.system).toEqual(expect.arrayContaining([expect.objectContaining({ text: expect.stringContaining('research sub-agent') })]));
      expect(r.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(['list_files', 'meet', 'read_file', 'search']);
    }
    const met = (b: string) => [b.includes('"content":"together"'), b.includes('"content":"alone"'), b.includes(SECRET)];
    expect(bodies.slice(3, 5).map(met)).toEqual([[true, false, true], [true, false, true]]);

    // The main conversation: the conclusions, nothing the sub-agents read.
    const last = bodies.at(-1)!;
    for (const c of conclusions) expect(last).toContain(c);
    expect(last).not.toContain(SECRET);
    const results = events.flatMap((e) => (e.type === 'tool_result' ? [{ name: e.name, output: e.output, isError: e.isError }] : []));
    expect(results.map((r) => r.output).sort()).toEqual([...conclusions].sort());
    expect(results.every((r) => r.name === 'task' && !r.isError)).toBe(true);

    // Tokens: each sub-agent's two requests come back as one side usage; all count in the totals.
    const usage = events.flatMap((e) => (e.type === 'usage' ? [{ input: e.input, output: e.output, side: e.side ?? false }] : []));
    expect(usage).toEqual([
      { input: 1000, output: 60, side: false },
      { input: 500, output: 30, side: true },
      { input: 500, output: 30, side: true },
      { input: 1200, output: 5, side: false },
    ]);
    expect(agent.totals).toMatchObject({ input: 3200, output: 125 });
    expect(agent.totals.cost).toBeCloseTo((3200 * 3 + 125 * 15) / 1e6, 10);
  });

  it('asks for a conclusion when the round cap is reached', async () => {
    const { task, ctx } = await setup(() => byName('read_file'), 2);
    const readNotes = { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }], usage: { input: 100, output: 10 } };
    server.enqueue(readNotes, readNotes, { text: 'Partial: notes.txt:2 mentions alpha.', usage: { input: 100, output: 10 } });
    expect(await task.run({ prompt: 'Where is alpha?' }, ctx)).toEqual({
      output: 'Partial: notes.txt:2 mentions alpha.',
      sideUsage: { input: 300, output: 30, cacheRead: 0, cacheWrite: 0 },
      summary: { key: 'ok' },
    });
    expect(JSON.stringify(server.requests[2]!.body)).toContain('You have used all your tool rounds');

    server.reset();
    server.enqueue(readNotes, readNotes, readNotes);
    expect(await task.run({ prompt: 'Where is alpha?' }, ctx)).toEqual({
      output: 'the sub-agent used its 2 rounds without a conclusion; give it a narrower task',
      isError: true,
      sideUsage: { input: 300, output: 30, cacheRead: 0, cacheWrite: 0 },
    });
  });

  it('keeps its read records apart from the main conversation', async () => {
    const { task, ctx } = await setup(() => byName('read_file'));
    server.enqueue({ toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] }, { text: 'Done.' });
    await task.run({ prompt: 'read notes' }, ctx);
    expect(ctx.files.size).toBe(0);
  });

  it('stops when the turn is cancelled, and reports a failed model request', async () => {
    const { task, ctx } = await setup(() => byName('read_file'));
    const controller = new AbortController();
    server.enqueue({ text: 'Thinking', hang: true });
    const pending = task.run({ prompt: 'anything' }, { ...ctx, signal: controller.signal });
    await waitFor(() => server.requests.length === 1, 'the request');
    controller.abort();
    expect(await pending).toMatchObject({ output: 'interrupted', isError: true });

    server.enqueue({ status: 400 });
    expect(await task.run({ prompt: 'anything' }, ctx)).toMatchObject({ output: expect.stringMatching(/^the sub-agent's model request failed: /), isError: true });
  });

  it('needs a model', async () => {
    const { task, ctx } = await setup(() => []);
    const { provider: _, ...none } = ctx;
    expect(await task.run({ prompt: 'x' }, none)).toEqual({ output: 'task needs a model, and none is available to this tool', isError: true });
  });
});
