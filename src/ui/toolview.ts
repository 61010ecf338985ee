// Tool calls on the screen: one line per call and per result, the diff of a write, a running
// command's last lines (drawn by the live area, replaced by the result line when it ends), and
// the last call's whole output for Ctrl+O and /last. Owns the wording of these lines; prints
// through the Printer it is given, never to the terminal itself.

import { diffLines } from './diff.js';
import { hasKey, t, type MessageKey } from '../i18n/index.js';
import { ANSI } from '../util/process.js';
import type { AgentEvent } from '../types/events.js';
import type { FileChange, Summary } from '../types/tools.js';
import { inert } from '../util/text.js';
import { truncate, width, wrapCells } from './width.js';
import { color, type Paint } from './paint.js';

export type Printer = { line(text: string): void; paint: Paint; columns(): number };

/** Lines of a running command shown live, and of a failed one's end shown under its result. */
const LIVE_LINES = 4;
const FAILURE_LINES = 3;
/** Notes bash adds after the output (exit code, cwd notes): not the command's own last lines. */
const TRAILER = /^(exit code \d+|killed by signal \w+|\[.*\])$/;

export function summaryText(summary: Summary | undefined): string {
  if (!summary) return '';
  const { key, ...params } = summary;
  const one = `sum.${key}_one`;
  if ('n' in params && params.n === 1 && hasKey(one)) return t(one);
  return t(`sum.${key}` as MessageKey, params as Record<string, number>);
}

type Running = { lines: string[]; partial: string };
type ResultEvent = Extract<AgentEvent, { type: 'tool_result' }>;

export class ToolView {
  /** The call whose line was printed last, while its result has not come. */
  private lastCall: string | undefined;
  private readonly refused = new Map<string, string>();
  /** Lines previewed by calls whose results have not come yet (the todo list). */
  private readonly listed = new Map<string, string[]>();
  private readonly titles = new Map<string, string>();
  private readonly running = new Map<string, Running>();
  /** The last finished call and everything it returned (what the model saw), for Ctrl+O and /last. */
  last: { name: string; title: string; output: string } | undefined;

  constructor(private readonly p: Printer) {}

  newTurn(): void {
    this.refused.clear();
  }

  call(event: Extract<AgentEvent, { type: 'tool_call' }>): void {
    const p = this.p.paint;
    this.lastCall = event.id;
    this.titles.set(event.id, event.title ?? '');
    if (event.preview?.kind === 'lines') this.listed.set(event.id, event.preview.lines);
    const title = event.title ? ' ' + truncate(inert(event.title), Math.max(10, this.p.columns() - width(event.name) - 3)) : '';
    this.p.line(`${p(color.cyan, '●')} ${p(color.bold, event.name)}${title}`);
  }

  permission(event: Extract<AgentEvent, { type: 'permission' }>): void {
    if (event.decision === 'deny') this.refused.set(event.id, event.code ?? '');
  }

  /** Output of a running call: its last lines are kept for the live area. */
  progress(event: Extract<AgentEvent, { type: 'tool_progress' }>): void {
    const run = this.running.get(event.id) ?? { lines: [], partial: '' };
    this.running.set(event.id, run);
    const pieces = (run.partial + event.text.replace(ANSI, '')).split('\n');
    run.partial = lastRedraw(pieces.pop()!);
    for (const piece of pieces) {
      const line = lastRedraw(piece);
      if (line.trim()) run.lines.push(line);
    }
    run.lines.splice(0, Math.max(0, run.lines.length - LIVE_LINES));
  }

  /** The live lines: the last lines of the call that printed most recently, dim and indented. */
  liveLines(): string[] {
    const run = [...this.running.values()].at(-1);
    if (!run) return [];
    const lines = [...run.lines, ...(run.partial.trim() ? [run.partial] : [])].slice(-LIVE_LINES);
    return lines.map((l) => this.p.paint(color.dim, `    ${inert(l).replace(/\t/g, '  ')}`));
  }

  result(event: ResultEvent): void {
    const p = this.p.paint;
    this.running.delete(event.id);
    const title = this.titles.get(event.id) ?? '';
    this.titles.delete(event.id);
    this.last = { name: event.name, title, output: event.output };
    const secs = p(color.dim, ` (${t('tool.secs', { secs: (event.durationMs / 1000).toFixed(1) })})`);
    const refusal = this.refused.get(event.id);
    const why = `decision.${refusal}`;
    const room = this.p.columns() - 12;
    // A command's result always says how it ended (exit code, timeout); a failure shows its last lines.
    const text =
      refusal !== undefined ? p(color.red, t('tool.denied', { reason: hasKey(why) ? t(why) : truncate(inert(event.output), room) }))
      : event.isError && event.summary ? p(color.red, summaryText(event.summary))
      : event.isError ? p(color.red, truncate(inert(event.output), room))
      : summaryText(event.summary ?? { key: 'ok' });
    // Calls run together (reads in parallel): a result that does not follow its own call names it.
    const whose = this.lastCall === event.id ? '' : p(color.dim, `${event.name}${title ? ' ' + truncate(inert(title), 30) : ''}: `);
    this.lastCall = undefined;
    this.p.line(p(color.dim, '  ⎿ ') + whose + text + secs);
    if (event.isError && event.summary && refusal === undefined) for (const line of endOf(event.output)) this.p.line(p(color.dim, `    ${line}`));
    if (event.change && !event.isError) this.showChange(event.change);
    const listed = this.listed.get(event.id);
    this.listed.delete(event.id);
    if (listed && !event.isError) for (const item of listed) this.p.line(`    ${item.startsWith('[x]') ? p(color.dim, inert(item)) : inert(item)}`);
  }

  /** A compact coloured diff of a write or an edit: a few lines of context, `cap` lines at most, long lines wrapped. */
  showChange(change: FileChange, cap?: number): void {
    const p = this.p.paint;
    const { lines, added, removed } = diffLines(change.before, change.after, 2, cap);
    const digits = String(Math.max(0, ...lines.map((l) => ('n' in l ? l.n : 0)))).length;
    const room = Math.max(10, this.p.columns() - digits - 7);
    this.p.line(`    ${p(color.green, `+${added}`)} ${p(color.red, `-${removed}`)} ${p(color.dim, inert(change.path))}`);
    for (const l of lines) {
      if (l.kind === 'gap' || l.kind === 'more') {
        this.p.line(p(color.dim, `    ${' '.repeat(digits)} ${t(l.kind === 'gap' ? 'diff.gap' : 'diff.more', { n: l.count })}`));
        continue;
      }
      const sign = l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' ';
      const paint = (body: string) => '    ' + (l.kind === 'add' ? p(color.green, body) : l.kind === 'del' ? p(color.red, body) : p(color.dim, body));
      wrapCells(inert(l.text).replace(/\t/g, '  '), room).forEach((row, i) => this.p.line(paint(`${i ? ' '.repeat(digits) : String(l.n).padStart(digits)} ${sign} ${row}`)));
    }
  }
}

/** What a terminal would show of a line a progress bar redraws with \r: the text after the last one. */
function lastRedraw(line: string): string {
  const parts = line.split('\r').filter((s) => s.length > 0);
  return parts.at(-1) ?? '';
}

/** The last lines a failed command printed, without the notes bash adds after them. */
function endOf(output: string): string[] {
  const lines = output.split('\n').map((l) => l.trimEnd());
  while (lines.length && (TRAILER.test(lines.at(-1)!) || !lines.at(-1)!.trim())) lines.pop();
  return lines.filter((l) => l.trim()).slice(-FAILURE_LINES).map((l) => inert(l));
}
