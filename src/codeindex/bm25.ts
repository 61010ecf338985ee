// BM25F over symbol chunks: an inverted index from term to (chunk, packed field frequencies),
// with removal by tombstone and compaction when tombstones pile up. Field weights and length
// normalisation follow Robertson & Zaragoza's BM25F. Must not know files, symbols or queries' words.

import { FIELDS, type IndexedChunk } from './model.js';

/**
 * How much a match in each field counts (name, signature, doc comment, body, path). A name says
 * what a symbol is, the path where it lives; chosen by reasoning about code, not fitted to a set.
 */
const WEIGHTS = [3, 1.5, 1.5, 1, 2];
/** Length normalisation per field; none for the path, which every chunk of a file shares. */
const B = [0.5, 0.5, 0.75, 0.75, 0];
const K1 = 1.2;
/** Chunks of fewer tokens than this (a one-line type, a re-export) are scored down in proportion. */
const TINY = 20;
const MASKS = [15, 15, 31, 1023, 15];
const SHIFTS = [0, 4, 8, 13, 23];

export type Hit = { doc: number; score: number };

/** Postings per term id, in one array: those of term `id` are [doc, packed, …] from offsets[id] to offsets[id + 1]. */
export type Postings = { offsets: Int32Array; data: Int32Array };

/** The postings of `chunks`, numbered 0, 1, … in their order, over a dictionary of `termCount` terms. */
export function invert(chunks: IndexedChunk[], termCount: number): Postings {
  const counts = new Int32Array(termCount + 1);
  for (const { data, at, n } of chunks) for (let i = 0; i < n; i++) counts[data[at + i]! + 1]!++;
  for (let id = 0; id < termCount; id++) counts[id + 1]! += counts[id]!;
  const offsets = counts.map((c) => c * 2);
  const postings = new Int32Array(offsets[termCount]!);
  const cursor = offsets.slice();
  // Plain locals in the loop: a million postings, each a read and two writes.
  for (let doc = 0; doc < chunks.length; doc++) {
    const { data, at, n } = chunks[doc]!;
    for (let i = 0; i < n; i++) {
      const id = data[at + i]!;
      const p = cursor[id]!;
      postings[p] = doc;
      postings[p + 1] = data[at + n + i]!;
      cursor[id] = p + 2;
    }
  }
  return { offsets, data: postings };
}

/** The terms of the indexes of one workspace, numbered once, shared by the chunk and the file index. */
export class Terms {
  private readonly ids = new Map<string, number>();
  readonly list: string[];

  constructor(list: string[] = []) {
    this.list = list;
    list.forEach((t, i) => this.ids.set(t, i));
  }

  get(term: string): number | undefined {
    return this.ids.get(term);
  }

  idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.list.length;
      this.ids.set(term, id);
      this.list.push(term);
    }
    return id;
  }
}

export class Bm25Index {
  /**
   * Postings per term id: [doc, packed, …] in one compact array (built in bulk from the cache or
   * by compaction) plus what was added since; removed documents stay until compaction.
   */
  private offsets: Int32Array = new Int32Array(1);
  private data: Int32Array = new Int32Array(0);
  private extra: (number[] | undefined)[] = [];
  /** Per term id: live documents holding it. */
  private df: number[] = [];
  /** Per document, per field: its length in tokens; -1 in field 0 marks a removed document. */
  private lengths: number[][] = FIELDS.map(() => []);
  private readonly totals = FIELDS.map(() => 0);
  private live = 0;
  private removed = 0;
  private scores = new Float64Array(0);
  private cachedNorms?: Float64Array[];
  /** Bumped by every change to the documents; the norms are for one version. */
  private version = 0;
  private normsFor = -1;

  constructor(private readonly terms: Terms) {}

  get size(): number {
    return this.live;
  }

  private addLengths(chunk: IndexedChunk): number {
    this.version++;
    const doc = this.lengths[0]!.length;
    for (let f = 0; f < FIELDS.length; f++) {
      const len = chunk.lengths[f] ?? 0;
      this.lengths[f]!.push(len);
      this.totals[f]! += len;
    }
    this.live++;
    return doc;
  }

  /** Adds a chunk; returns its document number. */
  add(chunk: IndexedChunk): number {
    const doc = this.addLengths(chunk);
    const { data, at, n } = chunk;
    for (let i = 0; i < n; i++) {
      const id = data[at + i]!;
      while (this.df.length <= id) this.df.push(0);
      (this.extra[id] ??= []).push(doc, data[at + n + i]!);
      this.df[id]!++;
    }
    return doc;
  }

  /**
   * Adds many chunks at once into the compact arrays: the load from the cache, where growing a
   * list per term would cost more than the rest of the load. With `postings` (the cache's, made
   * by invert() from these same chunks in this order) they are taken as they are. Returns the
   * chunks' document numbers.
   */
  bulk(chunks: IndexedChunk[], postings?: Postings): number[] {
    if (this.lengths[0]!.length) return chunks.map((c) => this.add(c));
    const { offsets, data } = postings ?? invert(chunks, this.terms.list.length);
    this.offsets = offsets;
    this.data = data;
    // Arrays made at their size: grown a push at a time, they would be copied again and again.
    this.df = new Array<number>(offsets.length - 1);
    for (let id = 0; id < this.df.length; id++) this.df[id] = (offsets[id + 1]! - offsets[id]!) / 2;
    this.lengths = FIELDS.map((_, f) => {
      const lens = new Array<number>(chunks.length);
      for (let doc = 0; doc < chunks.length; doc++) {
        const len = chunks[doc]!.lengths[f] ?? 0;
        lens[doc] = len;
        this.totals[f]! += len;
      }
      return lens;
    });
    this.live += chunks.length;
    this.version++;
    const docs = new Array<number>(chunks.length);
    for (let doc = 0; doc < docs.length; doc++) docs[doc] = doc;
    return docs;
  }

  /** Removes a document added from `chunk` (its postings stay as tombstones until compact()). */
  remove(doc: number, chunk: IndexedChunk): void {
    if (this.lengths[0]![doc] === undefined || this.lengths[0]![doc]! < 0) return;
    for (let f = 0; f < FIELDS.length; f++) this.totals[f]! -= this.lengths[f]![doc]!;
    this.lengths[0]![doc] = -1;
    this.version++;
    for (let i = 0; i < chunk.n; i++) this.df[chunk.data[chunk.at + i]!]!--;
    this.live--;
    this.removed++;
  }

  /** True when tombstones make up more than a quarter of the documents. */
  get wantsCompaction(): boolean {
    return this.removed > 1000 && this.removed > this.live / 3;
  }

  /** Calls `visit` for each live posting of term `id`. */
  private each(id: number, visit: (doc: number, packed: number) => void): void {
    const alive = this.lengths[0]!;
    const end = id + 1 < this.offsets.length ? this.offsets[id + 1]! : 0;
    for (let i = id + 1 < this.offsets.length ? this.offsets[id]! : 0; i < end; i += 2) if (alive[this.data[i]!]! >= 0) visit(this.data[i]!, this.data[i + 1]!);
    const more = this.extra[id];
    if (more) for (let i = 0; i < more.length; i += 2) if (alive[more[i]!]! >= 0) visit(more[i]!, more[i + 1]!);
  }

  /**
   * Drops tombstones, numbers the live documents anew in order and moves every posting into the
   * compact arrays. Returns the old→new numbers (-1 for removed ones) for the caller's own lists.
   */
  compact(): Int32Array {
    const count = this.lengths[0]!.length;
    const renumber = new Int32Array(count).fill(-1);
    let next = 0;
    for (let d = 0; d < count; d++) if (this.lengths[0]![d]! >= 0) renumber[d] = next++;
    const n = this.df.length;
    const offsets = new Int32Array(n + 1);
    for (let id = 0; id < n; id++) offsets[id + 1] = offsets[id]! + this.df[id]! * 2;
    const data = new Int32Array(offsets[n]!);
    for (let id = 0; id < n; id++) {
      let at = offsets[id]!;
      this.each(id, (doc, packed) => {
        data[at++] = renumber[doc]!;
        data[at++] = packed;
      });
    }
    this.lengths = this.lengths.map((lens) => lens.filter((_, d) => renumber[d]! >= 0));
    this.offsets = offsets;
    this.data = data;
    this.extra = [];
    this.removed = 0;
    this.version++;
    return renumber;
  }

  /**
   * The best `limit` documents for the query terms, by BM25F with the tiny-chunk penalty.
   * Repeated query terms count once.
   */
  search(terms: string[], limit: number): Hit[] {
    const count = this.lengths[0]!.length;
    if (this.scores.length < count) this.scores = new Float64Array(Math.max(count, this.scores.length * 2));
    const scores = this.scores;
    const touched: number[] = [];
    const norms = this.norms();
    const lengths = this.lengths;
    for (const term of new Set(terms)) {
      const id = this.terms.get(term);
      if (id === undefined || !this.df[id]) continue;
      const df = this.df[id]!;
      const idf = Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
      this.each(id, (doc, packed) => {
        let tf = 0;
        for (let f = 0; f < 5; f++) {
          const n = (packed >>> SHIFTS[f]!) & MASKS[f]!;
          if (n) tf += n * norms[f]![doc]!;
        }
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += (idf * tf) / (K1 + tf);
      });
    }
    // Scores in a typed array, objects only for the best: most touched documents are never shown.
    const finals = new Float64Array(touched.length);
    touched.forEach((doc, i) => {
      let tokens = 0;
      for (let f = 0; f < 4; f++) tokens += lengths[f]![doc]!;
      finals[i] = scores[doc]! * (tokens >= TINY ? 1 : 0.5 + (0.5 * tokens) / TINY);
      scores[doc] = 0;
    });
    const threshold = touched.length > limit ? largest(finals, limit) : -Infinity;
    const hits: Hit[] = [];
    touched.forEach((doc, i) => {
      if (finals[i]! >= threshold) hits.push({ doc, score: finals[i]! });
    });
    return hits.sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, limit);
  }

  /**
   * Per field and document, the field's weight over its length normalisation (BM25F's divisor),
   * kept until a document is added or removed: dividing for every posting of every query costs more.
   */
  private norms(): Float64Array[] {
    if (this.cachedNorms && this.normsFor === this.version) return this.cachedNorms;
    const count = this.lengths[0]!.length;
    this.cachedNorms = FIELDS.map((_, f) => {
      const avg = (this.live ? this.totals[f]! / this.live : 1) || 1;
      const out = new Float64Array(count);
      const lens = this.lengths[f]!;
      for (let d = 0; d < count; d++) out[d] = WEIGHTS[f]! / (1 - B[f]! + (B[f]! * Math.max(0, lens[d]!)) / avg);
      return out;
    });
    this.normsFor = this.version;
    return this.cachedNorms;
  }

  /** The live documents holding `term`, with their packed frequencies. */
  holding(term: string): { doc: number; tf: number }[] {
    const id = this.terms.get(term);
    const out: { doc: number; tf: number }[] = [];
    if (id !== undefined) this.each(id, (doc, tf) => out.push({ doc, tf }));
    return out;
  }
}

/**
 * The `k`-th largest of `values` (k ≥ 1), by selection on a copy: sorting every touched document
 * (tens of thousands for a common word) took most of a search.
 */
export function largest(values: Float64Array, k: number): number {
  const a = values.slice();
  const want = k - 1;
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const x = a[i]!;
        a[i++] = a[j]!;
        a[j--] = x;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return a[want]!;
  }
  return a[want]!;
}
