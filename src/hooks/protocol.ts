// Claude Code's view of a feiyu tool call, both ways: a call's arguments under Claude's field names
// (file_path, old_string, command, timeout in ms, run_in_background, todos …) for hook stdin and the
// stream-json output, a hook's updatedInput read back into feiyu's arguments, a result as Claude's
// tool_response, and feiyu's permission modes as Claude's. Pure: no files, no processes.

import { isAbsolute, relative, resolve, sep } from 'node:path';
import { claudeToolName } from '../util/claudenames.js';
import type { PermissionMode } from '../types/permissions.js';
import type { ToolOutput } from '../types/tools.js';

/** Claude Code's permission modes, as hooks read them in `permission_mode`. */
export type ClaudeMode = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';

/**
 * feiyu's mode as Claude's: auto runs commands without asking (bypassPermissions), readonly is
 * plan without a plan; `acceptEdits`: default mode with file edits allowed (--permission-mode acceptEdits).
 */
export function claudeMode(mode: PermissionMode, acceptEdits = false): ClaudeMode {
  if (mode === 'auto') return 'bypassPermissions';
  if (mode === 'plan' || mode === 'readonly') return 'plan';
  return acceptEdits ? 'acceptEdits' : 'default';
}

/** How a field is converted: a path (absolute for Claude), seconds ↔ milliseconds, the todo list, a job id. */
type Conversion = 'path' | 'ms' | 'todos' | 'id';
type Field = readonly [feiyu: string, claude: string, conversion?: Conversion];

const FIELDS: Readonly<Record<string, readonly Field[]>> = {
  bash: [['command', 'command'], ['timeout', 'timeout', 'ms'], ['description', 'description'], ['background', 'run_in_background']],
  read_file: [['path', 'file_path', 'path'], ['offset', 'offset'], ['limit', 'limit']],
  write_file: [['path', 'file_path', 'path'], ['content', 'content']],
  edit_file: [['path', 'file_path', 'path'], ['old_string', 'old_string'], ['new_string', 'new_string'], ['replace_all', 'replace_all']],
  list_files: [['pattern', 'pattern'], ['path', 'path', 'path']],
  search: [['pattern', 'pattern'], ['path', 'path', 'path'], ['glob', 'glob'], ['ignore_case', '-i']],
  web_fetch: [['url', 'url'], ['question', 'prompt']],
  task: [['description', 'description'], ['prompt', 'prompt']],
  todo: [['items', 'todos', 'todos']],
  exit_plan: [['plan', 'plan']],
};

/** The fields of a job call: BashOutput reads a job by bash_id, KillShell stops one by shell_id. */
function fieldsOf(name: string, input: Record<string, unknown>): readonly Field[] | undefined {
  if (name === 'job') return [['id', input.action === 'stop' ? 'shell_id' : 'bash_id', 'id']];
  return FIELDS[name];
}

type Status = 'pending' | 'in_progress' | 'done';
const CLAUDE_STATUS: Record<Status, string> = { pending: 'pending', in_progress: 'in_progress', done: 'completed' };

function toClaude(value: unknown, conversion: Conversion | undefined, root: string): unknown {
  switch (conversion) {
    case 'path':
      return typeof value === 'string' ? resolve(root, value) : value;
    case 'ms':
      return typeof value === 'number' ? value * 1000 : value;
    case 'id':
      return typeof value === 'number' ? String(value) : value;
    case 'todos':
      return Array.isArray(value) ? value.map((item: { content?: unknown; status?: Status }) => ({ content: item?.content, status: CLAUDE_STATUS[item?.status as Status] ?? item?.status, activeForm: item?.content })) : value;
    default:
      return value;
  }
}

function toFeiyu(value: unknown, conversion: Conversion | undefined, root: string): unknown {
  switch (conversion) {
    case 'path': {
      if (typeof value !== 'string' || !isAbsolute(value)) return value;
      const rel = relative(root, value);
      return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? value : rel.split(sep).join('/');
    }
    case 'ms':
      return typeof value === 'number' ? Math.max(1, Math.ceil(value / 1000)) : value;
    case 'id':
      return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    case 'todos':
      return Array.isArray(value) ? value.map((item: { content?: unknown; status?: string }) => ({ content: item?.content, status: item?.status === 'completed' ? 'done' : item?.status })) : value;
    default:
      return value;
  }
}

/** A call's arguments under Claude Code's field names (absolute file paths, timeouts in ms); tools Claude lacks keep theirs. */
export function claudeInput(name: string, input: Record<string, unknown>, root: string): Record<string, unknown> {
  const fields = fieldsOf(name, input);
  if (!fields) return input;
  const out: Record<string, unknown> = {};
  for (const [ours, theirs, conversion] of fields) if (input[ours] !== undefined) out[theirs] = toClaude(input[ours], conversion, root);
  return out;
}

/**
 * A hook's updatedInput as feiyu's arguments: laid over the call as Claude saw it (a hook may
 * return only the fields it changes), then read back. Fields feiyu does not know are dropped.
 */
export function feiyuInput(name: string, original: Record<string, unknown>, updated: Record<string, unknown>, root: string): Record<string, unknown> {
  const fields = fieldsOf(name, original);
  if (!fields) return { ...original, ...updated };
  const merged = { ...claudeInput(name, original, root), ...updated };
  const out: Record<string, unknown> = name === 'job' ? { action: original.action } : {};
  for (const [ours, theirs, conversion] of fields) if (merged[theirs] !== undefined && merged[theirs] !== null) out[ours] = toFeiyu(merged[theirs], conversion, root);
  return out;
}

/** A call as Claude Code's tool_use block names it. */
export const claudeCall = (name: string, input: Record<string, unknown>, root: string) => ({ name: claudeToolName(name, input), input: claudeInput(name, input, root) });

/** A result as Claude Code's tool_response: Bash's stdout, the file tools' filePath, else the text. */
export function toolResponse(name: string, input: Record<string, unknown>, result: ToolOutput, root: string): unknown {
  const filePath = typeof input.path === 'string' ? resolve(root, input.path) : undefined;
  switch (name) {
    case 'bash':
      return { stdout: result.output, stderr: '', interrupted: false, isImage: false };
    case 'read_file':
      return { type: 'text', file: { filePath, content: result.output } };
    case 'write_file':
    case 'edit_file':
      return { filePath, success: result.isError !== true, ...(result.isError && { error: result.output }) };
    default:
      return result.output;
  }
}
