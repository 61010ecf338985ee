// Markdown for a streamed answer, line by line as it arrives: headings, paragraphs and list items
// word-wrapped at the terminal width, blockquotes, rules, code blocks under their language's name,
// tables aligned. A finished line is printed once and never redrawn; a long line still streaming
// prints its finished rows as soon as they are sure (inline.ts says which) and shows the rest as
// a live tail on the current line, which the caller redraws in place. Source line breaks are kept.
// Without colour the structure stays: bullets, rules, tables, code indented. Pure: rows out.

import { inlineRows, type InlineOptions, type Row, type Style } from './inline.js';
import { isDelimiter, mayBeTableRow, renderTable, cells } from './mdtable.js';
import type { Paint } from './paint.js';
import { width } from './width.js';

export type MarkdownOptions = { paint: Paint; colour: boolean; columns: () => number };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}((?:>\s?)+)(.*)$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TASK = /^\[([ xX])\]\s+/;
const BULLETS = ['•', '◦', '▪'];

/** What a line of source is, and the prefixes its rows get. */
type Shape = { kind: 'heading' | 'quote' | 'item' | 'text'; content: string; prefix: string; hang: string; style?: Style; level?: number };

function shapeOf(line: string, o: MarkdownOptions): Shape {
  const heading = HEADING.exec(line);
  if (heading) {
    const level = heading[1]!.length;
    return { kind: 'heading', content: heading[2] ?? '', prefix: '', hang: '', style: { heading: level }, level };
  }
  const quote = QUOTE.exec(line);
  if (quote) {
    const depth = (quote[1]!.match(/>/g) ?? []).length;
    const bar = o.paint('2', '│ '.repeat(depth));
    return { kind: 'quote', content: quote[2]!, prefix: bar, hang: bar, style: { italic: true } };
  }
  const item = ITEM.exec(line);
  if (item) {
    const indent = '  '.repeat(Math.min(6, Math.floor(item[1]!.replace(/\t/g, '    ').length / 2)));
    const level = indent.length / 2;
    let content = item[3]!;
    let marker = /\d/.test(item[2]!) ? item[2]!.replace(')', '.') : BULLETS[level % BULLETS.length]!;
    const task = TASK.exec(content);
    if (task) {
      marker = task[1] === ' ' ? '☐' : '☑';
      content = content.slice(task[0].length);
    }
    const prefix = `${indent}${o.paint('36', marker)} `;
    return { kind: 'item', content, prefix, hang: ' '.repeat(indent.length + width(marker) + 1) };
  }
  const lead = /^\s*/.exec(line)![0].replace(/\t/g, '    ');
  const indent = ' '.repeat(Math.min(12, lead.length));
  return { kind: 'text', content: line.trimStart(), prefix: indent, hang: indent };
}

/**
 * Collects streamed text and hands out what is ready: rows to print for good, and the live tail
 * (one row) of the line still coming. One per answer: end() finishes it.
 */
export class MarkdownStream {
  private partial = '';
  /** Source characters of the partial line's content already printed as rows. */
  private committed = 0;
  private fence: { mark: string } | null = null;
  private table: string[] | null = null;
  /** A line with pipes, waiting for the next to say whether a table starts. */
  private header: string | null = null;
  /** The last row printed was blank (or nothing was printed yet): blank lines collapse. */
  private blank = true;

  constructor(private readonly o: MarkdownOptions) {}

  /** Adds streamed text; returns the rows now final and the live tail ('' when none). */
  push(text: string): { rows: string[]; live: string } {
    const rows: string[] = [];
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) {
      this.complete(line.replace(/\r$/, ''), rows);
      this.committed = 0;
    }
    return { rows, live: this.progress(rows) };
  }

  /** The answer ended: everything left, rendered. The stream is ready for another answer. */
  end(): string[] {
    const rows: string[] = [];
    if (this.partial) this.complete(this.partial, rows);
    this.partial = '';
    this.committed = 0;
    this.flushHeader(rows);
    this.flushTable(rows);
    this.fence = null;
    this.blank = true;
    return rows;
  }

  private get columns(): number {
    return Math.max(20, this.o.columns()) - 1;
  }

  private emit(rows: string[], more: string[]): void {
    for (const row of more) {
      const isBlank = row.trim() === '';
      if (isBlank && this.blank) continue;
      rows.push(row);
      this.blank = isBlank;
    }
  }

  private complete(line: string, rows: string[]): void {
    if (this.fence) return this.codeLine(line, rows);
    if (this.table) {
      if (line.trim() && mayBeTableRow(line)) return void this.table.push(line);
      this.flushTable(rows);
    }
    if (this.header !== null) {
      const header = this.header;
      this.header = null;
      if (isDelimiter(line, cells(header).length)) return void (this.table = [header, line]);
      this.emit(rows, this.render(header, 0));
    }
    if (!line.trim()) return this.emit(rows, ['']);
    const fence = FENCE.exec(line);
    if (fence) {
      this.fence = { mark: fence[1]! };
      const lang = fence[2];
      if (lang) this.emit(rows, [this.o.paint('2', `  ${lang} ${'─'.repeat(Math.max(3, Math.min(40, this.columns - width(lang) - 4)))}`)]);
      return;
    }
    if (this.committed === 0 && mayBeTableRow(line) && !ITEM.test(line) && !QUOTE.test(line)) return void (this.header = line);
    this.emit(rows, this.render(line, this.committed));
  }

  private codeLine(line: string, rows: string[]): void {
    const close = FENCE.exec(line);
    if (close && close[1]![0] === this.fence!.mark[0] && close[1]!.length >= this.fence!.mark.length && !close[2]) {
      this.fence = null;
      return;
    }
    rows.push(`    ${this.o.paint('36', line.replace(/\t/g, '    '))}`);
    this.blank = false;
  }

  private flushHeader(rows: string[]): void {
    if (this.header === null) return;
    this.emit(rows, this.render(this.header, 0));
    this.header = null;
  }

  private flushTable(rows: string[]): void {
    if (!this.table) return;
    this.emit(rows, renderTable(this.table, { ...this.o, columns: this.columns }));
    this.table = null;
  }

  /** The rows of a whole line, from `from` in its content on (the rows before were printed already). */
  private render(line: string, from: number): string[] {
    if (from === 0 && RULE.test(line)) return [this.o.paint('2', '─'.repeat(Math.min(this.columns, 60)))];
    const shape = shapeOf(line, this.o);
    const rows = this.rowsOf(shape, from, false).map((r) => r.text);
    // Without colour a main heading is underlined with a rule, so it still stands out.
    if (!this.o.colour && shape.kind === 'heading' && (shape.level ?? 9) <= 2) {
      rows.push((shape.level === 1 ? '═' : '─').repeat(Math.min(this.columns, Math.max(...rows.map(width)))));
    }
    return rows;
  }

  private rowsOf(shape: Shape, from: number, partial: boolean): Row[] {
    const opts: InlineOptions = {
      paint: this.o.paint,
      colour: this.o.colour,
      width: this.columns - width(from ? shape.hang : shape.prefix),
      prefix: from ? shape.hang : shape.prefix,
      hang: shape.hang,
      base: shape.style,
      partial,
    };
    const offset = shape.content.length - shape.content.slice(from).length;
    return inlineRows(shape.content.slice(from), opts).map((r) => ({ ...r, end: r.end + offset }));
  }

  /**
   * The line still streaming: its rows that are sure are printed now (a long paragraph never
   * waits for its end), the last one is the live tail. Lines whose kind may still change (a
   * fence, a rule, a table, a heading) stay live until they end.
   */
  private progress(rows: string[]): string {
    const line = this.partial;
    if (!line) return '';
    const tail = (text: string) => truncateStart(text, this.columns);
    if (this.fence) return tail(`    ${this.o.paint('36', line)}`);
    if (this.table || this.header !== null || FENCE.test(line) || /^\s*([-*_]\s*)+$/.test(line) || HEADING.test(line) || mayBeTableRow(line)) return tail(line);
    const shape = shapeOf(line, this.o);
    const content = this.rowsOf(shape, this.committed, true);
    let sure = -1;
    for (let k = content.length - 2; k >= 0; k--) {
      if (content[k]!.balanced) {
        sure = k;
        break;
      }
    }
    if (sure >= 0) {
      this.emit(rows, content.slice(0, sure + 1).map((r) => r.text));
      this.committed = content[sure]!.end;
    }
    return tail(content.at(-1)!.text);
  }
}

/** The end of `text` when it is wider than `max` columns, with … in front. */
function truncateStart(text: string, max: number): string {
  if (width(text) <= max) return text;
  const chars = [...text.replace(/\x1b\[[0-9;]*m/g, '')];
  let out = '';
  let used = 1;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = width(chars[i]!);
    if (used + w > max) break;
    out = chars[i] + out;
    used += w;
  }
  return '…' + out;
}

/** A whole Markdown text (a plan) as rows. */
export function renderMarkdown(text: string, o: MarkdownOptions): string[] {
  const stream = new MarkdownStream(o);
  const { rows } = stream.push(text.endsWith('\n') ? text : text + '\n');
  return [...rows, ...stream.end()];
}
