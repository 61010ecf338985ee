// Renders AgentEvents as append-only terminal text: the answer as Markdown block by block, thinking
// shortened, one line per tool call and result, diffs of writes, retries, compactions, notices,
// errors, a spinner while waiting and a status line per turn. Owns colour and wording (through
// i18n); never touches the loop. No escape codes at all when NO_COLOR or not a TTY.

import type { Totals } from '../core/agent.js';
import { diffLines } from './diff.js';
import { hasKey, t, type MessageKey } from '../i18n/index.js';
import { loadMarkdown, MarkdownBlocks, type RenderMarkdown } from './markdown.js';
import { estimateTokens } from '../util/tokens.js';
import { Spinner } from './spinner.js';
import type { AgentEvent } from '../types/events.js';
import type { FileChange, Summary } from '../types/tools.js';
import type { ModelConfig, ProviderError } from '../types/providers.js';
import { explainError, explainEvent } from '../i18n/explain.js';
import { formatCost, inert } from '../util/text.js';
import { loadWidth, truncate, width } from './width.js';
import { addSpend, specialistLine, spendLine, type Spend } from './specialists.js';

export type Out = { write(text: string): unknown; isTTY?: boolean; columns?: number };

export type Paint = (code: string, text: string) => string;

/** Colour on a terminal unless NO_COLOR or TERM=dumb. */
export function colourOn(out: Out, env: NodeJS.ProcessEnv = process.env): boolean {
  return out.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

export function painter(out: Out, env: NodeJS.ProcessEnv = process.env): Paint {
  return colourOn(out, env) ? (code, text) => `\x1b[${code}m${text}\x1b[0m` : (_code, text) => text;
}

export const color = { dim: '2', red: '31', green: '32', yellow: '33', blue: '34', magenta: '35', cyan: '36', bold: '1', boldRed: '1;31' } as const;

export function summaryText(summary: Summary | undefined): string {
  if (!summary) return '';
  const { key, ...params } = summary;
  const one = `sum.${key}_one`;
  if ('n' in params && params.n === 1 && hasKey(one)) return t(one);
  return t(`sum.${key}` as MessageKey, params as Record<string, number>);
}

const count = (n: number) => n.toLocaleString('en-US');
const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 100) : 0);

/** What the renderer reads from the running app. */
export type View = { model(): ModelConfig; totals(): Totals };

type Turn = { input: number; output: number; cached: number; cost: number | null; context: number; sideTokens: number; sideCost: number | null; bySpecialist: Map<string, Spend> };

/** Prints the session. One per REPL; the model can change between turns. */
export class Renderer {
  readonly paint: Paint;
  /** Colours and Markdown (a TTY without NO_COLOR). */
  readonly rich: boolean;
  private midLine = false;
  private readonly spinner: Spinner | undefined;
  private held = false;
  private readonly blocks = new MarkdownBlocks();
  private markdown: RenderMarkdown | undefined;
  /** Output waiting for the Markdown renderer to load, in order; null when writing directly. */
  private deferred: (() => void)[] | null = null;
  private loaded: Promise<void> = Promise.resolve();
  private afterBlock = false;
  private thinking = '';
  /** The call whose line was printed last, while its result has not come. */
  private lastCall: string | undefined;
  private turn: Turn = { input: 0, output: 0, cached: 0, cost: 0, context: 0, sideTokens: 0, sideCost: 0, bySpecialist: new Map() };
  private readonly refused = new Map<string, string>();
  /** Lines previewed by calls whose results have not come yet. */
  private readonly listed = new Map<string, string[]>();

  /** `stallNoticeMs`: the model's silence after which the waiting line says how long (tests shorten it). */
  constructor(
    private readonly out: Out,
    private readonly view: View,
    env: NodeJS.ProcessEnv = process.env,
    opts: { stallNoticeMs?: number } = {},
  ) {
    this.paint = painter(out, env);
    this.rich = colourOn(out, env);
    if (out.isTTY) this.spinner = new Spinner(out, (s) => this.paint(color.dim, s), () => this.columns(), () => !this.midLine && !this.held, opts.stallNoticeMs);
  }

  columns(): number {
    return Math.max(20, this.out.columns || 80);
  }

  /** Loads what turns need (display widths); call before the first one. */
  prepare(): Promise<void> {
    return loadWidth();
  }

  /** Resolves once everything handed over so far has been written. */
  settle(): Promise<void> {
    return this.loaded;
  }

  /** Stops the spinner while someone else owns the terminal (a question). */
  hold(): void {
    this.held = true;
    this.spinner?.clear();
    this.endLine();
  }

  release(): void {
    this.held = false;
  }

  /** Writes a full line, first ending any partly written line. */
  line(text: string): void {
    this.write(() => {
      this.endLine();
      this.out.write(text + '\n');
      this.afterBlock = false;
    });
  }

  note(text: string): void {
    this.line(this.paint(color.dim, text));
  }

  warn(text: string): void {
    this.line(this.paint(color.yellow, text));
  }

  fail(text: string): void {
    this.line(this.paint(color.red, text));
  }

  /** A whole Markdown text (a plan), rendered like an answer. */
  async showMarkdown(text: string): Promise<void> {
    if (!this.rich) return this.line(text.replace(/\s+$/, ''));
    const render = await loadMarkdown(this.columns());
    this.line(render(text));
  }

  handle(event: AgentEvent): void {
    const p = this.paint;
    const spin = (what: string) => this.spinner && (this.spinner.what = what);
    this.listen(event);
    switch (event.type) {
      case 'turn_start':
        // The context stays what the last request measured until a new one reports (a failed one does not).
        this.turn = { input: 0, output: 0, cached: 0, cost: 0, context: this.turn.context, sideTokens: 0, sideCost: 0, bySpecialist: new Map() };
        this.refused.clear();
        spin(t('spin.waiting'));
        this.spinner?.start();
        return;
      case 'request_start':
        spin(t('spin.waiting'));
        return;
      case 'text_delta':
        this.endThinking();
        this.streamed(event.text);
        spin(t('spin.writing'));
        return this.text(inert(event.text));
      case 'thinking_delta':
        this.thinking += inert(event.text);
        this.streamed(event.text);
        spin(t('spin.thinking'));
        return;
      case 'toolcall_start':
        this.endText();
        spin(t('spin.preparing', { tool: event.name }));
        return;
      case 'toolcall_delta':
        return this.streamed(event.json);
      case 'tool_call':
        this.endText();
        this.lastCall = event.id;
        if (event.preview?.kind === 'lines') this.listed.set(event.id, event.preview.lines);
        this.line(`${p(color.cyan, '●')} ${p(color.bold, event.name)}${event.title ? ' ' + truncate(inert(event.title), Math.max(10, this.columns() - width(event.name) - 3)) : ''}`);
        spin(t('spin.running', { tool: event.name }));
        return;
      case 'permission':
        if (event.decision === 'deny') this.refused.set(event.id, event.code ?? '');
        return;
      case 'tool_result':
        return this.toolResult(event);
      case 'retry': {
        const reason = t(`retry.${retryKind(event.error)}` as MessageKey);
        const secs = Math.max(1, Math.round(event.delayMs / 1000));
        this.line(p(color.yellow, '  ↻ ' + t('retry.line', { reason, secs, n: event.attempt + 1, max: event.maxAttempts })));
        return;
      }
      case 'compaction': {
        const key = event.error === 'aborted' ? 'compact.cancelled' : (`compact.${event.method}` as const);
        const params = { before: count(event.before), after: count(event.after), elided: event.elided, removed: event.removed, error: event.error ?? '' };
        this.line(p(color.magenta, '⇣ ' + t(key, params)));
        return;
      }
      case 'notice':
      case 'hook_failed':
      case 'verify':
        this.endText();
        this.warn(inert(explainEvent(event)!));
        return;
      case 'error':
        this.endText();
        this.fail(inert(explainError(event.error, this.view.model())));
        return;
      case 'usage':
        this.addUsage(event);
        return;
      case 'specialist': {
        const line = specialistLine(event);
        if (line) this.line(p(color.dim, line));
        return;
      }
      case 'turn_end':
        this.endText();
        this.spinner?.stop();
        if (event.stopReason === 'aborted') this.warn(t('repl.cancelled'));
        this.note(this.status());
        return;
      default:
        return;
    }
  }

  /** Keeps the spinner's account of the model's silence: a request and its deltas are the model talking. */
  private listen(event: AgentEvent): void {
    if (!this.spinner) return;
    const fromModel = event.type === 'request_start' || event.type === 'text_delta' || event.type === 'thinking_delta' || event.type === 'toolcall_start' || event.type === 'toolcall_delta' || event.type === 'retry';
    if (fromModel) {
      this.spinner.listening = true;
      this.spinner.heard();
    } else if (event.type === 'tool_call' || event.type === 'turn_end') {
      this.spinner.listening = false;
    }
  }

  private streamed(text: string): void {
    if (this.spinner) this.spinner.tokens += estimateTokens(text);
  }

  /** Answer text: streamed as it comes when plain, a Markdown block at a time when rich. */
  private text(text: string): void {
    if (!this.rich) {
      return this.write(() => {
        this.out.write(text);
        this.midLine = !text.endsWith('\n');
      });
    }
    for (const block of this.blocks.push(text)) this.block(block);
  }

  private block(markdown: string): void {
    if (!this.markdown && !this.deferred) {
      this.deferred = [];
      this.loaded = loadMarkdown(this.columns()).then((render) => {
        this.markdown = render;
        const queued = this.deferred ?? [];
        this.deferred = null;
        this.spinner?.clear();
        for (const write of queued) write();
      });
    }
    this.write(() => {
      this.endLine();
      if (this.afterBlock) this.out.write('\n');
      this.out.write(this.markdown!(markdown) + '\n');
      this.afterBlock = true;
    });
  }

  /** Ends the answer text so far (a tool call or the turn's end follows). */
  private endText(): void {
    this.endThinking();
    const rest = this.blocks.flush();
    if (rest) this.block(rest);
  }

  /** Thinking is shown once it ends: dimmed, on at most two lines. */
  private endThinking(): void {
    if (!this.thinking.trim()) return;
    const text = truncate(this.thinking.replace(/\s+/g, ' ').trim(), this.columns() * 2 - 4);
    this.thinking = '';
    this.line(this.paint(color.dim, `✻ ${text}`));
  }

  private toolResult(event: Extract<AgentEvent, { type: 'tool_result' }>): void {
    const p = this.paint;
    const secs = p(color.dim, ` (${t('tool.secs', { secs: (event.durationMs / 1000).toFixed(1) })})`);
    const refusal = this.refused.get(event.id);
    const why = `decision.${refusal}`;
    const room = this.columns() - 12;
    const text =
      refusal !== undefined ? p(color.red, t('tool.denied', { reason: hasKey(why) ? t(why) : truncate(inert(event.output), room) }))
      : event.isError ? p(color.red, truncate(inert(event.output), room))
      : summaryText(event.summary ?? { key: 'ok' });
    // Reads run together: a result that does not follow its own call says whose it is.
    const whose = this.lastCall === event.id ? '' : p(color.dim, `${event.name}: `);
    this.lastCall = undefined;
    this.line(p(color.dim, '  ⎿ ') + whose + text + secs);
    if (event.change && !event.isError) this.showChange(event.change);
    // A list the call set out (the todo list) is shown once it is accepted.
    const listed = this.listed.get(event.id);
    this.listed.delete(event.id);
    if (listed && !event.isError) for (const item of listed) this.line(`    ${item.startsWith('[x]') ? p(color.dim, inert(item)) : inert(item)}`);
  }

  /** A compact coloured diff of a write or an edit: a few lines of context, capped. */
  showChange(change: FileChange): void {
    const p = this.paint;
    const { lines, added, removed } = diffLines(change.before, change.after);
    const digits = String(Math.max(0, ...lines.map((l) => ('n' in l ? l.n : 0)))).length;
    const room = Math.max(10, this.columns() - digits - 7);
    this.line(`    ${p(color.green, `+${added}`)} ${p(color.red, `-${removed}`)} ${p(color.dim, inert(change.path))}`);
    for (const l of lines) {
      if (l.kind === 'gap' || l.kind === 'more') {
        this.line(p(color.dim, `    ${' '.repeat(digits)} ${t(l.kind === 'gap' ? 'diff.gap' : 'diff.more', { n: l.count })}`));
        continue;
      }
      const sign = l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' ';
      const body = `${String(l.n).padStart(digits)} ${sign} ${truncate(inert(l.text).replace(/\t/g, '  '), room)}`;
      this.line('    ' + (l.kind === 'add' ? p(color.green, body) : l.kind === 'del' ? p(color.red, body) : p(color.dim, body)));
    }
  }

  private addUsage(usage: Extract<AgentEvent, { type: 'usage' }>): void {
    const input = usage.input + usage.cacheRead + usage.cacheWrite;
    this.turn.input += input;
    this.turn.output += usage.output;
    this.turn.cached += usage.cacheRead;
    this.turn.cost = this.turn.cost === null || usage.cost === null ? null : this.turn.cost + usage.cost;
    if (!usage.side) this.turn.context = input + usage.output;
    // What sub-agents and web questions spent, shown apart: it never entered the main context.
    if (usage.by) addSpend(this.turn.bySpecialist, usage.by, input + usage.output, usage.cost);
    else if (usage.side) {
      this.turn.sideTokens += input + usage.output;
      this.turn.sideCost = this.turn.sideCost === null || usage.cost === null ? null : this.turn.sideCost + usage.cost;
    }
  }

  private status(): string {
    const totals = this.view.totals();
    return t('repl.status', {
      input: count(this.turn.input),
      output: count(this.turn.output),
      cache: percent(this.turn.cached, this.turn.input),
      cost: formatCost(this.turn.cost),
      total: formatCost(totals.costUnknown ? null : totals.cost),
      context: percent(this.turn.context, this.view.model().contextWindow),
    }) +
      (this.turn.sideTokens ? ' · ' + t('usage.side', { tokens: count(this.turn.sideTokens), cost: formatCost(this.turn.sideCost) }) : '') +
      (this.turn.bySpecialist.size ? ' · ' + spendLine(this.turn.bySpecialist) : '');
  }

  /** Runs a write now, or after the queued ones while the Markdown renderer loads. */
  private write(fn: () => void): void {
    if (this.deferred) return void this.deferred.push(fn);
    this.spinner?.clear();
    fn();
  }

  private endLine(): void {
    if (this.midLine) this.out.write('\n');
    this.midLine = false;
  }
}

function retryKind(error: ProviderError): string {
  return ['rate_limit', 'overloaded', 'server', 'connection', 'timeout'].includes(error.kind) ? error.kind : 'other';
}
