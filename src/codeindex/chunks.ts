// The search terms of one file, counted where the file is parsed: every line belongs to exactly
// one chunk (a symbol's lines, or the file's top-level code), each chunk's terms counted per
// field (name, signature, doc, body, path), and the whole file's terms added up. The result is two
// Int32Arrays numbered in this thread's dictionary, so it crosses to the index's process as two
// copies (and the terms new since the last file), not as a million small objects. Pure apart from
// that dictionary and a memo of words it has seen; must not know about the workspace's dictionary
// or the BM25 indexes.

import { packTf, type FileTerms, type SymbolRecord, type TermSpan } from './model.js';
import { splitWord } from './tokenize.js';
import { WordTable } from './words.js';

/** A symbol's doc comment and the line it starts on. */
export type Doc = { text: string; from: number };

/** Line owner meaning "tokenised elsewhere": a symbol's doc comment goes to its doc field only. */
const DOC_LINE = -2;
const PATH = 4;

// Term numbers of this thread, and each word's terms as numbers, so a word seen before costs one lookup.
// The dictionary only grows (a parse worker sends each term once: termsSince).
const termIds = new Map<string, number>();
const termNames: string[] = [];

/** The terms of this thread's dictionary from number `from` on. */
export const termsSince = (from: number): string[] => termNames.slice(from);

const words = new WordTable((word) =>
  splitWord(word).map((t) => {
    let id = termIds.get(t);
    if (id === undefined) {
      id = termNames.length;
      termIds.set(t, id);
      termNames.push(t);
    }
    return id;
  }),
);

/**
 * Counts terms into slots: `begin()` starts a new set (a chunk), `add` counts a term in a field,
 * `end()` hands back the set's terms and packed frequencies. A term's slot is found through arrays
 * indexed by term number and stamped per set, so counting costs no Map per chunk.
 */
class Counter {
  private stamp = new Int32Array(1024);
  private slotOf = new Int32Array(1024);
  private counts = new Int32Array(5 * 256);
  private ids: number[] = [];
  private current = 0;
  readonly lengths = [0, 0, 0, 0, 0];
  private static sets = 0;

  begin(): void {
    this.current = ++Counter.sets;
    this.ids = [];
    this.lengths.fill(0);
  }

  add(id: number, field: number, times = 1): void {
    if (id >= this.stamp.length) this.grow(id);
    let slot: number;
    if (this.stamp[id] === this.current) slot = this.slotOf[id]!;
    else {
      slot = this.ids.length;
      this.ids.push(id);
      this.stamp[id] = this.current;
      this.slotOf[id] = slot;
      if (5 * slot + 5 > this.counts.length) {
        const more = new Int32Array(this.counts.length * 2);
        more.set(this.counts);
        this.counts = more;
      }
      this.counts.fill(0, 5 * slot, 5 * slot + 5);
    }
    const at = 5 * slot + field;
    this.counts[at] = field === PATH ? Math.max(this.counts[at]!, times) : this.counts[at]! + times;
  }

  /** Adds this set's counts of the fields before the path into `into` (a chunk's into its file's). */
  addTo(into: Counter): void {
    const c = this.counts;
    this.ids.forEach((id, slot) => {
      for (let f = 0; f < PATH; f++) if (c[5 * slot + f]) into.add(id, f, c[5 * slot + f]);
    });
    for (let f = 0; f < PATH; f++) into.lengths[f]! += this.lengths[f]!;
  }

  /** The set's term numbers and their packed frequencies. */
  end(): { ids: number[]; tfs: number[] } {
    const tfs = this.ids.map((_, slot) => {
      const c = this.counts;
      const at = 5 * slot;
      return packTf([c[at]!, c[at + 1]!, c[at + 2]!, c[at + 3]!, c[at + 4]!]);
    });
    return { ids: this.ids, tfs };
  }

  private grow(id: number): void {
    const size = Math.max(id + 1, this.stamp.length * 2);
    const stamp = new Int32Array(size);
    stamp.set(this.stamp);
    const slotOf = new Int32Array(size);
    slotOf.set(this.slotOf);
    this.stamp = stamp;
    this.slotOf = slotOf;
  }
}

const chunkCounter = new Counter();
const fileCounter = new Counter();

/** The file's chunks and whole-file terms, numbered in the file's terms, which are numbered in this thread's dictionary. */
export function termsOf(path: string, text: string, lines: number[], symbols: SymbolRecord[], docs: Doc[]): FileTerms {
  // Which chunk each line belongs to: a symbol's lines (inner symbols over outer), else the top level.
  const owner = new Int32Array(lines.length + 2).fill(-1);
  symbols.forEach((s, i) => {
    if (s.decl) return;
    owner.fill(DOC_LINE, docs[i]?.from ?? s.line, s.line);
    owner.fill(i, s.line, s.endLine + 1);
  });
  // Each chunk's body as runs of lines: [from, to) offsets.
  const runs = new Map<number, number[]>();
  for (let l = 1; l <= lines.length; ) {
    let end = l;
    while (end + 1 <= lines.length && owner[end + 1] === owner[l]) end++;
    if (owner[l] !== DOC_LINE) {
      let list = runs.get(owner[l]!);
      if (!list) runs.set(owner[l]!, (list = []));
      list.push(lines[l - 1]!, lines[end] ?? text.length);
    }
    l = end + 1;
  }
  // The path's terms with their counts (a folder and a file may share a name).
  const pathTerms = new Map<number, number>();
  const pathLength = words.count(path, 0, path.length, { add: (id) => pathTerms.set(id, (pathTerms.get(id) ?? 0) + 1) }, PATH);
  // A chunk for the top-level code (when it has lines) and for every symbol with a body.
  const order = [...(runs.has(-1) ? [-1] : []), ...symbols.flatMap((s, i) => (s.decl ? [] : [i]))];

  const local = new Map<number, number>();
  const localOf = (id: number): number => {
    let n = local.get(id);
    if (n === undefined) local.set(id, (n = local.size));
    return n;
  };
  const out: number[] = [];
  const chunks: FileTerms['chunks'] = [];
  fileCounter.begin();
  for (const sym of order) {
    chunkCounter.begin();
    const count = (field: number, from: number, to: number, source = text) => (chunkCounter.lengths[field]! += words.count(source, from, to, chunkCounter, field));
    const body = runs.get(sym) ?? [];
    for (let r = 0; r < body.length; r += 2) count(3, body[r]!, body[r + 1]!);
    if (sym >= 0) {
      const s = symbols[sym]!;
      count(0, 0, s.name.length, s.name);
      const sig = `${s.container ?? ''} ${s.sig}`;
      count(1, 0, sig.length, sig);
      const doc = docs[sym]?.text;
      if (doc) count(2, 0, doc.length, doc);
    }
    chunkCounter.addTo(fileCounter);
    for (const [id, times] of pathTerms) chunkCounter.add(id, PATH, times);
    chunkCounter.lengths[PATH] = pathLength;
    chunks.push({ sym, lengths: chunkCounter.lengths.slice(), ...put(chunkCounter.end(), out, localOf) });
  }
  // The whole file: the chunks' counts added up, the path counted once.
  if (chunks.length) for (const [id, times] of pathTerms) fileCounter.add(id, PATH, times);
  fileCounter.lengths[PATH] = chunks.length ? pathLength : 0;
  const whole: TermSpan = { lengths: fileCounter.lengths.slice(), ...put(fileCounter.end(), out, localOf) };
  return { ids: Int32Array.from(local.keys()), dictionary: termNames, data: Int32Array.from(out), chunks: chunks.sort((a, b) => a.sym - b.sym), whole };
}

/** Appends a set's local term numbers, then its frequencies, to `out`; where they are. */
function put(set: { ids: number[]; tfs: number[] }, out: number[], localOf: (id: number) => number): { at: number; n: number } {
  const at = out.length;
  for (const id of set.ids) out.push(localOf(id));
  for (const tf of set.tfs) out.push(tf);
  return { at, n: set.ids.length };
}
