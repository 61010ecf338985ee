// Hooks and verify with real processes: each event with exit 0, exit 2, another failure and a
// timeout; the JSON each hook reads; and verify end to end through a real Agent over real HTTP,
// the model fixing what a failing test reports.
import { chmod, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createHookRunner, type HookRunnerOptions } from '../src/hooks/runner.js';
import { createProvider } from '../src/providers/stream.js';
import { coreTools } from '../src/tools/index.js';
import type { AgentEvent } from '../src/types/events.js';
import type { ToolCallBlock } from '../src/types/conversation.js';
import type { ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { alive, currentTest, waitFor } from './scope.js';

const server = await useFakeServer();

type Setup = { root: string; notices: AgentEvent[]; hook: (name: string, body: string) => Promise<string>; input: (name: string) => Promise<unknown> };

/** A workspace, a folder of hook scripts that save their stdin, and the events a runner emits. */
async function setup(): Promise<Setup> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-hooks-')));
  const bin = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-hooks-bin-')));
  onTestFinished(() => Promise.all([root, bin].map((d) => rm(d, { recursive: true, force: true }))).then(() => {}));
  return {
    root,
    notices: [],
    async hook(name, body) {
      const file = join(bin, `${name}.sh`);
      await writeFile(file, `#!/bin/bash\ncat > ${bin}/${name}.in\necho $$ > ${bin}/${name}.pid\n${body}\n`);
      await chmod(file, 0o755);
      return file;
    },
    input: async (name) => JSON.parse(await readFile(join(bin, `${name}.in`), 'utf8')),
  };
}

function runner(s: Setup, hooks: HookRunnerOptions['hooks'], extra: Partial<HookRunnerOptions> = {}) {
  return createHookRunner({ hooks, root: s.root, sessionId: () => 's1', env: { ...process.env, ...currentTest().env }, emit: (e) => s.notices.push(e), ...extra });
}

const call = (name: string, input: Record<string, unknown>): ToolCallBlock => ({ type: 'tool_call', id: 'c1', name, input });

/** The four kinds of hook the protocol distinguishes. */
const BODIES = {
  ok: 'echo "context from $0"; exit 0',
  block: 'echo "not like this" >&2; exit 2',
  fail: 'echo boom >&2; exit 1',
  slow: 'sleep 30',
};

describe('PreToolUse', () => {
  it('exit 0 goes on, with the protocol JSON on stdin; the matcher selects tools', async () => {
    const s = await setup();
    const hooks = runner(s, {
      PreToolUse: [
        { matcher: 'bash', command: await s.hook('ok', BODIES.ok) },
        { matcher: 'edit_file|write_file', command: await s.hook('edits', BODIES.block) },
      ],
    });
    expect(await hooks.preToolUse(call('bash', { command: 'ls' }))).toBeNull();
    expect(await s.input('ok')).toEqual({ event: 'PreToolUse', tool: 'bash', input: { command: 'ls' }, cwd: s.root, session_id: 's1' });
    await expect(s.input('edits')).rejects.toThrow(/ENOENT/);
    expect(await hooks.preToolUse(call('write_file', { path: 'a' }))).toEqual({ decision: 'deny', reason: 'blocked by a PreToolUse hook: not like this' });
    expect(s.notices).toEqual([]);
  });

  it('exit 2 blocks with stderr as the reason; any other failure blocks too and is shown to the user', async () => {
    const s = await setup();
    const block = runner(s, { PreToolUse: [{ command: await s.hook('block', BODIES.block) }] });
    expect(await block.preToolUse(call('bash', { command: 'rm x' }))).toEqual({ decision: 'deny', reason: 'blocked by a PreToolUse hook: not like this' });
    const failing = await s.hook('fail', BODIES.fail);
    const fail = runner(s, { PreToolUse: [{ matcher: '*', command: failing }] });
    expect(await fail.preToolUse(call('read_file', { path: 'a' }))).toEqual({
      decision: 'deny',
      reason: `blocked by a PreToolUse hook: the hook ${failing} failed (it exited with code 1: boom), so the call is refused; tell the user if this persists`,
    });
    expect(s.notices).toEqual([{ type: 'hook_failed', event: 'PreToolUse', command: failing, failure: { kind: 'exit', code: 1 }, stderr: 'boom', blocked: true }]);
  });

  it('a hook past its timeout is killed and blocks', async () => {
    const s = await setup();
    const slow = await s.hook('slow', BODIES.slow);
    const hooks = runner(s, { PreToolUse: [{ command: slow, timeout: 0.3 }] });
    expect(await hooks.preToolUse(call('bash', { command: 'ls' }))).toEqual({
      decision: 'deny',
      reason: `blocked by a PreToolUse hook: the hook ${slow} failed (it timed out after 0.3 s and was stopped), so the call is refused; tell the user if this persists`,
    });
    const pid = Number(await readFile(slow.replace(/\.sh$/, '.pid'), 'utf8'));
    await waitFor(() => !alive(pid), `hook ${pid} to end`);
    expect(s.notices).toEqual([{ type: 'hook_failed', event: 'PreToolUse', command: slow, failure: { kind: 'timeout', secs: 0.3 }, stderr: '', blocked: true }]);
  });

  it('an invalid matcher is a configuration error at start-up', () => {
    expect(() => createHookRunner({ hooks: { PostToolUse: [{ matcher: 'bash(', command: 'true' }] }, root: '/', sessionId: () => 's', env: {} })).toThrow(
      /^hooks\.PostToolUse\[0\]\.matcher "bash\(" is not a valid regular expression: /,
    );
  });
});

describe('PostToolUse', () => {
  const result = { output: 'a.txt\nexit code 0', isError: false };

  it('exit 0 leaves the result alone and gets the output on stdin; exit 2 tells the model', async () => {
    const s = await setup();
    const ok = runner(s, { PostToolUse: [{ command: await s.hook('ok', BODIES.ok) }] });
    expect(await ok.postToolUse(call('bash', { command: 'ls' }), result)).toBe(result);
    expect(await s.input('ok')).toEqual({ event: 'PostToolUse', tool: 'bash', input: { command: 'ls' }, output: result.output, cwd: s.root, session_id: 's1' });
    const block = runner(s, { PostToolUse: [{ command: await s.hook('block', BODIES.block) }] });
    expect(await block.postToolUse(call('bash', { command: 'ls' }), result)).toEqual({ ...result, output: `${result.output}\n[PostToolUse hook: not like this]` });
    expect(s.notices).toEqual([]);
  });

  it('other failures and timeouts are shown to the user and change nothing', async () => {
    const s = await setup();
    const fail = await s.hook('fail', BODIES.fail);
    const slow = await s.hook('slow', BODIES.slow);
    const hooks = runner(s, { PostToolUse: [{ command: fail }, { command: slow, timeout: 0.3 }] });
    expect(await hooks.postToolUse(call('bash', { command: 'ls' }), result)).toBe(result);
    expect(s.notices).toEqual([
      { type: 'hook_failed', event: 'PostToolUse', command: fail, failure: { kind: 'exit', code: 1 }, stderr: 'boom', blocked: false },
      { type: 'hook_failed', event: 'PostToolUse', command: slow, failure: { kind: 'timeout', secs: 0.3 }, stderr: '', blocked: false },
    ]);
  });
});

describe('UserPromptSubmit', () => {
  it('exit 0 adds stdout as context; exit 2 blocks; other failures and timeouts go on', async () => {
    const s = await setup();
    const ok = await s.hook('ok', BODIES.ok);
    expect(await runner(s, { UserPromptSubmit: [{ command: ok }] }).userPromptSubmit('fix it')).toEqual({ context: `context from ${ok}` });
    expect(await s.input('ok')).toEqual({ event: 'UserPromptSubmit', prompt: 'fix it', cwd: s.root, session_id: 's1' });
    expect(await runner(s, { UserPromptSubmit: [{ command: await s.hook('block', BODIES.block) }] }).userPromptSubmit('x')).toEqual({ block: 'not like this' });
    const fail = await s.hook('fail', BODIES.fail);
    const slow = await s.hook('slow', BODIES.slow);
    const failing = runner(s, { UserPromptSubmit: [{ command: fail }, { command: slow, timeout: 0.3 }, { command: ok }] });
    expect(await failing.userPromptSubmit('x')).toEqual({ context: `context from ${ok}` });
    expect(s.notices).toEqual([
      { type: 'hook_failed', event: 'UserPromptSubmit', command: fail, failure: { kind: 'exit', code: 1 }, stderr: 'boom', blocked: false },
      { type: 'hook_failed', event: 'UserPromptSubmit', command: slow, failure: { kind: 'timeout', secs: 0.3 }, stderr: '', blocked: false },
    ]);
  });
});

describe('Stop', () => {
  it('exit 2 sends the model back once per user message; exit 0, failures and timeouts let it stop', async () => {
    const s = await setup();
    const block = runner(s, { Stop: [{ command: await s.hook('block', BODIES.block) }] });
    expect(await block.stop('All done.')).toBe('A Stop hook sent you back to work: not like this');
    expect(await s.input('block')).toEqual({ event: 'Stop', text: 'All done.', cwd: s.root, session_id: 's1' });
    expect(await block.stop('All done, really.')).toBeNull();
    block.resetForTurn();
    expect(await block.stop('Done.')).toBe('A Stop hook sent you back to work: not like this');
    const fail = await s.hook('fail', BODIES.fail);
    const slow = await s.hook('slow', BODIES.slow);
    const others = runner(s, { Stop: [{ command: await s.hook('ok', BODIES.ok) }, { command: fail }, { command: slow, timeout: 0.3 }] });
    expect(await others.stop('Done.')).toBeNull();
    expect(s.notices.map((n) => (n.type === 'hook_failed' ? n.failure.kind : n.type))).toEqual(['exit', 'timeout']);
  });

  it('works as the agent’s onStop', async () => {
    const s = await setup();
    const hooks = runner(s, { Stop: [{ command: await s.hook('block', 'echo "run the linter first" >&2; exit 2') }] });
    const ctx: ToolContext = { root: s.root, signal: new AbortController().signal, files: new Map(), shell: { cwd: s.root }, env: process.env };
    const agent = new Agent({
      provider: createProvider(fakeModel(server, 'openai'), { retry: { baseDelayMs: 5 } }),
      tools: [],
      system: 'test',
      ctx,
      onStop: (text, signal) => hooks.stop(text, signal),
    });
    agent.on((e) => e.type === 'turn_start' && hooks.resetForTurn());
    server.enqueue({ text: 'Done.' }, { text: 'Linted, done.' });
    expect(await agent.send('go')).toEqual({ stopReason: 'end', text: 'Linted, done.', rounds: 0 });
    expect(agent.messages[2]).toEqual({ role: 'user', content: [{ type: 'text', text: 'A Stop hook sent you back to work: run the linter first' }] });
    expect(server.violations).toEqual([]);
  });
});

describe('verify', () => {
  it('feeds a failing test back into the edit’s result, and passes once the model fixes it', async () => {
    const s = await setup();
    await writeFile(join(s.root, 'sum.mjs'), 'export const sum = (a, b) => a - b;\n');
    await writeFile(
      join(s.root, 'test.mjs'),
      `import { sum } from './sum.mjs';\nconst got = sum(2, 3);\nif (got !== 5) { console.error('FAIL: sum(2, 3) = ' + got + ', expected 5'); process.exit(1); }\nconsole.log('ok');\n`,
    );
    const hooks = runner(s, {}, { verify: 'node test.mjs' });
    const ctx: ToolContext = { root: s.root, signal: new AbortController().signal, files: new Map(), shell: { cwd: s.root }, env: process.env };
    const agent = new Agent({
      provider: createProvider(fakeModel(server, 'anthropic'), { retry: { baseDelayMs: 5 } }),
      tools: coreTools(),
      system: 'test',
      ctx,
      afterToolCall: (c, _tool, result, signal) => hooks.postToolUse(c, result, signal),
    });
    const results: { name: string; output: string; isError: boolean }[] = [];
    agent.on((e: AgentEvent) => e.type === 'tool_result' && results.push({ name: e.name, output: e.output, isError: e.isError }));
    const edit = (from: string, to: string) => ({ name: 'edit_file', input: { path: 'sum.mjs', old_string: from, new_string: to } });
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'sum.mjs' } }, { name: 'bash', input: { command: 'echo hi' } }] },
      { toolCalls: [edit('a - b', 'a * b')] },
      { toolCalls: [edit('a * b', 'a + b')] },
      { text: 'Fixed.' },
    );
    expect(await agent.send('fix sum')).toEqual({ stopReason: 'end', text: 'Fixed.', rounds: 3 });

    expect(results.map((r) => r.output.includes('[verify'))).toEqual([false, false, true, true]);
    const failed = results[2]!;
    expect(failed.isError).toBe(false);
    expect(failed.output).toMatch(/\n\[verify failed: `node test\.mjs` exited with code 1\. The change was written; fix what it reports\.\]\nFAIL: sum\(2, 3\) = 6, expected 5$/);
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain('FAIL: sum(2, 3) = 6, expected 5');
    expect(results[3]).toEqual({ name: 'edit_file', output: expect.stringMatching(/\n\[verify passed: node test\.mjs\]$/), isError: false });
    expect(s.notices).toEqual([
      { type: 'verify', command: 'node test.mjs', secs: expect.any(Number), failure: { kind: 'exit', code: 1 } },
      { type: 'verify', command: 'node test.mjs', secs: expect.any(Number) },
    ]);
    expect(server.violations).toEqual([]);
  });

  it('runs only after successful writes, and stops a verify past its timeout', async () => {
    const s = await setup();
    const hooks = runner(s, {}, { verify: 'echo started; sleep 30', verifyTimeout: 0.3 });
    const failedWrite = { output: 'old_string not found', isError: true };
    expect(await hooks.postToolUse(call('edit_file', { path: 'a' }), failedWrite)).toBe(failedWrite);
    const written = { output: 'wrote 3 lines to a.txt' };
    expect(await hooks.postToolUse(call('write_file', { path: 'a.txt' }), written)).toEqual({
      output: 'wrote 3 lines to a.txt\n[verify failed: `echo started; sleep 30` timed out after 0.3 s and was stopped. The change was written; fix what it reports.]\nstarted',
    });
  });
});
