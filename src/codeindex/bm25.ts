// BM25F over symbol chunks: an inverted index from term to (chunk, packed field frequencies),
// with removal by tombstone and compaction when tombstones pile up. Field weights and length
// normalisation follow Robertson & Zaragoza's BM25F. Must not know files, symbols or queries' words.

import { FIELDS, type ChunkTerms } from './model.js';

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

export class Bm25Index {
  private readonly ids = new Map<string, number>();
  /** Per term: [doc, packed, doc, packed, …], tombstoned docs included until compaction. */
  private postings: number[][] = [];
  /** Per term: live documents holding it. */
  private df: number[] = [];
  /** Per document, per field: its length in tokens; -1 in field 0 marks a removed document. */
  private lengths: number[][] = FIELDS.map(() => []);
  private readonly totals = FIELDS.map(() => 0);
  private live = 0;
  private removed = 0;
  private scores = new Float64Array(0);

  get size(): number {
    return this.live;
  }

  /** Adds a chunk; returns its document number. */
  add(chunk: ChunkTerms): number {
    const doc = this.lengths[0]!.length;
    for (let f = 0; f < FIELDS.length; f++) {
      const len = chunk.lengths[f] ?? 0;
      this.lengths[f]!.push(len);
      this.totals[f]! += len;
    }
    for (let i = 0; i < chunk.terms.length; i++) {
      const id = this.idOf(chunk.terms[i]!);
      this.postings[id]!.push(doc, chunk.tfs[i]!);
      this.df[id]!++;
    }
    this.live++;
    return doc;
  }

  /** Removes a document added from `chunk` (its postings stay as tombstones until compact()). */
  remove(doc: number, chunk: ChunkTerms): void {
    if (this.lengths[0]![doc] === undefined || this.lengths[0]![doc]! < 0) return;
    for (let f = 0; f < FIELDS.length; f++) this.totals[f]! -= this.lengths[f]![doc]!;
    this.lengths[0]![doc] = -1;
    for (const term of chunk.terms) {
      const id = this.ids.get(term);
      if (id !== undefined) this.df[id]!--;
    }
    this.live--;
    this.removed++;
  }

  /** True when tombstones make up more than a quarter of the documents. */
  get wantsCompaction(): boolean {
    return this.removed > 1000 && this.removed > this.live / 3;
  }

  /**
   * Drops tombstones and numbers the live documents anew, in order. Returns the old→new numbers
   * (-1 for removed ones) so the caller can renumber what it keeps.
   */
  compact(): Int32Array {
    const count = this.lengths[0]!.length;
    const renumber = new Int32Array(count).fill(-1);
    let next = 0;
    for (let d = 0; d < count; d++) if (this.lengths[0]![d]! >= 0) renumber[d] = next++;
    this.lengths = this.lengths.map((lens) => lens.filter((_, d) => renumber[d]! >= 0));
    for (let id = 0; id < this.postings.length; id++) {
      const old = this.postings[id]!;
      const kept: number[] = [];
      for (let i = 0; i < old.length; i += 2) if (renumber[old[i]!]! >= 0) kept.push(renumber[old[i]!]!, old[i + 1]!);
      this.postings[id] = kept;
    }
    this.removed = 0;
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
    const avg = this.totals.map((t) => (this.live ? t / this.live : 1) || 1);
    for (const term of new Set(terms)) {
      const id = this.ids.get(term);
      if (id === undefined || this.df[id]! === 0) continue;
      const df = this.df[id]!;
      const idf = Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
      const list = this.postings[id]!;
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i]!;
        if (this.lengths[0]![doc]! < 0) continue;
        const packed = list[i + 1]!;
        let tf = 0;
        for (let f = 0; f < 5; f++) {
          const n = (packed >>> SHIFTS[f]!) & MASKS[f]!;
          if (n) tf += (WEIGHTS[f]! * n) / (1 - B[f]! + (B[f]! * this.lengths[f]![doc]!) / avg[f]!);
        }
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += (idf * tf) / (K1 + tf);
      }
    }
    const hits: Hit[] = [];
    for (const doc of touched) {
      let tokens = 0;
      for (let f = 0; f < 4; f++) tokens += this.lengths[f]![doc]!;
      const penalty = tokens >= TINY ? 1 : 0.5 + (0.5 * tokens) / TINY;
      hits.push({ doc, score: scores[doc]! * penalty });
      scores[doc] = 0;
    }
    return topK(hits, limit);
  }

  private idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.postings.length;
      this.ids.set(term, id);
      this.postings.push([]);
      this.df.push(0);
    }
    return id;
  }
}

/** The `k` highest-scoring hits, best first (ties by document number, for stable output). */
export function topK(hits: Hit[], k: number): Hit[] {
  if (hits.length > k * 2) {
    // Sorting numbers is cheap; sorting thousands of objects is not: find the k-th score first.
    const scores = Float64Array.from(hits, (h) => h.score).sort();
    const threshold = scores[scores.length - k]!;
    hits = hits.filter((h) => h.score >= threshold);
  }
  return hits.sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, k);
}
