// Deferred tool schemas through the real loop over real HTTP, both wire formats: a cold tool's
// first invalid call is taught, a valid one runs at once, a call by the tool's own name is kept
// as a use_tool call, compaction keeps loaded tools, and deferral off declares everything.
import { rm } from 'node:fs/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AgentEvent } from '../src/types/events.js';
import type { WireFormat } from '../src/types/providers.js';
import { sessionAgent } from './cache-scenario.js';
import { type FakeServer } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

const server = await useFakeServer();

function setup(format: WireFormat, design: 'conversation' | 'off' = 'conversation') {
  const made = sessionAgent(server, format, design);
  onTestFinished(() => rm(made.root, { recursive: true, force: true }));
  const results: { name: string; isError: boolean; output: string }[] = [];
  made.agent.on((e: AgentEvent) => e.type === 'tool_result' && results.push({ name: e.name, isError: e.isError, output: e.output }));
  return { ...made, results };
}

/** Each request's declared tool names and system prompt, in the wire format's own fields. */
function prefixes(s: FakeServer) {
  return s.requests.map(({ body, format }) => ({
    tools: JSON.stringify(body.tools),
    system: format === 'anthropic' ? JSON.stringify(body.system.map((b: { text: string }) => b.text)) : body.messages[0].content,
  }));
}

/** The tool calls of every assistant message of the last request, as (name, input) on the wire. */
function wireCalls(s: FakeServer): { name: string; input: unknown }[] {
  const { body, format } = s.requests.at(-1)!;
  if (format === 'anthropic') {
    return body.messages.flatMap((m: any) => (m.role === 'assistant' ? m.content.filter((b: any) => b.type === 'tool_use').map((b: any) => ({ name: b.name, input: b.input })) : []));
  }
  return body.messages.flatMap((m: any) => (m.tool_calls ?? []).map((c: any) => ({ name: c.function.name, input: JSON.parse(c.function.arguments) })));
}

/** The text of every tool result and user text of the last request, in order. */
function lastTexts(s: FakeServer): string[] {
  const { body } = s.requests.at(-1)!;
  return body.messages.flatMap((m: any) =>
    typeof m.content === 'string' ? [m.content] : (m.content ?? []).map((b: any) => (typeof b.content === 'string' ? b.content : (b.text ?? JSON.stringify(b.content)))),
  );
}

describe.each(['anthropic', 'openai'] as const)('deferred tools over %s', (format) => {
  it("teaches a cold tool's first invalid call with its schema; the turn goes on and the corrected call runs", async () => {
    const { agent, results } = setup(format);
    const note = 'the tests run with npm test';
    server.enqueue(
      { toolCalls: [{ name: 'use_tool', input: { name: 'remember', args: { note } } }] },
      { toolCalls: [{ name: 'use_tool', input: { name: 'remember', args: { note, scope: 'project' } } }] },
      { toolCalls: [{ name: 'use_tool', input: { name: 'remember', args: { note: 'x' } } }] },
      { text: 'Noted.' },
    );
    expect(await agent.send('remember how the tests run')).toEqual({ stopReason: 'end', text: 'Noted.', rounds: 3 });
    const definition =
      '<tool name="remember">\nSave one short note for future sessions: a lasting fact about this project (scope project) or the user\'s preferences (scope user). Not for the current task\'s progress.\n{"type":"object","properties":{"note":{"type":"string"},"scope":{"enum":["project","user"]}},"required":["note","scope"]}\n</tool>';
    expect(results).toEqual([
      {
        name: 'remember',
        isError: false,
        output: `remember is a cold tool you had not loaded, so this call did not run (invalid arguments: scope is required).\nIts definition:\n${definition}\nCall it again through use_tool.`,
      },
      { name: 'remember', isError: false, output: 'Saved to project memory; future sessions will see it.' },
      // Taught once: from then on an invalid call gets the plain error.
      { name: 'remember', isError: true, output: 'invalid arguments: scope is required' },
    ]);
    expect(agent.tools.loaded).toEqual(['remember']);
    const seen = prefixes(server);
    expect(seen.every((p) => p.tools === seen[0]!.tools && p.system === seen[0]!.system)).toBe(true);
  });

  it('runs a valid call of a never-loaded cold tool at once; a call by its own name is kept as a use_tool call', async () => {
    const { agent, results, todo } = setup(format);
    const items = [{ content: 'read a.ts', status: 'in_progress' }];
    server.enqueue({ toolCalls: [{ name: 'todo', input: { items } }] }, { text: 'Listed.' });
    expect(await agent.send('plan it')).toEqual({ stopReason: 'end', text: 'Listed.', rounds: 1 });
    expect(results).toEqual([{ name: 'todo', isError: false, output: '[>] read a.ts' }]);
    expect(todo.items).toEqual(items);
    expect(wireCalls(server)).toEqual([{ name: 'use_tool', input: { name: 'todo', args: { items } } }]);
    expect(agent.tools.loaded).toEqual([]);
  });

  it('keeps loaded tools through a compaction: their schemas come back at the end of the new history', async () => {
    const { agent, results } = setup(format);
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'src/a.ts' } }] },
      { toolCalls: [{ name: 'load_tools', input: { names: ['job', 'todo'] } }] },
      { toolCalls: ['b', 'c', 'd'].map((f) => ({ name: 'read_file', input: { path: `src/${f}.ts` } })) },
      { text: 'Read them all.' },
    );
    await agent.send('read the sources');
    expect(agent.tools.loaded).toEqual(['job', 'todo']);
    server.enqueue({ text: 'Summary: the four files were read; job and todo were loaded.' });
    expect(await agent.compact(new AbortController().signal, { force: true })).toMatchObject({ method: 'summary' });
    expect(JSON.stringify(agent.messages)).not.toContain('<tool name="todo">');
    server.enqueue({ toolCalls: [{ name: 'use_tool', input: { name: 'job', args: {} } }] }, { text: 'Fine.' });
    await agent.send('any jobs?');
    const sent = lastTexts(server).join('\n');
    expect(sent).toMatch(/Loaded tools:\n<tool name="job">[^]*<\/tool>\n<tool name="todo">[^]*<\/tool>/);
    // Still loaded: the invalid call is not taught again.
    expect(results.at(-1)).toEqual({ name: 'job', isError: true, output: 'invalid arguments: action is required' });
    const seen = prefixes(server).filter((_, i) => server.requests[i]!.body.tools);
    expect(seen.every((p) => p.tools === seen[0]!.tools)).toBe(true);
  });

  it('answers malformed load_tools calls with what to send: a list in a string, more than 8 names, no list, unknown names', async () => {
    const { agent, results } = setup(format);
    const nine = ['job', 'todo', 'read_file', 'remember', 'web_fetch', 'task', 'bash', 'nope', 'exit_plan'];
    server.enqueue(
      { toolCalls: [{ name: 'load_tools', input: { names: 'job, todo' } }] },
      { toolCalls: [{ name: 'load_tools', input: { names: nine } }] },
      { toolCalls: [{ name: 'load_tools', input: { names: 42 } }] },
      { toolCalls: [{ name: 'load_tools', input: { names: ['nope', 'also_nope'] } }] },
      { text: 'Done.' },
    );
    expect(await agent.send('load things')).toEqual({ stopReason: 'end', text: 'Done.', rounds: 4 });
    const cold = 'Cold tools: exit_plan, read_note.';
    expect(results).toEqual([
      { name: 'load_tools', isError: false, output: expect.stringMatching(/^<tool name="job">[^]*<tool name="todo">[^]*\nCall them through use_tool: \{"name": "…", "args": \{…\}\}\.$/) },
      {
        name: 'load_tools',
        isError: false,
        output: expect.stringMatching(
          /^<tool name="job">[^]*<tool name="todo">[^]*<tool name="remember">[^]*<tool name="web_fetch">[^]*<tool name="task">[^]*Call them through use_tool[^]*\n\nDeclared already, call directly: read_file, bash\.\n\nNo such tools: nope\. Cold tools: exit_plan, read_note\.\n\nNot loaded, 8 names per call: exit_plan\. Call load_tools again for them\.$/,
        ),
      },
      { name: 'load_tools', isError: true, output: `load_tools takes {"names": ["…"]}, 1 to 8 names of cold tools (invalid arguments: names must be array). ${cold}` },
      { name: 'load_tools', isError: true, output: `No such tools: nope, also_nope. ${cold}` },
    ]);
    expect(agent.tools.loaded).toEqual(['job', 'todo', 'remember', 'web_fetch', 'task']);
  });

  it('declares every tool, lists none and knows no load_tools with deferral off', async () => {
    const { agent, results } = setup(format, 'off');
    server.enqueue({ toolCalls: [{ name: 'load_tools', input: { names: ['todo'] } }] }, { text: 'Ok.' });
    await agent.send('go');
    const { body, format: wire } = server.requests[0]!;
    const names = wire === 'anthropic' ? body.tools.map((t: any) => t.name) : body.tools.map((t: any) => t.function.name);
    expect(names).toEqual(['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'bash', 'job', 'todo', 'exit_plan', 'remember', 'web_fetch', 'read_note', 'task']);
    expect(agent.prompt()).not.toContain('Cold tools');
    expect(results).toEqual([{ name: 'load_tools', isError: true, output: expect.stringMatching(/^unknown tool "load_tools"; available: read_file, /) }]);
  });
});
