// What code_outline, code_symbol and code_refs show: a file's or folder's signatures without
// bodies, one symbol's source, call-graph edges to a depth. Text for the model, built from
// records. Must not refresh the index, parse files or decide fallbacks.

import { numberLine, splitLines } from '../content/filetype.js';
import { CERTAIN, type CallGraph, type Edge, type SymRef } from './graph.js';
import { TYPE_KINDS, VALUE_KINDS } from './languages.js';
import { describeSymbol, qualifiedName, type FileRecord, type SymbolRecord } from './model.js';
import { isTestPath } from './search.js';

const OUTLINE_MAX_LINES = 400;
const SYMBOL_MAX_LINES = 400;
/** A call tree shows at most this many lines (a caller or callee each), and on one line this many call sites. */
const REFS_MAX_LINES = 80;
const REFS_MAX_SITES = 12;

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

/** The outline of one file: its imports on one line, then each symbol's line and signature, members indented. */
export function outlineFile(record: FileRecord, detail: Detail = 0, brief = false): string[] {
  const note = record.note ? ` [${NOTES[record.note]}]` : '';
  const out = [`${record.path} (${record.lines} lines)${note}`];
  // Said only when a signature shown really is shorter than the symbol's.
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
  // The types shown around the current symbol (by their lines): members are indented under the type that holds them.
  const around: SymbolRecord[] = [];
  for (const s of record.symbols) {
    if (VALUE_KINDS.has(s.kind) && !s.exported) continue;
    if (brief && s.container) continue;
    // Without parameter types, overloads read as their implementation: it alone is shown.
    if (detail >= 2 && s.decl && record.symbols.some((d) => !d.decl && d.name === s.name && d.container === s.container)) continue;
    while (around.length && (around.at(-1)!.endLine < s.endLine || around.at(-1)!.line > s.line)) around.pop();
    const depth = around.length;
    if (TYPE_KINDS.has(s.kind)) around.push(s);
    const member = s.container !== undefined && s.kind === 'method';
    const sig = shorten(s.kind, s.sig, detail);
    if (sig !== s.sig) shortened = true;
    const glue = sig && (/^(?:[(:[]|<(?!\s))/.test(sig) ? sig : ` ${sig}`);
    // Functions and methods show by their parentheses once space is short; other kinds keep their word.
    const kind = s.accessor ? `${s.accessor} ` : member || (detail && s.kind === 'function') ? '' : `${s.kind} `;
    // A member under its own type needs no prefix; a method elsewhere (Go's, C++'s `Foo::run`) is still shown by its type's methods.
    const short = member || (depth > 0 && s.container === around[depth - 1]!.name);
    out.push(`${'  '.repeat(depth || (member ? 1 : 0))}${s.line} ${kind}${short ? s.name : qualifiedName(s, record.symbols)}${glue}`);
  }
  // A folder's brief outline says it once for all its files.
  if (shortened && !brief) out[0] += ' [signatures shortened to fit; code_symbol shows one in full]';
  return out;
}

/** A signature at a level of detail: capped, then parameters without types, then nothing. */
function shorten(kind: string, sig: string, detail: Detail): string {
  if (detail === 0 || !sig) return sig;
  const callable = kind === 'function' || kind === 'method';
  if (detail === 1) return clipSig(sig, callable ? 80 : 40);
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
      // A parameter property's modifiers are not its name (`constructor(private readonly store: Store)`).
      const name = /^\s*(?:(?:public|private|protected|readonly|override)\s+)*((?:\.\.\.)?\s*[\w$&*]+\??)/.exec(sig.slice(start, i))?.[1]?.trim();
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

const clipSig = (sig: string, max: number): string => (sig.length > max ? `${sig.slice(0, max - 1).trimEnd()}…` : sig);

/** The outline of a single file at the fullest detail that fits its share. */
function fitted(record: FileRecord): string[] {
  const budget = Math.max(OUTLINE_FLOOR, record.size * OUTLINE_SHARE);
  for (const detail of [0, 1, 2] as const) {
    const lines = outlineFile(record, detail);
    if (lines.join('\n').length <= budget) return lines;
  }
  // Names only, and if even they are too many (a header of thousands of constants), the first of them.
  const names = outlineFile(record, 3);
  let used = 0;
  let shown = 0;
  while (shown < names.length && (shown < OUTLINE_MIN_LINES || used + names[shown]!.length + 1 <= budget)) used += names[shown++]!.length + 1;
  return shown === names.length ? names : [...names.slice(0, shown), `[… ${names.length - shown} more symbols not shown; code_search or read_file for the rest]`];
}

/** Said once above a folder's outline that was too long with members and types: every file is so shortened. */
const BRIEF = '[members of classes and other types left out, parameters without types, to fit; code_outline a file for all of it]';

/** Outlines of several files; members left out, and parameters' types, when the whole would be too long. */
export function outlineFiles(records: FileRecord[]): string {
  if (records.length === 1) return fitted(records[0]!).join('\n');
  const full = records.flatMap((r) => outlineFile(r, 1));
  const lines = full.length <= OUTLINE_MAX_LINES ? full : [BRIEF, ...records.flatMap((r) => outlineFile(r, 2, true))];
  if (lines.length <= OUTLINE_MAX_LINES) return lines.join('\n');
  const shown = lines.slice(0, OUTLINE_MAX_LINES);
  const rest = records.filter((r) => !shown.some((l) => l.startsWith(`${r.path} (`)));
  return `${shown.join('\n')}\n[… ${rest.length} more files not shown, ${unshown(records, rest)}; outline them]`;
}

/**
 * The files left out of a folder's outline, named from the folder so the model can ask for them:
 * by the subfolders under it that hold them (by their own folders when all are in one), a file
 * alone by its name.
 */
function unshown(records: FileRecord[], rest: FileRecord[]): string {
  let base = records[0]!.path.slice(0, records[0]!.path.lastIndexOf('/') + 1);
  while (base && !records.every((r) => r.path.startsWith(base))) base = base.slice(0, base.lastIndexOf('/', base.length - 2) + 1);
  const group = (deep: boolean) => {
    const groups = new Map<string, string[]>();
    for (const r of rest) {
      const name = r.path.slice(base.length);
      const key = !name.includes('/') ? name : deep ? name.slice(0, name.lastIndexOf('/') + 1) : name.slice(0, name.indexOf('/') + 1);
      groups.set(key, [...(groups.get(key) ?? []), name]);
    }
    return groups;
  };
  const top = group(false);
  const groups = top.size > 1 ? top : group(true);
  const names = [...groups].slice(0, 20).map(([key, files]) => (files.length === 1 ? files[0]! : `${key} (${files.length} files)`));
  return `in ${base || './'}: ${names.join(', ')}${groups.size > 20 ? ', …' : ''}`;
}

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
  while (from > 1 && /^\s*(\/\/|\/\*|\*|#(?!!)|@|\[)/.test(lines[from - 2] ?? '')) from--;
  const to = Math.min(s.endLine, from + SYMBOL_MAX_LINES - 1, lines.length);
  const body = lines.slice(from - 1, to).map((l, i) => numberLine(l, from + i));
  // A type cut short names the members it did not show, so one can be asked for.
  const rest = s.endLine > to && TYPE_KINDS.has(s.kind) ? (symbols ?? []).filter((m) => m.container === s.name && m.line > to && m.endLine <= s.endLine && !VALUE_KINDS.has(m.kind)) : [];
  const members = rest.length ? `; members not shown: ${rest.slice(0, 40).map((m) => `${m.line} ${m.name}`).join(', ')}${rest.length > 40 ? `, … ${rest.length - 40} more` : ''} (code_symbol ${s.name}.name shows one)` : '';
  const more = s.endLine > to ? [`[… ${s.endLine - to} more lines; read_file ${path} with offset ${to + 1}${members}]`] : [];
  return [`${path}:${s.line}-${s.endLine} ${describeSymbol(s, symbols)}`, ...body, ...more].join('\n');
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
 * (path:line). Uncertain edges are marked and not followed further.
 */
export function refsTree(graph: CallGraph, root: SymRef, direction: 'callers' | 'callees', depth: number, symbolsIn?: SymbolsIn): string {
  const rootSym = graph.symbol(root)!;
  const lines = [`${direction} of ${qualifiedName(rootSym, symbolsIn?.(root.path))} (${root.path}:${rootSym.line}):`];
  const seen = new Set([`${root.path}#${root.index}`]);
  let cut = 0;
  let cutUncertain = 0;
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
  if (lines.length === 1) lines.push(direction === 'callers' ? `  no call sites found in the index${property}` : '  no calls into indexed code');
  if (cut) lines.push(`[… ${cut} more call sites not shown${cutUncertain ? `, ${cutUncertain === cut ? 'all' : cutUncertain} uncertain` : ''}${depth > 1 ? '; ask for depth 1' : ''}]`);
  return lines.join('\n');
}
