// Claude Code's names for feiyu's calls, both ways, without processes: every tool's arguments under
// Claude's field names and a hook's updatedInput read back, tool_response, permission modes, the
// tool names matchers see, and a hook's JSON reply read field by field.
import { describe, expect, it } from 'vitest';
import { claudeInput, claudeMode, feiyuInput, toolResponse } from '../src/hooks/protocol.js';
import { parseReply } from '../src/hooks/reply.js';
import { claudeToolName, toolNames } from '../src/util/claudenames.js';

const root = '/ws';

/** feiyu's call → what a hook reads → feiyu's call again. */
const CALLS: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
  ['bash', { command: 'npm test', timeout: 90, description: 'tests', background: true }, 'Bash', { command: 'npm test', timeout: 90000, description: 'tests', run_in_background: true }],
  ['read_file', { path: 'src/a.ts', offset: 10, limit: 20 }, 'Read', { file_path: '/ws/src/a.ts', offset: 10, limit: 20 }],
  ['write_file', { path: 'a.md', content: '# A' }, 'Write', { file_path: '/ws/a.md', content: '# A' }],
  ['edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y', replace_all: true }, 'Edit', { file_path: '/ws/a.ts', old_string: 'x', new_string: 'y', replace_all: true }],
  ['list_files', { pattern: '**/*.ts', path: 'src' }, 'Glob', { pattern: '**/*.ts', path: '/ws/src' }],
  ['search', { pattern: 'TODO', path: 'src', glob: '*.ts', ignore_case: true }, 'Grep', { pattern: 'TODO', path: '/ws/src', glob: '*.ts', '-i': true }],
  ['web_fetch', { url: 'https://x.dev', question: 'what version?' }, 'WebFetch', { url: 'https://x.dev', prompt: 'what version?' }],
  ['task', { description: 'find parser', prompt: 'Where is parsing done?' }, 'Task', { description: 'find parser', prompt: 'Where is parsing done?' }],
  [
    'todo',
    { items: [{ content: 'Read', status: 'done' }, { content: 'Fix', status: 'in_progress' }] },
    'TodoWrite',
    { todos: [{ content: 'Read', status: 'completed', activeForm: 'Read' }, { content: 'Fix', status: 'in_progress', activeForm: 'Fix' }] },
  ],
  ['exit_plan', { plan: '1. Fix' }, 'ExitPlanMode', { plan: '1. Fix' }],
  ['job', { action: 'output', id: 3 }, 'BashOutput', { bash_id: '3' }],
  ['job', { action: 'stop', id: 3 }, 'KillShell', { shell_id: '3' }],
  ['remember', { note: 'uses pnpm', scope: 'project' }, 'remember', { note: 'uses pnpm', scope: 'project' }],
];

describe('a call in Claude Code’s names', () => {
  it.each(CALLS)('%s %j is %s %j, and reads back the same', (name, input, claude, fields) => {
    expect(claudeToolName(name, input)).toBe(claude);
    expect(claudeInput(name, input, root)).toEqual(fields);
    expect(feiyuInput(name, input, fields, root)).toEqual(input);
  });

  it('updatedInput may give only the fields it changes; paths outside the workspace stay absolute; unknown fields are dropped', () => {
    expect(feiyuInput('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y' }, { new_string: 'z', dangerouslyDisableSandbox: true }, root)).toEqual({ path: 'a.ts', old_string: 'x', new_string: 'z' });
    expect(feiyuInput('write_file', { path: 'a.ts', content: 'x' }, { file_path: '/etc/hosts' }, root)).toEqual({ path: '/etc/hosts', content: 'x' });
    expect(feiyuInput('list_files', {}, { path: '/ws' }, root)).toEqual({ path: '.' });
    expect(feiyuInput('bash', { command: 'ls' }, { timeout: 1500 }, root)).toEqual({ command: 'ls', timeout: 2 });
  });

  it('matchers see both names; tool_response takes Claude’s shapes', () => {
    expect([toolNames('bash'), toolNames('job', { action: 'stop' }), toolNames('remember')]).toEqual([['bash', 'Bash'], ['job', 'KillShell'], ['remember']]);
    expect(toolResponse('bash', { command: 'ls' }, { output: 'a\nexit code 0' }, root)).toEqual({ stdout: 'a\nexit code 0', stderr: '', interrupted: false, isImage: false });
    expect(toolResponse('read_file', { path: 'a.ts' }, { output: '1\tx' }, root)).toEqual({ type: 'text', file: { filePath: '/ws/a.ts', content: '1\tx' } });
    expect(toolResponse('edit_file', { path: 'a.ts' }, { output: 'no match', isError: true }, root)).toEqual({ filePath: '/ws/a.ts', success: false, error: 'no match' });
    expect(toolResponse('search', { pattern: 'x' }, { output: 'a.ts:1:x' }, root)).toBe('a.ts:1:x');
  });

  it('maps feiyu’s modes to Claude’s', () => {
    expect([claudeMode('default'), claudeMode('default', true), claudeMode('auto'), claudeMode('plan'), claudeMode('readonly')]).toEqual(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'plan']);
  });
});

describe('a hook’s reply', () => {
  it('reads every field of Claude’s JSON output', () => {
    const common = { continue: false, stopReason: 'stop', systemMessage: 'careful', suppressOutput: true, decision: 'block', reason: 'why' };
    const specific = { permissionDecision: 'ask', permissionDecisionReason: 'check', additionalContext: 'ctx', updatedInput: { command: 'ls' } };
    expect(parseReply(`  ${JSON.stringify({ ...common, hookSpecificOutput: { hookEventName: 'PreToolUse', ...specific } })}\n`)).toEqual({ ...common, ...specific });
  });

  it('plain text, broken JSON and fields of the wrong type are not decisions', () => {
    expect([parseReply('Formatted 3 files'), parseReply('{"decision": "block"'), parseReply('[1]')]).toEqual([null, null, null]);
    expect(parseReply(JSON.stringify({ decision: 'maybe', continue: 'no', hookSpecificOutput: { permissionDecision: 'yes', updatedInput: 'ls' } }))).toEqual({});
  });
});
