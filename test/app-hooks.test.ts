// The app's hook wiring in-process over the fake model server: Notification when feiyu asks the
// user, SessionStart / SessionEnd around a session and /clear, PreCompact before /compact,
// SubagentStop around a task sub-agent, a PreToolUse hook's updatedInput and continue: false
// through runTool, and permission_mode following the mode. Hooks are the user's (settings.json).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AgentEvent } from '../src/types/events.js';
import { createApp, type App } from '../src/app/app.js';
import { parseArgs } from '../src/app/args.js';
import { appPlace, toolResults, useFakeServer } from './fixtures.js';

const server = await useFakeServer();

/** A home whose settings.json holds `hooks`, a workspace, and a log the hooks append their stdin to. */
async function place(hooks: Record<string, unknown>) {
  const p = await appPlace(server, { hooks }, 'anthropic');
  const log = join(p.home, 'hooks.log');
  const seen = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : []);
  return { ...p, log, seen };
}

/** A Claude-form hook entry that appends its stdin to `log`, then runs `then`. */
const logging = (log: string, then = 'exit 0', matcher?: string) => [{ ...(matcher && { matcher }), hooks: [{ type: 'command', command: `input=$(cat); printf '%s\\n' "$input" >> ${log}; ${then}` }] }];

async function open(args: string[], env: NodeJS.ProcessEnv): Promise<App> {
  const app = await createApp(parseArgs(args), { env });
  onTestFinished(() => app.close());
  return app;
}

describe('hooks around the session', () => {
  it('SessionStart at start (its context goes with the first message), SessionStart and SessionEnd on /clear, SessionEnd at exit', async () => {
    const p = await place({});
    writeFileSync(
      p.settingsFile,
      JSON.stringify({ hooks: { SessionStart: logging(p.log, 'echo "Sprint goal: search"'), SessionEnd: logging(p.log) } }),
    );
    const app = await createApp(parseArgs(['-C', p.work, '--sandbox', 'off']), { env: p.env });
    server.enqueue({ text: 'Hi.' });
    await app.send('hello', new AbortController().signal);
    const first = server.requests[0]!.body as { messages: { content: { text: string }[] }[] };
    expect(first.messages[0]!.content[0]!.text).toBe('hello\n\n<hook_context>\nSprint goal: search\n</hook_context>');
    app.newSession();
    await app.close();
    expect(p.seen().map((i) => [i.hook_event_name, i.source ?? i.reason])).toEqual([
      ['SessionStart', 'startup'],
      ['SessionEnd', 'clear'],
      ['SessionStart', 'clear'],
      ['SessionEnd', 'prompt_input_exit'],
    ]);
  });

  it('Notification when feiyu asks the user, with permission_mode as Claude names the mode', async () => {
    const p = await place({});
    writeFileSync(p.settingsFile, JSON.stringify({ hooks: { Notification: logging(p.log) } }));
    const app = await open(['-C', p.work, '--sandbox', 'off'], p.env);
    app.on((e) => e.type === 'approval' && app.answer(e.id, { answer: 'no' }));
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'touch x' } }] }, { text: 'Declined.' });
    await app.send('touch x', new AbortController().signal);
    await app.close();
    expect(p.seen()).toEqual([
      {
        session_id: app.session.id,
        transcript_path: expect.stringContaining(`${app.session.id}.jsonl`),
        cwd: p.work,
        permission_mode: 'default',
        hook_event_name: 'Notification',
        message: 'feiyu needs your permission to use Bash',
        notification_type: 'permission_prompt',
      },
    ]);
  });

  it('PreCompact before /compact, with the focus as custom_instructions', async () => {
    const p = await place({});
    writeFileSync(p.settingsFile, JSON.stringify({ hooks: { PreCompact: logging(p.log, 'exit 0', 'manual') } }));
    const app = await open(['-C', p.work, '--sandbox', 'off', '--mode', 'auto'], p.env);
    server.enqueue({ text: 'One.' }, { text: 'Two.' });
    await app.send('first', new AbortController().signal);
    await app.send('second', new AbortController().signal);
    await app.agent.compact(new AbortController().signal, { force: true, focus: 'the API' });
    expect(p.seen().map((i) => [i.hook_event_name, i.trigger, i.custom_instructions, i.permission_mode])).toEqual([['PreCompact', 'manual', 'the API', 'bypassPermissions']]);
  });
});

describe('hooks around a call', () => {
  it('a PreToolUse hook’s updatedInput is what runs; continue: false ends the turn after the call', async () => {
    const p = await place({});
    const rewrite = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten"}}}'`;
    const stop = `printf '%s' '{"continue":false,"stopReason":"Quota reached for today"}'`;
    writeFileSync(
      p.settingsFile,
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: rewrite }] }], PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: stop }] }] } }),
    );
    const app = await open(['-C', p.work, '--sandbox', 'off'], p.env);
    const events: AgentEvent[] = [];
    app.on((e) => events.push(e));
    server.enqueue({ toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'rm -rf /tmp/nothing-here' } }] });
    expect(await app.send('go', new AbortController().signal)).toEqual({ stopReason: 'end', text: 'Quota reached for today', rounds: 1 });
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ id: 'b1', output: expect.stringMatching(/^rewritten\n/) });
    // The policy judges the command that runs: echo is read-only.
    expect(events.find((e) => e.type === 'permission')).toMatchObject({ id: 'b1', decision: 'allow', code: 'allowlist' });
    expect(events.filter((e) => e.type === 'notice')).toEqual([{ type: 'notice', code: 'hook_stopped', params: { event: 'PostToolUse', reason: 'Quota reached for today' } }]);
    expect(server.requests).toHaveLength(1);
  });

  it('an updatedInput that breaks the tool’s arguments is refused before anything runs', async () => {
    const p = await place({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `printf '%s' '{"hookSpecificOutput":{"updatedInput":{"content":["x"]}}}'` }] }] });
    const app = await open(['-C', p.work, '--sandbox', 'off', '--mode', 'auto'], p.env);
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'x' } }] }, { text: 'Failed.' });
    await app.send('write', new AbortController().signal);
    expect(toolResults(server)[0]).toMatch(/^a PreToolUse hook changed the arguments, and they are not valid: /);
  });

  it('a task sub-agent’s calls pass the PreToolUse and PostToolUse hooks too, as in Claude Code', async () => {
    const p = await place({});
    // A guard as users write it: jq reads the path, exit 2 refuses with stderr.
    const guard = `path=$(jq -r '.tool_input.file_path // empty'); case "$path" in */private/*) echo "private/ is off limits" >&2; exit 2 ;; esac`;
    writeFileSync(
      p.settingsFile,
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: guard }] }], PostToolUse: logging(p.log, 'exit 0', 'Read') } }),
    );
    mkdirSync(join(p.work, 'private'));
    writeFileSync(join(p.work, 'private', 'salaries.txt'), 'alice 1\n');
    writeFileSync(join(p.work, 'README.md'), 'hello\n');
    const app = await open(['-C', p.work, '--sandbox', 'off'], p.env);
    server.enqueue(
      { toolCalls: [{ name: 'task', input: { prompt: 'summarise the project' } }] },
      { toolCalls: [{ id: 's1', name: 'read_file', input: { path: 'private/salaries.txt' } }, { id: 's2', name: 'read_file', input: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'submit_result', input: { conclusion: 'The README says hello; private/ was refused.', facts: [], open_questions: [], status: 'partial' } }] },
      { text: 'Summarised.' },
    );
    await app.send('summarise', new AbortController().signal);
    const sub = server.requests[2]!.body as { messages: { content: { type: string; content?: string }[] }[] };
    const results = sub.messages.at(-1)!.content.filter((b) => b.type === 'tool_result').map((b) => b.content);
    expect(results).toEqual(['Permission denied: blocked by a PreToolUse hook: private/ is off limits', expect.stringContaining('hello')]);
    expect(p.seen().map((i) => [i.hook_event_name, i.tool_name, i.tool_use_id, i.tool_input])).toEqual([['PostToolUse', 'Read', 's2', { file_path: join(p.work, 'README.md') }]]);
  });

  it('SubagentStop sends a specialist back to work once it has submitted its result, then it concludes', async () => {
    const p = await place({});
    const back = `input=$(cat); echo "$input" >> ${p.log}; case "$input" in *'"stop_hook_active":false'*) printf '%s' '{"decision":"block","reason":"Give path:line facts."}' ;; esac`;
    writeFileSync(p.settingsFile, JSON.stringify({ hooks: { SubagentStop: [{ hooks: [{ type: 'command', command: back }] }] } }));
    const app = await open(['-C', p.work, '--sandbox', 'off'], p.env);
    const submit = (conclusion: string) => ({ toolCalls: [{ name: 'submit_result', input: { conclusion, facts: [], open_questions: [], status: 'done' } }] });
    server.enqueue({ toolCalls: [{ name: 'task', input: { prompt: 'find the parser' } }] }, submit('In parse.ts.'), submit('In src/parse.ts:12.'), { text: 'Found it.' });
    await app.send('where is the parser?', new AbortController().signal);
    expect(toolResults(server)).toEqual([expect.stringMatching(/^In src\/parse\.ts:12\.\n\n\[explore · done · note n1: /)]);
    expect(JSON.stringify(server.requests[2]!.body.messages.at(-1))).toContain('A SubagentStop hook sent you back to work: Give path:line facts.');
    expect(p.seen().map((i) => [i.hook_event_name, i.stop_hook_active, i.last_assistant_message])).toEqual([
      ['SubagentStop', false, 'In parse.ts.'],
      ['SubagentStop', true, 'In src/parse.ts:12.'],
    ]);
  });
});
