// What code_outline, code_symbol and code_refs show: a file's or folder's signatures without
// bodies, one symbol's source, call-graph edges to a depth. Text for the model, built from
// records. Must not refresh the index, parse files or decide fallbacks.

import { numberLine, splitLines } from '../content/filetype.js';
import { CERTAIN, type CallGraph, type Edge, type SymRef } from './graph.js';
import { languageOf, LANGUAGES, SCOPE_KINDS, TYPE_KINDS, VALUE_KINDS, type LanguageSpec } from './languages.js';
import { isTestPath } from './files.js';
import { describeSymbol, qualifiedName, type FileRecord, type SymbolRecord } from './model.js';

const OUTLINE_MAX_LINES = 400;
const SYMBOL_MAX_LINES = 400;
/** A call tree shows at most this many lines (a caller or callee each), and on one line this many call sites. */
const REFS_MAX_LINES = 80;
const REFS_MAX_SITES = 12;
/** A doc comment longer than this above a symbol shows only its first DOC_SHOWN_LINES. */
const DOC_MAX_LINES = 40;
const DOC_SHOWN_LINES = 20;

const NOTES: Record<string, string> = {
  no_grammar: 'no parser for this language here; no symbols',
  syntax_errors: 'the file has syntax errors; symbols may be incomplete',
  parse_failed: 'the parser gave up on this file; no symbols',
  generated: 'a generated file; not indexed',
};

/**
 * How much of each signature an outline shows, from full (0) to names only (3): a file's outline
 * takes the fullest form that stays within OUTLINE_SHARE of the file.
 */
type Detail = 0 | 1 | 2 | 3;
/** An outline is at most this share of its file (by characters, which track tokens closely)… */
const OUTLINE_SHARE = 0.09;
/** …unless it is this short anyway. */
const OUTLINE_FLOOR = 1200;
/** A names-only outline cut to its share still shows this many lines. */
const OUTLINE_MIN_LINES = 40;

/**
 * The outline of one file: its imports on one line, then each symbol's line and signature, members
 * indented; `brief`, its types and functions only. `shortened`: whether a signature shown is
 * really shorter than the symbol's.
 */
export function outlineFile(record: FileRecord, detail: Detail, brief = false): { lines: string[]; shortened: boolean } {
  const note = record.note ? ` [${NOTES[record.note]}]` : '';
  const out = [`${record.path} (${record.lines} lines)${note}`];
  let shortened = false;
  if (!brief && record.imports.length) {
    const from = [...new Set(record.imports.filter((i) => !i.reexport).map((i) => i.from))];
    const max = detail ? 6 : 12;
    if (from.length) out.push(`imports: ${from.slice(0, max).join(', ')}${from.length > max ? `, … ${from.length - max} more` : ''}`);
    // What an index file offers is what it re-exports: everything of a module, or the names given.
    const again = [...new Set(record.imports.filter((i) => i.reexport).map((i) => i.from))].map((m) => {
      const named = record.imports.filter((i) => i.reexport && i.from === m && i.local !== '*').map((i) => i.local);
      return named.length ? `${m} (${named.slice(0, 4).join(', ')}${named.length > 4 ? `, … ${named.length - 4} more` : ''})` : m;
    });
    if (again.length) out.push(`re-exports: ${again.slice(0, max).join(', ')}${again.length > max ? `, … ${again.length - max} more` : ''}`);
  }
  // The types, modules and namespaces shown around the current symbol (by their lines): what they hold is indented under them.
  const around: SymbolRecord[] = [];
  for (const s of record.symbols) {
    if (VALUE_KINDS.has(s.kind) && !s.exported) continue;
    // Brief: types and functions, also those a module or namespace holds; no members of types, no values.
    if (brief && ((s.container && !TYPE_KINDS.has(s.kind) && s.kind !== 'function') || VALUE_KINDS.has(s.kind))) continue;
    // Without parameter types, overloads read as their implementation: it alone is shown.
    if (detail >= 2 && s.decl && record.symbols.some((d) => !d.decl && d.name === s.name && d.container === s.container)) continue;
    while (around.length && (around.at(-1)!.endLine < s.endLine || around.at(-1)!.line > s.line)) around.pop();
    const depth = around.length;
    if (TYPE_KINDS.has(s.kind) || SCOPE_KINDS.has(s.kind)) around.push(s);
    const member = s.container !== undefined && s.kind === 'method';
    const sig = shorten(s.kind, s.sig, detail, record.lang);
    if (sig !== s.sig) shortened = true;
    const glue = sig && (/^(?:[(:[]|<(?!\s))/.test(sig) ? sig : ` ${sig}`);
    // Functions and methods show by their parentheses once space is short; other kinds keep their word.
    const kind = s.accessor ? `${s.accessor} ` : member || (detail && s.kind === 'function') ? '' : `${s.kind} `;
    // Under what holds it a symbol needs no prefix; a method written apart from its type (Go's
    // `func (s *Server) Serve`, C++'s `Foo::run`) is named by the type, not set under whatever came before.
    const short = depth > 0 && s.container === around[depth - 1]!.name;
    out.push(`${'  '.repeat(depth)}${s.line} ${kind}${short ? s.name : qualifiedName(s, record.symbols)}${glue}`);
  }
  return { lines: out, shortened };
}

/** A signature at a level of detail: capped, then parameters without types, then nothing. */
function shorten(kind: string, whole: string, detail: Detail, lang: string): string {
  if (detail === 0 || !whole) return whole;
  // Python's decorators that say how it is used (` @property`) stay, at every detail.
  const used = / @[\w.]+(?: @[\w.]+)*$/.exec(whole)?.[0] ?? '';
  const sig = whole.slice(0, whole.length - used.length);
  return shortened(kind, sig, detail, lang) + used;
}

function shortened(kind: string, sig: string, detail: Detail, lang: string): string {
  const callable = kind === 'function' || kind === 'method';
  if (detail === 1) return clipSig(sig, callable ? 80 : 40);
  // An impl is told from the others of its type only by the trait it implements (`: fmt::Display`).
  if (kind === 'impl' && detail === 2) return clipSig(sig, 40);
  if (detail === 3 || !callable) return callable ? '()' : '';
  // The parameters come after any type parameters, which may hold parentheses of their own (`<K extends keyof (typeof M)>`).
  const open = sig.indexOf('(', sig.startsWith('<') ? closing(sig, 0) : 0);
  if (open < 0) return '';
  const close = closing(sig, open);
  const params: string[] = [];
  let start = open + 1;
  let depth = 0;
  for (let i = open + 1; i <= close; i++) {
    const c = sig[i] ?? ')';
    if (opens(sig, i)) depth++;
    else if (closes(sig, i) && depth > 0) depth--;
    else if ((c === ',' && depth === 0) || i === close) {
      const name = paramName(sig.slice(start, i), lang);
      if (name) params.push(name);
      start = i + 1;
    }
  }
  return `(${params.join(', ')})`;
}

/** Brackets of a signature; the `>` of an arrow (`(v: T) => O`) closes nothing. */
const opens = (sig: string, i: number): boolean => '([{<'.includes(sig[i]!);
const closes = (sig: string, i: number): boolean => ')]}>'.includes(sig[i]!) && !(sig[i] === '>' && sig[i - 1] === '=');

/** Where the bracket opened at `open` closes, or the end of `sig`. */
function closing(sig: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sig.length; i++) {
    if (opens(sig, i)) depth++;
    else if (closes(sig, i) && --depth === 0) return i;
  }
  return sig.length;
}

/** Languages that write a parameter's type before its name (`int n`, `const char *s`, `String... xs`). */
const TYPE_FIRST = new Set(['java', 'csharp', 'cpp']);

/** A parameter's name as written in a signature: without its type, default, Rust's `mut` or lifetime. */
function paramName(param: string, lang: string): string | undefined {
  const p = param.replace(/=[\s\S]*$/, '').trim();
  if (!p) return undefined;
  if (lang === 'php') return /[&.]*\$\w+/.exec(p)?.[0];
  if (TYPE_FIRST.has(lang)) {
    // A function pointer is named inside its parentheses: `void (*cb)(void *)`; an unnamed parameter shows its type.
    const named = /\(\s*[*&^]\s*(\w+)\s*\)/.exec(p) ?? /\s[*&\s]*(\w+)\s*(?:\[[^\]]*\]\s*)*$/.exec(p);
    return named ? named[1] : p.length <= 20 ? p : undefined;
  }
  // Rust's receiver keeps its borrow, not its lifetime: `&'r self` is &self, `&'a mut self` &mut self.
  // A parameter property's modifiers are not its name (`constructor(private readonly store: Store)`).
  const head = p.split(':')[0]!.replace(/^(?:(?:public|private|protected|readonly|override)\s+)+/, '').replace(/'\w+\s*/g, '').replace(/\s+/g, ' ').trim();
  if (/^(?:&\s*(?:mut )?)?(?:mut )?self$/.test(head)) return head.replace(/^mut /, '').replace(/^& /, '&');
  return /^(\.\.\.)?\s*(?:mut\s+)?([\w$&*]+\??)/.exec(head)?.slice(1).join('') || undefined;
}

const clipSig = (sig: string, max: number): string => (sig.length > max ? `${sig.slice(0, max - 1).trimEnd()}…` : sig);

/** The outline of a single file at the fullest detail that fits its share. */
function fitted(record: FileRecord): string[] {
  const budget = Math.max(OUTLINE_FLOOR, record.size * OUTLINE_SHARE);
  const marked = ({ lines, shortened }: { lines: string[]; shortened: boolean }) => (shortened ? [`${lines[0]} [signatures shortened to fit; code_symbol shows one in full]`, ...lines.slice(1)] : lines);
  for (const detail of [0, 1, 2] as const) {
    const lines = marked(outlineFile(record, detail));
    if (lines.join('\n').length <= budget) return lines;
  }
  // Names only, and if even they are too many (a header of thousands of constants), the first of them.
  const names = marked(outlineFile(record, 3));
  let used = 0;
  let shown = 0;
  while (shown < names.length && (shown < OUTLINE_MIN_LINES || used + names[shown]!.length + 1 <= budget)) used += names[shown++]!.length + 1;
  return shown === names.length ? names : [...names.slice(0, shown), `[… ${names.length - shown} more symbols not shown; code_search or read_file for the rest]`];
}

/**
 * Outlines of the files under `folder`: its own code first, then its subfolders', tests last. When
 * the whole is too long, the first files keep their members while at most half the space is left
 * for the rest, shown brief (types and functions); files past the space are named, not outlined.
 */
export function outlineFiles(records: FileRecord[], folder = ''): string {
  if (records.length === 1) return fitted(records[0]!).join('\n');
  const place = (r: FileRecord) => [isTestPath(r.path) ? 1 : 0, r.path.slice(folder.length).includes('/') ? 1 : 0];
  const ordered = records.map((r) => ({ r, at: place(r) })).sort((a, b) => a.at[0]! - b.at[0]! || a.at[1]! - b.at[1]! || (a.r.path < b.r.path ? -1 : 1)).map((x) => x.r);
  const full = ordered.map((r) => outlineFile(r, 1));
  const brief = ordered.map((r) => outlineFile(r, 2, true));
  let rest = brief.reduce((n, b) => n + b.lines.length, 0);
  const out: string[] = [];
  let shortened = false;
  let briefFrom = -1;
  let shown = 0;
  for (; shown < ordered.length; shown++) {
    rest -= brief[shown]!.lines.length;
    if (briefFrom < 0 && out.length + full[shown]!.lines.length + Math.min(rest, OUTLINE_MAX_LINES / 2) > OUTLINE_MAX_LINES) briefFrom = shown;
    const pick = briefFrom < 0 ? full[shown]! : brief[shown]!;
    // The first file shown is cut to the space rather than left out.
    if (out.length + pick.lines.length > OUTLINE_MAX_LINES && shown > 0) break;
    out.push(...pick.lines.slice(0, OUTLINE_MAX_LINES));
    shortened ||= pick.shortened;
  }
  if (shown < ordered.length) out.push(`[… ${ordered.length - shown} more files not shown: ${leftOut(ordered.slice(shown), folder)}; outline one of them]`);
  if (briefFrom >= 0 && briefFrom < shown) out.push(`[members of the files from ${ordered[briefFrom]!.path} on are not shown; outline one file for them]`);
  else if (shortened) out.push('[signatures shortened to fit; code_outline a file or code_symbol shows them in full]');
  return out.join('\n');
}

/** The files not shown, by name under `folder`, a subfolder's as one entry with its count. */
function leftOut(records: FileRecord[], folder: string): string {
  const counts = new Map<string, number>();
  for (const r of records) {
    const rel = r.path.slice(folder.length);
    const key = rel.includes('/') ? `${rel.slice(0, rel.indexOf('/'))}/` : rel;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const names = [...counts].map(([k, n]) => (k.endsWith('/') ? `${k} (${n} file${n > 1 ? 's' : ''})` : k));
  return names.length > 30 ? `${names.slice(0, 30).join(', ')}, …` : names.join(', ');
}

/**
 * The lines above a symbol that belong to it: comments, decorators, annotations and attributes
 * (Rust's and PHP's `#[…]`, C#'s `[…]`), in the language's own syntax; a C `#define` is no comment.
 */
const ABOVE: Record<LanguageSpec['doc'], RegExp> = {
  slash: /^\s*(?:\/\/|\/\*|\*|@|#\[|\[)/,
  hash: /^\s*#(?!!)/,
  docstring: /^\s*(?:#(?!!)|@)/,
};

/** One symbol's source, numbered as read_file numbers lines, from its doc comment to its end. */
export function symbolSource(path: string, s: SymbolRecord, text: string, symbols?: readonly SymbolRecord[]): string {
  // Lines as read_file shows them: without a BOM or carriage returns, so edits can quote them.
  const lines = splitLines(text.replace(/^\uFEFF/, ''));
  // An overloaded definition is read with its overloads just above it, and the doc above them.
  let from = s.line;
  const at = symbols?.indexOf(s) ?? -1;
  for (let i = at - 1; i >= 0; i--) {
    const o = symbols![i]!;
    if (!o.decl || o.name !== s.name || o.container !== s.container || o.endLine >= from) break;
    from = o.line;
  }
  const above = ABOVE[LANGUAGES[languageOf(path) ?? '']?.doc ?? 'slash'];
  while (from > 1 && above.test(lines[from - 2] ?? '')) from--;
  const to = Math.min(s.endLine, from + SYMBOL_MAX_LINES - 1, lines.length);
  const body = lines.slice(from - 1, to).map((l, i) => numberLine(l, from + i));
  // A doc of examples runs to hundreds of lines (tokio's spawn: 155 above 13 of code): its first lines, then the attributes and the code.
  let docEnd = s.line - 1;
  while (docEnd >= from && /^\s*(?:@|#\[|\[)/.test(lines[docEnd - 1] ?? '')) docEnd--;
  if (docEnd - from + 1 > DOC_MAX_LINES) body.splice(DOC_SHOWN_LINES, docEnd - from + 1 - DOC_SHOWN_LINES, `[… ${docEnd - from + 1 - DOC_SHOWN_LINES} more lines of doc comment]`);
  // A type cut short names the members it did not show, so one can be asked for.
  const rest = s.endLine > to && TYPE_KINDS.has(s.kind) ? (symbols ?? []).filter((m) => m.container === s.name && m.line > to && m.endLine <= s.endLine && !VALUE_KINDS.has(m.kind)) : [];
  const members = rest.length ? `; members not shown: ${rest.slice(0, 40).map((m) => `${m.line} ${m.name}`).join(', ')}${rest.length > 40 ? `, … ${rest.length - 40} more` : ''} (code_symbol ${s.name}.name shows one)` : '';
  const more = s.endLine > to ? [`[… ${s.endLine - to} more lines; read_file ${path} with offset ${to + 1}${members}]`] : [];
  // A prototype or an interface's method: the model should not look below it for a body.
  const decl = s.decl ? ' [a declaration, without a body]' : '';
  return [`${path}:${s.line}-${s.endLine} ${describeSymbol(s, symbols)}${decl}`, ...body, ...more].join('\n');
}

/** A symbol's place and name, for lists of candidates and edges. */
export const placeOf = (graph: CallGraph, ref: SymRef, symbolsIn?: SymbolsIn): string => {
  const s = graph.symbol(ref);
  return s ? `${ref.path}:${s.line} ${qualifiedName(s, symbolsIn?.(ref.path))}` : ref.path;
};

/** The symbols of a file, for naming a nested type's members through the types around them. */
export type SymbolsIn = (path: string) => readonly SymbolRecord[] | undefined;

const HOW: Record<Edge['how'], string> = {
  file: '',
  import: '',
  global: '',
  name: ' (matched by method name only; receiver type unknown)',
  ambiguous: ' (ambiguous)',
};

const rank = (e: Edge): number => (CERTAIN.has(e.how) ? 0 : 2) + (isTestPath(e.path) ? 1 : 0);

/**
 * Callers or callees of `root` as an indented tree to `depth`, each edge at its call site
 * (path:line). Uncertain edges are marked and not followed further. `listed`, shared by the trees
 * of several definitions of one name: the uncertain call sites shown already, which may reach
 * each of them (a call by method name only); a later tree counts them instead of listing them again.
 */
export function refsTree(graph: CallGraph, root: SymRef, direction: 'callers' | 'callees', depth: number, symbolsIn?: SymbolsIn, listed = new Set<string>()): string {
  const rootSym = graph.symbol(root)!;
  const lines = [`${direction} of ${qualifiedName(rootSym, symbolsIn?.(root.path))} (${root.path}:${rootSym.line}):`];
  const seen = new Set([`${root.path}#${root.index}`]);
  let cut = 0;
  let cutUncertain = 0;
  let again = 0;
  const walk = (ref: SymRef, level: number) => {
    // Callers that surely call it come first, tests after the code (past the cap, the rest is cut); callees in the order they are called.
    const list = direction === 'callers' ? graph.callersOf(ref).sort((a, b) => rank(a) - rank(b)) : graph.calleesOf(ref);
    // One line per caller or callee of this level, with the lines of all its call sites (path:12,40,41).
    const shown = new Map<string, { at: number; sites: number[] }>();
    const put = (e: Edge, rest: string): boolean => {
      const key = `${e.path}\0${rest}`;
      let entry = shown.get(key);
      if (!entry) {
        if (lines.length > REFS_MAX_LINES) return false;
        shown.set(key, (entry = { at: lines.length, sites: [] }));
      }
      entry.sites.push(e.line);
      const sites = entry.sites.length > REFS_MAX_SITES ? `${entry.sites.slice(0, REFS_MAX_SITES).join(',')},… ${entry.sites.length - REFS_MAX_SITES} more` : entry.sites.join(',');
      lines[entry.at] = `${'  '.repeat(level)}${e.path}:${sites}${rest}`;
      return true;
    };
    for (const e of list) {
      const site = direction === 'callers' && !CERTAIN.has(e.how) ? `${e.path}:${e.line}` : '';
      if (site && listed.has(site)) {
        again++;
        continue;
      }
      if (site) listed.add(site);
      const caller = direction === 'callers' && e.caller >= 0 ? graph.symbol({ path: e.path, index: e.caller }) : undefined;
      const targets = e.targets.slice(0, 4).map((t) => placeOf(graph, t, symbolsIn)).join(' | ') + (e.targets.length > 4 ? ` | … ${e.targets.length - 4} more` : '');
      const rest = direction === 'callers' ? ` ${caller ? qualifiedName(caller, symbolsIn?.(e.path)) : '(top level)'}` : ` → ${targets}`;
      if (!put(e, rest + HOW[e.how])) {
        cut++;
        if (!CERTAIN.has(e.how)) cutUncertain++;
        continue;
      }
      // Followed further: a certain edge to one definition not shown yet.
      const next = direction === 'callers' ? (e.caller >= 0 ? { path: e.path, index: e.caller } : undefined) : e.targets.length === 1 ? e.targets[0] : undefined;
      if (next && CERTAIN.has(e.how) && level < depth && !seen.has(`${next.path}#${next.index}`)) {
        seen.add(`${next.path}#${next.index}`);
        walk(next, level + 1);
      }
    }
  };
  walk(root, 1);
  // A property is read and assigned, which the call graph does not follow.
  const property = rootSym.accessor && direction === 'callers' ? `; a ${rootSym.accessor}ter is not called: search the text for .${rootSym.name}` : '';
  if (lines.length === 1 && direction === 'callers' && / @(?:[\w.]+\.)?(?:cached_)?property\b/.test(rootSym.sig)) lines.push('  no call sites found in the index (a property is read, not called: code_search finds where)');
  if (again) lines.push(`  [${again} uncertain call site${again > 1 ? 's' : ''} shown or counted above may reach this one too]`);
  if (lines.length === 1) lines.push(direction === 'callers' ? `  no call sites found in the index${property}` : '  no calls into indexed code');
  if (cut) {
    const which = cutUncertain === cut ? ', all uncertain' : cutUncertain ? `, ${cutUncertain} of them uncertain` : '';
    lines.push(`[… ${cut} more call sites not shown${which}; ${depth > 1 ? 'ask for depth 1 or a narrower symbol' : 'name a narrower symbol (Class.method, path:name)'}]`);
  }
  return lines.join('\n');
}
