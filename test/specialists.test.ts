// Specialist definitions and the app around them: Claude Code's sub-agent files loaded as they
// are, built-ins overridden by a file, broken files and unknown tools or models reported once, a
// project's files only after trust; over the fake server: confirmations naming the specialist
// (refused in headless mode), the side model for explore, notes across compaction and --resume.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createApp, type App } from '../src/app/app.js';
import { parseArgs } from '../src/app/args.js';
import { BUILTIN_AGENTS, mergeDefinitions, parseDefinition } from '../src/delegate/definitions.js';
import { deriveTools } from '../src/delegate/derive.js';
import { coreTools } from '../src/tools/index.js';
import type { AgentEvent } from '../src/types/events.js';
import { writeFakeKeys } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { currentTest } from './scope.js';

const server = await useFakeServer();

const CLAUDE_REVIEWER = `---
name: code-reviewer
description: Use this agent when you need a thorough review of recently written code.\\n\\nExamples:\\n<example>\\nuser: "review my change"\\n</example>
tools: Read, Grep, Glob, Bash, WebSearch
model: sonnet
color: blue
---

You are an expert code reviewer. Review the recent changes for bugs.
`;

const YAML_LIST = `---
name: "doc-writer"   
description: >
  Writes documentation
  for modules.
tools:
  - Read
  - Write
  - mcp__docs__lookup
max_rounds: 8
max_tokens: 50000
model: inherit
---
Write docs.
`;

describe('definition files', () => {
  it("read Claude Code's sub-agent format as it is: comma and list tools with Claude's names, block scalars, unknown keys ignored", () => {
    expect(parseDefinition({ path: '/p/.claude/agents/code-reviewer.md', text: CLAUDE_REVIEWER, origin: 'claude' })).toEqual({
      name: 'code-reviewer',
      description: 'Use this agent when you need a thorough review of recently written code.\n\nExamples:\n<example>\nuser: "review my change"\n</example>',
      tools: ['read_file', 'search', 'list_files', 'bash', 'WebSearch'],
      model: 'sonnet',
      maxRounds: 15,
      maxTokens: 400_000,
      prompt: 'You are an expert code reviewer. Review the recent changes for bugs.',
      origin: 'claude',
      path: '/p/.claude/agents/code-reviewer.md',
    });
    expect(parseDefinition({ path: '/u/agents/docs.md', text: YAML_LIST, origin: 'user' })).toEqual({
      name: 'doc-writer',
      description: 'Writes documentation for modules.',
      tools: ['read_file', 'write_file', 'mcp__docs__lookup'],
      model: 'inherit',
      maxRounds: 8,
      maxTokens: 50_000,
      prompt: 'Write docs.',
      origin: 'user',
      path: '/u/agents/docs.md',
    });
    // No front matter: named by the file, every tool it may have.
    expect(parseDefinition({ path: '/p/helper.md', text: 'Help with things.\nMore.', origin: 'project' })).toMatchObject({ name: 'helper', description: 'Help with things.', prompt: 'Help with things.\nMore.' });
    expect(parseDefinition({ path: '/p/helper.md', text: 'x', origin: 'project' }).tools).toBeUndefined();
  });

  it('override a built-in by name; broken files are named with why, the rest still load', () => {
    const files = [
      { path: '/p/explore.md', origin: 'project' as const, text: '---\nname: explore\ntools: [Read]\n---\nOnly read.', hash: '' },
      { path: '/p/bad.md', origin: 'project' as const, text: '---\nname: bad\n', hash: '' },
      { path: '/p/neg.md', origin: 'project' as const, text: '---\nmax_rounds: -1\n---\nx', hash: '' },
      { path: '/p/empty.md', origin: 'project' as const, text: '---\nname: empty\n---\n', hash: '' },
    ];
    const { agents, broken } = mergeDefinitions(files);
    expect(agents.map((a) => [a.name, a.origin, a.tools])).toEqual([
      ['explore', 'project', ['read_file']],
      ['review', 'builtin', BUILTIN_AGENTS[1]!.tools],
      ['test', 'builtin', BUILTIN_AGENTS[2]!.tools],
    ]);
    expect(broken).toEqual([
      { path: '/p/bad.md', why: 'the front matter has no closing ---' },
      { path: '/p/neg.md', why: 'max_rounds must be a positive whole number, not "-1"' },
      { path: '/p/empty.md', why: 'the file has no instructions after its front matter' },
    ]);
  });

  it('derive the tools: definition ∩ mode, never what no specialist gets', () => {
    const tools = coreTools();
    const asking = parseDefinition({ path: '/a.md', origin: 'user', text: '---\ntools: Bash, Read, Write, Task, TodoWrite\n---\nx' });
    const names = (mode: 'default' | 'readonly' | 'plan' | 'auto') => deriveTools(asking, tools, mode);
    expect(names('readonly')).toEqual({ tools: [tools.find((t) => t.name === 'read_file')], withheld: ['write_file', 'bash'], acts: false });
    expect(names('plan').tools.map((t) => t.name)).toEqual(['read_file']);
    expect(names('default')).toMatchObject({ withheld: [], acts: true });
    expect(names('auto').tools.map((t) => t.name)).toEqual(['read_file', 'write_file', 'bash']);
    const all = parseDefinition({ path: '/all.md', origin: 'user', text: 'anything' });
    expect(deriveTools(all, tools, 'readonly').tools.map((t) => t.name)).toEqual(['read_file', 'list_files', 'search']);
  });
});

/** An app over the fake server with these user settings, a workspace holding `files`, and user-level agent files. */
async function appWith(o: { settings?: object; files?: Record<string, string>; userAgents?: Record<string, string>; args?: string[] } = {}) {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-agents-')));
  onTestFinished(() => rm(base, { recursive: true, force: true }));
  const config = join(base, 'config');
  const keys = writeFakeKeys(config, server, 'anthropic', { price: { input: 3, output: 15 } });
  // The side model's own price: a specialist on it is counted at that price, not the session's.
  const saved = JSON.parse(readFileSync(keys, 'utf8'));
  saved.models[1].price = { input: 1, output: 2 };
  writeFileSync(keys, JSON.stringify(saved));
  const work = join(base, 'work');
  for (const [path, text] of Object.entries({ 'README.md': 'hello\n', ...o.files })) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), text);
  }
  for (const [name, text] of Object.entries(o.userAgents ?? {})) {
    mkdirSync(join(config, 'feiyu', 'agents'), { recursive: true });
    writeFileSync(join(config, 'feiyu', 'agents', name), text);
  }
  writeFileSync(join(config, 'feiyu', 'settings.json'), JSON.stringify(o.settings ?? {}));
  const env = { PATH: process.env.PATH, HOME: base, XDG_CONFIG_HOME: config, XDG_STATE_HOME: join(base, 'state'), FEIYU_NO_LOG: '1', ...currentTest().env };
  const open = async (args: string[] = o.args ?? []) => {
    const app = await createApp(parseArgs(['-C', work, '--sandbox', 'off', ...args]), { env });
    onTestFinished(() => app.close());
    const events: AgentEvent[] = [];
    app.on((e) => events.push(e));
    return { app, events };
  };
  return { ...(await open()), open, work, sessions: join(base, 'state', 'feiyu', 'sessions') };
}

const send = (app: App, text: string) => app.send(text, new AbortController().signal);
const task = (input: object) => ({ toolCalls: [{ name: 'use_tool', input: { name: 'task', args: input } }] });
const submit = (conclusion: string) => ({ toolCalls: [{ name: 'submit_result', input: { conclusion, facts: [{ fact: 'f', where: 'README.md:1' }], open_questions: ['q?'], status: 'done' } }] });
const noticesOf = (app: App) => app.notices.map((n) => [n.code, n.params]);

describe('specialists in the app', () => {
  it("take a project's files only once it is trusted, and report unknown tools and models once at start", async () => {
    const files = { '.claude/agents/code-reviewer.md': CLAUDE_REVIEWER, '.feiyu/agents/explore.md': '---\ntools: Read\n---\nRead only.' };
    const { app, open, work } = await appWith({ files, args: ['-p', 'x'] });
    expect(app.specialists.agents.map((a) => `${a.name}:${a.origin}`)).toEqual(['explore:builtin', 'review:builtin', 'test:builtin']);
    expect(noticesOf(app)).toContainEqual(['trust_ignored', undefined]);

    const trusted = (await open(['-p', 'x', '--trust'])).app;
    expect(trusted.specialists.agents.map((a) => `${a.name}:${a.origin}`)).toEqual(['explore:project', 'review:builtin', 'test:builtin', 'code-reviewer:claude']);
    expect(noticesOf(trusted).filter(([code]) => String(code).startsWith('agent_'))).toEqual([
      ['agent_unknown_tools', { agent: 'code-reviewer', tools: 'WebSearch' }],
      ['agent_model_unknown', { agent: 'code-reviewer', model: 'sonnet' }],
    ]);
    // Trusted as it was: the same files load without asking; a changed prompt asks again.
    expect((await open(['-p', 'x'])).app.specialists.agents.map((a) => a.origin)).toEqual(['project', 'builtin', 'builtin', 'claude']);
    writeFileSync(join(work, '.feiyu/agents/explore.md'), '---\ntools: Read, Bash\n---\nRead and run.');
    expect((await open(['-p', 'x'])).app.specialists.agents.map((a) => a.origin)).toEqual(['builtin', 'builtin', 'builtin']);
  });

  it("ask before a specialist's write, naming it; headless refuses as usual", async () => {
    const writer = '---\nname: writer\ndescription: Writes files\ntools: Write\n---\nWrite what you are asked.';
    const { app, events, work } = await appWith({ userAgents: { 'writer.md': writer } });
    app.on((e) => e.type === 'approval' && e.approval.kind === 'call' && app.answer(e.id, { answer: 'yes' }));
    server.enqueue(
      task({ prompt: 'write out.txt', agent: 'writer' }),
      { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'made\n' } }] },
      submit('Wrote out.txt.'),
      { text: 'Done.' },
    );
    expect(await send(app, 'go')).toMatchObject({ text: 'Done.' });
    const approvals = events.flatMap((e) => (e.type === 'approval' && e.approval.kind === 'call' ? [[e.approval.agent, e.approval.request.tool, e.approval.request.display]] : []));
    expect(approvals).toEqual([['writer', 'write_file', 'out.txt']]);
    expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('made\n');

    const headless = (await appWith({ userAgents: { 'writer.md': writer }, args: ['-p', 'x'] })).app;
    server.reset();
    server.enqueue(task({ prompt: 'write out.txt', agent: 'writer' }), { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'x' } }] }, submit('Refused.'), { text: 'Done.' });
    await send(headless, 'go');
    expect(JSON.stringify(server.requests[2]!.body.messages.at(-1))).toContain('Permission denied:');
  });

  it('run explore on the side model, review on the session model; spend per specialist', async () => {
    const { app } = await appWith({ settings: { sideModel: 'fake-openai' } });
    // The two specialists ask at once, in either order: each is answered by who it is.
    server.answer((body) => {
      const text = JSON.stringify(body);
      if (text.includes('You are explore')) return { ...submit('Found.'), usage: { input: 1000, output: 100 } };
      if (text.includes('You are review')) return { ...submit('Reviewed.'), usage: { input: 2000, output: 200 } };
      return undefined;
    });
    server.enqueue(
      { toolCalls: [{ name: 'use_tool', input: { name: 'task', args: { prompt: 'find it' } } }, { name: 'use_tool', input: { name: 'task', args: { prompt: 'review it', agent: 'review' } } }], usage: { input: 100, output: 10 } },
      { text: 'Done.', usage: { input: 100, output: 10 } },
    );
    await send(app, 'go');
    const formats = server.requests.map((r) => [r.format, JSON.stringify(r.body).match(/You are (explore|review)/)?.[1] ?? 'main']);
    expect(formats.sort()).toEqual([['anthropic', 'main'], ['anthropic', 'main'], ['anthropic', 'review'], ['openai', 'explore']]);
    expect(Object.fromEntries(app.specialists.spend)).toEqual({ explore: { tokens: 1100, cost: (1000 * 1 + 100 * 2) / 1e6 }, review: { tokens: 2200, cost: (2000 * 3 + 200 * 15) / 1e6 } });
    expect(app.specialists.modelOf(app.specialists.agents[0]!)).toBe('fake-openai');

    // Compaction's summary goes to the side model too, at its price.
    server.reset();
    server.answer((body) => (body.tools?.length ? undefined : { text: 'Summary.', usage: { input: 3000, output: 100 } }));
    server.enqueue({ text: 'noted' });
    await send(app, `background ${'Some background on the project. '.repeat(400)}`);
    const usage: AgentEvent[] = [];
    app.on((e) => e.type === 'usage' && usage.push(e));
    expect(await app.agent.compact(new AbortController().signal, { force: true })).toMatchObject({ method: 'summary' });
    server.answer(undefined);
    expect(server.requests.map((r) => r.format)).toEqual(['anthropic', 'openai']);
    expect(usage).toMatchObject([{ model: 'fake-openai', input: 3000, output: 100, cost: (3000 * 1 + 100 * 2) / 1e6 }]);
  });

  it('keep notes beside the session, through compaction (their index re-added) and --resume', async () => {
    const { app, open, sessions } = await appWith();
    server.enqueue(task({ description: 'find hello', prompt: 'where is hello?' }), submit('hello is in README.md:1.'), { text: 'It is in README.md.' });
    // Long enough for a summary to be worth making.
    await send(app, `where is hello? ${'Some background on the project. '.repeat(400)}`);
    expect(existsSync(join(sessions, `${app.session.id}.jsonl`))).toBe(true);
    expect(existsSync(join(sessions, `${app.session.id}.notes`, 'n1.json'))).toBe(true);

    server.answer((body) => (body.tools?.length ? undefined : { text: 'Summary of the conversation.' }));
    expect(await app.agent.compact(new AbortController().signal, { force: true })).toMatchObject({ method: 'summary' });
    server.answer(undefined);
    server.enqueue({ text: 'ok' });
    await send(app, 'next');
    const last = JSON.stringify(server.requests.at(-1)!.body.messages.at(-1));
    expect(last).toContain('Notes from specialists earlier in this session');
    expect(last).toContain('- n1 (explore, done): hello is in README.md:1.');
    await app.close();

    const resumed = (await open(['--resume'])).app;
    server.enqueue({ toolCalls: [{ name: 'use_tool', input: { name: 'read_note', args: { id: 'n1' } } }] }, { text: 'read it' });
    await send(resumed, 'what did the note say?');
    const result = JSON.stringify(server.requests.at(-1)!.body.messages.at(-1));
    expect(result).toContain('Note n1 by explore (done), task: find hello');
    expect(result).toContain('- f (README.md:1)');
    expect(result).toContain('Open questions:\\n- q?');
    expect(Object.keys(Object.fromEntries(resumed.specialists.spend))).toEqual(['explore']);
    const original = resumed.session.id;
    await resumed.close();

    // A fork starts with the original's notes; /clear starts a session without any (the old one keeps its own).
    const forked = (await open(['--resume', original, '--fork-session'])).app;
    const forkId = forked.session.id;
    expect(forkId).not.toBe(original);
    expect(forked.specialists.notes.ids()).toEqual(['n1']);
    forked.newSession();
    expect(forked.specialists.notes.ids()).toEqual([]);
    expect([forkId, original].map((id) => existsSync(join(sessions, `${id}.notes`, 'n1.json')))).toEqual([true, true]);
  });

  it("send a specialist's calls through the user's PreToolUse hooks", async () => {
    const writer = '---\nname: writer\ntools: Write\n---\nWrite what you are asked.';
    const hooks = { PreToolUse: [{ matcher: 'write_file', command: 'echo "no writes today" >&2; exit 2' }] };
    const { app, work } = await appWith({ userAgents: { 'writer.md': writer }, settings: { hooks }, args: ['--mode', 'auto'] });
    server.enqueue(task({ prompt: 'write out.txt', agent: 'writer' }), { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'x' } }] }, submit('Blocked.'), { text: 'Done.' });
    await send(app, 'go');
    expect(JSON.stringify(server.requests[2]!.body.messages.at(-1))).toContain('no writes today');
    expect(existsSync(join(work, 'out.txt'))).toBe(false);
  });
});
