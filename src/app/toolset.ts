// The tools a session offers the model, and the fixed part of every request (system prompt
// extras and tool schemas) that the token budget holds to. Builds tool objects; runs nothing.

import { JobManager, jobTool } from '../tools/jobs.js';
import { rememberTool } from '../tools/memory.js';
import { exitPlanTool } from '../tools/plan.js';
import { systemPrompt } from '../core/prompt.js';
import { taskTool } from '../delegate/task.js';
import { TODO_PROMPT, TodoList, todoTool } from '../tools/todo.js';
import { coreTools } from '../tools/index.js';
import { specOf, type Tool } from '../types/tools.js';
import type { BeforeToolCall } from '../types/permissions.js';
import type { ToolSpec } from '../types/providers.js';
import { webFetchTool } from '../tools/web.js';

export type ToolOptions = {
  allowPrivate: string[];
  policy?: BeforeToolCall;
  jobs: JobManager;
  todo: TodoList;
  stateDir: string;
  plan: Parameters<typeof exitPlanTool>[0];
  /** Read-only tools that arrive later (the code index's), for sub-agents too. */
  laterReadTools?: () => Tool[];
};

/** The tools a session offers the model, in a stable order (a stable prompt cache key). */
export function buildTools(o: ToolOptions): Tool[] {
  const readTools = (): Tool[] => [...coreTools().filter((tool) => tool.kind === 'read'), ...(o.laterReadTools?.() ?? [])];
  return [
    ...coreTools(),
    jobTool(o.jobs),
    todoTool(o.todo),
    exitPlanTool(o.plan),
    rememberTool(o.stateDir),
    webFetchTool({ allowPrivate: o.allowPrivate }),
    taskTool({ tools: readTools, beforeToolCall: o.policy }),
  ];
}

/** The system prompt's parts after the base: the todo habit, remembered notes, extras. */
export const promptExtras = (memory: string, extra: string[]): string[] => [TODO_PROMPT, ...(memory ? [memory] : []), ...extra];

/** What every request carries before any conversation, in a project without conventions or
 *  notes: the fixed token cost that the test suite and the benchmark hold to budget. */
export function fixedRequest(root: string): { system: string; tools: ToolSpec[] } {
  const plan = { restoreMode: () => {}, inPlanMode: () => false };
  const tools = buildTools({ allowPrivate: [], jobs: new JobManager(), todo: new TodoList(), stateDir: root, plan });
  return { system: systemPrompt(root, undefined, promptExtras('', [])), tools: tools.map(specOf) };
}

