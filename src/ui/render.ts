// Renders AgentEvents as append-only terminal text: the answer as it streams (Markdown line by
// line, the unfinished line live at the bottom), thinking shortened, tool calls and results
// (toolview.ts), retries, compactions, notices, errors, the waiting line and a status line per
// turn. Owns colour and wording (through i18n); never touches the loop. On a terminal the
// structure is rendered with or without colour (NO_COLOR); a pipe gets the text as it came.

import type { Totals } from '../core/agent.js';
import { t, type MessageKey } from '../i18n/index.js';
import { LiveArea } from './live.js';
import { MarkdownStream, renderMarkdown, type MarkdownOptions } from './markdown.js';
import { estimateTokens } from '../util/tokens.js';
import { Spinner } from './spinner.js';
import { ToolView } from './toolview.js';
import { attention, LONG_TURN_MS } from './bell.js';
import type { NotifySetting } from '../config/settings.js';
import type { AgentEvent } from '../types/events.js';
import type { FileChange } from '../types/tools.js';
import type { ModelConfig, ProviderError } from '../types/providers.js';
import { explainError, explainEvent } from '../i18n/explain.js';
import { formatCost, inert } from '../util/text.js';
import { loadWidth, truncate } from './width.js';
import { addSpend, specialistLine, spendLine, type Spend } from './specialists.js';

import { color, colourOn, painter, type Out, type Paint } from './paint.js';

export { color, colourOn, painter, type Out, type Paint };

export { summaryText } from './toolview.js';

const count = (n: number) => n.toLocaleString('en-US');
const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 100) : 0);

/** What the renderer reads from the running app; `effort` is shown on the status line when set. */
export type View = { model(): ModelConfig; totals(): Totals; effort?(): string | undefined };

type Turn = { input: number; output: number; cached: number; cost: number | null; context: number; sideTokens: number; sideCost: number | null; bySpecialist: Map<string, Spend> };

/** Prints the session. One per REPL; the model can change between turns. */
export class Renderer {
  readonly paint: Paint;
  /** Colours on (a terminal without NO_COLOR). */
  readonly colour: boolean;
  /** A terminal: Markdown rendered, live lines drawn. A pipe gets plain text. */
  readonly formatted: boolean;
  readonly tools: ToolView;
  /** Text written without its line end (plain output only). */
  private midLine = false;
  private readonly spinner: Spinner | undefined;
  private readonly live: LiveArea | undefined;
  private held = false;
  private readonly markdown: MarkdownStream;
  /** The unfinished line of the answer, drawn live. */
  private tail = '';
  private thinking = '';
  private turnStarted = 0;
  private turn: Turn = { input: 0, output: 0, cached: 0, cost: 0, context: 0, sideTokens: 0, sideCost: 0, bySpecialist: new Map() };

  /**
   * `stallNoticeMs`: the model's silence after which the waiting line says how long (tests shorten
   * it); `notify`: how a long turn's end and a question ask for attention, after `longTurnMs`.
   */
  constructor(
    private readonly out: Out,
    private readonly view: View,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly opts: { stallNoticeMs?: number; notify?: NotifySetting; longTurnMs?: number } = {},
  ) {
    this.paint = painter(out, env);
    this.colour = colourOn(out, env);
    this.formatted = out.isTTY === true;
    this.markdown = new MarkdownStream(this.markdownOptions());
    this.tools = new ToolView({ line: (text) => this.line(text), paint: this.paint, columns: () => this.columns() });
    if (this.formatted) {
      this.live = new LiveArea(out, () => this.columns(), env.TERM !== 'dumb');
      this.spinner = new Spinner(() => this.redraw(), opts.stallNoticeMs);
    }
  }

  columns(): number {
    return Math.max(20, this.out.columns || 80);
  }

  /** Loads what turns need (display widths); call before the first one. */
  prepare(): Promise<void> {
    return loadWidth();
  }

  /** Stops the live lines while someone else owns the terminal (a question). */
  hold(): void {
    this.held = true;
    this.live?.clear();
    this.endLine();
  }

  release(): void {
    this.held = false;
    this.redraw();
  }

  /** Writes a full line, first ending any partly written line; the live lines are drawn again under it. */
  line(text: string): void {
    this.live?.clear();
    this.endLine();
    this.out.write(text + '\n');
    this.redraw();
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
  showMarkdown(text: string): void {
    if (!this.formatted) return this.line(text.replace(/\s+$/, ''));
    for (const row of renderMarkdown(text, this.markdownOptions())) this.line(row);
  }

  /** A diff of a change, as after a write (the confirmation shows the one it asks about). */
  showChange(change: FileChange, cap?: number): void {
    this.tools.showChange(change, cap);
  }

  handle(event: AgentEvent): void {
    const p = this.paint;
    const spin = (what: string) => this.spinner && (this.spinner.what = what);
    this.listen(event);
    switch (event.type) {
      case 'turn_start':
        // The context stays what the last request measured until a new one reports (a failed one does not).
        this.turn = { input: 0, output: 0, cached: 0, cost: 0, context: this.turn.context, sideTokens: 0, sideCost: 0, bySpecialist: new Map() };
        this.tools.newTurn();
        this.turnStarted = Date.now();
        spin(t('spin.waiting'));
        this.spinner?.start();
        return;
      case 'request_start':
        this.endText();
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
      case 'message':
        // The reply is complete: its last line is final now, not when the next thing happens.
        if (event.message.role === 'assistant') this.endText();
        return;
      case 'tool_call':
        this.endText();
        this.tools.call(event);
        // Hooks and the permission check come first: it is not running until it is allowed.
        spin(t('spin.checking', { tool: event.name }));
        return;
      case 'approval':
        spin(t('spin.asking'));
        return this.attention(t('notify.asking'));
      case 'permission':
        this.tools.permission(event);
        if (event.decision === 'allow') spin(t('spin.running', { tool: event.name }));
        return;
      case 'tool_progress':
        this.tools.progress(event);
        return this.redraw();
      case 'tool_result':
        this.live?.clear();
        return this.tools.result(event);
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
        // A custom command's ! line that ran is news, not a warning.
        if (event.type === 'notice' && event.code === 'command_shell') this.note(inert(explainEvent(event)!));
        else this.warn(inert(explainEvent(event)!));
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
        if (line) this.line(this.paint(color.dim, line));
        return;
      }
      case 'turn_end':
        this.endText();
        this.spinner?.stop();
        this.live?.clear();
        if (event.stopReason === 'aborted') this.warn(t('repl.cancelled'));
        this.note(this.status());
        if (Date.now() - this.turnStarted >= (this.opts.longTurnMs ?? LONG_TURN_MS)) this.attention(t('notify.done'));
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

  private markdownOptions(): MarkdownOptions {
    return { paint: this.paint, colour: this.colour, columns: () => this.columns() };
  }

  /** Answer text: on a terminal, its finished lines rendered and the unfinished one live; elsewhere as it came. */
  private text(text: string): void {
    if (!this.formatted) {
      this.out.write(text);
      this.midLine = !text.endsWith('\n');
      return;
    }
    const { rows, live } = this.markdown.push(text);
    this.tail = live;
    for (const row of rows) this.line(row);
    if (!rows.length) this.redraw();
  }

  /** Ends the answer text so far (the reply is complete, a tool call or the turn's end follows). */
  private endText(): void {
    this.endThinking();
    if (!this.formatted) return;
    this.tail = '';
    const rows = this.markdown.end();
    for (const row of rows) this.line(row);
    if (!rows.length) this.redraw();
  }

  /** Thinking is shown once it ends: dimmed, on at most two lines. */
  private endThinking(): void {
    if (!this.thinking.trim()) return;
    const text = truncate(this.thinking.replace(/\s+/g, ' ').trim(), this.columns() * 2 - 4);
    this.thinking = '';
    this.line(this.paint(color.dim, `✻ ${text}`));
  }

  /** Draws the live lines again: a running command's last lines, then the answer's unfinished line or the waiting line. */
  private redraw(): void {
    if (!this.live || this.held) return;
    const waiting = this.spinner?.line();
    const bottom = this.tail || (waiting && this.paint(color.dim, waiting));
    this.live.draw([...this.tools.liveLines(), ...(bottom ? [bottom] : [])]);
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
    const effort = this.view.effort?.();
    return (
      t('repl.status', {
        input: count(this.turn.input),
        output: count(this.turn.output),
        cache: percent(this.turn.cached, this.turn.input),
        cost: formatCost(this.turn.cost),
        total: formatCost(totals.costUnknown ? null : totals.cost),
        context: percent(this.turn.context, this.view.model().contextWindow),
      }) +
      (this.turn.sideTokens ? ' · ' + t('usage.side', { tokens: count(this.turn.sideTokens), cost: formatCost(this.turn.sideCost) }) : '') +
      (this.turn.bySpecialist.size ? ' · ' + spendLine(this.turn.bySpecialist) : '') +
      (effort ? ' · ' + t('effort.status', { effort }) : '')
    );
  }

  /** A bell or a desktop notification, on a terminal only (a pipe gets no control characters). */
  private attention(message: string): void {
    const setting = this.opts.notify ?? 'auto';
    if (this.formatted) this.out.write(attention(setting, this.env, message));
  }

  private endLine(): void {
    if (this.midLine) this.out.write('\n');
    this.midLine = false;
  }
}

function retryKind(error: ProviderError): string {
  return ['rate_limit', 'overloaded', 'server', 'connection', 'timeout'].includes(error.kind) ? error.kind : 'other';
}
