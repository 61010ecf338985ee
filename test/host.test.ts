// The library through its public entry only (src/index.ts, what `import 'feiyu'` gives): two
// tasks in one host, cancellation mid-stream, an approval answered through the API, structured
// output, in-memory persistence that writes no file, resume from the JSONL store.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, createHost, type AgentEvent, type Host, type HostOptions, type Provider, type ProviderRequest } from '../src/index.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { currentTest } from './scope.js';

const server = await useFakeServer();

/** An empty home (XDG folders inside it, none created) and a workspace; the host is closed at the test's end. */
async function place() {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-host-home-')));
  const work = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-host-work-')));
  onTestFinished(() => Promise.all([home, work].map((d) => rm(d, { recursive: true, force: true }))).then(() => {}));
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), LANG: 'en_US.UTF-8', ...currentTest().env };
  const keys = { models: [fakeModel(server, 'anthropic', { price: { input: 3, output: 15 } })] };
  const open = async (o: HostOptions = {}): Promise<Host> => {
    const host = await createHost({ cwd: work, env, keys, sandbox: 'off', ...o });
    onTestFinished(() => host.close());
    return host;
  };
  return { home, work, env, open };
}

/** Every file under `dir`, relative. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(dir.length + 1));
}

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const userTexts = (host: Host, id: string) => host.history(id).flatMap((m) => (m.role === 'user' ? m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : []));

describe('a host of tasks', () => {
  it('runs two tasks side by side, each its own session, events replayable and the result that of headless JSON', async () => {
    const p = await place();
    const host = await p.open();
    server.enqueue({ text: 'Done.' }, { text: 'Done.' });
    const [a, b] = await Promise.all([host.submit({ prompt: 'first task' }), host.submit({ prompt: 'second task' })]);
    expect(a).not.toBe(b);
    const [ra, rb] = await Promise.all([host.wait(a), host.wait(b)]);
    expect(ra).toEqual({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'Done.',
      session_id: a,
      num_turns: 1,
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      total_cost_usd: expect.any(Number),
      duration_ms: expect.any(Number),
      duration_api_ms: expect.any(Number),
      modelUsage: { 'claude-fake': expect.objectContaining({ inputTokens: ra.usage.input_tokens, outputTokens: ra.usage.output_tokens }) },
      permission_denials: [],
      stop_reason: 'end_turn',
      uuid: expect.any(String),
    });
    expect(rb).toMatchObject({ subtype: 'success', session_id: b });
    expect([userTexts(host, a), userTexts(host, b)]).toEqual([['first task'], ['second task']]);
    // Replayed from the start, as often as asked, after the task ended.
    const types = (await collect(host.events(a))).map((e) => e.type);
    // What was said while the task started (--sandbox off: reads are not enforced) comes first.
    expect(types.slice(0, 2)).toEqual(['notice', 'turn_start']);
    expect(types.at(-1)).toBe('turn_end');
    expect((await collect(host.events(a))).map((e) => e.type)).toEqual(types);
    expect(host.status(a)).toEqual({ id: a, state: 'done', mode: 'default', rounds: 0, usage: { input: ra.usage.input_tokens, output: ra.usage.output_tokens, cacheRead: 0, cacheWrite: 0 }, cost: expect.any(Number), pending: [] });

    // A second message to the same task continues its conversation.
    server.enqueue({ text: 'Again.' });
    expect(await host.submit({ prompt: 'more', resume: a })).toBe(a);
    expect(await host.wait(a)).toMatchObject({ subtype: 'success', result: 'Again.' });
    expect(userTexts(host, a)).toEqual(['first task', 'more']);
    expect(() => host.status('nope')).toThrow(ConfigError);
  });

  it('cancels a task mid-stream: the state says cancelled and the partial answer is kept', async () => {
    const p = await place();
    const host = await p.open();
    server.enqueue({ text: 'This goes on and on', hang: true });
    const id = await host.submit({ prompt: 'talk' });
    const seen: string[] = [];
    for await (const event of host.events(id)) {
      if (event.type === 'text_delta' && !seen.includes('text_delta')) expect(host.cancel(id)).toBe(true);
      seen.push(event.type);
    }
    expect(seen).toContain('text_delta');
    expect(seen.at(-1)).toBe('turn_end');
    expect(await host.wait(id)).toMatchObject({ subtype: 'error_during_execution', is_error: true, session_id: id, stop_reason: null });
    expect(host.status(id).state).toBe('cancelled');
    expect(host.cancel(id)).toBe(false);
    expect(host.history(id)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'talk' }] },
      { role: 'assistant', content: [{ type: 'text', text: expect.stringMatching(/^This/) }] },
    ]);
  });

  it('asks through the API: the task waits for approval until answer(), and the call then runs', async () => {
    const p = await place();
    const host = await p.open();
    server.enqueue({ toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'made.txt', content: 'hello\n' } }] }, { text: 'Written.' });
    const id = await host.submit({ prompt: 'make a file' });
    for await (const event of host.events(id)) {
      if (event.type !== 'approval') continue;
      expect(host.status(id)).toMatchObject({ state: 'waiting_for_approval', pending: [{ id: event.id, approval: { kind: 'call', callId: 'w1', request: { tool: 'write_file' } } }] });
      expect(host.answer(id, 'approval-99', { answer: 'yes' })).toBe(false);
      expect(host.answer(id, event.id, { answer: 'yes' })).toBe(true);
      expect(host.status(id)).toMatchObject({ state: 'running', pending: [] });
    }
    expect(await host.wait(id)).toMatchObject({ subtype: 'success', result: 'Written.', num_turns: 2, permission_denials: [] });
    expect(readFileSync(join(p.work, 'made.txt'), 'utf8')).toBe('hello\n');
  });

  it('refuses what would ask when the caller says so, and tells the model why', async () => {
    const p = await place();
    const host = await p.open({ approvals: 'refuse' });
    server.enqueue({ toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'made.txt', content: 'x' } }] }, { text: 'Could not.' });
    const id = await host.submit({ prompt: 'make a file' });
    expect(await host.wait(id)).toMatchObject({ subtype: 'success', result: 'Could not.', permission_denials: [{ tool_name: 'Write', tool_use_id: 'w1', tool_input: { file_path: join(p.work, 'made.txt'), content: 'x' }, reason: expect.any(String) }] });
    expect(existsSync(join(p.work, 'made.txt'))).toBe(false);
    const denied = (await collect(host.events(id))).find((e) => e.type === 'permission');
    expect(denied).toMatchObject({ id: 'w1', decision: 'deny', code: 'headless' });
  });

  it('gives structured output: the answer valid against the schema, in structured_output', async () => {
    const p = await place();
    const host = await p.open();
    const outputSchema = { type: 'object', properties: { files: { type: 'integer' } }, required: ['files'] };
    server.enqueue({ toolCalls: [{ id: 's1', name: 'submit_result', input: { files: 'many' } }] }, { toolCalls: [{ id: 's2', name: 'submit_result', input: { files: 3 } }] });
    const id = await host.submit({ prompt: 'count the files', outputSchema });
    expect(await host.wait(id)).toMatchObject({ subtype: 'success', structured_output: { files: 3 }, num_turns: 2 });
  });

  it('in memory by default: a task with tool calls and an "always" answer writes no file anywhere', async () => {
    const p = await place();
    const host = await p.open();
    server.enqueue(
      { toolCalls: [{ id: 'r1', name: 'list_files', input: {} }] },
      { toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'a.md', content: '# A\n' } }] },
      { toolCalls: [{ id: 'w2', name: 'write_file', input: { path: 'b.md', content: '# B\n' } }] },
      { text: 'Done.' },
    );
    const id = await host.submit({ prompt: 'write two notes' });
    for await (const event of host.events(id)) if (event.type === 'approval') host.answer(id, event.id, { answer: 'always' });
    expect(await host.wait(id)).toMatchObject({ subtype: 'success', num_turns: 4 });
    const allowed = (await collect(host.events(id))).flatMap((e) => (e.type === 'permission' ? [[e.id, e.code]] : []));
    expect(allowed).toEqual([['r1', expect.any(String)], ['w1', 'user_always'], ['w2', 'user_always']]);
    await host.close();
    expect(filesUnder(p.home)).toEqual([]);
    expect(filesUnder(p.work).sort()).toEqual(['a.md', 'b.md']);
  });

  it('resumes a task from the JSONL store in another host, under the same id', async () => {
    const p = await place();
    const first = await p.open({ persistence: 'jsonl' });
    server.enqueue({ text: 'The answer is 4.' });
    const id = await first.submit({ prompt: 'what is 2+2?' });
    await first.wait(id);
    await first.close();
    expect(filesUnder(p.home)).toContain(`state/feiyu/sessions/${id}.jsonl`);

    const second = await p.open({ persistence: 'jsonl' });
    server.enqueue({ text: 'And 8 doubled.' });
    expect(await second.submit({ prompt: 'and doubled?', resume: id })).toBe(id);
    expect(await second.wait(id)).toMatchObject({ subtype: 'success', session_id: id });
    expect(userTexts(second, id)).toEqual(['what is 2+2?', 'and doubled?']);
    const sent = server.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role);
    expect(sent).toEqual(['user', 'assistant', 'user']);
    // The memory store has nothing to resume.
    const third = await p.open();
    await expect(third.submit({ prompt: 'x', resume: id })).rejects.toThrow(ConfigError);
  });

  it('takes a provider object and offers only the tools asked for', async () => {
    const p = await place();
    const seen: ProviderRequest[] = [];
    const provider: Provider = {
      config: { name: 'mine', provider: 'openai', model: 'my-model', contextWindow: 100_000, maxOutputTokens: 1000 },
      async *stream(request) {
        seen.push(request);
        yield { type: 'text_delta', text: 'Hello from mine.' };
        yield { type: 'done', message: { role: 'assistant', content: [{ type: 'text', text: 'Hello from mine.' }] }, stopReason: 'end', usage: { input: 10, output: 4, cacheRead: 0, cacheWrite: 0 } };
      },
    };
    const host = await p.open({ keys: undefined, provider, tools: { only: ['read_file', 'search', 'bash'], disable: ['bash'] } });
    const id = await host.submit({ prompt: 'hi' });
    expect(await host.wait(id)).toMatchObject({ subtype: 'success', result: 'Hello from mine.', total_cost_usd: null, usage: { input_tokens: 10, output_tokens: 4 } });
    expect(seen.map((r) => r.tools.map((tool) => tool.name))).toEqual([['read_file', 'search']]);
  });

  it("runs the project's own hooks only when the caller trusts it, and remembers nothing", async () => {
    const p = await place();
    mkdirSync(join(p.work, '.feiyu'));
    writeFileSync(join(p.work, '.feiyu', 'settings.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: 'echo no prompts here >&2; exit 2' }] } }));
    const trusted = await p.open({ trust: true });
    const blocked = await trusted.submit({ prompt: 'hi' });
    expect(await trusted.wait(blocked)).toMatchObject({ subtype: 'error_during_execution', num_turns: 0, result: expect.stringContaining('no prompts here') });
    server.enqueue({ text: 'Hello.' });
    const untrusted = await p.open({ trust: false });
    const ran = await untrusted.submit({ prompt: 'hi' });
    expect(await untrusted.wait(ran)).toMatchObject({ subtype: 'success', result: 'Hello.' });
    expect(filesUnder(p.home)).toEqual([]);
  });
});
