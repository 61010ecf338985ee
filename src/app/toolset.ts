// The tools a session offers the model, which of them are hot (declared in every request) by
// default and by the settings, and the fixed part of every request (system prompt, its list of
// cold tools and the declared schemas) that the token budget holds to. Builds tool objects; runs nothing.

import { JobManager, jobTool } from '../tools/jobs.js';
import { rememberTool } from '../tools/memory.js';
import { exitPlanTool } from '../tools/plan.js';
import { systemPrompt } from '../core/prompt.js';
import { ToolTable, type ToolRow } from '../core/tooltable.js';
import { taskTool, type TaskOptions } from '../delegate/task.js';
import { BUILTIN_AGENTS } from '../delegate/definitions.js';
import { gitReadTool } from '../delegate/gitread.js';
import { readNoteTool } from '../delegate/notes.js';
import { TodoList, todoTool } from '../tools/todo.js';
import { coreTools } from '../tools/index.js';
import type { Tool, ToolTiers } from '../types/tools.js';
import type { Provider, ToolSpec } from '../types/providers.js';
import { webFetchTool } from '../tools/web.js';

export type ToolOptions = {
  allowPrivate: string[];
  jobs: JobManager;
  todo: TodoList;
  /** Where the remember tool keeps notes; absent: no remember tool (nothing may be written). */
  notesDir?: string;
  plan: Parameters<typeof exitPlanTool>[0];
  /** The specialists and what they need of the app; absent: the built-ins, in default mode, without notes. */
  delegate?: Omit<TaskOptions, 'tools'>;
  /** The side model, for web_fetch questions. */
  sideProvider?: () => Provider | undefined;
  /** Tools that arrive later (the code index's), for specialists too. */
  laterTools?: () => Tool[];
};

/** The tools a session offers the model, in a stable order (a stable prompt cache key). */
export function buildTools(o: ToolOptions): Tool[] {
  const delegate = o.delegate ?? { agents: BUILTIN_AGENTS, mode: () => 'default' as const };
  const tools: Tool[] = [
    ...coreTools(),
    jobTool(o.jobs),
    todoTool(o.todo),
    exitPlanTool(o.plan),
    ...(o.notesDir ? [rememberTool(o.notesDir)] : []),
    webFetchTool({ allowPrivate: o.allowPrivate, sideProvider: o.sideProvider }),
    readNoteTool(() => delegate.notes?.()),
  ];
  // A specialist may have any of the session's tools (derive.ts narrows them) and git_read.
  const gitRead = gitReadTool();
  tools.push(taskTool({ ...delegate, tools: () => [...tools, ...(o.laterTools?.() ?? []), gitRead] }));
  return tools;
}

/**
 * The tools used in almost every task, hot by default: in 2,123 Claude Code sessions Read was
 * used in 82%, Bash 70%, Grep 44%, Glob 40%, Write 22%, Edit 19%, every other tool less; across
 * 147,000 Amp calls Bash, edit, Read and Grep made 94%, web, sub-agent and glob calls under 1% each.
 */
export const HOT_TOOLS = ['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'bash'];

/** A session's declared schemas stay under this many estimated tokens unless the settings say otherwise. */
export const DEFAULT_BUDGET_TOKENS = 1200;

type TierSettings = { tools?: ToolTiers; deferTools?: boolean };

/**
 * The hot and cold tools of settings levels (user, then project) as the agent takes them:
 * their lists joined, a later level's budget, placement and switch winning. Undefined: deferral off.
 */
export function deferralOf(...levels: TierSettings[]): ToolTiers | undefined {
  if (levels.filter((s) => s.deferTools !== undefined).at(-1)?.deferTools === false) return undefined;
  const tiers: ToolTiers = { budgetTokens: DEFAULT_BUDGET_TOKENS, hot: [...HOT_TOOLS], cold: [] };
  for (const { tools = {} } of levels) {
    tiers.hot!.push(...(tools.hot ?? []));
    tiers.cold!.push(...(tools.cold ?? []));
    if (tools.budgetTokens !== undefined) tiers.budgetTokens = tools.budgetTokens;
    if (tools.loadInto !== undefined) tiers.loadInto = tools.loadInto;
  }
  return tiers;
}

/**
 * What every request carries before any conversation, in a project without conventions or
 * notes, with `more` tools besides the built-in ones (an optional module's): the fixed token cost
 * that the test suite and the benchmark hold to budget, and each tool's tier.
 */
export function fixedRequest(root: string, settings: TierSettings = {}, more: Tool[] = []): { system: string; tools: ToolSpec[]; rows: ToolRow[]; offered: Tool[] } {
  const plan = { restoreMode: () => {}, inPlanMode: () => false };
  const offered = [...buildTools({ allowPrivate: [], jobs: new JobManager(), todo: new TodoList(), notesDir: root, plan }), ...more];
  const table = new ToolTable(offered, deferralOf(settings) ?? null);
  const base = systemPrompt(root);
  const section = table.section();
  return { system: section ? `${base}\n\n${section}` : base, tools: table.declared(), rows: table.rows(), offered };
}

