// runTool: the one path every tool call takes — look up, validate, decide, run, cap, follow up.
// Whatever goes wrong becomes a tool result the model can act on; nothing here throws.

import { capOutput } from '../util/cap.js';
import { describeCall } from '../util/calls.js';
import { validateArgs } from './schema.js';
import { toolError } from '../types/tools.js';
import type { AfterToolCall, BeforeToolCall } from '../types/permissions.js';
import type { AgentEvent } from '../types/events.js';
import type { Tool, ToolGrant, ToolOutput, ToolSession } from '../types/tools.js';
import type { ToolCallBlock, ToolResultBlock } from '../types/conversation.js';

/** Where runTool finds a call's tool: a Map, or the conversation's ToolTable (tooltable.ts). */
export interface ToolLookup {
  get(name: string): Tool | undefined;
  keys(): Iterable<string>;
  /** The call as meant: a dispatcher's call (use_tool) unwrapped to the tool it names. */
  resolve?(call: ToolCallBlock): ToolCallBlock;
  /** A reply in place of the plain error for invalid arguments (a cold tool's schema, once). */
  teach?(call: ToolCallBlock, problem: string): ToolOutput | undefined;
}

export type ToolRunner = {
  tools: ToolLookup;
  ctx: ToolSession;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  emit: (event: AgentEvent) => void;
};

export type ToolRun = { block: ToolResultBlock; endTurn?: ToolOutput['endTurn']; sideUsage?: ToolOutput['sideUsage'] };

export const INTERRUPTED = '[interrupted]';

/** The result given to a call that never ran or was cut off by cancellation. */
export function interruptedResult(call: ToolCallBlock): ToolResultBlock {
  return { type: 'tool_result', callId: call.id, content: INTERRUPTED, isError: true };
}

/** Checks that come before any decision: the tool exists and its arguments make sense. */
async function precheck(call: ToolCallBlock, tool: Tool | undefined, runner: ToolRunner, cutOff: boolean): Promise<string | null> {
  if (!tool) {
    const names = [...runner.tools.keys()].join(', ');
    return `unknown tool ${JSON.stringify(call.name)}; available: ${names}`;
  }
  if (call.invalidJson !== undefined) {
    if (cutOff) {
      return 'your reply was cut off at the output token limit while writing the arguments of this call; nothing ran. Retry with a smaller call (write a big file in several edits).';
    }
    const shown = call.invalidJson.length > 200 ? call.invalidJson.slice(0, 200) + '…' : call.invalidJson;
    return `invalid arguments: not valid JSON (${shown}); send the arguments as one JSON object`;
  }
  return validateArgs(tool.parameters, call.input);
}

/** When the tool itself started, once it was allowed: the user's answering time is not the tool's. */
type Clock = { ranAt?: number };

async function execute(call: ToolCallBlock, tool: Tool | undefined, runner: ToolRunner, signal: AbortSignal, cutOff: boolean, clock: Clock): Promise<ToolOutput> {
  const problem = await precheck(call, tool, runner, cutOff);
  if (problem && tool && call.invalidJson === undefined) {
    const taught = runner.tools.teach?.(call, problem);
    if (taught) return taught;
  }
  if (problem || !tool) return toolError(problem ?? 'unknown tool');
  const grant: ToolGrant = {};
  let args = call.input;
  if (runner.beforeToolCall) {
    const decision = await runner.beforeToolCall(call, tool, signal);
    const { reason, code } = decision;
    const sandbox = decision.decision === 'allow' ? decision.sandbox : undefined;
    runner.emit({ type: 'permission', id: call.id, name: call.name, decision: decision.decision, reason, code, ...(sandbox && { sandbox }) });
    // A hook that stops the whole turn ends it after this call.
    if (decision.decision === 'deny') return toolError(`Permission denied: ${decision.reason}`, decision.stop === undefined ? {} : { endTurn: { text: decision.stop } });
    // What the decision allowed is what the tool may do: a read-only verdict runs read-only.
    if (decision.sandbox) grant.sandbox = decision.sandbox;
    const input = decision.input;
    if (input) {
      const problem = await validateArgs(tool.parameters, input);
      if (problem) return toolError(`a PreToolUse hook changed the arguments, and they are not valid: ${problem}`);
      args = input;
    }
  }
  if (signal.aborted) return toolError(INTERRUPTED);
  clock.ranAt = Date.now();
  let result: ToolOutput;
  try {
    const progress = (text: string) => runner.emit({ type: 'tool_progress', id: call.id, name: call.name, text });
    result = await tool.run(args, { ...runner.ctx, signal, progress }, grant);
  } catch (err) {
    result = toolError(`${call.name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  result = { ...result, output: capOutput(result.output) };
  if (runner.afterToolCall) result = await runner.afterToolCall(args === call.input ? call : { ...call, input: args }, tool, result, signal);
  return result;
}

/**
 * Runs one call and emits its tool_call and tool_result events; `signal` is the turn's. A
 * dispatcher's call runs, and is reported, as the call it stands for (same id).
 * `cutOff`: the reply carrying this call stopped at max_tokens, so unparsable arguments were truncated.
 */
export async function runTool(wireCall: ToolCallBlock, runner: ToolRunner, signal: AbortSignal, cutOff = false): Promise<ToolRun> {
  // Everything after this sees the call as meant: hooks, the policy, the interface, the trace.
  const call = runner.tools.resolve?.(wireCall) ?? wireCall;
  const tool = runner.tools.get(call.name);
  const about = call.invalidJson === undefined ? describeCall(tool, call.input) : undefined;
  runner.emit({ type: 'tool_call', id: call.id, name: call.name, input: call.input, ...(about && { title: about.title }), ...(about?.preview && { preview: about.preview }) });
  const clock: Clock = {};
  const started = Date.now();
  let result: ToolOutput;
  try {
    result = await execute(call, tool, runner, signal, cutOff, clock);
  } catch (err) {
    // Hooks and decisions are not tools: a throw there is a bug, still never a crash of the loop.
    result = toolError(`${call.name} could not run: ${err instanceof Error ? err.message : String(err)}`);
  }
  const isError = result.isError === true;
  runner.emit({
    type: 'tool_result',
    id: call.id,
    name: call.name,
    output: result.output,
    summary: result.summary,
    isError,
    durationMs: Date.now() - (clock.ranAt ?? started),
    change: result.change,
  });
  const block: ToolResultBlock = { type: 'tool_result', callId: call.id, content: result.output };
  if (isError) block.isError = true;
  if (result.images?.length) block.images = result.images;
  const run: ToolRun = { block };
  if (result.endTurn) run.endTurn = result.endTurn;
  if (result.sideUsage) run.sideUsage = result.sideUsage;
  return run;
}
