// Headless mode (-p): run one message to completion without a person, print the result in the
// chosen format (text, json, stream-json) and give the exit code of DESIGN.md §3.

import type { TurnResult } from '../core/agent.js';
import type { App } from './app.js';
import type { OutputFormat } from './args.js';
import { t } from '../i18n/index.js';
import type { AgentEvent } from '../types/events.js';
import { explainError, explainEvent } from '../i18n/explain.js';
import { inert } from '../util/text.js';

export const EXIT = { ok: 0, error: 1, usage: 2, maxRounds: 3 } as const;

export type HeadlessOptions = {
  app: App;
  message: string;
  format: OutputFormat;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  signal: AbortSignal;
};

type Subtype = 'success' | 'error_max_rounds' | 'error';

function subtypeOf(result: TurnResult): Subtype {
  if (result.stopReason === 'end') return 'success';
  if (result.stopReason === 'max_rounds') return 'error_max_rounds';
  return 'error';
}

/** Runs the message and returns the process exit code. */
export async function runHeadless(o: HeadlessOptions): Promise<number> {
  const started = Date.now();
  // Errors and notices go to stderr, and, when the run fails, into the JSON result's `error`.
  const problems: string[] = [];
  const { app } = o;
  const off = app.on((event: AgentEvent) => {
    if (o.format === 'stream-json') o.stdout.write(JSON.stringify(event) + '\n');
    const text = event.type === 'error' ? explainError(event.error, app.model) : explainEvent(event, true);
    if (!text) return;
    problems.push(text);
    if (o.format !== 'stream-json') o.stderr.write(inert(text) + '\n');
  });
  let result: TurnResult;
  try {
    // Without a person to wait for, the first request waits for the servers: their tools are part of the task.
    await app.mcp?.ready();
    result = (await app.send(o.message, o.signal)) ?? { stopReason: 'error', text: '', rounds: 0 };
  } finally {
    off();
  }
  const subtype = subtypeOf(result);
  if (o.format === 'text') {
    // The model's text may carry escape sequences (from a file it read); a terminal must not act on them.
    if (result.text) o.stdout.write(inert(result.text.endsWith('\n') ? result.text : result.text + '\n'));
  } else {
    const totals = app.agent.totals;
    const record: Record<string, unknown> = {
      type: 'result',
      subtype,
      result: result.text,
      session_id: app.session.id,
      num_rounds: result.rounds,
      usage: {
        input_tokens: totals.input,
        output_tokens: totals.output,
        cache_read_input_tokens: totals.cacheRead,
        cache_creation_input_tokens: totals.cacheWrite,
      },
      total_cost_usd: totals.costUnknown ? null : round6(totals.cost),
      duration_ms: Date.now() - started,
    };
    if (result.structured !== undefined) record.structured_output = result.structured;
    if (subtype !== 'success') record.error = problems.join('\n') || t('headless.failed');
    o.stdout.write(JSON.stringify(record) + '\n');
  }
  if (subtype === 'success') return EXIT.ok;
  return subtype === 'error_max_rounds' ? EXIT.maxRounds : EXIT.error;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The JSON result line of a run that could not start (bad configuration). */
export function startFailure(error: string): string {
  const record = { type: 'result', subtype: 'error' satisfies Subtype, result: '', error };
  return JSON.stringify(record) + '\n';
}
