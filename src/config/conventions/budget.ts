// The budget instruction files share (they are paid on every request): over it, each file keeps a
// fair share — small files whole, the largest cut at a line end — and every cut says where it is,
// in the text (for the model) and as data (for the interface). Nothing is dropped silently.

/** Characters the instruction files found at start-up may take together. */
export const CONVENTIONS_BUDGET = 40_000;
/** Characters the files of one subfolder may take when they are added during the session. */
export const SUBFOLDER_BUDGET = 20_000;
/** Room kept for the note that marks a cut. */
const MARK_ROOM = 300;

/** Where a file was cut: its first line not shown whole, and characters kept of the total. */
export type Cut = { path: string; line: number; kept: number; total: number };

/**
 * The texts fitted into `budget` characters together, in order, each with its cut when it has
 * one; `mark` writes the note appended at a cut. Contract: the texts returned, notes included,
 * stay within the budget (for budgets of at least 300 characters a file).
 */
export function fitBudget(texts: { path: string; text: string }[], budget: number, mark: (cut: Cut) => string): { text: string; cut?: Cut }[] {
  const total = texts.reduce((n, p) => n + p.text.length, 0);
  if (total <= budget) return texts.map(({ text }) => ({ text }));
  const shares = fairShares(texts.map((p) => p.text.length), budget);
  return texts.map(({ path, text }, i) => {
    const share = shares[i]!;
    if (text.length <= share) return { text };
    const kept = cutAt(text, Math.max(0, share - MARK_ROOM));
    const cut: Cut = { path, line: lineOf(text, kept), kept, total: text.length };
    const head = text.slice(0, kept);
    return { text: `${head}${head.endsWith('\n') || !head ? '' : '\n'}${mark(cut)}`, cut };
  });
}

/** Water-filling: the smallest files whole while they fit, the rest share what is left equally. */
function fairShares(sizes: number[], budget: number): number[] {
  const order = sizes.map((size, i) => ({ size, i })).sort((a, b) => a.size - b.size);
  const shares = new Array<number>(sizes.length);
  let left = budget;
  order.forEach(({ size, i }, k) => {
    const share = Math.min(size, Math.floor(left / (order.length - k)));
    shares[i] = share;
    left -= share;
  });
  return shares;
}

/** Characters to keep: up to the last line end within `limit`, unless that would lose over half. */
function cutAt(text: string, limit: number): number {
  const nl = text.lastIndexOf('\n', limit - 1);
  return nl >= limit / 2 ? nl + 1 : limit;
}

/** The 1-based line where the text continues after `kept` characters. */
function lineOf(text: string, kept: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < kept; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
