// The result of one message of a task: the object headless mode prints as JSON and a host's
// wait() returns, counted from the app's event stream while the message runs. Builds objects;
// prints nothing.

import type { TurnResult } from '../core/agent.js';
import type { App } from './app.js';
import { t } from '../i18n/index.js';
import { explainError, explainEvent } from '../i18n/explain.js';
import type { AgentEvent } from '../types/events.js';

export type Subtype = 'success' | 'error_max_rounds' | 'error';

/** headless JSON's result object (DESIGN.md §3). */
export type TaskResult = {
  type: 'result';
  subtype: Subtype;
  /** The model's final text. */
  result: string;
  session_id: string;
  num_rounds: number;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  /** USD for the session; null when a model's price is unknown. */
  total_cost_usd: number | null;
  duration_ms: number;
  structured_output?: unknown;
  /** What went wrong, in the interface language, when subtype is not success. */
  error?: string;
};

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

function subtypeOf(result: TurnResult): Subtype {
  if (result.stopReason === 'end') return 'success';
  if (result.stopReason === 'max_rounds') return 'error_max_rounds';
  return 'error';
}

/** Feed it the message's events (`on`); `result` makes the object once the message has run. */
export function taskResult(app: App) {
  const started = Date.now();
  // Errors and notices said while the message ran: a failed run's `error`.
  const problems: string[] = [];
  const said = (text: string) => void problems.push(text);
  return {
    said,
    on(event: AgentEvent): void {
      const text = event.type === 'error' ? explainError(event.error, app.model) : explainEvent(event, true);
      if (text) said(text);
    },
    /** `turn` null: the message could not be sent (a notice said why). */
    result(turn: TurnResult | null): TaskResult {
      const ran = turn ?? { stopReason: 'error', text: '', rounds: 0 };
      const subtype = subtypeOf(ran);
      const totals = app.agent.totals;
      const record: TaskResult = {
        type: 'result',
        subtype,
        result: ran.text,
        session_id: app.session.id,
        num_rounds: ran.rounds,
        usage: {
          input_tokens: totals.input,
          output_tokens: totals.output,
          cache_read_input_tokens: totals.cacheRead,
          cache_creation_input_tokens: totals.cacheWrite,
        },
        total_cost_usd: totals.costUnknown ? null : round6(totals.cost),
        duration_ms: Date.now() - started,
      };
      if (ran.structured !== undefined) record.structured_output = ran.structured;
      if (subtype !== 'success') record.error = problems.join('\n') || t('headless.failed');
      return record;
    },
  };
}
