// Deferred tool schemas in the app, over a fake model server: the settings (tiers, budget, the
// off switch), plan mode told in the conversation with the request's prefix unchanged across mode
// switches, and loaded tools surviving --resume through the session file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createApp, type App } from '../src/app/app.js';
import { parseArgs } from '../src/app/args.js';
import { PLAN_OVER, PLAN_RULES } from '../src/app/modenotes.js';
import { writeFakeKeys } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { currentTest } from './scope.js';

const server = await useFakeServer();

/** An app over the fake server (Anthropic format) with these user settings, in a fresh home and workspace. */
async function appWith(settings: object, args: string[] = []): Promise<{ app: App; open: (more: string[]) => Promise<App>; state: string }> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-deferred-')));
  onTestFinished(() => rm(base, { recursive: true, force: true }));
  const config = join(base, 'config');
  writeFakeKeys(config, server, 'anthropic');
  mkdirSync(join(base, 'work'));
  writeFileSync(join(config, 'feiyu', 'settings.json'), JSON.stringify(settings));
  const env = { PATH: process.env.PATH, HOME: base, XDG_CONFIG_HOME: config, XDG_STATE_HOME: join(base, 'state'), FEIYU_NO_LOG: '1', ...currentTest().env };
  const open = async (more: string[]) => {
    const app = await createApp(parseArgs(['-C', join(base, 'work'), '--sandbox', 'off', ...more]), { env });
    onTestFinished(() => app.close());
    return app;
  };
  return { app: await open(args), open, state: join(base, 'state', 'feiyu') };
}

const send = (app: App, text: string) => app.send(text, new AbortController().signal);
const declaredNames = (i: number) => server.requests[i]!.body.tools.map((t: { name: string }) => t.name);
/** The text blocks of the last user message of request i. */
const lastUserTexts = (i: number): string[] =>
  server.requests[i]!.body.messages.at(-1).content.filter((b: { type: string }) => b.type === 'text').map((b: { text: string }) => b.text);
const prefixOf = (i: number) => JSON.stringify([server.requests[i]!.body.tools, server.requests[i]!.body.system]);

describe('settings', () => {
  it('make tools hot or cold, demote the largest past the budget, and turn deferral off', async () => {
    const { app } = await appWith({ tools: { hot: ['web_fetch'], cold: ['bash'] } });
    expect(app.agent.tools.declared().map((t) => t.name)).toEqual(['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'web_fetch', 'load_tools', 'use_tool']);
    expect(app.agent.prompt()).toContain('\n- bash(command, timeout?, description?, background?): ');

    const budget = (await appWith({ tools: { budgetTokens: 400 } })).app;
    const rows = budget.agent.tools.rows();
    expect(rows.filter((r) => r.demoted).map((r) => r.name)).toEqual(['read_file', 'edit_file', 'bash']);
    expect(budget.agent.tools.declared().map((t) => t.name)).toEqual(['list_files', 'search', 'write_file', 'load_tools', 'use_tool']);

    const off = (await appWith({ deferTools: false })).app;
    expect(off.agent.tools.deferring).toBe(false);
    expect(off.agent.tools.declared()).toHaveLength(13);
    expect(off.agent.prompt()).not.toContain('Cold tools');
  });
});

describe('plan mode', () => {
  it('arrives as a note with exit_plan; leaving it too; the tools and the system prompt never change', async () => {
    const { app } = await appWith({}, ['--mode', 'plan']);
    app.on((e) => e.type === 'approval' && e.approval.kind === 'plan' && app.answer(e.id, { approved: true }));
    server.enqueue({ toolCalls: [{ name: 'use_tool', input: { name: 'exit_plan', args: { plan: '1. Do it' } } }] }, { text: 'Doing it.' });
    expect(await send(app, 'plan the change')).toMatchObject({ stopReason: 'end', text: 'Doing it.' });
    expect(app.mode).toBe('default');
    const [first] = [lastUserTexts(0)];
    expect(first[0]).toBe('plan the change');
    expect(first[1]).toMatch(new RegExp(`^${PLAN_RULES.replace(/[.()]/g, '\\$&')}\\n<tool name="exit_plan">\\n[^]*</tool>\\nCall them through use_tool`));
    // The approved plan's result says so: no note about leaving plan mode.
    expect(lastUserTexts(1)).toEqual([]);

    app.setMode('plan');
    server.enqueue({ text: 'Planning again.' });
    await send(app, 'and another plan');
    expect(lastUserTexts(2)[1]).toMatch(/^Plan mode: /);
    app.setMode('default');
    server.enqueue({ text: 'Changing.' });
    await send(app, 'now change it');
    expect(lastUserTexts(3)).toEqual(['now change it', PLAN_OVER]);
    expect(new Set(server.requests.map((_, i) => prefixOf(i))).size).toBe(1);
    expect(declaredNames(0)).not.toContain('exit_plan');
  });
});

describe('--resume', () => {
  it('brings back the loaded tools from the session file: not loaded or taught again', async () => {
    const { app, open, state } = await appWith({}, ['-p', 'x']);
    server.enqueue({ toolCalls: [{ name: 'load_tools', input: { names: ['todo'] } }] }, { text: 'Loaded.' });
    await send(app, 'load the todo tool');
    await app.close();
    const file = join(state, 'sessions', `${app.session.id}.jsonl`);
    const states = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.type === 'state' && r.tools);
    expect(states.map((r) => r.tools)).toEqual([['todo']]);

    const resumed = await open(['-p', 'x', '--resume', app.session.id]);
    expect(resumed.agent.tools.loaded).toEqual(['todo']);
    const results: string[] = [];
    resumed.on((e) => e.type === 'tool_result' && results.push(e.output));
    server.enqueue({ toolCalls: [{ name: 'use_tool', input: { name: 'todo', args: { items: 'x' } } }] }, { text: 'Oops.' });
    await send(resumed, 'write the list');
    expect(results).toEqual(['invalid arguments: items must be array']);
    // The schema is in the resumed history already: nothing is added.
    expect(lastUserTexts(2)).toEqual(['write the list']);
  });

  it('after a compaction: the resumed session gives the loaded schemas again, once, with the prefix unchanged', async () => {
    const { app, open } = await appWith({}, ['-p', 'x']);
    server.enqueue({ toolCalls: [{ name: 'load_tools', input: { names: ['todo', 'remember'] } }] }, { text: 'Loaded. ' + 'The list is ready to be written. '.repeat(200) });
    await send(app, 'load the todo tool');
    server.enqueue({ text: 'Summary: todo and remember were loaded; nothing else happened.' });
    expect(await app.agent.compact(new AbortController().signal, { force: true })).toMatchObject({ method: 'summary' });
    await app.close();

    const resumed = await open(['-p', 'x', '--resume', app.session.id]);
    expect(resumed.agent.tools.loaded).toEqual(['todo', 'remember']);
    expect(JSON.stringify(resumed.agent.messages)).not.toContain('<tool name="todo">');
    server.enqueue({ text: 'Writing it.' }, { text: 'Still here.' });
    await send(resumed, 'write the list');
    const back = 3; // after the load, its answer and the summary
    expect(lastUserTexts(back)[0]).toBe('write the list');
    expect(lastUserTexts(back)[1]).toMatch(/^Loaded tools:\n<tool name="todo">\n[^]*<\/tool>\n<tool name="remember">\n[^]*<\/tool>$/);
    await send(resumed, 'and then?');
    expect(lastUserTexts(back + 1)).toEqual(['and then?']);
    expect(prefixOf(back)).toBe(prefixOf(0));
    expect(resumed.agent.tools.rows().filter((r) => r.tier === 'loaded').map((r) => r.name)).toEqual(['todo', 'remember']);
  });
});
