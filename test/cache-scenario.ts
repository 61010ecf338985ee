// Scripted sessions for deferred tool schemas, shared by test/deferred-cache.test.ts (which
// asserts) and the benchmark (which prints): a session's real tools and system prompt, the real
// loop and SDKs against the fake server with its prompt cache on, a workspace of real files.
//   - cacheSession: 12 requests that load two cold tools in round 3: the share of prompt tokens
//     read from the cache.
//   - deferralTask: 20 rounds that use three cold tools, with deferral and without: the requests
//     deferral adds.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../src/core/agent.js';
import { systemPrompt } from '../src/core/prompt.js';
import { createProvider } from '../src/providers/stream.js';
import { JobManager } from '../src/tools/jobs.js';
import { TodoList } from '../src/tools/todo.js';
import { buildTools, deferralOf } from '../src/app/toolset.js';
import type { ToolTiers } from '../src/types/tools.js';
import type { WireFormat } from '../src/types/providers.js';
import { fakeModel, type FakeContentReply, type FakeServer } from './fake-server.js';

/** conversation / tools: deferral with loaded schemas in the conversation or in the tools array; off: every tool declared. */
export type Design = 'conversation' | 'tools' | 'off';

export type SessionUsage = { requests: number; input: number; cacheRead: number; cacheWrite: number; share: number };

/** A workspace of four TypeScript files of about 4 KB each, the same every time. */
export function workspace(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-cache-')));
  mkdirSync(join(root, 'src'));
  for (const [i, name] of ['a', 'b', 'c', 'd'].entries()) {
    const lines = Array.from({ length: 80 }, (_, n) => `export function ${name}${n}(value: number): number {\n  return value * ${n + i} + ${(n * 7919) % 101}; // step ${n}\n}`);
    writeFileSync(join(root, 'src', `${name}.ts`), lines.join('\n') + '\n');
  }
  return root;
}

function settingsOf(design: Design): { tools?: ToolTiers; deferTools?: boolean } {
  return design === 'off' ? { deferTools: false } : { tools: { loadInto: design } };
}

/** A session's tools, system prompt and deferral settings on the real loop, in a fresh workspace. */
export function sessionAgent(server: FakeServer, format: WireFormat, design: Design) {
  const root = workspace();
  const todo = new TodoList();
  const plan = { restoreMode: () => {}, inPlanMode: () => false };
  const tools = buildTools({ allowPrivate: [], jobs: new JobManager(), todo, notesDir: join(root, '.state'), plan });
  const provider = createProvider(fakeModel(server, format), { retry: { baseDelayMs: 5 } });
  const ctx = { root, files: new Map(), shell: { cwd: root }, env: process.env };
  const agent = new Agent({ provider, tools, system: systemPrompt(root), ctx, deferral: deferralOf(settingsOf(design)) });
  return { agent, todo, root };
}

/** A call of a cold tool as the model makes it in each design. */
export function cold(design: Design, name: string, args: Record<string, unknown>) {
  return design === 'conversation' ? { name: 'use_tool', input: { name, args } } : { name, input: args };
}

const call = (name: string, input: Record<string, unknown>, text?: string): FakeContentReply => ({ ...(text ? { text } : {}), toolCalls: [{ name, input }] });
const load = (design: Design, names: string[]): FakeContentReply[] => (design === 'off' ? [] : [call('load_tools', { names }, 'I need my todo list and the jobs.')]);

function usageOf(agent: Agent): SessionUsage {
  const { requests, input, cacheRead, cacheWrite } = agent.totals;
  return { requests, input, cacheRead, cacheWrite, share: cacheRead / (input + cacheRead + cacheWrite) };
}

/** 12 requests (11 tool rounds and the answer), two cold tools loaded in round 3 (not in `off`, which needs no load). */
export async function cacheSession(server: FakeServer, format: WireFormat, design: Design): Promise<SessionUsage & { todo: string }> {
  const { agent, todo, root } = sessionAgent(server, format, design);
  const items = (done: number) => ['read the code', 'change a0', 'check the rest'].map((content, i) => ({ content, status: i < done ? 'done' : i === done ? 'in_progress' : 'pending' }));
  const toolCall = (c: { name: string; input: Record<string, unknown> }) => call(c.name, c.input);
  server.enqueue(
    call('list_files', {}, 'Let me look around.'),
    call('read_file', { path: 'src/a.ts' }),
    ...load(design, ['todo', 'job']),
    toolCall(cold(design, 'todo', { items: items(0) })),
    call('search', { pattern: 'export function b1' }),
    call('read_file', { path: 'src/b.ts' }),
    call('edit_file', { path: 'src/a.ts', old_string: 'return value * 0 + 0; // step 0', new_string: 'return value; // step 0' }),
    toolCall(cold(design, 'job', { action: 'list' })),
    call('read_file', { path: 'src/c.ts' }),
    toolCall(cold(design, 'todo', { items: items(2) })),
    call('read_file', { path: 'src/d.ts' }),
    { text: 'Done: a0 now returns its value.' },
  );
  await agent.send('Make a0 in src/a.ts return its value unchanged, and check the other files for the same pattern.');
  rmSync(root, { recursive: true, force: true });
  return { ...usageOf(agent), todo: todo.render() };
}

/**
 * 20 tool rounds using todo, job and remember. With deferral the model loads todo and job
 * together before its first todo call, calls remember without loading it and with an argument
 * missing (the schema comes back, it calls again). Without deferral none of that happens.
 */
export async function deferralTask(server: FakeServer, format: WireFormat, design: Design): Promise<SessionUsage & { todo: string; results: string[] }> {
  const { agent, todo, root } = sessionAgent(server, format, design);
  const results: string[] = [];
  agent.on((e) => {
    if (e.type === 'tool_result' && ['todo', 'job', 'remember', 'load_tools', 'use_tool'].includes(e.name)) results.push(`${e.name}: ${e.output.split('\n')[0]}`);
  });
  const items = (done: number) => ['a', 'b', 'c', 'd'].map((f, i) => ({ content: `check ${f}.ts`, status: i < done ? 'done' : i === done ? 'in_progress' : 'pending' }));
  const c = (name: string, args: Record<string, unknown>) => {
    const made = cold(design, name, args);
    return call(made.name, made.input);
  };
  const reads = (from: number) => ['a', 'b', 'c', 'd'].map((f, i) => call('read_file', { path: `src/${f}.ts`, offset: 1 + from + i * 10, limit: 20 }));
  server.enqueue(
    call('list_files', {}),
    call('search', { pattern: 'step 1\\b' }),
    ...load(design, ['todo', 'job']),
    c('todo', { items: items(0) }),
    ...reads(0),
    c('todo', { items: items(2) }),
    c('job', { action: 'list' }),
    ...reads(40),
    c('todo', { items: items(4) }),
    call('search', { pattern: 'step 7\\b' }),
    ...(design === 'off' ? [] : [c('remember', { note: 'src/*.ts functions all follow value * n + k' })]),
    c('remember', { note: 'src/*.ts functions all follow value * n + k', scope: 'project' }),
    call('read_file', { path: 'src/a.ts', limit: 5 }),
    call('read_file', { path: 'src/b.ts', limit: 5 }),
    call('list_files', { pattern: 'src/*.ts' }),
    call('search', { pattern: 'step 9\\b' }),
    { text: 'Checked all four files; every function follows value * n + k.' },
  );
  await agent.send('Check that every function in src/ follows the same formula, keep a todo list, and remember what you find.');
  rmSync(root, { recursive: true, force: true });
  return { ...usageOf(agent), todo: todo.render(), results };
}
