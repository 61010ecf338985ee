// More hook scripts as Claude Code's users write them, run by the built CLI against the fake model:
// the hooks guide's jq command logger in the user's settings, a python UserPromptSubmit guard
// (JSON block, printed context), a jq Stop hook that exits 2 until stop_hook_active, a python
// PreToolUse hook whose updatedInput and allow are what runs, a PostToolUse linter's JSON block
// and additionalContext, systemMessage, a crashing hook (non-blocking) and a hook past its timeout.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults, useCliFixture } from './fixtures.js';

const { server, home, work, run } = await useCliFixture('feiyu-claude-hooks-json', {});

type Hooks = Record<string, { matcher?: string; hooks: { type: 'command'; command: string; timeout?: number }[] }[]>;

/** The project's .claude/settings.json with `hooks`, and its executable scripts under .claude/hooks/. */
async function install(hooks: Hooks, scripts: Record<string, string> = {}): Promise<void> {
  await mkdir(join(work, '.claude', 'hooks'), { recursive: true });
  await writeFile(join(work, '.claude', 'settings.json'), JSON.stringify({ hooks }, null, 2));
  for (const [name, body] of Object.entries(scripts)) {
    await writeFile(join(work, '.claude', 'hooks', name), body);
    await chmod(join(work, '.claude', 'hooks', name), 0o755);
  }
}

const command = (cmd: string, timeout?: number) => [{ type: 'command' as const, command: cmd, ...(timeout !== undefined && { timeout }) }];
const script = (name: string) => `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`;

describe('Claude Code hook scripts, JSON and exit codes', () => {
  it('the hooks guide’s command logger (jq, in the user’s own settings) logs each Bash command with its description', async () => {
    const log = `jq -r '"\\(.tool_input.command) - \\(.tool_input.description // "No description")"' >> ~/.claude/bash-command-log.txt`;
    await mkdir(join(home, '.claude'));
    await writeFile(join(home, 'config', 'feiyu', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: command(log) }] } }));
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'ls', description: 'List files' } }, { name: 'bash', input: { command: 'pwd' } }] }, { text: 'Listed.' });
    const r = await run(['-p', 'list', '--mode', 'auto']);
    expect(r.code).toBe(0);
    expect(await readFile(join(home, '.claude', 'bash-command-log.txt'), 'utf8')).toBe('ls - List files\npwd - No description\n');
  });

  it('a python UserPromptSubmit guard blocks a prompt with a secret (JSON) and adds printed context to the others', async () => {
    const guard = `#!/usr/bin/env python3
import json, re, sys
data = json.load(sys.stdin)
prompt = data.get("prompt", "")
if re.search(r"(?i)\\b(password|secret|key)\\s*[:=]", prompt):
    print(json.dumps({"decision": "block", "reason": "Security policy violation: Prompt contains potential secrets."}))
    sys.exit(0)
print("Current sprint: login rework")
sys.exit(0)
`;
    await install({ UserPromptSubmit: [{ hooks: command(script('prompt.py')) }] }, { 'prompt.py': guard });
    const blocked = await run(['-p', 'connect with password: hunter2', '--trust', '--output-format', 'json']);
    expect(server.requests).toHaveLength(0);
    expect(blocked.code).toBe(1);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ subtype: 'error_during_execution', is_error: true, result: expect.stringContaining('Security policy violation: Prompt contains potential secrets.') });
    server.enqueue({ text: 'On it.' });
    expect((await run(['-p', 'what next?', '--trust'])).code).toBe(0);
    const body = server.requests[0]!.body as { messages: { content: { text: string }[] }[] };
    expect(body.messages[0]!.content[0]!.text).toBe('what next?\n\n<hook_context>\nCurrent sprint: login rework\n</hook_context>');
  });

  it('a jq Stop hook exits 2 with its reason until stop_hook_active, and the model goes back to work once', async () => {
    const stop = `#!/bin/bash
input=$(cat)
if [ "$(jq -r '.stop_hook_active' <<<"$input")" = "true" ]; then exit 0; fi
echo "Run the linter before you stop." >&2
exit 2
`;
    await install({ Stop: [{ hooks: command(script('stop.sh')) }] }, { 'stop.sh': stop });
    server.enqueue({ text: 'Done.' }, { text: 'Linted, done.' });
    const r = await run(['-p', 'fix it', '--trust', '--output-format', 'json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'Linted, done.', num_turns: 2 });
    const second = server.requests[1]!.body as { messages: { content: { text?: string }[] }[] };
    expect(second.messages.at(-1)!.content.map((b) => b.text)).toEqual(['A Stop hook sent you back to work: Run the linter before you stop.']);
  });

  it('a python PreToolUse hook’s updatedInput runs, allowed by its permissionDecision, where the command itself would ask', async () => {
    const rewrite = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
cmd = data["tool_input"]["command"]
if cmd.startswith("python "):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
        "permissionDecisionReason": "python is python3 here", "updatedInput": {"command": "python3 " + cmd[len("python "):]}}}))
`;
    await install({ PreToolUse: [{ matcher: 'Bash', hooks: command(script('rewrite.py')) }] }, { 'rewrite.py': rewrite });
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'python -c "open(\'made.txt\', \'w\').write(\'42\')"' } }] }, { text: 'Made.' });
    const r = await run(['-p', 'make it', '--trust', '--sandbox', 'off']);
    expect(r.code).toBe(0);
    expect(await readFile(join(work, 'made.txt'), 'utf8')).toBe('42');
  });

  it('a PostToolUse linter’s JSON block and additionalContext reach the model with the result; systemMessage reaches the user', async () => {
    const lint = `#!/bin/bash
file=$(jq -r '.tool_input.file_path')
if grep -q 'var ' "$file"; then
  jq -n --arg f "$file" '{decision: "block", reason: "\\($f): use let or const, not var", systemMessage: "lint: var found"}'
else
  echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint: clean"}}'
fi
`;
    await install({ PostToolUse: [{ matcher: 'Write|Edit', hooks: command(script('lint.sh')) }] }, { 'lint.sh': lint });
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'a.js', content: 'var x = 1;\n' } }, { name: 'write_file', input: { path: 'b.js', content: 'const y = 2;\n' } }] }, { text: 'Written.' });
    const r = await run(['-p', 'write', '--trust', '--mode', 'auto']);
    const [a, b] = toolResults(server);
    expect(a).toMatch(new RegExp(`\\n\\[PostToolUse hook: ${join(work, 'a.js')}: use let or const, not var\\]$`));
    expect(b).toMatch(/\n\[PostToolUse hook: lint: clean\]$/);
    expect(r.stderr).toContain('lint: var found');
  });

  it('a cold tool called through use_tool meets the hooks on its Claude name, and stream-json shows that tool', async () => {
    const guard = `jq -c '{tool_name, tool_input}' >> "$CLAUDE_PROJECT_DIR"/calls.jsonl; echo "no todo lists here" >&2; exit 2`;
    await install({ PreToolUse: [{ matcher: 'TodoWrite', hooks: command(guard) }] });
    const items = [{ content: 'Fix the parser', status: 'pending' }];
    server.enqueue({ toolCalls: [{ id: 'toolu_u', name: 'use_tool', input: { name: 'todo', args: { items } } }] }, { text: 'No list, then.' });
    const r = await run(['-p', 'plan it', '--trust', '--output-format', 'stream-json']);
    expect(r.code).toBe(0);
    const todos = [{ content: 'Fix the parser', status: 'pending', activeForm: 'Fix the parser' }];
    expect(JSON.parse(await readFile(join(work, 'calls.jsonl'), 'utf8'))).toEqual({ tool_name: 'TodoWrite', tool_input: { todos } });
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; message?: { content: unknown[] } });
    expect(lines.filter((l) => l.type !== 'system' && l.type !== 'result').map((l) => l.message!.content[0])).toEqual([
      { type: 'tool_use', id: 'toolu_u', name: 'TodoWrite', input: { todos } },
      { type: 'tool_result', tool_use_id: 'toolu_u', content: 'Permission denied: blocked by a PreToolUse hook: no todo lists here', is_error: true },
      { type: 'text', text: 'No list, then.' },
    ]);
  });

  it('a hook that crashes (exit 1) is shown and blocks nothing; one past its timeout refuses the call', async () => {
    const crash = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
print(data["tool_input"]["nonexistent"])
`;
    await install({ PreToolUse: [{ matcher: 'Write', hooks: command(script('crash.py')) }, { matcher: 'Bash', hooks: command('sleep 30', 1) }] }, { 'crash.py': crash });
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'ok.txt', content: 'x' } }, { name: 'bash', input: { command: 'touch slow.txt' } }] }, { text: 'Half.' });
    const r = await run(['-p', 'go', '--trust', '--mode', 'auto', '--sandbox', 'off']);
    expect(r.code).toBe(0);
    expect([existsSync(join(work, 'ok.txt')), existsSync(join(work, 'slow.txt'))]).toEqual([true, false]);
    expect(toolResults(server)[1]).toBe('Permission denied: blocked by a PreToolUse hook: the hook sleep 30 timed out after 1 s and was stopped, so the call is refused; tell the user if this persists');
    // The user sees the traceback's first and last lines: what went wrong is in the last.
    expect(r.stderr).toContain(`The PreToolUse hook "${script('crash.py')}" failed: exited with code 1 (Traceback (most recent call last): … KeyError: 'nonexistent')\n`);
  });
});
