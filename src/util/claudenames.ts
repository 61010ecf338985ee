// Claude Code's names for feiyu's tools, both ways: hook matchers, permission rules in Claude's
// spelling, and the stream-json output speak them. Owns only the table; what each tool's fields
// are called on the other side is hooks/protocol.ts's.

/** feiyu's tool → Claude Code's tool. `job` is BashOutput, or KillShell for a stop (claudeToolName). */
const CLAUDE_NAME: Readonly<Record<string, string>> = {
  bash: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  edit_file: 'Edit',
  list_files: 'Glob',
  search: 'Grep',
  web_fetch: 'WebFetch',
  task: 'Task',
  todo: 'TodoWrite',
  exit_plan: 'ExitPlanMode',
  job: 'BashOutput',
};

/**
 * The feiyu tools a Claude tool name covers in a permission rule. As in Claude Code, `Edit` rules
 * cover every tool that changes files and `Read` rules every tool that reads them.
 */
const RULE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Bash: ['bash'],
  Read: ['read_file', 'list_files', 'search'],
  Edit: ['edit_file', 'write_file'],
  MultiEdit: ['edit_file'],
  Write: ['write_file'],
  Glob: ['list_files'],
  Grep: ['search'],
  WebFetch: ['web_fetch'],
  Task: ['task'],
  TodoWrite: ['todo'],
  ExitPlanMode: ['exit_plan'],
  BashOutput: ['job'],
  KillShell: ['job'],
  KillBash: ['job'],
};

/** The Claude Code name of a call of `name` (MCP tools keep theirs; tools Claude lacks keep feiyu's). */
export function claudeToolName(name: string, input: Record<string, unknown> = {}): string {
  if (name === 'job' && input.action === 'stop') return 'KillShell';
  return CLAUDE_NAME[name] ?? name;
}

/** Every name a call answers to in a hook matcher: feiyu's and Claude's. */
export function toolNames(name: string, input: Record<string, unknown> = {}): string[] {
  const claude = claudeToolName(name, input);
  return claude === name ? [name] : [name, claude];
}

/** The feiyu tools a rule on Claude's tool `claude` covers; null when `claude` is not one of Claude's names. */
export function ruleToolsOf(claude: string): readonly string[] | null {
  if (claude.startsWith('mcp__')) return [claude];
  return RULE_TOOLS[claude] ?? null;
}
