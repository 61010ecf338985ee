// Renders AgentEvents as append-only terminal text: streamed answer, one line per tool call and
// result, retries, notices, errors and a status line per turn. Owns colour and wording (through
// i18n); never touches the loop. Plain text without escape codes when NO_COLOR or not a TTY.

import { t, type MessageKey } from './i18n.js';
import type { AgentEvent, ModelConfig, ProviderError, Summary, Usage } from './types.js';

export type Out = { write(text: string): unknown; isTTY?: boolean };

export type Paint = (code: string, text: string) => string;

export function painter(out: Out, env: NodeJS.ProcessEnv = process.env): Paint {
  const on = out.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
  return on ? (code, text) => `\x1b[${code}m${text}\x1b[0m` : (_code, text) => text;
}

export const color = { dim: '2', red: '31', green: '32', yellow: '33', cyan: '36', bold: '1' } as const;

/** A provider failure in plain words: which model, which key, what to do next. */
export function explainError(error: ProviderError, model: ModelConfig): string {
  const keySource = model.apiKeyEnv
    ? t('key.env', { name: model.apiKeyEnv })
    : model.apiKey
      ? t('key.file', { name: model.name })
      : t('key.none', { name: model.name });
  return t(`err.${error.kind}` as MessageKey, {
    model: model.name,
    id: model.model,
    status: error.status ?? '-',
    msg: error.message,
    url: model.baseURL ?? (model.provider === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1'),
    keySource,
  });
}

export function summaryText(summary: Summary | undefined): string {
  if (!summary) return '';
  const { key, ...params } = summary;
  return t(`sum.${key}` as MessageKey, params as Record<string, number>);
}

export function formatCost(cost: number | null): string {
  if (cost === null) return '$?';
  return cost < 0.01 && cost > 0 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

const shorten = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
};

/** Prints a running turn. One per session; `getModel` gives the current model (it can change). */
export class Renderer {
  private midLine = false;
  private inThinking = false;
  private turn = { input: 0, output: 0, cached: 0, cost: 0 as number | null };
  private sessionCost = 0 as number | null;
  private readonly paint: Paint;

  constructor(
    private readonly out: Out,
    private readonly getModel: () => ModelConfig,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.paint = painter(out, env);
  }

  /** Writes a full line, first ending any partly written line. */
  line(text: string): void {
    if (this.midLine) this.out.write('\n');
    this.midLine = false;
    this.inThinking = false;
    this.out.write(text + '\n');
  }

  handle(event: AgentEvent): void {
    const p = this.paint;
    switch (event.type) {
      case 'turn_start':
        this.turn = { input: 0, output: 0, cached: 0, cost: 0 };
        return;
      case 'text_delta':
        if (this.inThinking) this.line('');
        this.out.write(event.text);
        this.midLine = !event.text.endsWith('\n');
        return;
      case 'thinking_delta':
        if (!this.inThinking) this.line('');
        this.inThinking = true;
        this.out.write(p(color.dim, event.text));
        this.midLine = true;
        return;
      case 'tool_call':
        this.line(`${p(color.cyan, '●')} ${p(color.bold, event.name)} ${shorten(event.mainArg ?? '', 70)}`);
        return;
      case 'tool_result': {
        const secs = `${(event.durationMs / 1000).toFixed(1)} s`;
        const text = event.isError ? p(color.red, shorten(event.output, 100)) : summaryText(event.summary);
        this.line(p(color.dim, '  ⎿ ') + text + p(color.dim, ` (${secs})`));
        return;
      }
      case 'retry': {
        const reason = t(`retry.${retryKind(event.error)}` as MessageKey);
        const secs = Math.max(1, Math.round(event.delayMs / 1000));
        this.line(p(color.yellow, '  ↻ ' + t('retry.line', { reason, secs, n: event.attempt, max: event.maxAttempts })));
        return;
      }
      case 'notice':
        this.line(p(color.yellow, t(`notice.${event.code}` as MessageKey, event.params)));
        return;
      case 'error':
        this.line(p(color.red, explainError(event.error, this.getModel())));
        return;
      case 'usage':
        this.addUsage(event, event.cost);
        return;
      case 'turn_end':
        if (this.midLine) this.line('');
        this.line(p(color.dim, this.status()));
        return;
      default:
        return;
    }
  }

  private addUsage(usage: Usage, cost: number | null): void {
    this.turn.input += usage.input + usage.cacheRead + usage.cacheWrite;
    this.turn.output += usage.output;
    this.turn.cached += usage.cacheRead;
    const add = (a: number | null) => (a === null || cost === null ? null : a + cost);
    this.turn.cost = add(this.turn.cost);
    this.sessionCost = add(this.sessionCost);
  }

  private status(): string {
    const n = (x: number) => x.toLocaleString('en-US');
    return t('repl.status', {
      input: n(this.turn.input),
      output: n(this.turn.output),
      cached: n(this.turn.cached),
      cost: formatCost(this.turn.cost),
      total: formatCost(this.sessionCost),
    });
  }
}

function retryKind(error: ProviderError): string {
  return ['rate_limit', 'overloaded', 'server', 'connection'].includes(error.kind) ? error.kind : 'other';
}
