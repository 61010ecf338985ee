// feiyu -p as a drop-in for claude -p: a CI report formatter written for Claude's stream-json
// renders a feiyu run's tool calls; the stream's lines (init, assistant, user, result) and its
// partial messages; stream-json input; and Claude's flags (--max-turns, -c, --permission-mode,
// --allowedTools / --disallowedTools, --system-prompt, --append-system-prompt).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults, useCliFixture } from './fixtures.js';

const { server, work, run } = await useCliFixture('feiyu-claude-headless', { price: { input: 3, output: 15 } });

/** A report formatter as a CI job has it for `claude -p --output-format stream-json --verbose | python3 report.py`. */
const REPORT = `import json, sys
names = {}
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "system" and msg.get("subtype") == "init":
        print(f"session model={msg['model']} mode={msg['permissionMode']} tools={','.join(msg['tools'][:6])}")
    elif kind == "assistant":
        for block in msg["message"]["content"]:
            if block["type"] == "tool_use":
                names[block["id"]] = block["name"]
                args = block["input"]
                print(f"> {block['name']}: {args.get('command') or args.get('file_path') or args.get('pattern')}")
            elif block["type"] == "text":
                print(f"  {block['text']}")
    elif kind == "user":
        for block in msg["message"]["content"]:
            if block["type"] == "tool_result":
                print(f"< {names[block['tool_use_id']]} {'failed' if block.get('is_error') else 'ok'}")
    elif kind == "result":
        print(f"= {msg['subtype']} turns={msg['num_turns']} denied={len(msg['permission_denials'])} cost={msg['total_cost_usd']}")
`;

const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe('--output-format stream-json', () => {
  it('a CI formatter written for claude -p renders the run’s tool calls', async () => {
    await writeFile(join(work, 'notes.txt'), 'old\n');
    await writeFile(join(work, 'report.py'), REPORT);
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }, { name: 'search', input: { pattern: 'old' } }], usage: { input: 1000, output: 10 } },
      { text: 'Updating.', toolCalls: [{ name: 'edit_file', input: { path: 'notes.txt', old_string: 'old', new_string: 'new' } }, { name: 'bash', input: { command: 'cat notes.txt' } }], usage: { input: 1200, output: 30 } },
      { toolCalls: [{ name: 'bash', input: { command: 'git push --force' } }], usage: { input: 1300, output: 5 } },
      { text: 'Done: notes say new.', usage: { input: 1400, output: 8 } },
    );
    const r = await run(['-p', 'update the notes', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash(cat:*)']);
    expect(r.code).toBe(0);
    const report = spawnSync('python3', [join(work, 'report.py')], { input: r.stdout, encoding: 'utf8' });
    expect(report.stderr).toBe('');
    expect(report.stdout).toBe(
      [
        'session model=claude-fake mode=acceptEdits tools=Read,Glob,Grep,Write,Edit,Bash',
        `> Read: ${join(work, 'notes.txt')}`,
        '> Grep: old',
        '< Read ok',
        '< Grep ok',
        '  Updating.',
        `> Edit: ${join(work, 'notes.txt')}`,
        '> Bash: cat notes.txt',
        '< Edit ok',
        '< Bash ok',
        '> Bash: git push --force',
        '< Bash failed',
        '  Done: notes say new.',
        // 4,900 input × $3 + 53 output × $15, per million
        '= success turns=4 denied=1 cost=0.015495',
        '',
      ].join('\n'),
    );
  });

  it('prints Claude’s lines: system/init, assistant and user messages, then the result', async () => {
    server.enqueue({ toolCalls: [{ id: 'toolu_1', name: 'write_file', input: { path: 'a.txt', content: 'hi\n' } }], usage: { input: 100, output: 10 } }, { text: 'Wrote it.', usage: { input: 120, output: 4 } });
    const r = await run(['-p', 'write a', '--output-format', 'stream-json', '--mode', 'auto']);
    const [init, call, result, answer, final, ...rest] = lines(r.stdout);
    const ids = { session_id: expect.any(String), uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) };
    expect(init).toEqual({
      type: 'system',
      subtype: 'init',
      cwd: work,
      // Cold tools are listed too (the model reaches them through load_tools and use_tool, listed as well).
      tools: ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash', 'BashOutput', 'TodoWrite', 'ExitPlanMode', 'remember', 'WebFetch', 'read_note', 'Task', 'load_tools', 'use_tool'],
      mcp_servers: [],
      model: 'claude-fake',
      permissionMode: 'bypassPermissions',
      slash_commands: [],
      apiKeySource: 'keys.json',
      output_style: 'default',
      feiyu_version: expect.any(String),
      ...ids,
    });
    const usage = (input: number, output: number) => ({ input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output });
    expect(call).toEqual({
      type: 'assistant',
      message: {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        role: 'assistant',
        model: 'claude-fake',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: join(work, 'a.txt'), content: 'hi\n' } }],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: usage(100, 10),
      },
      parent_tool_use_id: null,
      ...ids,
    });
    expect(result).toEqual({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('a.txt') }] }, parent_tool_use_id: null, ...ids });
    expect(answer).toMatchObject({ type: 'assistant', message: { content: [{ type: 'text', text: 'Wrote it.' }], stop_reason: 'end_turn', usage: usage(120, 4) } });
    expect(final).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'Wrote it.', num_turns: 2, session_id: init!.session_id });
    expect(rest).toEqual([]);
    expect(new Set([init, call, result, answer, final].map((l) => l!.session_id)).size).toBe(1);
  });

  it('with --include-partial-messages, the reply streams as Anthropic stream events, tool input under Claude’s names', async () => {
    server.enqueue({ text: 'Let me look.', toolCalls: [{ id: 'toolu_r', name: 'read_file', input: { path: 'x.md' } }] }, { text: 'Nothing there.' });
    const r = await run(['-p', 'look', '--output-format', 'stream-json', '--include-partial-messages']);
    const events = lines(r.stdout).filter((l) => l.type === 'stream_event').map((l) => l.event);
    const first = events.slice(0, events.findIndex((e) => e.type === 'message_stop') + 1);
    const kinds = first.map((e) => (e.type === 'content_block_delta' ? `${e.index}:${e.delta.type}` : e.index !== undefined ? `${e.index}:${e.type}` : e.type));
    expect([...new Set(kinds)]).toEqual(['message_start', '0:content_block_start', '0:text_delta', '0:content_block_stop', '1:content_block_start', '1:input_json_delta', '1:content_block_stop', 'message_delta', 'message_stop']);
    expect(first.filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta.text).join('')).toBe('Let me look.');
    expect(first.find((e) => e.type === 'content_block_start' && e.index === 1).content_block).toEqual({ type: 'tool_use', id: 'toolu_r', name: 'Read', input: {} });
    expect(JSON.parse(first.find((e) => e.delta?.type === 'input_json_delta').delta.partial_json)).toEqual({ file_path: join(work, 'x.md') });
    expect(first.find((e) => e.type === 'message_delta').delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
    // The streamed message and the assistant line that completes it share an id.
    const assistant = lines(r.stdout).find((l) => l.type === 'assistant')!;
    expect(assistant.message.id).toBe(first[0]!.message.id);
  });

  it('--input-format stream-json: one turn and one result per user message on stdin, in one session', async () => {
    server.enqueue({ text: 'Noted: kumquat.' }, { text: 'You said kumquat.' });
    const input = [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'remember kumquat' } }),
      'not json',
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'which word?' }] } }),
      '',
    ].join('\n');
    const r = await run(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'], { input });
    expect(r.code).toBe(0);
    const results = lines(r.stdout).filter((l) => l.type === 'result');
    expect(results.map((l) => [l.result, l.num_turns])).toEqual([
      ['Noted: kumquat.', 1],
      ['You said kumquat.', 2],
    ]);
    expect(results[0]!.session_id).toBe(results[1]!.session_id);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('remember kumquat');
    expect(r.stderr).toContain('stdin line 2 is not a stream-json user message');
  });
});

describe('Claude’s flags', () => {
  it('--max-turns is --max-rounds: error_max_turns, exit 3', async () => {
    server.enqueue({ toolCalls: [{ name: 'list_files', input: {} }] });
    const r = await run(['-p', 'loop', '--max-turns', '1', '--output-format', 'json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 1 });
  });

  it('--allowedTools allows, --disallowedTools denies, in Claude’s rule syntax; the denials are listed', async () => {
    await writeFile(join(work, 'package.json'), JSON.stringify({ scripts: { test: 'echo all-green' } }));
    server.enqueue(
      { toolCalls: [{ id: 't1', name: 'bash', input: { command: 'npm test' } }, { id: 't2', name: 'read_file', input: { path: 'package.json' } }, { id: 't3', name: 'bash', input: { command: 'npm publish' } }] },
      { text: 'Tested.' },
    );
    const r = await run(['-p', 'test', '--output-format', 'json', '--allowedTools', 'Bash(npm test:*)', 'Edit', '--disallowedTools', 'Read', '--sandbox', 'off']);
    const [tested, read, published] = toolResults(server);
    expect(tested).toContain('all-green');
    expect(read).toContain("The user's rule Read forbids this call");
    expect(published).toContain('needs the user');
    expect(JSON.parse(r.stdout).permission_denials).toEqual([
      { tool_name: 'Read', tool_use_id: 't2', tool_input: { file_path: join(work, 'package.json') }, reason: expect.stringContaining("The user's rule Read") },
      { tool_name: 'Bash', tool_use_id: 't3', tool_input: { command: 'npm publish' }, reason: expect.stringContaining('needs the user') },
    ]);
  });

  it('--permission-mode acceptEdits allows edits in the workspace and still refuses commands; plan refuses edits', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'ok.txt', content: 'x' } }, { name: 'bash', input: { command: 'touch made.txt' } }] }, { text: 'Half done.' });
    await run(['-p', 'go', '--permission-mode', 'acceptEdits']);
    expect([existsSync(join(work, 'ok.txt')), existsSync(join(work, 'made.txt'))]).toEqual([true, false]);
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'plan.txt', content: 'x' } }] }, { text: 'Planned.' });
    await run(['-p', 'go', '--permission-mode', 'plan']);
    expect(existsSync(join(work, 'plan.txt'))).toBe(false);
    expect(toolResults(server)[0]).toContain('plan mode');
  });

  it('--append-system-prompt adds to the system prompt; --system-prompt replaces feiyu’s instructions', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' });
    await run(['-p', 'hi', '--append-system-prompt', 'Always answer in haiku.']);
    await run(['-p', 'hi', '--system-prompt', 'You are a terse reviewer.']);
    const [appended, replaced] = server.requests.map((q) => q.body.system as { text: string }[] | string).map((s) => (typeof s === 'string' ? s : s.map((b) => b.text).join('')));
    // Appended to feiyu's instructions; the list of cold tools the agent adds comes after it.
    expect(appended).toMatch(/^You are feiyu, a coding agent[\s\S]*\n\nAlways answer in haiku\.(\n\nCold tools |$)/);
    expect(replaced).toMatch(/^You are a terse reviewer\.\n\n/);
    expect(replaced).not.toContain('You are feiyu');
  });

  it('-c continues the last session here; a resumed run’s cost and usage are this invocation’s', async () => {
    server.enqueue({ text: 'Noted.', usage: { input: 1000, output: 100 } });
    const first = JSON.parse((await run(['-p', 'remember kumquat', '--output-format', 'json'])).stdout);
    expect(first.total_cost_usd).toBe(0.0045);
    server.enqueue({ text: 'kumquat', usage: { input: 2000, output: 10 } });
    const second = JSON.parse((await run(['-p', 'which word?', '-c', '--output-format', 'json'])).stdout);
    expect(second).toMatchObject({ session_id: first.session_id, total_cost_usd: 0.00615, usage: { input_tokens: 2000, output_tokens: 10 }, num_turns: 1 });
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('remember kumquat');
    const session = await readFile(join(work, '..', 'home', 'state', 'feiyu', 'sessions', `${first.session_id}.jsonl`), 'utf8');
    expect(session).toContain('which word?');
  });
});
