// Markdown tables for the terminal: cells split on unescaped pipes, columns aligned as the
// delimiter row says (left, centre, right), drawn with box characters; a table wider than the
// terminal becomes one list item per row ("header: cell" lines). Pure: rows of text out.

import { parseInline, paintRun, type Style } from './inline.js';
import type { Paint } from './paint.js';
import { width } from './width.js';

type Align = 'left' | 'center' | 'right';

const DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** The cells of a table line. */
export function cells(line: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && line[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (ch === '|') {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  if (/^\s*\|/.test(line)) parts.shift();
  if (/\|\s*$/.test(line.replace(/\\\|/g, ''))) parts.pop();
  return parts.map((c) => c.trim());
}

/** Whether `line` is the delimiter row under a header of `columns` cells. */
export function isDelimiter(line: string, columns: number): boolean {
  return line.includes('-') && DELIMITER.test(line) && cells(line).length === columns;
}

/** Whether a line may be a table's header (it has a pipe between cells). */
export const mayBeTableRow = (line: string): boolean => /\|/.test(line.replace(/\\\|/g, '')) && cells(line).length >= 2;

type Cell = { text: string; width: number };

export function renderTable(lines: string[], o: { paint: Paint; colour: boolean; columns: number }): string[] {
  const header = cells(lines[0]!);
  const aligns: Align[] = cells(lines[1]!).map((d) => (d.startsWith(':') && d.endsWith(':') ? 'center' : d.endsWith(':') ? 'right' : 'left'));
  const n = header.length;
  const cell = (text: string, style: Style = {}): Cell => {
    const painted = parseInline(text, { colour: o.colour, base: style }).runs.map((r) => paintRun(o.paint, r.text, r.style)).join('');
    return { text: painted, width: width(painted) };
  };
  const head = header.map((h) => cell(h, { bold: true }));
  const body = lines.slice(2).map((l) => {
    const row = cells(l).slice(0, n);
    while (row.length < n) row.push('');
    return row.map((c) => cell(c));
  });
  const widths = head.map((h, i) => Math.max(h.width, ...body.map((r) => r[i]!.width), 1));
  const total = widths.reduce((a, b) => a + b, 0) + 3 * n + 1;
  if (total > o.columns) return asList(header, body, o);
  const dim = (s: string) => o.paint('2', s);
  const line = (l: string, m: string, r: string) => dim(l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r);
  const row = (r: Cell[]) => dim('│') + r.map((c, i) => ` ${pad(c, widths[i]!, aligns[i] ?? 'left')} `).join(dim('│')) + dim('│');
  return [line('┌', '┬', '┐'), row(head), line('├', '┼', '┤'), ...body.map(row), line('└', '┴', '┘')];
}

function pad(c: Cell, w: number, align: Align): string {
  const room = w - c.width;
  if (align === 'right') return ' '.repeat(room) + c.text;
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + c.text + ' '.repeat(room - Math.floor(room / 2));
  return c.text + ' '.repeat(room);
}

/** A table too wide for the screen: each row a list item of "header: cell" lines. */
function asList(header: string[], body: Cell[][], o: { paint: Paint }): string[] {
  const out: string[] = [];
  for (const row of body) {
    row.forEach((c, i) => out.push(`${i === 0 ? '• ' : '  '}${o.paint('1', header[i] ?? '')}: ${c.text}`));
  }
  return out;
}
