// Hook scripts written for Claude Code, installed as their READMEs say (.claude/settings.json,
// matcher "Bash", "$CLAUDE_PROJECT_DIR" in the command), run by the built CLI against the fake
// model: a security hook blocks `rm -rf build`, a JSON permissionDecision "deny" holds, a Stop hook
// reading transcript_path sends the model back with {"decision":"block"}, a PostToolUse formatter
// formats what the model wrote, and context hooks reach the model. python3 and bash, as users write them.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults, useCliFixture } from './fixtures.js';

const { server, work, run } = await useCliFixture('feiyu-claude-hooks', {});

/** Writes the project's .claude/settings.json and its hook scripts (executable), as a user installs them. */
async function install(settings: unknown, scripts: Record<string, string>): Promise<void> {
  await mkdir(join(work, '.claude', 'hooks'), { recursive: true });
  await writeFile(join(work, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
  for (const [name, body] of Object.entries(scripts)) {
    const file = join(work, '.claude', 'hooks', name);
    await writeFile(file, body);
    await chmod(file, 0o755);
  }
}

const hook = (event: string, matcher: string | undefined, command: string) => ({ [event]: [{ ...(matcher !== undefined && { matcher }), hooks: [{ type: 'command', command }] }] });

/** The security hook of the popular hooks collections (rm -rf and .env guards, a log of every call), trimmed. */
const SECURITY_HOOK = `#!/usr/bin/env python3
import json, re, sys
from pathlib import Path

def is_dangerous_rm_command(command):
    normalized = ' '.join(command.lower().split())
    patterns = [r'\\brm\\s+.*-[a-z]*r[a-z]*f', r'\\brm\\s+.*-[a-z]*f[a-z]*r', r'\\brm\\s+--recursive\\s+--force']
    return any(re.search(p, normalized) for p in patterns)

def main():
    try:
        input_data = json.load(sys.stdin)
        tool_name = input_data.get('tool_name', '')
        tool_input = input_data.get('tool_input', {})
        if tool_name in ['Read', 'Edit', 'MultiEdit', 'Write']:
            if '.env' in tool_input.get('file_path', ''):
                print("BLOCKED: Access to .env files containing sensitive data is prohibited", file=sys.stderr)
                sys.exit(2)
        if tool_name == 'Bash' and is_dangerous_rm_command(tool_input.get('command', '')):
            print("BLOCKED: Dangerous rm command detected and prevented", file=sys.stderr)
            sys.exit(2)
        log_dir = Path.cwd() / 'logs'
        log_dir.mkdir(parents=True, exist_ok=True)
        log_path = log_dir / 'pre_tool_use.json'
        log_data = json.loads(log_path.read_text()) if log_path.exists() else []
        log_data.append(input_data)
        log_path.write_text(json.dumps(log_data, indent=2))
        sys.exit(0)
    except Exception:
        sys.exit(0)

if __name__ == '__main__':
    main()
`;

describe('hooks written for Claude Code, in .claude/settings.json', () => {
  it('a security hook on matcher "Bash" blocks `rm -rf build`, and the model is told why', async () => {
    await mkdir(join(work, 'build'));
    await writeFile(join(work, 'build', 'app.js'), 'built\n');
    await install({ hooks: hook('PreToolUse', 'Bash', 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/pre_tool_use.py') }, { 'pre_tool_use.py': SECURITY_HOOK });
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'ls build' } }] }, { toolCalls: [{ name: 'bash', input: { command: 'rm -rf build' } }] }, { text: 'The hook stopped me.' });
    const r = await run(['-p', 'clean the build', '--mode', 'auto', '--trust']);
    expect(r.code).toBe(0);
    expect(existsSync(join(work, 'build', 'app.js'))).toBe(true);
    const [listed, removed] = toolResults(server);
    expect(listed).toContain('app.js');
    expect(removed).toBe('Permission denied: blocked by a PreToolUse hook: BLOCKED: Dangerous rm command detected and prevented');
    // The hook logged the call it let through, with Claude's fields.
    const log = JSON.parse(await readFile(join(work, 'logs', 'pre_tool_use.json'), 'utf8')) as Record<string, unknown>[];
    expect(log).toEqual([
      {
        session_id: expect.any(String),
        transcript_path: expect.stringMatching(/\/sessions\/.+\.jsonl$/),
        cwd: work,
        permission_mode: 'bypassPermissions',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls build' },
        tool_use_id: expect.any(String),
      },
    ]);
  });

  it('the same hook keeps the model away from .env through the file tools (file_path is absolute)', async () => {
    await writeFile(join(work, '.env.example'), 'KEY=\n');
    await install({ hooks: hook('PreToolUse', 'Read|Edit|Write', 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/pre_tool_use.py') }, { 'pre_tool_use.py': SECURITY_HOOK });
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: '.env.local', content: 'KEY=1\n' } }] }, { text: 'Blocked.' });
    await run(['-p', 'set the key', '--mode', 'auto', '--trust']);
    expect(existsSync(join(work, '.env.local'))).toBe(false);
    expect(toolResults(server)).toEqual(['Permission denied: blocked by a PreToolUse hook: BLOCKED: Access to .env files containing sensitive data is prohibited']);
  });

  it('a JSON permissionDecision "deny" refuses the call with its reason; "allow" answers what would ask', async () => {
    const guard = `#!/bin/bash
input=$(cat)
cmd=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"].get("command",""))' <<<"$input")
if [[ "$cmd" == grep* ]]; then
  printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Use rg (ripgrep) instead of grep"}}'
elif [[ "$cmd" == "npm test"* ]]; then
  printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"tests are always fine"}}'
fi
exit 0
`;
    await writeFile(join(work, 'package.json'), JSON.stringify({ scripts: { test: 'echo tests-ran' } }));
    await install({ hooks: hook('PreToolUse', 'Bash', '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh') }, { 'guard.sh': guard });
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'grep -r TODO .' } }, { name: 'bash', input: { command: 'npm test' } }] }, { text: 'Done.' });
    // Default mode, headless: without the hook's allow, npm test would be refused.
    const r = await run(['-p', 'check', '--trust', '--sandbox', 'off']);
    expect(r.code).toBe(0);
    const [grep, test] = toolResults(server);
    expect(grep).toBe('Permission denied: blocked by a PreToolUse hook: Use rg (ripgrep) instead of grep');
    expect(test).toContain('tests-ran');
  });

  it('a Stop hook reading transcript_path sends the model back with {"decision":"block"}, then lets it stop', async () => {
    const state = join(work, '.claude', 'state.json');
    const stop = `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
state = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".claude", "state.json")
transcript = data.get("transcript_path")
if not transcript or not os.path.exists(transcript):
    # No conversation to check: the session is over, clean up.
    os.remove(state)
    sys.exit(0)
with open(transcript) as f:
    said = f.read()
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "stop-input.json"), "a") as f:
    f.write(json.dumps(data) + "\\n")
if not data.get("stop_hook_active") and "npm test" not in said:
    print(json.dumps({"decision": "block", "reason": "Run npm test before you finish."}))
sys.exit(0)
`;
    await install({ hooks: hook('Stop', undefined, 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/stop.py') }, { 'stop.py': stop });
    await writeFile(state, '{"streak": 12}');
    server.enqueue({ text: 'All done.' }, { toolCalls: [{ name: 'bash', input: { command: 'echo npm test passed' } }] }, { text: 'Tests pass, done.' });
    const r = await run(['-p', 'fix it', '--mode', 'auto', '--trust', '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'Tests pass, done.' });
    expect(existsSync(state)).toBe(true);
    const second = server.requests[1]!.body as { messages: { role: string; content: { type: string; text?: string }[] }[] };
    expect(second.messages.at(-1)!.content.map((b) => b.text)).toEqual(['A Stop hook sent you back to work: Run npm test before you finish.']);
    const inputs = (await readFile(join(work, 'stop-input.json'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inputs.map((i) => [i.hook_event_name, i.stop_hook_active, i.last_assistant_message])).toEqual([
      ['Stop', false, 'All done.'],
      ['Stop', true, 'Tests pass, done.'],
    ]);
    expect(r.stderr).toContain('A Stop hook sent the model back to work: Run npm test before you finish.\n');
  });

  it('a PostToolUse formatter on Edit|Write formats the file the model wrote', async () => {
    const format = `#!/bin/bash
file=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["file_path"])')
case "$file" in *.py) sed -i 's/[[:space:]]*$//; s/\\t/    /g' "$file" ;; esac
`;
    await install({ hooks: hook('PostToolUse', 'Edit|MultiEdit|Write', '"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh') }, { 'format.sh': format });
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'app.py', content: 'def f():\n\treturn 1   \n' } }] }, { text: 'Written.' });
    await run(['-p', 'write app.py', '--mode', 'auto', '--trust']);
    expect(await readFile(join(work, 'app.py'), 'utf8')).toBe('def f():\n    return 1\n');
  });

  it('UserPromptSubmit and SessionStart output reaches the model as context; an unknown event is a warning', async () => {
    await install(
      {
        hooks: {
          ...hook('UserPromptSubmit', undefined, 'echo "Current branch: feature/login"'),
          ...hook('SessionStart', 'startup', `printf '%s' '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Open issue: #42 login fails"}}'`),
          ...hook('TeammateIdle', undefined, 'true'),
        },
      },
      {},
    );
    server.enqueue({ text: 'On it.' });
    const r = await run(['-p', 'what next?', '--trust']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${join(work, '.claude', 'settings.json')}: hooks.TeammateIdle is not a hook event feiyu knows, so those hooks do not run.`);
    const body = server.requests[0]!.body as { messages: { content: { text?: string }[] }[] };
    expect(body.messages[0]!.content[0]!.text).toBe('what next?\n\n<hook_context>\nOpen issue: #42 login fails\n\nCurrent branch: feature/login\n</hook_context>');
  });

  it('without trust, the project’s Claude Code hooks do not run', async () => {
    const marker = join(work, 'ran');
    await install({ hooks: hook('PreToolUse', 'Bash', `touch ${marker}`) }, {});
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'pwd' } }] }, { text: 'ok' });
    const r = await run(['-p', 'go', '--mode', 'auto']);
    expect(existsSync(marker)).toBe(false);
    expect(r.stderr).toContain('ignored until you trust it');
  });
});
