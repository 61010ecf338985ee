// How a snapshot lies in the cache file: every string of the records once, in one table; each
// file's scalars as a short JSON row; its symbols, calls, imports, bindings (rows.ts) and chunk
// headers as integer rows in one Int32 part; its chunks' terms and frequencies in another; and
// the BM25 postings of the chunks and of the files, ready to search. Files go in path order, the
// order a warm start loads them in. Reading back makes the records' symbols and chunks and leaves
// the rest for first use (JSON.parse of an object per call and symbol, then inverting a million
// terms, were most of a warm start). Must not touch the disk or judge what is stale: cache.ts
// reads, writes and verifies the file.

import { invert, type Postings } from './bm25.js';
import type { FileRecord, IndexedChunk } from './model.js';
import { LAYOUT, makeLazily, rowsOf, stringTable, symbolsOf, unmadeRows, type Covers, type RowKind, type Span } from './rows.js';

/** A file as cached: its record, and its chunks and whole-file terms numbered in `Snapshot.terms`. */
export type StoredFile = { record: FileRecord; chunks: IndexedChunk[]; whole: IndexedChunk };

/** Read from the cache, a snapshot also has the postings of its files' chunks and of the files, in the order of `files`. */
export type Snapshot = { root: string; builtAt: number; terms: string[]; files: StoredFile[]; postings?: { chunks: Postings; files: Postings } };

/**
 * A file record's fields: its scalars go in its JSON row, the rest in its Int32 rows. Its parsed
 * `terms` are not kept: by the time a record is saved they are its numbered chunks, stored beside it.
 */
const FILE: Covers<FileRecord, ['path', 'size', 'mtimeMs', 'hash', 'lang', 'lines', 'note', 'detail', 'symbols', 'calls', 'imports', 'bindings', 'terms']> = [
  'path', 'size', 'mtimeMs', 'hash', 'lang', 'lines', 'note', 'detail', 'symbols', 'calls', 'imports', 'bindings', 'terms',
];
const SCALARS = FILE.slice(0, FILE.indexOf('symbols'));
/** A file's rows: its counts of symbols, calls, imports, bindings and chunks, then the rows of each in that order. */
const KINDS: RowKind[] = ['symbols', 'calls', 'imports', 'bindings'];

/** A file's scalars in the order of SCALARS (null: absent). */
type FileRow = (string | number | null)[];

/** The JSON part of the file. */
export type Head = { root: string; builtAt: number; terms: string[]; strings: string[]; files: FileRow[] };

/**
 * The snapshot as written: the JSON part, then the Int32 parts: the rows, the chunks' terms, the
 * chunks' postings (offsets, then postings), the files' postings (the same).
 */
export type Packed = { head: Head; ints: Int32Array[] };
export const INT_PARTS = 6;

/** An Int32Array that grows as it is written. */
class Ints {
  private data = new Int32Array(1 << 16);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.data.length) return;
    const grown = new Int32Array(Math.max(this.data.length * 2, this.length + n));
    grown.set(this.data.subarray(0, this.length));
    this.data = grown;
  }

  push(...values: number[]): void {
    this.pushAll(values);
  }

  pushAll(values: ArrayLike<number>): void {
    this.room(values.length);
    for (let i = 0; i < values.length; i++) this.data[this.length++] = values[i]!;
  }

  append(values: Int32Array): void {
    this.room(values.length);
    this.data.set(values, this.length);
    this.length += values.length;
  }

  done(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

export function pack(snapshot: Snapshot): Packed {
  // Absent optional strings are -1.
  const { strings, str } = stringTable();
  // Rows a cached record has not made into objects yet are copied, their string ids renumbered.
  const renumbered = new Map<string[], Int32Array>();
  const renumber = (table: string[], id: number): number => {
    let map = renumbered.get(table);
    if (!map) renumbered.set(table, (map = new Int32Array(table.length).fill(-1)));
    if (map[id] === -1) map[id] = str(table[id]);
    return map[id]!;
  };
  const copy = ({ rows: from, strings: table, from: start, to }: Span, kind: RowKind): Int32Array => {
    const { width, ids, optional } = LAYOUT[kind];
    const out = from.slice(start, to);
    for (const c of ids) for (let i = c; i < out.length; i += width) out[i] = renumber(table, out[i]!);
    for (const c of optional) for (let i = c; i < out.length; i += width) if (out[i] !== -1) out[i] = renumber(table, out[i]!);
    return out;
  };
  const rows = new Ints();
  const terms = new Ints();
  const sorted = [...snapshot.files].sort((a, b) => (a.record.path < b.record.path ? -1 : a.record.path > b.record.path ? 1 : 0));
  const files = sorted.map(({ record: r, chunks, whole }): FileRow => {
    const byKind = KINDS.map((kind) => {
      const unmade = unmadeRows(r, kind);
      return unmade ? copy(unmade, kind) : rowsOf(r, kind, str);
    });
    rows.push(...byKind.map((list, k) => list.length / LAYOUT[KINDS[k]!].width), chunks.length);
    for (const list of byKind) rows.pushAll(list);
    // Each chunk, then the whole file's terms: its symbol, its field lengths and its term count.
    for (const c of [...chunks, whole]) {
      rows.push(c.sym, c.lengths.length, ...c.lengths, c.n);
      terms.append(c.data.subarray(c.at, c.at + c.n * 2));
    }
    return SCALARS.map((k) => (r[k] as string | number | undefined) ?? null);
  });
  const chunks = invert(sorted.flatMap((f) => f.chunks), snapshot.terms.length);
  const wholes = invert(sorted.map((f) => f.whole), snapshot.terms.length);
  return {
    head: { root: snapshot.root, builtAt: snapshot.builtAt, terms: snapshot.terms, strings, files },
    ints: [rows.done(), terms.done(), chunks.offsets, chunks.data, wholes.offsets, wholes.data],
  };
}

/** Reads `packed` back. Throws on rows that do not fit together (the caller reports the cache as corrupt). */
export function unpack({ head, ints }: Packed): Snapshot {
  const { strings } = head;
  if (ints.length !== INT_PARTS) throw new Error(`${ints.length} parts`);
  const [rows, terms, chunkOffsets, chunkPostings, fileOffsets, filePostings] = ints as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
  let at = 0;
  let termsAt = 0;
  /** Claims the next `n` integers of the rows; throws when they are not there. */
  const claim = (n: number): number => {
    if (!(n >= 0 && at + n <= rows.length)) throw new Error('rows outside the block');
    const start = at;
    at += n;
    return start;
  };
  /** Where the next `n` rows of `kind` are, their string ids checked (so making records later cannot fail). */
  const take = (n: number, kind: RowKind): Span => {
    const { width, ids, optional } = LAYOUT[kind];
    const from = claim(n * width);
    const count = strings.length;
    for (const c of ids) for (let i = from + c; i < at; i += width) if (!(rows[i]! >= 0 && rows[i]! < count)) throw new Error('a string outside the table');
    for (const c of optional) for (let i = from + c; i < at; i += width) if (!(rows[i]! >= -1 && rows[i]! < count)) throw new Error('a string outside the table');
    return { rows, strings, from, to: at };
  };
  const chunk = (): IndexedChunk => {
    const p = claim(2);
    const sym = rows[p]!;
    const count = rows[p + 1]!;
    const l = claim(count + 1);
    // Sized up front: grown by push, each of these small arrays would take three times the room.
    const lengths = new Array<number>(count);
    for (let i = 0; i < count; i++) lengths[i] = rows[l + i]!;
    const n = rows[l + count]!;
    if (!(n >= 0 && termsAt + n * 2 <= terms.length)) throw new Error('a chunk outside the terms');
    const c = { sym, lengths, data: terms, at: termsAt, n };
    termsAt += n * 2;
    return c;
  };
  const files = head.files.map((row): StoredFile => {
    const c = claim(KINDS.length + 1);
    const [nSymbols, nCalls, nImports, nBindings, nChunks] = [rows[c]!, rows[c + 1]!, rows[c + 2]!, rows[c + 3]!, rows[c + 4]!];
    if (!(Array.isArray(row) && row.length === SCALARS.length)) throw new Error('a file row of the wrong length');
    const record = {} as Record<string, unknown>;
    SCALARS.forEach((k, i) => {
      if (row[i] !== null) record[k] = row[i];
    });
    record.symbols = symbolsOf(take(nSymbols, 'symbols'));
    // The graph needs the symbols at once; calls, imports and bindings only when a call is resolved.
    makeLazily(record as FileRecord, { calls: take(nCalls, 'calls'), imports: take(nImports, 'imports'), bindings: take(nBindings, 'bindings') });
    if (!(nChunks >= 0)) throw new Error('a negative count');
    const chunks = new Array<IndexedChunk>(nChunks);
    for (let i = 0; i < nChunks; i++) chunks[i] = chunk();
    return { record: record as FileRecord, chunks, whole: chunk() };
  });
  if (at !== rows.length || termsAt !== terms.length) throw new Error('rows left over');
  const postings = { chunks: checked(chunkOffsets, chunkPostings, head.terms.length), files: checked(fileOffsets, filePostings, head.terms.length) };
  return { root: head.root, builtAt: head.builtAt, terms: head.terms, files, postings };
}

/**
 * Postings whose offsets cover the dictionary in order, so every read stays in the array. Their
 * documents go unchecked (a million of them): one that was never read has no lengths, and the
 * index skips postings of documents without.
 */
function checked(offsets: Int32Array, data: Int32Array, termCount: number): Postings {
  if (offsets.length !== termCount + 1 || offsets[0] !== 0 || offsets[termCount] !== data.length) throw new Error('postings that do not cover the terms');
  for (let id = 0; id < termCount; id++) if (!(offsets[id + 1]! >= offsets[id]! && offsets[id + 1]! % 2 === 0)) throw new Error('postings out of order');
  return { offsets, data };
}
