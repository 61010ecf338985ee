// The result object of a headless run, the shape of `claude -p --output-format json` (DESIGN.md
// §3): counted from the app's event stream for this invocation only (a resumed session's earlier
// cost is not in it), per model, with the calls that were refused. Builds objects; prints nothing.

import { randomUUID } from 'node:crypto';
import type { TurnResult } from '../core/agent.js';
import { claudeCall } from '../hooks/protocol.js';
import type { AgentEvent, TurnStopReason } from '../types/events.js';
import type { ModelConfig, Usage } from '../types/providers.js';

export type Subtype = 'success' | 'error_max_turns' | 'error_during_execution' | 'error_max_structured_output_retries';

type ModelTally = Usage & { cost: number; costUnknown: boolean };

type Denial = { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown>; reason?: string };

/** The result of one message: `claude -p --output-format json`'s object (DESIGN.md §3), and a host's wait(). */
export type RunResult = {
  type: 'result';
  subtype: Subtype;
  is_error: boolean;
  duration_ms: number;
  duration_api_ms: number;
  num_turns: number;
  /** The final text; for a failed run, what went wrong. */
  result: string;
  session_id: string;
  /** USD; null when a model's price is unknown. */
  total_cost_usd: number | null;
  usage: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; output_tokens: number };
  /** Per model id: tokens, cost, context window. */
  modelUsage: Record<string, Record<string, unknown>>;
  permission_denials: Denial[];
  stop_reason: string | null;
  uuid: string;
  structured_output?: unknown;
  usage_estimated?: true;
};

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Claude's stop_reason for how a turn ended. */
export function apiStopReason(reason: TurnStopReason): string | null {
  if (reason === 'end') return 'end_turn';
  if (reason === 'max_tokens') return 'max_tokens';
  return reason === 'max_rounds' ? 'tool_use' : null;
}

/**
 * Feed it every event of the invocation (`on`); `result` makes the object for one message's turn.
 * Usage, cost, turns and durations add up over the invocation, as Claude's do over its session.
 */
export class RunTally {
  private readonly started = Date.now();
  private readonly models = new Map<string, ModelTally>();
  private turns = 0;
  private apiMs = 0;
  private requestStarted: number | undefined;
  private estimated = false;
  private readonly calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  private readonly denials: Denial[] = [];
  /** This message's: the problems said (the result text of a failed run), and whether structured output gave up. */
  private problems: string[] = [];
  private schemaFailed = false;

  constructor(
    private readonly root: string,
    /** A model's configuration by feiyu's name, for its id and context window. */
    private readonly modelNamed: (name: string) => ModelConfig | undefined,
  ) {}

  on(event: AgentEvent): void {
    switch (event.type) {
      case 'request_start':
        this.turns++;
        this.requestStarted = Date.now();
        return;
      case 'usage': {
        if (!event.side && this.requestStarted !== undefined) this.apiMs += Date.now() - this.requestStarted;
        if (!event.side) this.requestStarted = undefined;
        if (event.estimated) this.estimated = true;
        const tally = this.models.get(event.model) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, costUnknown: false };
        tally.input += event.input;
        tally.output += event.output;
        tally.cacheRead += event.cacheRead;
        tally.cacheWrite += event.cacheWrite;
        if (event.cost === null) tally.costUnknown = true;
        else tally.cost += event.cost;
        this.models.set(event.model, tally);
        return;
      }
      case 'tool_call':
        this.calls.set(event.id, { name: event.name, input: event.input });
        return;
      case 'permission': {
        // A call's input is wanted only for its decision: kept longer, every write's content would stay for the session.
        const call = this.calls.get(event.id);
        this.calls.delete(event.id);
        if (event.decision !== 'deny' || !call) return;
        const { name, input } = claudeCall(call.name, call.input, this.root);
        this.denials.push({ tool_name: name, tool_use_id: event.id, tool_input: input, ...(event.reason && { reason: event.reason }) });
        return;
      }
      case 'tool_result':
        this.calls.delete(event.id);
        return;
      case 'notice':
        if (event.code === 'schema_failed') this.schemaFailed = true;
        return;
      default:
    }
  }

  /** Something said to the user during this message (stderr); a failed run's result text is made of them. */
  said(text: string): void {
    this.problems.push(text);
  }

  /** The result object of the message just run (`turn` null: it could not be sent), then starts the next message afresh. */
  result(turn: TurnResult | null, sessionId: string, failedText: string): RunResult {
    const subtype: Subtype =
      turn?.stopReason === 'end' ? 'success'
      : turn?.stopReason === 'max_rounds' ? 'error_max_turns'
      : this.schemaFailed ? 'error_max_structured_output_retries'
      : 'error_during_execution';
    const ok = subtype === 'success';
    const totals = [...this.models.values()];
    const sum = (key: keyof Usage) => totals.reduce((n, t) => n + t[key], 0);
    const record: RunResult = {
      type: 'result',
      subtype,
      is_error: !ok,
      duration_ms: Date.now() - this.started,
      duration_api_ms: this.apiMs,
      num_turns: this.turns,
      result: ok ? (turn?.text ?? '') : this.problems.join('\n') || turn?.text || failedText,
      session_id: sessionId,
      total_cost_usd: totals.some((t) => t.costUnknown) ? null : round6(totals.reduce((n, t) => n + t.cost, 0)),
      usage: { input_tokens: sum('input'), cache_creation_input_tokens: sum('cacheWrite'), cache_read_input_tokens: sum('cacheRead'), output_tokens: sum('output') },
      modelUsage: Object.fromEntries([...this.models].map(([name, t]) => this.modelUsage(name, t))),
      permission_denials: [...this.denials],
      stop_reason: turn ? apiStopReason(turn.stopReason) : null,
      uuid: randomUUID(),
    };
    if (turn?.structured !== undefined) record.structured_output = turn.structured;
    if (this.estimated) record.usage_estimated = true;
    this.problems = [];
    this.schemaFailed = false;
    return record;
  }

  private modelUsage(name: string, t: ModelTally): [string, Record<string, unknown>] {
    const model = this.modelNamed(name);
    return [
      model?.model ?? name,
      {
        inputTokens: t.input,
        outputTokens: t.output,
        cacheReadInputTokens: t.cacheRead,
        cacheCreationInputTokens: t.cacheWrite,
        webSearchRequests: 0,
        costUSD: t.costUnknown ? null : round6(t.cost),
        ...(model && { contextWindow: model.contextWindow }),
      },
    ];
  }
}
