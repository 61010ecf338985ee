// The task tool through real Agent runs on the fake model server: specialists in parallel (a
// barrier tool proves they overlap) and one that acts running alone, only the conclusion and a
// note id reaching the main conversation, the whole result a note (read_note, context_refs), the
// tools derived from definition and mode, the round and token caps, cancellation of every
// specialist at once, spend per specialist counted in the totals.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { MAX_RETURN_TOKENS, taskTool, type TaskOptions } from '../src/delegate/task.js';
import { BUILTIN_AGENTS, type AgentDefinition } from '../src/delegate/definitions.js';
import { NoteStore, readNoteTool } from '../src/delegate/notes.js';
import { coreTools } from '../src/tools/index.js';
import { estimateTokens } from '../src/util/tokens.js';
import type { AgentEvent } from '../src/types/events.js';
import type { PermissionMode } from '../src/types/permissions.js';
import type { Tool, ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { waitFor } from './scope.js';
import { workspace } from './tools-helpers.js';

const server = await useFakeServer();

/** Returns "together" once `n` callers have arrived; a lone caller gives up after a while with "alone". */
function barrier(n: number, aloneMs = 5000): Tool {
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
      const met = await Promise.race([all.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), aloneMs))]);
      return { output: met ? 'together' : 'alone' };
    },
  };
}

const SECRET = 'NOTES-BODY-7731';
const def = (over: Partial<AgentDefinition>): AgentDefinition => ({ ...BUILTIN_AGENTS[0]!, origin: 'user', ...over });
const submit = (conclusion: string, more: object = {}) => ({
  toolCalls: [{ name: 'submit_result', input: { conclusion, facts: [{ fact: 'alpha is set', where: 'notes.txt:2' }], open_questions: [], status: 'done', ...more } }],
  usage: { input: 300, output: 20 },
});

async function setup(o: { agents?: AgentDefinition[]; extra?: Tool[]; mode?: PermissionMode } = {}) {
  const provider = createProvider(fakeModel(server, 'anthropic', { price: { input: 3, output: 15 } }), { retry: { baseDelayMs: 5 } });
  const files = { 'notes.txt': `${SECRET}\nalpha is configured here\n`, 'src/beta.ts': 'export const beta = 2;\n' };
  const ctx: ToolContext = { ...(await workspace(files)), provider: () => provider };
  const notes = new NoteStore(join(ctx.root, '..', 'session.notes'));
  const specialistEvents: AgentEvent[] = [];
  const options: TaskOptions = {
    tools: () => [...coreTools(), ...(o.extra ?? [])],
    agents: o.agents ?? BUILTIN_AGENTS,
    mode: () => o.mode ?? 'default',
    notes: () => notes,
    report: (e) => specialistEvents.push(e),
  };
  const task = taskTool(options);
  const agent = new Agent({ provider, tools: [task, readNoteTool(() => notes), ...coreTools().filter((t) => t.name === 'read_file')], system: 'main system', ctx });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, events, ctx, task, notes, specialistEvents };
}

const toolNames = (i: number) => server.requests[i]!.body.tools.map((t: { name: string }) => t.name).sort();

describe('specialists', () => {
  it('run read-only specialists in parallel; the main conversation gets only conclusions and note ids', async () => {
    const meet = barrier(2);
    const explorer = def({ name: 'explore', tools: ['read_file', 'list_files', 'search', 'meet', 'bash', 'write_file'] });
    const { agent, events, notes, specialistEvents } = await setup({ agents: [explorer], extra: [meet], mode: 'readonly' });
    const conclusions = ['Alpha is configured in notes.txt:2.', 'beta is exported from src/beta.ts:1.'];
    server.enqueue(
      {
        toolCalls: [
          { id: 't1', name: 'task', input: { description: 'find alpha', prompt: 'Where is alpha configured?' } },
          { id: 't2', name: 'task', input: { description: 'find beta', prompt: 'Where is beta defined?', agent: 'explore' } },
        ],
        usage: { input: 1000, output: 60 },
      },
      // Both specialists' first replies, in whichever order they ask.
      { toolCalls: [{ name: 'meet' }, { name: 'read_file', input: { path: 'notes.txt' } }], usage: { input: 200, output: 10 } },
      { toolCalls: [{ name: 'meet' }, { name: 'read_file', input: { path: 'notes.txt' } }], usage: { input: 200, output: 10 } },
      submit(conclusions[0]!),
      submit(conclusions[1]!),
      { text: 'Both found.', usage: { input: 1200, output: 5 } },
    );
    expect(await agent.send('find alpha and beta')).toMatchObject({ stopReason: 'end', text: 'Both found.', rounds: 1 });
    expect(server.violations).toEqual([]);

    // Derived tools: in readonly mode the definition's bash and write_file are withheld.
    for (const i of [1, 2, 3, 4]) expect(toolNames(i)).toEqual(['list_files', 'meet', 'read_file', 'search', 'submit_result']);
    expect(server.requests[1]!.body.system[0].text).toMatch(/^You are explore, a specialist sub-agent/);
    const bodies = server.requests.map((r) => JSON.stringify(r.body));
    const met = (b: string) => [b.includes('"content":"together"'), b.includes('"content":"alone"'), b.includes(SECRET)];
    expect(bodies.slice(3, 5).map(met)).toEqual([[true, false, true], [true, false, true]]);

    // The main conversation: the conclusions and note ids, nothing the specialists read.
    const last = bodies.at(-1)!;
    expect(last).not.toContain(SECRET);
    const results = events.flatMap((e) => (e.type === 'tool_result' ? [e.output] : [])).sort();
    const footer = (id: string) => `\n\n[explore · done · note ${id}: 1 facts, 0 open questions; read_note("${id}") for them, context_refs to pass them on.]`;
    expect(results).toEqual(expect.arrayContaining([expect.stringMatching(/^Alpha is configured in notes.txt:2.\n\n\[explore · done · note n[12]:/), expect.stringMatching(/^beta is exported/)]));
    expect(results.map((r) => r.replace(/n[12]\b/g, 'N'))).toEqual(conclusions.map((c) => c + footer('N')).sort());
    expect(notes.ids()).toEqual(['n1', 'n2']);
    expect(notes.get('n1')).toMatchObject({ agent: 'explore', status: 'done', facts: [{ fact: 'alpha is set', where: 'notes.txt:2' }], open_questions: [], tokens: 530 });

    // Tokens: each specialist's requests come back as one side usage named after it.
    const usage = events.flatMap((e) => (e.type === 'usage' ? [{ input: e.input, output: e.output, side: e.side ?? false, by: e.by }] : []));
    expect(usage).toEqual([
      { input: 1000, output: 60, side: false, by: undefined },
      { input: 500, output: 30, side: true, by: 'explore' },
      { input: 500, output: 30, side: true, by: 'explore' },
      { input: 1200, output: 5, side: false, by: undefined },
    ]);
    expect(agent.totals).toMatchObject({ input: 3200, output: 125 });
    expect(agent.totals.cost).toBeCloseTo((3200 * 3 + 125 * 15) / 1e6, 10);
    expect(specialistEvents.filter((e) => e.type === 'specialist' && e.phase === 'end').map((e) => (e as { status: string }).status)).toEqual(['done', 'done']);
  });

  it('runs a specialist with exec tools alone, not beside other calls', async () => {
    const meet = barrier(2, 300);
    const { agent } = await setup({ extra: [meet], agents: [def({ name: 'explore', tools: ['meet'] }), def({ name: 'test', tools: ['meet', 'bash'] })] });
    server.enqueue(
      { toolCalls: [{ name: 'task', input: { prompt: 'run tests', agent: 'test' } }, { name: 'task', input: { prompt: 'look' } }] },
      { toolCalls: [{ name: 'meet' }] },
      submit('tests ran'),
      { toolCalls: [{ name: 'meet' }] },
      submit('looked'),
      { text: 'ok' },
    );
    await agent.send('go');
    // The test specialist's barrier met nobody: the explorer only started after it ended.
    expect(JSON.stringify(server.requests[2]!.body)).toContain('"content":"alone"');
    expect(toolNames(1)).toEqual(['bash', 'meet', 'submit_result']);
  });

  it('keeps what it returns under the limit, whatever the conclusion, and builds on earlier notes', async () => {
    const { task, ctx, notes } = await setup();
    const huge = 'The answer is long. '.repeat(2000);
    server.enqueue(submit(huge));
    const first = await task.run({ prompt: 'explain everything' }, ctx);
    expect(estimateTokens(first.output)).toBeLessThanOrEqual(MAX_RETURN_TOKENS);
    expect(first.output).toContain('The conclusion was cut to fit; the note has it whole.');
    expect(notes.get('n1')!.conclusion).toBe(huge);

    server.enqueue(submit('built on n1'));
    await task.run({ prompt: 'go on', context_refs: ['n1'] }, ctx);
    const sent = JSON.stringify(server.requests[1]!.body.messages[0]);
    expect(sent).toContain('Earlier findings you can build on:');
    expect(sent).toContain('<note id=\\"n1\\">');
    expect(await task.run({ prompt: 'x', context_refs: ['n9'] }, ctx)).toEqual({ output: 'no notes n9 in this session; notes: n1, n2', isError: true });
    expect(await task.run({ prompt: 'x', agent: 'nobody' }, ctx)).toEqual({ output: 'no specialist "nobody"; specialists: explore, review, test', isError: true });
  });

  it('asks for the result at the round cap and at the token cap', async () => {
    const { task, ctx, notes } = await setup({ agents: [def({ name: 'explore', maxRounds: 2 }), def({ name: 'cheap', maxTokens: 500 })] });
    const readNotes = { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }], usage: { input: 100, output: 10 } };
    server.enqueue(readNotes, readNotes, submit('Partial: notes.txt:2 mentions alpha.', { status: 'partial' }));
    expect(await task.run({ prompt: 'Where is alpha?' }, ctx)).toMatchObject({
      output: expect.stringMatching(/^Partial: notes.txt:2 mentions alpha.\n\n\[explore · partial · note n1:/),
      sideUsage: { input: 500, output: 40, cacheRead: 0, cacheWrite: 0, by: 'explore', model: 'fake-anthropic' },
      summary: { key: 'handoff', status: 'partial', note: 'n1' },
    });
    expect(JSON.stringify(server.requests[2]!.body)).toContain('You have reached your limit of rounds or tokens');

    // 600 tokens in its first round: past its 500, so it wraps up at once.
    server.reset();
    server.enqueue({ ...readNotes, usage: { input: 590, output: 10 } }, submit('Stopped early.', { status: 'partial' }));
    expect((await task.run({ prompt: 'Where?', agent: 'cheap' }, ctx)).output).toMatch(/^Stopped early\./);
    expect(server.requests).toHaveLength(2);
    expect(notes.ids()).toEqual(['n1', 'n2']);

    // A plain-text answer after the correction is taken as a partial result; none at all is an error.
    server.reset();
    server.enqueue(readNotes, readNotes, { text: '' }, { text: '' });
    expect(await task.run({ prompt: 'Where is alpha?' }, ctx)).toMatchObject({ output: 'explore ended without a result (error); give it a narrower task', isError: true });
  });

  it('keeps its read records apart from the main conversation', async () => {
    const { task, ctx } = await setup();
    server.enqueue({ toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] }, submit('Done.'));
    await task.run({ prompt: 'read notes' }, ctx);
    expect(ctx.files.size).toBe(0);
  });

  it('stops every running specialist when the turn is cancelled, and reports a failed model request', async () => {
    const { agent, task, ctx, events } = await setup();
    const controller = new AbortController();
    server.enqueue(
      { toolCalls: [{ name: 'task', input: { prompt: 'one' } }, { name: 'task', input: { prompt: 'two' } }] },
      { text: 'Thinking', hang: true },
      { text: 'Thinking', hang: true },
    );
    const pending = agent.send('two tasks', controller.signal);
    await waitFor(() => server.requests.length === 3, 'both specialists asking');
    controller.abort();
    expect(await pending).toMatchObject({ stopReason: 'aborted' });
    const outputs = events.flatMap((e) => (e.type === 'tool_result' ? [[e.output, e.isError]] : []));
    expect(outputs).toEqual([['interrupted', true], ['interrupted', true]]);

    server.enqueue({ status: 400 });
    expect(await task.run({ prompt: 'anything' }, ctx)).toMatchObject({ output: expect.stringMatching(/^the specialist's model request failed: /), isError: true });
  });

  it('needs a model', async () => {
    const { task, ctx } = await setup();
    const { provider: _, ...none } = ctx;
    expect(await task.run({ prompt: 'x' }, none)).toEqual({ output: 'task needs a model, and none is available to this tool', isError: true });
  });
});
