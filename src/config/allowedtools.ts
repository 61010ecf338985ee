// A command's `allowed-tools` as feiyu allow rules: Claude Code's spelling (`Bash(git add:*)`,
// `Read(./src/**)`, `WebFetch(domain:x.org)`, `Edit`) turned into feiyu's (`bash(git add *)`,
// `read_file(src/**)`, `web_fetch(x.org)`, `edit_file`), feiyu's own accepted as it is. What has
// no feiyu counterpart (WebSearch, MCP tools) is returned apart, for the interface to say so.
// Must not decide anything: the rules join the policy's allow list for one message.

import { ruleError } from '../safety/rules.js';

/** Claude Code's tool names and feiyu's. */
const CLAUDE_TOOLS: Record<string, string> = {
  Bash: 'bash',
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Glob: 'list_files',
  LS: 'list_files',
  Grep: 'search',
  WebFetch: 'web_fetch',
  Task: 'task',
  TodoWrite: 'todo',
  ExitPlanMode: 'exit_plan',
  BashOutput: 'job',
  KillShell: 'job',
  KillBash: 'job',
};

/** A tool name as feiyu's: Claude Code's mapped, MCP names and feiyu's own kept (specialist definitions' `tools`). */
export const feiyuToolName = (name: string): string => CLAUDE_TOOLS[name] ?? name;

const PATH_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'list_files', 'search']);

/** The rules, in feiyu's spelling, and the entries that name no feiyu tool or do not parse. */
export function allowRulesOf(entries: readonly string[]): { rules: string[]; unknown: string[] } {
  const rules: string[] = [];
  const unknown: string[] = [];
  for (const entry of entries) {
    const rule = feiyuRule(entry.trim());
    if (rule && !ruleError(rule)) {
      if (!rules.includes(rule)) rules.push(rule);
    } else unknown.push(entry);
  }
  return { rules, unknown };
}

function feiyuRule(entry: string): string | null {
  const m = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s.exec(entry);
  if (!m) return null;
  const [, name, pattern] = m;
  // MCP tools (mcp__server__tool) have no feiyu counterpart yet.
  const tool = CLAUDE_TOOLS[name!] ?? (/^[a-z_][a-z0-9_]*$/.test(name!) && !name!.startsWith('mcp__') ? name! : null);
  if (!tool) return null;
  if (pattern === undefined || pattern.trim() === '' || pattern.trim() === '*') return tool;
  return `${tool}(${patternOf(tool, pattern.trim())})`;
}

function patternOf(tool: string, pattern: string): string {
  // Claude's prefix form `git add:*`: the words, then anything.
  if (tool === 'bash') return pattern.replace(/:\*$/, ' *');
  if (tool === 'web_fetch') return pattern.replace(/^domain:/, '');
  if (!PATH_TOOLS.has(tool)) return pattern;
  // Claude: `//abs` is absolute, `./x` and `/x` are the project's (a command belongs to one).
  if (pattern.startsWith('//')) return pattern.slice(1);
  if (pattern.startsWith('./')) return pattern.slice(2);
  if (pattern.startsWith('/')) return pattern.slice(1);
  return pattern;
}
