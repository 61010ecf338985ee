// Inline Markdown for the terminal: `code`, **bold**, *italic*, ~~struck~~ and [links](url) as
// styled runs, word-wrapped into rows at a width — CJK text breaks between characters, other
// text only between words, a closing mark stays with the character before it. Each row says where
// in the source it ends and whether every mark opened before that point was closed, so a line still
// streaming can print its finished rows at once and never print one twice. Pure: no output.

import type { Paint } from './paint.js';
import { width } from './width.js';

/** What a run of text looks like; several may hold at once. */
export type Style = { bold?: boolean; italic?: boolean; code?: boolean; strike?: boolean; link?: boolean; dim?: boolean; heading?: number };

type Run = { text: string; style: Style; end: number; depth: number };

/** One row of output: the painted text, and the source offset its last word ends at. */
export type Row = { text: string; end: number; balanced: boolean };

export type InlineOptions = {
  paint: Paint;
  /** Colours on: marks become styles; off: code keeps its backticks, links show their address. */
  colour: boolean;
  /** Columns for the text, after the prefix. */
  width: number;
  /** Before the first row (a bullet) and before the others (as wide, blank for a bullet). */
  prefix?: string;
  hang?: string;
  base?: Style;
  /** The text is still streaming: a mark with no closer yet may still get one. */
  partial?: boolean;
};

const PUNCT = /[!-/:-@[-`{-~]/;
const CJK = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/;
/** Marks that must not begin a row: they stay with the character before them. */
const CLOSING = /[，。、；：！？）》」』】〕〉…—,.;:!?)\]}'"’”]/;

/** The styles of a run as SGR codes. */
function codes(style: Style): string {
  const out: string[] = [];
  if (style.heading === 1) out.push('1', '4', '35');
  else if (style.heading) out.push('1', '35');
  if (style.bold) out.push('1');
  if (style.italic) out.push('3');
  if (style.strike) out.push('9');
  if (style.code) out.push('36');
  if (style.link) out.push('4', '34');
  if (style.dim) out.push('2');
  return [...new Set(out)].join(';');
}

export function paintRun(paint: Paint, text: string, style: Style): string {
  const c = codes(style);
  return c && text ? paint(c, text) : text;
}

/**
 * The runs of `src`. `open` is the offset of the first mark still open at the end (a streaming
 * line), or null: every row boundary after it is unbalanced.
 */
export function parseInline(src: string, o: { colour: boolean; partial?: boolean; base?: Style }): { runs: Run[]; open: number | null } {
  const runs: Run[] = [];
  const stack: { mark: string; style: keyof Style }[] = [];
  let open: number | null = null;
  const style = (): Style => {
    const s: Style = { ...o.base };
    for (const m of stack) (s as Record<string, unknown>)[m.style] = true;
    return s;
  };
  const push = (text: string, end: number, st: Style = style()) => runs.push({ text, style: st, end, depth: stack.length });
  const markOpen = (at: number) => (open ??= at);
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\\' && i + 1 < src.length && PUNCT.test(src[i + 1]!)) {
      push(src[i + 1]!, i + 2);
      i += 2;
      continue;
    }
    if (ch === '`') {
      const ticks = /^`+/.exec(src.slice(i))![0];
      const close = findTicks(src, i + ticks.length, ticks.length);
      if (close < 0) {
        if (o.partial) markOpen(i);
        push(ticks, i + ticks.length);
        i += ticks.length;
        continue;
      }
      let body = src.slice(i + ticks.length, close);
      if (body.length > 2 && body.startsWith(' ') && body.endsWith(' ')) body = body.slice(1, -1);
      const shown = o.colour ? body : `${ticks}${body}${ticks}`;
      push(shown, close + ticks.length, { ...style(), code: true });
      i = close + ticks.length;
      continue;
    }
    if (ch === '[') {
      const link = /^\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/.exec(src.slice(i));
      if (link) {
        const [whole, text, url] = link as unknown as [string, string, string];
        const label = text || url;
        push(label, i + whole.length, { ...style(), link: true });
        if (url !== label && !(url.startsWith('mailto:') && url.slice(7) === label)) push(` (${url})`, i + whole.length, { ...style(), dim: true });
        i += whole.length;
        continue;
      }
      // An unfinished link may still close: until it does, what follows is not final.
      if (o.partial && /^\[[^\]\n]*(\]\([^)\s]*)?$/.test(src.slice(i))) markOpen(i);
    }
    const emph = /^(\*\*|__|~~|\*|_)/.exec(src.slice(i))?.[1];
    if (emph) {
      const kind: keyof Style = emph === '~~' ? 'strike' : emph.length === 2 ? 'bold' : 'italic';
      const before = src[i - 1] ?? ' ';
      const after = src[i + emph.length] ?? ' ';
      const top = stack.at(-1);
      if (top?.mark === emph && !/\s/.test(before) && (emph[0] !== '_' || !/[\p{L}\p{N}]/u.test(after))) {
        stack.pop();
        // The closing mark belongs to the run before it: a row boundary right after it is balanced.
        if (runs.length) runs.at(-1)!.end = i + emph.length;
        if (runs.length) runs.at(-1)!.depth = stack.length;
        i += emph.length;
        continue;
      }
      const opens = !/\s/.test(after) && after !== ' ' && (emph[0] !== '_' || !/[\p{L}\p{N}]/u.test(before)) && !stack.some((m) => m.mark === emph);
      if (opens && (o.partial || hasCloser(src, i + emph.length, emph))) {
        if (o.partial && !hasCloser(src, i + emph.length, emph)) markOpen(i);
        stack.push({ mark: emph, style: kind });
        i += emph.length;
        continue;
      }
      push(emph, i + emph.length);
      i += emph.length;
      continue;
    }
    push(ch, i + 1);
    i++;
  }
  if (stack.length && o.partial) markOpen(src.length);
  return { runs, open };
}

/** The offset of a run of exactly `n` backticks at or after `from`, or -1. */
function findTicks(src: string, from: number, n: number): number {
  const re = /`+/g;
  re.lastIndex = from;
  for (let m = re.exec(src); m; m = re.exec(src)) if (m[0].length === n) return m.index;
  return -1;
}

/** Whether a closing `mark` follows `from`: after a non-space, and for _ not inside a word. */
function hasCloser(src: string, from: number, mark: string): boolean {
  for (let j = src.indexOf(mark, from + 1); j >= 0; j = src.indexOf(mark, j + 1)) {
    if (/\s/.test(src[j - 1]!)) continue;
    if (mark[0] === '_' && /[\p{L}\p{N}]/u.test(src[j + mark.length] ?? ' ')) continue;
    if (mark.length === 1 && src[j + 1] === mark) {
      j++;
      continue;
    }
    return true;
  }
  return false;
}

type Piece = { text: string; style: Style };
/** A unit of wrapping: a word (or one CJK character with the marks after it) and the spaces after it. */
type Unit = { pieces: Piece[]; space: Piece[]; end: number; depth: number; cjk: boolean };

function units(runs: Run[]): Unit[] {
  const out: Unit[] = [];
  let cur: Unit | undefined;
  const add = (into: Piece[], text: string, style: Style) => {
    const last = into.at(-1);
    if (last && codes(last.style) === codes(style)) last.text += text;
    else into.push({ text, style });
  };
  for (const run of runs) {
    const chars = [...run.text];
    chars.forEach((ch, k) => {
      if (/\s/.test(ch)) {
        if (!cur) return;
        add(cur.space, ' ', run.style);
      } else {
        const starts = !cur || cur.space.length > 0 || (cur.cjk && !CLOSING.test(ch)) || (CJK.test(ch) && !CLOSING.test(ch));
        if (starts) out.push((cur = { pieces: [], space: [], end: run.end, depth: run.depth, cjk: CJK.test(ch) }));
        add(cur!.pieces, ch, run.style);
      }
      // A boundary inside a run (a code span, a link) is no place to stop: the run is printed whole or not at all.
      cur!.end = run.end;
      cur!.depth = k === chars.length - 1 ? run.depth : 1;
    });
  }
  return out;
}

/** Neighbours of one style joined, so each style is switched on once per stretch. */
function merged(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const last = out.at(-1);
    if (last && codes(last.style) === codes(p.style)) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

const piecesWidth = (pieces: Piece[]) => pieces.reduce((n, p) => n + width(p.text), 0);

/**
 * `src` wrapped into rows of at most `o.width` columns after the prefix. A word wider than a
 * whole row is cut between characters (a long URL); nothing else is.
 */
export function inlineRows(src: string, o: InlineOptions): Row[] {
  const { runs, open } = parseInline(src, o);
  const all = units(runs);
  const rows: Row[] = [];
  const room = Math.max(8, o.width);
  const stable = (u: Unit) => open === null || u.end <= open;
  let pieces: Piece[] = [];
  let used = 0;
  let end = 0;
  let balanced = true;
  /**
   * Ends a row. It is sure (balanced) when no mark is open at its end and the word that did not
   * fit on it is final too: a word still open (`npm te…` becoming a code span) may yet get
   * narrower and fit.
   */
  const finish = (next?: Unit) => {
    const text = (rows.length ? (o.hang ?? '') : (o.prefix ?? '')) + merged(pieces).map((p) => paintRun(o.paint, p.text, p.style)).join('');
    rows.push({ text, end, balanced: balanced && (next === undefined || stable(next)) });
    pieces = [];
    used = 0;
  };
  let last: Unit | undefined;
  for (const unit of all) {
    const w = piecesWidth(unit.pieces);
    const gap = used > 0 ? piecesWidth(last!.space) : 0;
    if (used > 0 && used + gap + w > room) finish(unit);
    else if (used > 0) {
      pieces.push(...last!.space);
      used += gap;
    }
    if (w > room) {
      // Too long for any row (a long URL): cut between characters; no row ends for good inside it.
      for (const piece of unit.pieces) {
        for (const ch of piece.text) {
          const cw = width(ch);
          if (used + cw > room && used > 0) {
            balanced = false;
            finish(unit);
          }
          pieces.push({ text: ch, style: piece.style });
          used += cw;
        }
      }
    } else {
      pieces.push(...unit.pieces.map((p) => ({ ...p })));
      used += w;
    }
    end = unit.end;
    balanced = unit.depth === 0 && stable(unit);
    last = unit;
  }
  if (pieces.length || rows.length === 0) finish();
  return rows;
}
