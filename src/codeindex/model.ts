// The shapes the code index keeps per file: symbols, call sites, imports and the search terms of
// each chunk, as the parser produces them and the cache stores them. Types and tiny helpers only.

import { SCOPE_KINDS, TYPE_KINDS, type ImportRecord, type SymbolKind } from './languages.js';

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
  /** A getter or setter (`get size()`): read and written as a property, never called. */
  accessor?: 'get' | 'set';
};

/** The receiver of a call on a literal (`'a'.split()`, `[1].map()`, `/x/.test()`): the language's own object, never the workspace's. */
export const LITERAL = '<literal>';

/** One call site: `name` is what is called, `recv` the receiver as written (`this`, `ns`, `this.store`), '…' for any other expression, or LITERAL. */
export type CallRecord = { name: string; line: number; recv?: string; /** The calling symbol's index; -1 at top level. */ from: number };

/**
 * A declared or constructed type of a name, for resolving calls on it: a parameter or variable
 * of symbol `scope` (-1: the file's top level), or with `field` a field of the class around it.
 * `type` is a type name, or '' for a type that is no class of the workspace (string, T[], a union).
 */
export type Binding = { name: string; type: string; scope: number; field?: true };

/** A symbol in the index: its file and its place among the file's symbols. */
export type SymRef = { path: string; index: number };

/**
 * How sure a call-graph edge is: the same file, an import, a name unique in the workspace (certain),
 * a method matched by its name alone, or several candidates (uncertain).
 */
export type Confidence = 'file' | 'import' | 'global' | 'name' | 'ambiguous';
export const CERTAIN: ReadonlySet<Confidence> = new Set(['file', 'import', 'global']);

/** Where a call site goes: its targets and how sure that is. */
export type Resolution = { targets: SymRef[]; how: Confidence };

/** A resolved call site: where it is, who calls, what it reaches. */
export type Edge = { path: string; line: number; caller: number; targets: SymRef[]; how: Confidence };

/** The search fields of a chunk, in the order of the packed term frequencies. */
export const FIELDS = ['name', 'sig', 'doc', 'body', 'path'] as const;
export type Field = (typeof FIELDS)[number];
/** Bits per field in a packed term frequency (saturating): name, sig, doc, body, path. */
export const FIELD_BITS = [4, 4, 5, 10, 4] as const;

/** Where a set of terms sits in an Int32Array: `n` term numbers at `at`, then their `n` packed frequencies; tokens per field. */
export type TermSpan = { lengths: number[]; at: number; n: number };

/**
 * A file's search terms as the parser hands them over: its terms as numbers in the parsing
 * thread's dictionary (`ids`: the file's term k is `dictionary[ids[k]]`), each chunk's and the
 * whole file's spans numbered 0…k in the file's terms, all in one array. A dictionary only grows,
 * so the index maps each of its numbers once, not each file's terms by name.
 */
export type FileTerms = {
  ids: Int32Array;
  dictionary: readonly string[];
  data: Int32Array;
  /** `sym`: the symbol the chunk belongs to; -1 for the file's top-level code outside any symbol. */
  chunks: (TermSpan & { sym: number })[];
  whole: TermSpan;
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
  /** The search terms, until the index has numbered them into its own dictionary. */
  terms?: FileTerms;
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

/** The terms of a file that has none (a generated file, left out of the index). */
export const NO_TERMS: FileTerms = { ids: new Int32Array(0), dictionary: [], data: new Int32Array(0), chunks: [], whole: { lengths: [0, 0, 0, 0, 0], at: 0, n: 0 } };

/**
 * `Container.name` or `name`; given the symbols of its file, a member of a nested type is named
 * through the types around it (`HelpFormatter._Section.__init__`). A namespace or module around
 * the types does not lengthen it (`Foo.Run`, as before; `A.Foo` for the class itself). A record's
 * `container` stays the innermost one.
 */
export function qualifiedName(s: SymbolRecord, symbols?: readonly SymbolRecord[]): string {
  const outer = symbols && enclosing(s, symbols, TYPE_KINDS);
  if (outer) return `${typePath(outer, symbols!)}.${s.name}`;
  return s.container ? `${s.container}.${s.name}` : s.name;
}

const typePath = (t: SymbolRecord, symbols: readonly SymbolRecord[]): string => {
  const outer = enclosing(t, symbols, TYPE_KINDS);
  return outer ? `${typePath(outer, symbols)}.${t.name}` : t.name;
};

const HOLDERS: ReadonlySet<SymbolKind> = new Set([...TYPE_KINDS, ...SCOPE_KINDS]);

/** The name through every type, namespace and module around it in its file (`Net.HTTP.get`): what a longer name asked for is checked against. */
export function fullName(s: SymbolRecord, symbols: readonly SymbolRecord[]): string {
  const outer = enclosing(s, symbols, HOLDERS);
  return outer ? `${fullName(outer, symbols)}.${s.name}` : qualifiedName(s);
}

/** The symbol of `kinds` in the same file that holds `s` (named as its container, its lines around it). */
function enclosing(s: SymbolRecord, symbols: readonly SymbolRecord[], kinds: ReadonlySet<SymbolKind>): SymbolRecord | undefined {
  if (!s.container) return undefined;
  let found: SymbolRecord | undefined;
  // Outer symbols come before their members; only those can hold it (no cycles).
  for (const t of symbols) {
    if (t === s || t.line > s.line) break;
    if (t.name === s.container && t.endLine >= s.endLine && kinds.has(t.kind)) found = t;
  }
  return found;
}

/** `kind name(signature)` of a symbol, as one line. */
export function describeSymbol(s: SymbolRecord, symbols?: readonly SymbolRecord[]): string {
  const sig = s.sig && (/^(?:[(:[]|<(?!\s))/.test(s.sig) ? s.sig : ` ${s.sig}`);
  return `${s.accessor ?? s.kind} ${qualifiedName(s, symbols)}${sig}`;
}

const NOT_A_CLASS = /^(?:string|number|boolean|bigint|symbol|void|never|undefined|null|int|float|str|bool|bytes|dict|list|tuple|set)$/;
const ANY = /^(?:any|unknown|object|Object|var|T|K|V)$/;

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

/**
 * A parsed file's chunks and whole-file terms in the workspace's dictionary: the file's term
 * numbers are replaced in place by the workspace's, and every chunk shares the file's array.
 * `known` maps the numbers of `terms.dictionary` met so far (the caller keeps one per dictionary).
 */
export function numbered(terms: FileTerms, idOf: (term: string) => number, known: number[]): { chunks: IndexedChunk[]; whole: IndexedChunk } {
  const { ids: theirs, dictionary, data } = terms;
  const ids = new Int32Array(theirs.length);
  for (let k = 0; k < theirs.length; k++) ids[k] = known[theirs[k]!] ??= idOf(dictionary[theirs[k]!]!);
  const renumber = ({ at, n }: TermSpan) => {
    for (let i = at; i < at + n; i++) data[i] = ids[data[i]!]!;
  };
  terms.chunks.forEach(renumber);
  renumber(terms.whole);
  return { chunks: terms.chunks.map(({ sym, lengths, at, n }) => ({ sym, lengths, data, at, n })), whole: { sym: -1, ...terms.whole, data } };
}
