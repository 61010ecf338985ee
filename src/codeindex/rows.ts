// A cached record's symbols, calls, imports and bindings as rows of integers (string ids into
// the cache's table among them): their layout, records made from them, and the fields a cached
// record makes only when first read. Must not know the file's layout: packing.ts places the rows.

import type { Binding, CallRecord, FileRecord, ImportRecord, SymbolKind, SymbolRecord } from './model.js';

/**
 * Every field of a record, in the order of its row: a field added to a record type fails to
 * compile here until the cache stores it (and CACHE_VERSION is bumped).
 */
export type Covers<T, K extends readonly (keyof T)[]> = [Exclude<keyof T, K[number]>] extends [never] ? K : never;

const SYMBOL: Covers<SymbolRecord, ['name', 'kind', 'container', 'line', 'endLine', 'sig', 'doc', 'exported', 'decl', 'accessor']> = ['name', 'kind', 'container', 'line', 'endLine', 'sig', 'doc', 'exported', 'decl', 'accessor'];
const CALL: Covers<CallRecord, ['name', 'line', 'recv', 'from']> = ['name', 'line', 'recv', 'from'];
const IMPORT: Covers<ImportRecord, ['local', 'name', 'from', 'reexport']> = ['local', 'name', 'from', 'reexport'];
const BINDING: Covers<Binding, ['name', 'type', 'scope', 'field']> = ['name', 'type', 'scope', 'field'];

export type RowKind = 'symbols' | 'calls' | 'imports' | 'bindings';

/** Per kind of row: its width, the columns holding string ids, and those of optional strings (-1: absent). */
export const LAYOUT: Record<RowKind, { width: number; ids: number[]; optional: number[] }> = {
  symbols: { width: SYMBOL.length, ids: [0, 1, 5], optional: [2, 6, 9] },
  calls: { width: CALL.length, ids: [0], optional: [2] },
  imports: { width: IMPORT.length, ids: [0, 1, 2], optional: [] },
  bindings: { width: BINDING.length, ids: [0, 1], optional: [] },
};

/** Rows of one kind of one file: `from` to `to` in `rows`, their string ids in `strings`. */
export type Span = { rows: Int32Array; strings: string[]; from: number; to: number };

/** Strings numbered as they are first met, for rows: `str` gives a string's number (-1 for an absent one). */
export function stringTable(): { strings: string[]; str: (s: string | undefined) => number } {
  const strings: string[] = [];
  const ids = new Map<string, number>();
  const str = (s: string | undefined): number => {
    if (s === undefined) return -1;
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = strings.push(s) - 1));
    return id;
  };
  return { strings, str };
}

/** Optional booleans: 0 absent, 1 true, 2 false. */
const flag = (b: boolean | undefined): number => (b === undefined ? 0 : b ? 1 : 2);
const unflag = (n: number): boolean | undefined => (n === 0 ? undefined : n === 1);

/** A record's rows of one kind, with `str` numbering its strings (-1 for an absent one). */
export function rowsOf(record: FileRecord, kind: RowKind, str: (s: string | undefined) => number): number[] {
  const out: number[] = [];
  if (kind === 'symbols') for (const s of record.symbols) out.push(str(s.name), str(s.kind), str(s.container), s.line, s.endLine, str(s.sig), str(s.doc), flag(s.exported), flag(s.decl), str(s.accessor));
  if (kind === 'calls') for (const c of record.calls) out.push(str(c.name), c.line, str(c.recv), c.from);
  if (kind === 'imports') for (const i of record.imports) out.push(str(i.local), str(i.name), str(i.from), flag(i.reexport));
  if (kind === 'bindings') for (const b of record.bindings) out.push(str(b.name), str(b.type), b.scope, flag(b.field));
  return out;
}

// Rows to records (ids checked when the file was read), optional fields left out when absent, as
// the parser leaves them out; arrays sized up front.

const opt = (strings: string[], id: number): string | undefined => (id === -1 ? undefined : strings[id]);

export function symbolsOf({ rows, strings, from, to }: Span): SymbolRecord[] {
  const out = new Array<SymbolRecord>((to - from) / SYMBOL.length);
  for (let p = from, k = 0; p < to; p += SYMBOL.length, k++) {
    const s: SymbolRecord = { name: strings[rows[p]!]!, kind: strings[rows[p + 1]!] as SymbolKind, line: rows[p + 3]!, endLine: rows[p + 4]!, sig: strings[rows[p + 5]!]!, exported: rows[p + 7] === 1 };
    const container = opt(strings, rows[p + 2]!);
    if (container !== undefined) s.container = container;
    const doc = opt(strings, rows[p + 6]!);
    if (doc !== undefined) s.doc = doc;
    const decl = unflag(rows[p + 8]!);
    if (decl !== undefined) s.decl = decl;
    const accessor = opt(strings, rows[p + 9]!);
    if (accessor !== undefined) s.accessor = accessor as 'get' | 'set';
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

// ---------------------------------------------------------------------------------------------
// Fields made on first read

export type LazyKind = Exclude<RowKind, 'symbols'>;
const MAKERS: { [K in LazyKind]: (span: Span) => FileRecord[K] } = { calls: callsOf, imports: importsOf, bindings: bindingsOf };

/** Each lazy field of a cached record: its rows until first read, then its value. */
type Fields = { [K in LazyKind]: Span | FileRecord[K] };
/** Where a cached record keeps its Fields: a property no one else sees (not enumerable, a symbol). */
const FIELDS = Symbol('fields');
const fieldsOf = (record: FileRecord): Fields | undefined => (record as FileRecord & { [FIELDS]?: Fields })[FIELDS];

/**
 * Accessors shared by every cached record (no closures per record, one shape for all): an own,
 * enumerable field like any other to whoever reads, writes, spreads or compares the record.
 */
const accessor = <K extends LazyKind>(kind: K): PropertyDescriptor => ({
  enumerable: true,
  configurable: true,
  get(this: FileRecord) {
    const fields = fieldsOf(this)!;
    const value = fields[kind];
    return Array.isArray(value) ? value : (fields[kind] = MAKERS[kind](value as Span));
  },
  set(this: FileRecord, value: FileRecord[K]) {
    fieldsOf(this)![kind] = value;
  },
});
const ACCESSORS = { calls: accessor('calls'), imports: accessor('imports'), bindings: accessor('bindings') };

/**
 * Gives `record` calls, imports and bindings made from these rows when first read: a warm start
 * needs none of them (the graph's call sites wait for a callers query).
 */
export function makeLazily(record: FileRecord, spans: { [K in LazyKind]: Span }): void {
  Object.defineProperties(record, { [FIELDS]: { value: { ...spans } }, ...ACCESSORS });
}

/** The rows a cached record's field still stands for, or undefined once it is made (or for a parsed record). */
export function unmadeRows(record: FileRecord, kind: RowKind): Span | undefined {
  if (kind === 'symbols') return undefined;
  const value = fieldsOf(record)?.[kind];
  return value && !Array.isArray(value) ? (value as Span) : undefined;
}
