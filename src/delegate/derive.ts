// What a specialist may use, derived and never trusted: the tools its definition asks for that
// exist, less those no specialist gets (delegation, the todo list, plans, memory, jobs), less
// those the current mode forbids (plan and readonly: read tools only). The policy, hooks and
// confirmations still judge every call. Pure.

import type { AgentDefinition } from './definitions.js';
import type { Tool } from '../types/tools.js';
import type { PermissionMode } from '../types/permissions.js';

/** Tools no specialist gets, whatever its definition says: it would nest, or act for the main conversation. */
const NEVER = new Set(['task', 'todo', 'exit_plan', 'remember', 'job', 'load_tools', 'use_tool', 'submit_result']);

export type Derived = {
  tools: Tool[];
  /** Asked for, but the mode forbids them now. */
  withheld: string[];
  /** It has a write or exec tool: it runs alone, never beside other calls. */
  acts: boolean;
};

const inMode = (tool: Tool, mode: PermissionMode): boolean => (mode === 'plan' || mode === 'readonly' ? tool.kind === 'read' : true);

export function deriveTools(def: AgentDefinition, available: readonly Tool[], mode: PermissionMode): Derived {
  const offered = available.filter((t) => !NEVER.has(t.name));
  const asked = def.tools ? offered.filter((t) => def.tools!.includes(t.name)) : offered;
  const tools = asked.filter((t) => inMode(t, mode));
  const withheld = asked.filter((t) => !tools.includes(t)).map((t) => t.name);
  return { tools, withheld, acts: tools.some((t) => t.kind === 'write' || t.kind === 'exec') };
}

/**
 * Names a definition asks for that no specialist can have: no such tool, or one it never gets.
 * Tools that may arrive later (the code index's, MCP servers') are not unknown; nor are the
 * built-ins' optional ones.
 */
export function unknownTools(def: AgentDefinition, known: readonly string[], later: readonly string[] = []): string[] {
  if (!def.tools || def.origin === 'builtin') return [];
  return def.tools.filter((n) => NEVER.has(n) || (!known.includes(n) && !later.includes(n) && !n.startsWith('mcp__')));
}
