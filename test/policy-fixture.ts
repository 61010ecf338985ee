// The policy's test fixture over real files: a workspace with sources, a .env and a link to it, a
// home with .ssh, the real tools as the policy sees them, and the app's approval step wired as the
// app wires it (rules parsed, saved answers loaded, questions answered from a queue).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ApprovalDesk, approvalStep } from '../src/app/approval.js';
import { loadApprovals } from '../src/safety/approvals.js';
import { checkCall, type HookVerdict, type PolicyInput } from '../src/safety/policy.js';
import { parseRule } from '../src/safety/rules.js';
import { coreTools } from '../src/tools/index.js';
import { exitPlanTool } from '../src/tools/plan.js';
import { rememberTool } from '../src/tools/memory.js';
import { TodoList, todoTool } from '../src/tools/todo.js';
import { webFetchTool } from '../src/tools/web.js';
import type { AgentEvent } from '../src/types/events.js';
import type { AskAnswer, AskRequest, PermissionMode } from '../src/types/permissions.js';
import type { Tool } from '../src/types/tools.js';
import type { ToolCallBlock } from '../src/types/conversation.js';

export const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-perm-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
export const root = join(base, 'ws');
export const home = join(base, 'home');
export const configDir = join(home, '.config', 'feiyu');
mkdirSync(join(root, 'src', 'lib'), { recursive: true });
mkdirSync(join(home, '.ssh'), { recursive: true });
for (const f of ['src/a.ts', 'src/lib/b.ts', 'README.md', '.env']) writeFileSync(join(root, f), 'x');
symlinkSync(join(root, '.env'), join(root, 'innocent.txt'));

/** The real tools as the policy sees them (name, kind, describe), with nothing to run. */
const policyView = (real: Tool): Tool => ({ name: real.name, kind: real.kind, describe: real.describe, description: '', parameters: {}, run: async () => ({ output: '' }) });
const byName = Object.fromEntries([...coreTools(), webFetchTool({ allowPrivate: [] }), todoTool(new TodoList()), exitPlanTool({ restoreMode: () => {}, inPlanMode: () => true }), rememberTool(join(base, 'state'))].map((t) => [t.name, policyView(t)]));
export const TOOLS = {
  read_file: byName.read_file!,
  write_file: byName.write_file!,
  edit_file: byName.edit_file!,
  bash: byName.bash!,
  web_fetch: byName.web_fetch!,
  todo: byName.todo!,
  exit_plan: byName.exit_plan!,
  remember: byName.remember!,
};
export type ToolName = keyof typeof TOOLS;
export const call = (name: ToolName, input: Record<string, unknown>): ToolCallBlock => ({ type: 'tool_call', id: 'c1', name, input });

type Setup = { mode?: PermissionMode; rules?: { allow: string[]; deny: string[] }; root?: string; approvalsFile?: string; ask?: (req: AskRequest) => Promise<AskAnswer> };

let approvalsCounter = 0;
/** The app's approval step over the policy, as the app wires it: rules parsed, saved answers loaded. */
export function setup(over: Setup = {}) {
  let mode: PermissionMode = over.mode ?? 'default';
  const modeChanges: PermissionMode[] = [];
  const approvalsFile = over.approvalsFile ?? join(base, `approvals-${++approvalsCounter}.json`);
  const ws = over.root ?? root;
  const allow = [...(over.rules?.allow ?? []), ...loadApprovals(approvalsFile, ws)].map(parseRule);
  const rules = { allow, deny: (over.rules?.deny ?? []).map(parseRule) };
  const input = (): PolicyInput => ({ mode, rules, root: ws, home, configDir, cwd: ws, path: '/usr/bin:/bin' });
  // The interface's part: it sees the question on the event stream and answers it by id.
  const ask = over.ask;
  const desk = ask
    ? new ApprovalDesk((e: AgentEvent) => {
        if (e.type === 'approval' && e.approval.kind === 'call') void ask(e.approval.request).then((a) => desk!.answer(e.id, a), () => {});
      })
    : undefined;
  const step = approvalStep({
    policyInput: input,
    desk,
    approvalsFile,
    setMode: (m) => {
      modeChanges.push(m);
      mode = m;
    },
  });
  const decide = (name: ToolName, args: Record<string, unknown>, signal = new AbortController().signal, hook?: HookVerdict) => step(call(name, args), TOOLS[name], signal, hook);
  /** The policy's own verdict, with nobody asked. */
  const verdict = (name: ToolName, args: Record<string, unknown>) => checkCall(call(name, args), TOOLS[name], input());
  return { decide, verdict, modeChanges, getMode: () => mode };
}

/** An ask callback that answers from a queue and records every request. */
export function asker(...answers: AskAnswer[]) {
  const requests: AskRequest[] = [];
  const ask = async (req: AskRequest): Promise<AskAnswer> => {
    requests.push(req);
    const next = answers.shift();
    if (!next) throw new Error('asked more often than expected');
    return next;
  };
  return { ask, requests };
}
