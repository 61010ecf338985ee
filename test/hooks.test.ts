// Hooks with real processes, Claude Code's protocol: the JSON each event's hook reads (common
// fields, Claude's tool names and field names, the flat form's extra fields), exit 0 / 2 / other
// and hooks that cannot run at each event, every JSON decision, matchers over both names, and the
// Stop hook as a real Agent's onStop over real HTTP. verify: hooks-verify.test.ts.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createHookRunner, sentBack, type HookRunnerOptions } from '../src/hooks/runner.js';
import { createProvider } from '../src/providers/stream.js';
import type { AgentEvent } from '../src/types/events.js';
import type { ToolCallBlock } from '../src/types/conversation.js';
import type { ToolContext } from '../src/types/tools.js';
import { claudeToolName } from '../src/util/claudenames.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { alive, currentTest, waitFor } from './scope.js';

const server = await useFakeServer();

type Setup = { root: string; events: AgentEvent[]; hook: (name: string, body: string) => Promise<string>; input: (name: string) => Promise<unknown> };

/** A workspace, a folder of hook scripts that save their stdin, and the events a runner emits. */
async function setup(): Promise<Setup> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-hooks-')));
  const bin = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-hooks-bin-')));
  onTestFinished(() => Promise.all([root, bin].map((d) => rm(d, { recursive: true, force: true }))).then(() => {}));
  return {
    root,
    events: [],
    async hook(name, body) {
      const file = join(bin, `${name}.sh`);
      await writeFile(file, `#!/bin/bash\ncat > ${bin}/${name}.in\necho $$ > ${bin}/${name}.pid\n${body}\n`);
      await chmod(file, 0o755);
      return file;
    },
    input: async (name) => JSON.parse(await readFile(join(bin, `${name}.in`), 'utf8')),
  };
}

const SESSION = { id: 's1', file: '/state/sessions/s1.jsonl' };

function runner(s: Setup, hooks: HookRunnerOptions['hooks'], extra: Partial<HookRunnerOptions> = {}) {
  return createHookRunner({ hooks, root: s.root, session: () => SESSION, env: { ...process.env, ...currentTest().env }, emit: (e) => s.events.push(e), ...extra });
}

/** The fields every hook reads, for event `event`. */
const common = (s: Setup, event: string) => ({ session_id: 's1', transcript_path: SESSION.file, cwd: s.root, permission_mode: 'default', hook_event_name: event });

const call = (name: string, input: Record<string, unknown>): ToolCallBlock => ({ type: 'tool_call', id: 'toolu_1', name, input });

/** The kinds of hook the protocol distinguishes. */
const BODIES = {
  ok: 'echo "context from $0"; exit 0',
  block: 'echo "not like this" >&2; exit 2',
  fail: 'echo boom >&2; exit 1',
  missing: 'exec /nonexistent/formatter',
  slow: 'sleep 30',
};
const json = (reply: unknown) => `echo '${JSON.stringify(reply)}'`;

describe('PreToolUse', () => {
  it('gives Claude’s fields and names; matchers see feiyu’s and Claude’s tool names', async () => {
    const s = await setup();
    const hooks = runner(s, {
      PreToolUse: [
        { matcher: 'Bash', command: await s.hook('claude', BODIES.ok) },
        { matcher: 'bash', command: await s.hook('feiyu', BODIES.ok) },
        { matcher: 'Edit|Write', command: await s.hook('edits', BODIES.block) },
      ],
    });
    expect(await hooks.preToolUse(call('bash', { command: 'ls', timeout: 5, background: true }))).toEqual({});
    const expected = { ...common(s, 'PreToolUse'), tool_name: 'Bash', tool_input: { command: 'ls', timeout: 5000, run_in_background: true }, tool_use_id: 'toolu_1' };
    expect([await s.input('claude'), await s.input('feiyu')]).toEqual([expected, expected]);
    await expect(s.input('edits')).rejects.toThrow(/ENOENT/);
    expect(await hooks.preToolUse(call('write_file', { path: 'src/a.ts', content: 'x' }))).toEqual({ deny: { reason: 'not like this' } });
    expect(await s.input('edits')).toEqual({ ...common(s, 'PreToolUse'), tool_name: 'Write', tool_input: { file_path: join(s.root, 'src/a.ts'), content: 'x' }, tool_use_id: 'toolu_1' });
    expect(s.events).toEqual([]);
  });

  it('reads matchers as Claude Code does: names matched whole, anything else a regular expression found anywhere', async () => {
    const s = await setup();
    const matchers = ['Bash', 'Edit|Write', '^Bash', 'Output$', 'Notebook.*|Web', '.*_file', 'read', '*'];
    const hooks = runner(s, {
      PreToolUse: [
        ...matchers.map((matcher, i) => ({ matcher, command: `echo '${matcher}' >> ${s.root}/m${i}; true` })),
        // feiyu's older flat form keeps its anchored reading.
        { matcher: 'bash|.*_fi', command: `echo flat >> ${s.root}/flat`, flat: true as const },
      ],
    });
    const calls = [call('bash', { command: 'ls' }), call('job', { action: 'output', id: 1 }), call('write_file', { path: 'a', content: '' }), call('web_fetch', { url: 'https://x.dev' }), call('read_file', { path: 'a' })];
    const fired: Record<string, string[]> = {};
    for (const c of calls) {
      await hooks.preToolUse(c);
      const names = [...matchers.keys()].map((i) => join(s.root, `m${i}`));
      fired[claudeToolName(c.name, c.input)] = [...matchers.filter((_, i) => existsSync(names[i]!)), ...(existsSync(join(s.root, 'flat')) ? ['flat'] : [])];
      for (const f of [...names, join(s.root, 'flat')]) await rm(f, { force: true });
    }
    expect(fired).toEqual({
      Bash: ['Bash', '^Bash', '*', 'flat'],
      BashOutput: ['^Bash', 'Output$', '*'],
      Write: ['Edit|Write', '.*_file', '*'],
      WebFetch: ['Notebook.*|Web', '*'],
      Read: ['.*_file', '*'],
    });
  });

  it('runs with $CLAUDE_PROJECT_DIR and $FEIYU_PROJECT_DIR set to the workspace, in it', async () => {
    const s = await setup();
    const hooks = runner(s, { PreToolUse: [{ command: await s.hook('env', 'echo "$CLAUDE_PROJECT_DIR|$FEIYU_PROJECT_DIR|$PWD" >&2; exit 2') }] });
    expect(await hooks.preToolUse(call('bash', { command: 'ls' }))).toEqual({ deny: { reason: `${s.root}|${s.root}|${s.root}` } });
  });

  it('exit 2 blocks with stderr; an ordinary failure is shown and does not block; a hook that cannot run blocks', async () => {
    const s = await setup();
    expect(await runner(s, { PreToolUse: [{ command: await s.hook('block', BODIES.block) }] }).preToolUse(call('bash', { command: 'rm x' }))).toEqual({ deny: { reason: 'not like this' } });
    const failing = await s.hook('fail', BODIES.fail);
    expect(await runner(s, { PreToolUse: [{ matcher: '*', command: failing }] }).preToolUse(call('read_file', { path: 'a' }))).toEqual({});
    const missing = await s.hook('missing', BODIES.missing);
    expect(await runner(s, { PreToolUse: [{ command: missing }] }).preToolUse(call('read_file', { path: 'a' }))).toEqual({
      deny: { reason: expect.stringMatching(new RegExp(`^the hook ${missing} was not found \\(exit code 127\\) \\(.*No such file or directory\\), so the call is refused; tell the user if this persists$`)) },
    });
    expect(s.events).toEqual([
      { type: 'hook_failed', event: 'PreToolUse', command: failing, failure: { kind: 'exit', code: 1 }, stderr: 'boom', blocked: false },
      { type: 'hook_failed', event: 'PreToolUse', command: missing, failure: { kind: 'exit', code: 127 }, stderr: expect.stringContaining('/nonexistent/formatter'), blocked: true },
    ]);
  });

  it('a hook past its timeout is killed and blocks', async () => {
    const s = await setup();
    const slow = await s.hook('slow', BODIES.slow);
    const hooks = runner(s, { PreToolUse: [{ command: slow, timeout: 0.3 }] });
    expect(await hooks.preToolUse(call('bash', { command: 'ls' }))).toEqual({ deny: { reason: `the hook ${slow} timed out after 0.3 s and was stopped, so the call is refused; tell the user if this persists` } });
    const pid = Number(await readFile(slow.replace(/\.sh$/, '.pid'), 'utf8'));
    await waitFor(() => !alive(pid), `hook ${pid} to end`);
    expect(s.events).toEqual([{ type: 'hook_failed', event: 'PreToolUse', command: slow, failure: { kind: 'timeout', secs: 0.3 }, stderr: '', blocked: true }]);
  });

  it('honours each JSON decision: deny, ask, allow, the older block/approve, continue: false, updatedInput', async () => {
    const s = await setup();
    const decide = async (reply: unknown, c = call('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y' })) =>
      runner(s, { PreToolUse: [{ matcher: 'Edit|Bash', command: await s.hook(`h${Math.random()}`.replace('.', ''), json(reply)) }] }).preToolUse(c);
    const specific = (fields: object) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', ...fields } });
    expect(await decide(specific({ permissionDecision: 'deny', permissionDecisionReason: 'generated file' }))).toEqual({ deny: { reason: 'generated file' } });
    expect(await decide(specific({ permissionDecision: 'ask', permissionDecisionReason: 'check it' }))).toEqual({ verdict: { decision: 'ask', reason: 'check it' } });
    expect(await decide(specific({ permissionDecision: 'allow', permissionDecisionReason: 'formatter owns it' }))).toEqual({ verdict: { decision: 'allow', reason: 'formatter owns it' } });
    expect(await decide({ decision: 'block', reason: 'older spelling' })).toEqual({ deny: { reason: 'older spelling' } });
    expect(await decide({ decision: 'approve' })).toEqual({ verdict: { decision: 'allow' } });
    expect(await decide({ continue: false, stopReason: 'Build is red: stop' })).toEqual({ deny: { reason: 'Build is red: stop', stop: 'Build is red: stop' } });
    expect(await decide(specific({ permissionDecision: 'allow', updatedInput: { file_path: join(s.root, 'b.ts'), replace_all: true } }))).toEqual({
      verdict: { decision: 'allow' },
      input: { path: 'b.ts', old_string: 'x', new_string: 'y', replace_all: true },
    });
    expect(await decide(specific({ updatedInput: { command: 'npm test -- --ci', timeout: 90000 } }), call('bash', { command: 'npm test' }))).toEqual({ input: { command: 'npm test -- --ci', timeout: 90 } });
    expect(s.events).toEqual([{ type: 'notice', code: 'hook_stopped', params: { event: 'PreToolUse', reason: 'Build is red: stop' } }]);
  });

  it('deny wins over ask, ask over allow, whatever the order; a command set twice runs once', async () => {
    const s = await setup();
    const allow = await s.hook('allow', json({ hookSpecificOutput: { permissionDecision: 'allow' } }));
    const ask = await s.hook('ask', json({ hookSpecificOutput: { permissionDecision: 'ask' } }));
    const deny = await s.hook('deny', `sleep 0.2; ${json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no' } })}`);
    expect(await runner(s, { PreToolUse: [{ command: allow }, { command: ask }, { command: deny }] }).preToolUse(call('bash', { command: 'ls' }))).toEqual({ deny: { reason: 'no' } });
    expect(await runner(s, { PreToolUse: [{ command: allow }, { command: ask }] }).preToolUse(call('bash', { command: 'ls' }))).toEqual({ verdict: { decision: 'ask' } });
    const counter = await s.hook('count', `echo x >> ${s.root}/count`);
    await runner(s, { PreToolUse: [{ command: counter }, { matcher: 'Bash', command: counter }] }).preToolUse(call('bash', { command: 'ls' }));
    expect(await readFile(join(s.root, 'count'), 'utf8')).toBe('x\n');
  });

  it('a flat-form hook (feiyu’s older settings) also reads feiyu’s own field names', async () => {
    const s = await setup();
    const hooks = runner(s, { PreToolUse: [{ matcher: 'bash', command: await s.hook('flat', BODIES.ok), flat: true }] });
    await hooks.preToolUse(call('bash', { command: 'ls' }));
    expect(await s.input('flat')).toEqual({ ...common(s, 'PreToolUse'), tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1', event: 'PreToolUse', tool: 'bash', input: { command: 'ls' } });
  });

  it('an invalid matcher is a configuration error at start-up', () => {
    expect(() => createHookRunner({ hooks: { PostToolUse: [{ matcher: 'bash(', command: 'true' }] }, root: '/', session: () => SESSION, env: {} })).toThrow(
      /^hooks\.PostToolUse\[0\]\.matcher "bash\(" is not a valid regular expression: /,
    );
  });
});

describe('PostToolUse', () => {
  const result = { output: 'a.txt\nexit code 0', isError: false };

  it('gets the call and Claude’s tool_response; exit 0 leaves the result alone; exit 2 and decision: block tell the model', async () => {
    const s = await setup();
    const ok = runner(s, { PostToolUse: [{ command: await s.hook('ok', BODIES.ok) }] });
    expect(await ok.postToolUse(call('bash', { command: 'ls' }), result)).toBe(result);
    expect(await s.input('ok')).toEqual({
      ...common(s, 'PostToolUse'),
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: result.output, stderr: '', interrupted: false, isImage: false },
      tool_use_id: 'toolu_1',
    });
    await ok.postToolUse(call('write_file', { path: 'a.txt', content: 'hi' }), { output: 'wrote 1 line' });
    expect(await s.input('ok')).toMatchObject({ tool_name: 'Write', tool_response: { filePath: join(s.root, 'a.txt'), success: true } });
    const block = runner(s, { PostToolUse: [{ command: await s.hook('block', BODIES.block) }] });
    expect(await block.postToolUse(call('bash', { command: 'ls' }), result)).toEqual({ ...result, output: `${result.output}\n[PostToolUse hook: not like this]` });
    const reply = { decision: 'block', reason: 'lint: 2 errors', hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'formatted with prettier' } };
    const json2 = runner(s, { PostToolUse: [{ command: await s.hook('json', json(reply)) }] });
    expect(await json2.postToolUse(call('bash', { command: 'ls' }), result)).toEqual({
      ...result,
      output: `${result.output}\n[PostToolUse hook: lint: 2 errors]\n[PostToolUse hook: formatted with prettier]`,
    });
    expect(s.events).toEqual([]);
  });

  it('continue: false ends the turn after the call; a PreToolUse hook’s additionalContext comes with the result', async () => {
    const s = await setup();
    const hooks = runner(s, {
      PreToolUse: [{ command: await s.hook('pre', json({ hookSpecificOutput: { additionalContext: 'tests live in test/' } })) }],
      PostToolUse: [{ command: await s.hook('post', json({ continue: false, stopReason: 'deploy window closed', systemMessage: 'stopping' })) }],
    });
    expect(await hooks.preToolUse(call('bash', { command: 'ls' }))).toEqual({});
    expect(await hooks.postToolUse(call('bash', { command: 'ls' }), result)).toEqual({ ...result, output: `${result.output}\n[PostToolUse hook: tests live in test/]`, endTurn: { text: 'deploy window closed' } });
    expect(s.events).toEqual([
      { type: 'notice', code: 'hook_message', params: { event: 'PostToolUse', message: 'stopping' } },
      { type: 'notice', code: 'hook_stopped', params: { event: 'PostToolUse', reason: 'deploy window closed' } },
    ]);
  });

  it('after a failed call PostToolUseFailure runs instead, with the error; its context reaches the model; flat-form hooks still run', async () => {
    const s = await setup();
    const failed = { output: 'npm ERR! 3 tests failed\nexit code 1', isError: true };
    const hooks = runner(s, {
      PostToolUse: [{ matcher: 'Bash', command: await s.hook('post', BODIES.ok) }, { matcher: 'bash', command: await s.hook('flat', BODIES.ok), flat: true }],
      PostToolUseFailure: [{ matcher: 'Bash', command: await s.hook('failure', json({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: 'flaky: rerun once' } })) }],
    });
    expect(await hooks.postToolUse(call('bash', { command: 'npm test' }), failed)).toEqual({ ...failed, output: `${failed.output}\n[PostToolUseFailure hook: flaky: rerun once]` });
    await expect(s.input('post')).rejects.toThrow(/ENOENT/);
    const fields = { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'toolu_1', error: failed.output, is_interrupt: false };
    expect(await s.input('failure')).toEqual({ ...common(s, 'PostToolUseFailure'), ...fields });
    expect(await s.input('flat')).toEqual({ ...common(s, 'PostToolUseFailure'), ...fields, event: 'PostToolUse', tool: 'bash', input: { command: 'npm test' }, output: failed.output });
  });

  it('other failures and timeouts are shown to the user and change nothing', async () => {
    const s = await setup();
    const fail = await s.hook('fail', BODIES.fail);
    const slow = await s.hook('slow', BODIES.slow);
    const hooks = runner(s, { PostToolUse: [{ command: fail }, { command: slow, timeout: 0.3 }] });
    expect(await hooks.postToolUse(call('bash', { command: 'ls' }), result)).toBe(result);
    expect(s.events).toEqual([
      { type: 'hook_failed', event: 'PostToolUse', command: fail, failure: { kind: 'exit', code: 1 }, stderr: 'boom', blocked: false },
      { type: 'hook_failed', event: 'PostToolUse', command: slow, failure: { kind: 'timeout', secs: 0.3 }, stderr: '', blocked: false },
    ]);
  });
});

describe('UserPromptSubmit', () => {
  it('exit 0 adds stdout as context, JSON its additionalContext; exit 2 and decision: block block; failures go on', async () => {
    const s = await setup();
    const ok = await s.hook('ok', BODIES.ok);
    expect(await runner(s, { UserPromptSubmit: [{ command: ok }] }).userPromptSubmit('fix it')).toEqual({ context: `context from ${ok}` });
    expect(await s.input('ok')).toEqual({ ...common(s, 'UserPromptSubmit'), prompt: 'fix it' });
    const ctx = await s.hook('ctx', json({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'branch: main' } }));
    expect(await runner(s, { UserPromptSubmit: [{ command: ctx }] }).userPromptSubmit('x')).toEqual({ context: 'branch: main' });
    expect(await runner(s, { UserPromptSubmit: [{ command: await s.hook('block', BODIES.block) }] }).userPromptSubmit('x')).toEqual({ block: 'not like this' });
    const policy = await s.hook('policy', json({ decision: 'block', reason: 'no secrets in prompts' }));
    expect(await runner(s, { UserPromptSubmit: [{ command: policy }] }).userPromptSubmit('my key is sk-1')).toEqual({ block: 'no secrets in prompts' });
    const fail = await s.hook('fail', BODIES.fail);
    const slow = await s.hook('slow', BODIES.slow);
    const failing = runner(s, { UserPromptSubmit: [{ command: fail }, { command: slow, timeout: 0.3 }, { command: ok }] });
    expect(await failing.userPromptSubmit('x')).toEqual({ context: `context from ${ok}` });
    expect(s.events).toEqual([
      { type: 'hook_failed', event: 'UserPromptSubmit', command: fail, failure: { kind: 'exit', code: 1 }, stderr: 'boom', blocked: false },
      { type: 'hook_failed', event: 'UserPromptSubmit', command: slow, failure: { kind: 'timeout', secs: 0.3 }, stderr: '', blocked: false },
    ]);
  });
});

describe('Stop and SubagentStop', () => {
  it('exit 2 or decision: block sends the model back with the reason; the hook reads stop_hook_active and the last message', async () => {
    const s = await setup();
    const block = runner(s, { Stop: [{ command: await s.hook('block', BODIES.block) }] });
    expect(await block.stop('Stop', 'All done.', false)).toBe('not like this');
    expect(await s.input('block')).toEqual({ ...common(s, 'Stop'), stop_hook_active: false, last_assistant_message: 'All done.' });
    expect(await block.stop('Stop', 'All done, really.', true)).toBe('not like this');
    expect(await s.input('block')).toMatchObject({ stop_hook_active: true });
    const json1 = runner(s, { SubagentStop: [{ command: await s.hook('sub', json({ decision: 'block', reason: 'cite the files' })) }] });
    expect(await json1.stop('SubagentStop', 'Found it.', false)).toBe('cite the files');
    expect(sentBack('SubagentStop', 'cite the files')).toBe('A SubagentStop hook sent you back to work: cite the files');
    expect(await s.input('sub')).toEqual({ ...common(s, 'SubagentStop'), stop_hook_active: false, last_assistant_message: 'Found it.' });
    // continue: false wins over a block.
    const both = runner(s, { Stop: [{ command: await s.hook('both', json({ decision: 'block', reason: 'go on', continue: false, stopReason: 'quota' })) }] });
    expect(await both.stop('Stop', 'Done.', false)).toBeNull();
  });

  it('exit 0, failures and timeouts let it stop', async () => {
    const s = await setup();
    const fail = await s.hook('fail', BODIES.fail);
    const slow = await s.hook('slow', BODIES.slow);
    const others = runner(s, { Stop: [{ command: await s.hook('ok', BODIES.ok) }, { command: fail }, { command: slow, timeout: 0.3 }] });
    expect(await others.stop('Stop', 'Done.', false)).toBeNull();
    expect(s.events.map((n) => (n.type === 'hook_failed' ? n.failure.kind : n.type))).toEqual(['exit', 'timeout']);
  });

  it('works as the agent’s onStop', async () => {
    const s = await setup();
    const hooks = runner(s, { Stop: [{ command: await s.hook('block', 'echo "run the linter first" >&2; exit 2') }] });
    const ctx: ToolContext = { root: s.root, signal: new AbortController().signal, files: new Map(), shell: { cwd: s.root }, env: process.env };
    let active = false;
    const agent = new Agent({
      provider: createProvider(fakeModel(server, 'openai'), { retry: { baseDelayMs: 5 } }),
      tools: [],
      system: 'test',
      ctx,
      onStop: async (text, signal) => {
        const reason = active ? null : await hooks.stop('Stop', text, false, signal);
        active = true;
        return reason && sentBack('Stop', reason);
      },
    });
    server.enqueue({ text: 'Done.' }, { text: 'Linted, done.' });
    expect(await agent.send('go')).toEqual({ stopReason: 'end', text: 'Linted, done.', rounds: 0 });
    expect(agent.messages[2]).toEqual({ role: 'user', content: [{ type: 'text', text: 'A Stop hook sent you back to work: run the linter first' }] });
  });
});

describe('SessionStart, SessionEnd, PreCompact, Notification', () => {
  it('read their fields; matchers select by source, reason, trigger and notification type; SessionStart adds context', async () => {
    const s = await setup();
    const hooks = runner(s, {
      SessionStart: [{ matcher: 'startup|resume', command: await s.hook('start', 'echo "Sprint goal: ship 2.0"') }],
      SessionEnd: [{ command: await s.hook('end', 'true') }],
      PreCompact: [{ matcher: 'manual', command: await s.hook('compact', 'true') }],
      Notification: [{ matcher: 'permission_prompt', command: await s.hook('notify', 'true') }],
    });
    expect(await hooks.sessionStart('startup')).toBe('Sprint goal: ship 2.0');
    expect(await s.input('start')).toEqual({ ...common(s, 'SessionStart'), source: 'startup' });
    expect(await hooks.sessionStart('clear')).toBeUndefined();
    await hooks.sessionEnd('prompt_input_exit');
    expect(await s.input('end')).toEqual({ ...common(s, 'SessionEnd'), reason: 'prompt_input_exit' });
    await hooks.preCompact('auto', undefined);
    await expect(s.input('compact')).rejects.toThrow(/ENOENT/);
    await hooks.preCompact('manual', 'keep the API notes');
    expect(await s.input('compact')).toEqual({ ...common(s, 'PreCompact'), trigger: 'manual', custom_instructions: 'keep the API notes' });
    await hooks.notification('feiyu needs your permission to use Bash', 'permission_prompt');
    expect(await s.input('notify')).toEqual({ ...common(s, 'Notification'), message: 'feiyu needs your permission to use Bash', notification_type: 'permission_prompt' });
    expect(s.events).toEqual([]);
  });

  it('permission_mode follows the mode the runner is given', async () => {
    const s = await setup();
    const hooks = runner(s, { SessionEnd: [{ command: await s.hook('end', 'true') }] }, { mode: () => 'bypassPermissions' });
    await hooks.sessionEnd('other');
    expect(await s.input('end')).toMatchObject({ permission_mode: 'bypassPermissions', reason: 'other' });
  });
});
