// How many terminal columns text takes: CJK and emoji take two, ANSI escapes none. string-width
// is loaded on first use (loadWidth, before the first turn), so start-up does not pay for it;
// until then each code point counts one.

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

let measure: ((text: string) => number) | undefined;

export async function loadWidth(): Promise<void> {
  measure ??= (await import('string-width')).default;
}

export function width(text: string): number {
  return measure ? measure(text) : [...text.replace(ANSI, '')].length;
}

/** Plain `text` on one line, cut to at most `max` columns, ending in … when cut. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  if (width(flat) <= max) return flat;
  let out = '';
  let used = 0;
  for (const ch of flat) {
    const w = width(ch);
    if (used + w > max - 1) break;
    out += ch;
    used += w;
  }
  return out + '…';
}

/** Plain `text` cut into rows of at most `max` columns (CJK counted double), for code and diffs: nothing is dropped. */
export function wrapCells(text: string, max: number): string[] {
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const ch of text) {
    const w = width(ch);
    if (used + w > max && row) {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += ch;
    used += w;
  }
  rows.push(row);
  return rows;
}

/**
 * Label and text in two columns, the labels padded to the widest; on a screen too narrow for
 * that (the labels would take most of it), each text goes on its own line under its label.
 */
export function table(rows: [string, string][], columns: number): string[] {
  const w = Math.max(0, ...rows.map(([label]) => width(label)));
  if (w + 4 > columns * 0.6) return rows.map(([label, text]) => `  ${label}\n      ${text}`);
  return rows.map(([label, text]) => `  ${label}${' '.repeat(w - width(label) + 2)}${text}`);
}
