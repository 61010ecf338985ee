// The todo list and its reminder: validation worded for the model, a list that survives a session
// save, and the reminder sending the model back exactly once per user message, through a real
// Agent over real HTTP.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { TodoList, TodoReminder, todoTool, type TodoItem } from '../src/tools/todo.js';
import type { ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

const server = await useFakeServer();

const ctx = (root: string): ToolContext => ({ root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: process.env });

describe('todo tool', () => {
  it('replaces the whole list and renders it compactly', async () => {
    const changes: (readonly TodoItem[])[] = [];
    const list = new TodoList((items) => changes.push(items));
    const tool = todoTool(list);
    const items: TodoItem[] = [
      { content: 'read the parser', status: 'done' },
      { content: 'fix the bug', status: 'in_progress' },
      { content: 'add a test', status: 'pending' },
    ];
    expect(await tool.run({ items }, ctx('/w'))).toEqual({ output: '[x] read the parser\n[>] fix the bug\n[ ] add a test' });
    expect(changes).toEqual([items]);
    expect(tool.describe?.({ items })).toEqual({ title: '1/3', preview: { kind: 'lines', lines: ['[x] read the parser', '[>] fix the bug', '[ ] add a test'] } });
    expect(await tool.run({ items: [] }, ctx('/w'))).toEqual({ output: '(the list is empty)' });
  });

  it('refuses two items in progress, and leaves the list as it was', async () => {
    const list = new TodoList();
    list.set([{ content: 'a', status: 'pending' }]);
    const result = await todoTool(list).run(
      {
        items: [
          { content: 'a', status: 'in_progress' },
          { content: 'b', status: 'in_progress' },
        ],
      },
      ctx('/w'),
    );
    expect(result).toEqual({
      output: 'only one item may be in_progress, and 2 are ("a", "b"); mark the others pending or done, and send the whole list again',
      isError: true,
    });
    expect(list.items).toEqual([{ content: 'a', status: 'pending' }]);
    expect(list.set([{ content: ' ', status: 'pending' }])).toBe('item 1 needs a non-empty content');
  });

  it('survives a session save and restore as plain JSON; a broken save restores empty', () => {
    const list = new TodoList();
    list.set([{ content: 'one', status: 'done' }, { content: 'two', status: 'pending' }]);
    const restored = new TodoList();
    restored.restore(JSON.parse(JSON.stringify(list.items)));
    expect(restored.items).toEqual(list.items);
    restored.restore([{ content: 'x', status: 'weird' }]);
    expect(restored.items).toEqual([]);
  });

  it('says when to keep a list in its cold line and in its description', () => {
    const tool = todoTool(new TodoList());
    expect(tool.brief).toMatch(/^your todo list: keep one when a request has several parts/);
    expect(tool.description).toContain(tool.brief!.slice('your todo list: '.length));
  });
});

describe('todo reminder through the agent', () => {
  it('sends the model back once per user message when items are open', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-todo-')));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const list = new TodoList();
    const reminder = new TodoReminder(list);
    const agent = new Agent({
      provider: createProvider(fakeModel(server, 'anthropic'), { retry: { baseDelayMs: 5 } }),
      tools: [todoTool(list)],
      system: 'test',
      ctx: ctx(root),
      onStop: async () => reminder.check(),
    });
    agent.on((e) => e.type === 'turn_start' && reminder.resetForTurn());
    const items = [
      { content: 'step one', status: 'done' },
      { content: 'step two', status: 'in_progress' },
      { content: 'step three', status: 'pending' },
    ];
    server.enqueue({ toolCalls: [{ name: 'todo', input: { items } }] }, { text: 'All done.' }, { text: 'Still done.' });
    expect(await agent.send('do three things')).toEqual({ stopReason: 'end', text: 'Still done.', rounds: 1 });
    const reminderText =
      'Your todo list still has 2 open items: "step two", "step three". Finish them, or update the list (mark done what is done, remove what is no longer needed) and say why.';
    expect(server.requests).toHaveLength(3);
    expect(agent.messages.slice(-3)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] },
      { role: 'user', content: [{ type: 'text', text: reminderText }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Still done.' }] },
    ]);

    // The next user message gets its own single reminder.
    server.enqueue({ text: 'Hello.' }, { text: 'Hello again.' });
    expect(await agent.send('hi')).toEqual({ stopReason: 'end', text: 'Hello again.', rounds: 0 });
    expect(server.requests).toHaveLength(5);
    expect(agent.messages.at(-2)).toEqual({ role: 'user', content: [{ type: 'text', text: reminderText }] });

    // Once the list is finished, the model just stops.
    list.set(items.map((i) => ({ ...i, status: 'done' })));
    server.enqueue({ text: 'Bye.' });
    expect(await agent.send('bye')).toEqual({ stopReason: 'end', text: 'Bye.', rounds: 0 });
    expect(server.requests).toHaveLength(6);
    expect(server.violations).toEqual([]);
  });
});
