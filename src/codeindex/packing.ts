// How a snapshot lies in the cache file: every string of the records once, in one table; each
// file's scalars as a short JSON row; its symbols, calls, imports, bindings and chunk headers as
// rows of integers (string ids among them) in one Int32 block; its chunks' terms and frequencies
// in another. Reading back makes each record's own objects and nothing more (JSON.parse of an
// object per call and symbol was most of a warm start). Must not touch the disk or judge what is
// stale: cache.ts reads, writes and verifies the file.

import type { Snapshot, StoredFile } from './cache.js';
import type { Binding, CallRecord, FileRecord, ImportRecord, IndexedChunk, SymbolKind, SymbolRecord } from './model.js';

/**
 * Every field of a record, in the order of its row: a field added to a record type fails to
 * compile here until the cache stores it (and CACHE_VERSION is bumped).
 */
type Covers<T, K extends readonly (keyof T)[]> = [Exclude<keyof T, K[number]>] extends [never] ? K : never;

const SYMBOL: Covers<SymbolRecord, ['name', 'kind', 'container', 'line', 'endLine', 'sig', 'doc', 'exported', 'decl']> = ['name', 'kind', 'container', 'line', 'endLine', 'sig', 'doc', 'exported', 'decl'];
const CALL: Covers<CallRecord, ['name', 'line', 'recv', 'from']> = ['name', 'line', 'recv', 'from'];
const IMPORT: Covers<ImportRecord, ['local', 'name', 'from', 'reexport']> = ['local', 'name', 'from', 'reexport'];
const BINDING: Covers<Binding, ['name', 'type', 'scope', 'field']> = ['name', 'type', 'scope', 'field'];
/** The file's own row (JSON), then its counts of symbols, calls, imports, bindings and chunks (Int32). */
const FILE: Covers<FileRecord, ['path', 'size', 'mtimeMs', 'hash', 'lang', 'lines', 'note', 'detail', 'symbols', 'calls', 'imports', 'bindings', 'chunks']> = [
  'path', 'size', 'mtimeMs', 'hash', 'lang', 'lines', 'note', 'detail', 'symbols', 'calls', 'imports', 'bindings', 'chunks',
];
const COUNTS = FILE.length - FILE.indexOf('symbols');

/** A file's scalars: path, size, mtimeMs, hash, lang, lines, note, detail (null: absent). */
type FileRow = [string, number, number, string, string, number, string | null, string | null];

/** The JSON part of the file. */
export type Head = { root: string; builtAt: number; terms: string[]; strings: string[]; files: FileRow[] };

/** The snapshot as written: the JSON part, the rows, the chunks' terms. */
export type Packed = { head: Head; rows: Int32Array; chunkTerms: Int32Array };

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
    this.room(values.length);
    for (const v of values) this.data[this.length++] = v;
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

/** Optional booleans: 0 absent, 1 true, 2 false. */
const flag = (b: boolean | undefined): number => (b === undefined ? 0 : b ? 1 : 2);
const unflag = (n: number): boolean | undefined => (n === 0 ? undefined : n === 1);

export function pack(snapshot: Snapshot): Packed {
  const ids = new Map<string, number>();
  const strings: string[] = [];
  const str = (s: string): number => {
    let id = ids.get(s);
    if (id === undefined) {
      ids.set(s, (id = strings.length));
      strings.push(s);
    }
    return id;
  };
  // Absent optional strings are -1.
  const opt = (s: string | undefined): number => (s === undefined ? -1 : str(s));
  const rows = new Ints();
  const terms = new Ints();
  const files = snapshot.files.map(({ record: r, chunks, whole }): FileRow => {
    rows.push(r.symbols.length, r.calls.length, r.imports.length, r.bindings.length, chunks.length);
    for (const s of r.symbols) rows.push(str(s.name), str(s.kind), opt(s.container), s.line, s.endLine, str(s.sig), opt(s.doc), flag(s.exported), flag(s.decl));
    for (const c of r.calls) rows.push(str(c.name), c.line, opt(c.recv), c.from);
    for (const i of r.imports) rows.push(str(i.local), str(i.name), str(i.from), flag(i.reexport));
    for (const b of r.bindings) rows.push(str(b.name), str(b.type), b.scope, flag(b.field));
    // Each chunk, then the whole file's terms: its symbol, its field lengths and its term count.
    for (const c of [...chunks, whole]) {
      rows.push(c.sym, c.lengths.length, ...c.lengths, c.n);
      terms.append(c.data.subarray(c.at, c.at + c.n * 2));
    }
    return [r.path, r.size, r.mtimeMs, r.hash, r.lang, r.lines, r.note ?? null, r.detail ?? null];
  });
  return { head: { root: snapshot.root, builtAt: snapshot.builtAt, terms: snapshot.terms, strings, files }, rows: rows.done(), chunkTerms: terms.done() };
}

/** The columns of each kind of row that hold string ids, and those of optional strings (-1: absent). */
type Ids = { ids: number[]; optional: number[] };
const IDS: Record<'symbol' | 'call' | 'import' | 'binding', Ids> = {
  symbol: { ids: [0, 1, 5], optional: [2, 6] },
  call: { ids: [0], optional: [2] },
  import: { ids: [0, 1, 2], optional: [] },
  binding: { ids: [0, 1], optional: [] },
};

/** Reads `packed` back. Throws on rows that do not fit together (the caller reports the cache as corrupt). */
export function unpack({ head, rows, chunkTerms: terms }: Packed): Snapshot {
  const { strings } = head;
  let at = 0;
  let termsAt = 0;
  /** Claims the next `n` integers of the rows; throws when they are not there. */
  const claim = (n: number): number => {
    if (!(n >= 0 && at + n <= rows.length)) throw new Error('rows outside the block');
    const start = at;
    at += n;
    return start;
  };
  /** Where the next `n` rows of `width` are, their string ids checked (so making records later cannot fail). */
  const take = (n: number, width: number, { ids, optional }: Ids): Span => {
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
    const c = claim(COUNTS);
    const [nSymbols, nCalls, nImports, nBindings, nChunks] = [rows[c]!, rows[c + 1]!, rows[c + 2]!, rows[c + 3]!, rows[c + 4]!];
    const symbols = symbolsOf(take(nSymbols, SYMBOL.length, IDS.symbol));
    const record = { path: row[0], size: row[1], mtimeMs: row[2], hash: row[3], lang: row[4], lines: row[5], symbols, chunks: [] } as unknown as FileRecord;
    // The graph needs the symbols at once; calls, imports and bindings only when a call is resolved.
    lazily(record, 'calls', take(nCalls, CALL.length, IDS.call), callsOf);
    lazily(record, 'imports', take(nImports, IMPORT.length, IDS.import), importsOf);
    lazily(record, 'bindings', take(nBindings, BINDING.length, IDS.binding), bindingsOf);
    if (row[6] !== null) record.note = row[6] as FileRecord['note'];
    if (row[7] !== null) record.detail = row[7];
    if (!(nChunks >= 0)) throw new Error('a negative count');
    const chunks = new Array<IndexedChunk>(nChunks);
    for (let i = 0; i < nChunks; i++) chunks[i] = chunk();
    return { record, chunks, whole: chunk() };
  });
  if (at !== rows.length || termsAt !== terms.length) throw new Error('rows left over');
  return { root: head.root, builtAt: head.builtAt, terms: head.terms, files };
}

/** Rows of one kind of one file: `from` to `to` in the block. */
type Span = { rows: Int32Array; strings: string[]; from: number; to: number };

/**
 * Makes `key` of `record` an ordinary-looking field whose value is made from its rows on first
 * read, then kept; a write replaces it like any field's. The rows stay shared with the other
 * records (one block, smaller than the objects it stands for).
 */
function lazily<K extends 'calls' | 'imports' | 'bindings'>(record: FileRecord, key: K, span: Span, make: (span: Span) => FileRecord[K]): void {
  let value: FileRecord[K] | undefined;
  let pending: Span | undefined = span;
  Object.defineProperty(record, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      if (pending) {
        value = make(pending);
        pending = undefined;
      }
      return value;
    },
    set: (v: FileRecord[K]) => {
      value = v;
      pending = undefined;
    },
  });
}

// Rows to records (ids already checked), optional fields left out when absent, as the parser leaves
// them out; arrays sized up front.

const opt = (strings: string[], id: number): string | undefined => (id === -1 ? undefined : strings[id]);

function symbolsOf({ rows, strings, from, to }: Span): SymbolRecord[] {
  const out = new Array<SymbolRecord>((to - from) / SYMBOL.length);
  for (let p = from, k = 0; p < to; p += SYMBOL.length, k++) {
    const s: SymbolRecord = { name: strings[rows[p]!]!, kind: strings[rows[p + 1]!] as SymbolKind, line: rows[p + 3]!, endLine: rows[p + 4]!, sig: strings[rows[p + 5]!]!, exported: rows[p + 7] === 1 };
    const container = opt(strings, rows[p + 2]!);
    if (container !== undefined) s.container = container;
    const doc = opt(strings, rows[p + 6]!);
    if (doc !== undefined) s.doc = doc;
    const decl = unflag(rows[p + 8]!);
    if (decl !== undefined) s.decl = decl;
    out[k] = s;
  }
  return out;
}

function callsOf({ rows, strings, from, to }: Span): CallRecord[] {
  const out = new Array<CallRecord>((to - from) / CALL.length);
  for (let p = from, k = 0; p < to; p += CALL.length, k++) {
    const call: CallRecord = { name: strings[rows[p]!]!, line: rows[p + 1]!, from: rows[p + 3]! };
    const recv = opt(strings, rows[p + 2]!);
    if (recv !== undefined) call.recv = recv;
    out[k] = call;
  }
  return out;
}

function importsOf({ rows, strings, from, to }: Span): ImportRecord[] {
  const out = new Array<ImportRecord>((to - from) / IMPORT.length);
  for (let p = from, k = 0; p < to; p += IMPORT.length, k++) {
    const [local, name, source] = [strings[rows[p]!]!, strings[rows[p + 1]!]!, strings[rows[p + 2]!]!];
    const reexport = unflag(rows[p + 3]!);
    out[k] = reexport === undefined ? { local, name, from: source } : { local, name, from: source, reexport };
  }
  return out;
}

function bindingsOf({ rows, strings, from, to }: Span): Binding[] {
  const out = new Array<Binding>((to - from) / BINDING.length);
  for (let p = from, k = 0; p < to; p += BINDING.length, k++) {
    const b: Binding = { name: strings[rows[p]!]!, type: strings[rows[p + 1]!]!, scope: rows[p + 2]! };
    if (rows[p + 3] === 1) b.field = true;
    out[k] = b;
  }
  return out;
}
