// The shapes the code index keeps per file: symbols, call sites, imports and the search terms of
// each chunk, as the parser produces them and the cache stores them. Types and tiny helpers only.

import type { ImportRecord, SymbolKind } from './languages.js';

export type { ImportRecord, SymbolKind };

/** One definition. Lines are 1-based and inclusive. */
export type SymbolRecord = {
  name: string;
  kind: SymbolKind;
  /** The enclosing class, interface, impl, namespace or module. */
  container?: string;
  line: number;
  endLine: number;
  /** The declaration after the name, on one line: parameters and return type, heritage, a type. */
  sig: string;
  /** The doc comment's first line. */
  doc?: string;
  exported: boolean;
  /** A declaration without a body (a prototype, an overload, an interface method). */
  decl?: boolean;
};

/** One call site: `name` is what is called, `recv` the receiver as written (`this`, `ns`, `this.store`). */
export type CallRecord = { name: string; line: number; recv?: string; /** The calling symbol's index; -1 at top level. */ from: number };

/**
 * A declared or constructed type of a name, for resolving calls on it: a parameter or variable
 * of symbol `scope` (-1: the file's top level), or with `field` a field of the class around it.
 * `type` is a type name, or '' for a type that is no class of the workspace (string, T[], a union).
 */
export type Binding = { name: string; type: string; scope: number; field?: true };

/** The search fields of a chunk, in the order of the packed term frequencies. */
export const FIELDS = ['name', 'sig', 'doc', 'body', 'path'] as const;
export type Field = (typeof FIELDS)[number];
/** Bits per field in a packed term frequency (saturating): name, sig, doc, body, path. */
export const FIELD_BITS = [4, 4, 5, 10, 4] as const;

/** A chunk's terms as the parser hands them over: each term once, with its packed frequencies. */
export type ChunkTerms = {
  /** The symbol the chunk belongs to; -1 for the file's top-level code outside any symbol. */
  sym: number;
  /** Tokens per field. */
  lengths: number[];
  terms: string[];
  tfs: number[];
};

export type ParseNote = 'no_grammar' | 'syntax_errors' | 'parse_failed' | 'generated';

/** Everything the index knows about one file. */
export type FileRecord = {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha1 of the content, hex. */
  hash: string;
  lang: string;
  lines: number;
  symbols: SymbolRecord[];
  calls: CallRecord[];
  imports: ImportRecord[];
  bindings: Binding[];
  chunks: ChunkTerms[];
  /** Why the symbols are missing or incomplete. */
  note?: ParseNote;
  /** A parser's message, for a parse that failed. */
  detail?: string;
};

/** Packs per-field counts into one integer, each saturating at its width. */
export function packTf(counts: number[]): number {
  return (
    Math.min(counts[0]!, 15) | (Math.min(counts[1]!, 15) << 4) | (Math.min(counts[2]!, 31) << 8) | (Math.min(counts[3]!, 1023) << 13) | (Math.min(counts[4]!, 15) << 23)
  );
}

/** The count of field `f` in a packed term frequency. */
export function unpackTf(packed: number, f: number): number {
  return (packed >>> SHIFTS[f]!) & ((1 << FIELD_BITS[f]!) - 1);
}

const SHIFTS = [0, 4, 8, 13, 23];

/** `Container.name` or `name`. */
export const qualifiedName = (s: SymbolRecord): string => (s.container ? `${s.container}.${s.name}` : s.name);

/** `kind name(signature)` of a symbol, as one line. */
export function describeSymbol(s: SymbolRecord): string {
  const sig = s.sig && (/^[(<:[]/.test(s.sig) ? s.sig : ` ${s.sig}`);
  return `${s.kind} ${qualifiedName(s)}${sig}`;
}

const NOT_A_CLASS = /^(?:string|number|boolean|bigint|symbol|void|never|undefined|null|int|float|str|bool|bytes|dict|list|tuple|set)$/;
const ANY = /^(?:any|unknown|object|Object|T|K|V)$/;

/**
 * A type as written, reduced to the class it names: `Foo<T> | undefined` → Foo; '' for a type
 * that is no class (`string[]`, `A | B`); undefined for one that says nothing (`any`).
 */
export function typeName(written: string): string | undefined {
  const bare = written.replace(/\s+/g, '').replace(/\|(?:undefined|null)\b|\b(?:undefined|null)\||^Optional\[(.*)\]$/g, '$1').replace(/^readonly/, '');
  if (ANY.test(bare)) return undefined;
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:<.*>|\[.*\])?$/.exec(bare);
  if (!m || bare.endsWith('[]') || NOT_A_CLASS.test(m[1]!)) return '';
  return m[1]!.split('.').pop()!;
}

/**
 * A chunk as the index keeps and caches it: `n` term ids of the workspace's dictionary (Terms) at
 * `at` in `data`, then their `n` packed frequencies. Chunks loaded from the cache share one array
 * (a view per chunk would cost more to make than the rest of the load).
 */
export type IndexedChunk = { sym: number; lengths: number[]; data: Int32Array; at: number; n: number };

/** A parsed chunk's terms numbered by `idOf`. */
export function numbered(chunk: ChunkTerms, idOf: (term: string) => number): IndexedChunk {
  const n = chunk.terms.length;
  const data = new Int32Array(n * 2);
  chunk.terms.forEach((term, i) => {
    data[i] = idOf(term);
    data[n + i] = chunk.tfs[i]!;
  });
  return { sym: chunk.sym, lengths: chunk.lengths, data, at: 0, n };
}

/** The terms of a whole file: its chunks' frequencies added up (the path counted once). */
export function fileTerms(chunks: IndexedChunk[]): IndexedChunk {
  const counts = new Map<number, number[]>();
  const lengths = FIELDS.map(() => 0);
  for (const { lengths: lens, data, at, n } of chunks) {
    lens.forEach((len, f) => (lengths[f] = f === 4 ? Math.max(lengths[f]!, len) : lengths[f]! + len));
    for (let i = 0; i < n; i++) {
      const id = data[at + i]!;
      const tf = data[at + n + i]!;
      let c = counts.get(id);
      if (!c) counts.set(id, (c = [0, 0, 0, 0, 0]));
      for (let f = 0; f < 5; f++) c[f] = f === 4 ? Math.max(c[f]!, unpackTf(tf, f)) : c[f]! + unpackTf(tf, f);
    }
  }
  const n = counts.size;
  const data = new Int32Array(n * 2);
  let i = 0;
  for (const [id, c] of counts) {
    data[i] = id;
    data[n + i++] = packTf(c);
  }
  return { sym: -1, lengths, data, at: 0, n };
}
