// The compact diff shown after a write or edit: changed lines with a few lines of context,
// numbered, capped. Pure: computes lines to show; the interface colours them.

export type DiffLine =
  | { kind: 'same' | 'del' | 'add'; n: number; text: string }
  /** Unchanged lines left out between two hunks. */
  | { kind: 'gap'; count: number }
  /** Changed lines left out past the cap. */
  | { kind: 'more'; count: number };

export type Diff = { lines: DiffLine[]; added: number; removed: number };

/** Past this many cells the middle is shown as removed-then-added instead of a real diff. */
const MAX_CELLS = 2_000_000;

const splitLines = (text: string): string[] => {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

type Op = { kind: 'same' | 'del' | 'add'; a: number; b: number };

/** The edit script between `a` and `b` (indexes into each), by longest common subsequence. */
function editScript(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) endA--, endB--;
  const ops: Op[] = [];
  for (let i = 0; i < start; i++) ops.push({ kind: 'same', a: i, b: i });
  const n = endA - start;
  const m = endB - start;
  if (n * m > MAX_CELLS) {
    for (let i = start; i < endA; i++) ops.push({ kind: 'del', a: i, b: start });
    for (let j = start; j < endB; j++) ops.push({ kind: 'add', a: endA, b: j });
  } else {
    // lcs[i][j]: the common subsequence length of a[start+i..] and b[start+j..].
    const lcs = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => i * (m + 1) + j;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[at(i, j)] = a[start + i] === b[start + j] ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[start + i] === b[start + j]) ops.push({ kind: 'same', a: start + i++, b: start + j++ });
      // On a tie the removal goes first, as diffs are read.
      else if (i < n && (j === m || lcs[at(i + 1, j)]! >= lcs[at(i, j + 1)]!)) ops.push({ kind: 'del', a: start + i++, b: start + j });
      else ops.push({ kind: 'add', a: start + i, b: start + j++ });
    }
  }
  for (let k = 0; endA + k < a.length; k++) ops.push({ kind: 'same', a: endA + k, b: endB + k });
  return ops;
}

/**
 * The lines to show for a change from `before` (null: a new file) to `after`: every changed line
 * with `context` lines around it, gaps marked, at most `cap` lines in all.
 */
export function diffLines(before: string | null, after: string, context = 2, cap = 16): Diff {
  const a = before === null ? [] : splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  const added = ops.filter((o) => o.kind === 'add').length;
  const removed = ops.filter((o) => o.kind === 'del').length;
  const near = new Array<boolean>(ops.length).fill(false);
  ops.forEach((op, i) => {
    if (op.kind === 'same') return;
    for (let k = Math.max(0, i - context); k <= Math.min(ops.length - 1, i + context); k++) near[k] = true;
  });
  const lines: DiffLine[] = [];
  let shown = 0;
  let skipped = 0;
  ops.forEach((op, i) => {
    if (!near[i] || shown >= cap) return void skipped++;
    if (skipped && lines.length) lines.push({ kind: 'gap', count: skipped });
    skipped = 0;
    shown++;
    lines.push(op.kind === 'del' ? { kind: 'del', n: op.a + 1, text: a[op.a]! } : { kind: op.kind, n: op.b + 1, text: b[op.b]! });
  });
  const cut = ops.slice(ops.length - skipped).filter((o) => o.kind !== 'same').length;
  if (cut) lines.push({ kind: 'more', count: cut });
  return { lines, added, removed };
}
