// exit_plan through a real Agent over real HTTP: approved (the earlier mode comes back and the model
// proceeds), rejected with feedback (plan mode stays), and headless (the run ends with the plan).
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { exitPlanTool, PLAN_APPROVED, type PlanOptions } from '../src/tools/plan.js';
import { createProvider } from '../src/providers/stream.js';
import type { AgentEvent } from '../src/types/events.js';
import type { PermissionMode, PlanVerdict } from '../src/types/permissions.js';
import type { ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

const server = await useFakeServer();

const PLAN = '## Plan\n\n1. Rename `foo` to `bar` in src/a.ts\n2. Run the tests';

async function setup(answer?: PlanVerdict) {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-plan-')));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const ctx: ToolContext = { root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: process.env };
  const state = { mode: 'plan' as PermissionMode, before: 'auto' as PermissionMode, asked: [] as string[] };
  const opts: PlanOptions = {
    restoreMode: () => (state.mode = state.before),
    inPlanMode: () => state.mode === 'plan',
  };
  if (answer) {
    opts.approvePlan = async (plan) => {
      state.asked.push(plan);
      return answer;
    };
  }
  const agent = new Agent({
    provider: createProvider(fakeModel(server, 'openai'), { retry: { baseDelayMs: 5 } }),
    tools: [exitPlanTool(opts)],
    system: 'test',
    ctx,
  });
  const results: { output: string; isError: boolean }[] = [];
  agent.on((e: AgentEvent) => e.type === 'tool_result' && results.push({ output: e.output, isError: e.isError }));
  return { agent, state, results, ctx, opts };
}

describe('exit_plan', () => {
  it('approved: the mode before plan mode comes back and the model proceeds', async () => {
    const { agent, state, results } = await setup({ approved: true });
    server.enqueue({ toolCalls: [{ name: 'exit_plan', input: { plan: PLAN } }] }, { text: 'Carrying it out.' });
    expect(await agent.send('rename foo')).toEqual({ stopReason: 'end', text: 'Carrying it out.', rounds: 1 });
    expect(state).toEqual({ mode: 'auto', before: 'auto', asked: [PLAN] });
    expect(results).toEqual([{ output: PLAN_APPROVED, isError: false }]);
    expect(server.violations).toEqual([]);
  });

  it('rejected: plan mode stays and the feedback goes to the model', async () => {
    const { agent, state, results } = await setup({ approved: false, feedback: 'Keep the old name as an alias.' });
    server.enqueue({ toolCalls: [{ name: 'exit_plan', input: { plan: PLAN } }] }, { text: 'I will revise it.' });
    await agent.send('rename foo');
    expect(state.mode).toBe('plan');
    expect(results).toEqual([
      {
        output:
          "The user did not approve the plan. The user's feedback: Keep the old name as an alias.\nYou are still in plan mode: revise the plan, then call exit_plan again.",
        isError: false,
      },
    ]);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('Keep the old name as an alias.');
  });

  it('rejected without a reason: the model is told to ask', async () => {
    const { agent, results } = await setup({ approved: false });
    server.enqueue({ toolCalls: [{ name: 'exit_plan', input: { plan: PLAN } }] }, { text: 'What should change?' });
    await agent.send('rename foo');
    expect(results[0]!.output).toContain("The user gave no reason; ask what they want changed.");
  });

  it('headless: the run ends with the plan as its result', async () => {
    const { agent, state } = await setup();
    server.enqueue({ toolCalls: [{ name: 'exit_plan', input: { plan: PLAN } }] });
    expect(await agent.send('rename foo')).toEqual({ stopReason: 'end', text: PLAN, rounds: 1 });
    expect(server.requests).toHaveLength(1);
    expect(state.mode).toBe('plan');
  });

  it('outside plan mode or with an empty plan, says so without asking', async () => {
    const { state, ctx, opts } = await setup({ approved: true });
    const tool = exitPlanTool(opts);
    expect(await tool.run({ plan: '  ' }, ctx)).toEqual({ output: 'the plan is empty; write the plan in Markdown', isError: true });
    state.mode = 'default';
    expect(await tool.run({ plan: PLAN }, ctx)).toEqual({ output: 'You are not in plan mode, so there is nothing to approve; go ahead.' });
    expect(state.asked).toEqual([]);
  });
});
