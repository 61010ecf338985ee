// The four tools the code index gives the model: code_search, code_outline, code_refs and
// code_symbol. Each checks the disk first (so no result describes a stale file) and, when the
// index is not ready or cannot answer, falls back to ripgrep or to parsing on demand and says so.
// Must not print or keep state of its own.

import { realpath } from 'node:fs/promises';
import { inside, openForRead, relPath, resolveInWorkspace, versionOf } from '../util/paths.js';
import { clipLine } from '../util/text.js';
import { toolError, type Tool, type ToolContext, type ToolOutput } from '../types/tools.js';
import type { CodeIndex } from './engine.js';
import { callLines, ON_DEMAND_FILES, parseNow, recordsMentioning, textSearch } from './fallback.js';
import { listWorkspace, skipReason } from './files.js';
import { TYPE_KINDS } from './languages.js';
import type { SymRef } from './graph.js';
import { describeSymbol, fullName, qualifiedName, type FileRecord } from './model.js';
import { formatHits, innermost, rankHits } from './search.js';
import { outlineFiles, placeOf, refsTree, symbolSource } from './views.js';

/** Why the index cannot answer now, as the first line of a fallback's output; null when it can. */
function notReady(index: CodeIndex): string | null {
  switch (index.state) {
    case 'ready': return null;
    case 'failed': return 'the code index failed to build';
    default: return `the code index is still building (${index.progress.done} of ${index.progress.total || '?'} files)`;
  }
}

type SearchArgs = { query: string; limit?: number };

async function runSearch(index: CodeIndex, args: SearchArgs, ctx: ToolContext): Promise<ToolOutput> {
  if (typeof args.query !== 'string' || !args.query.trim()) return toolError('query is empty');
  const limit = Math.min(30, Math.max(1, Math.floor(Number(args.limit) || 10)));
  const why = notReady(index);
  if (why) return { output: `[${why}; these are ripgrep matches, files ranked by how many query words they hold]\n${await textSearch(index.rg, ctx.root, args.query, limit, ctx.signal)}` };
  await index.refresh();
  let absent: string[] = [];
  let hits = await rankHits(index, args.query, limit, ctx.signal, absent);
  // A change the watch has not reported yet: indexed now, and the query run again.
  if (await index.recheck(hits.map((h) => h.path))) hits = await rankHits(index, args.query, limit, ctx.signal, (absent = []));
  const pending = index.pending.size ? `[${index.pending.size} changed files are being re-indexed and are not in these results]\n` : '';
  if (!hits.length) return { output: `${pending}No code matches ${args.query}`, summary: { key: 'matches', n: 0 } };
  // A name the model expects to exist and that does not: the hits only share words with it.
  const nowhere = absent.length ? `[${absent.join(', ')} ${absent.length > 1 ? 'occur' : 'occurs'} nowhere in the workspace; these share words with the query]\n` : '';
  return { output: pending + nowhere + formatHits(index, hits, args.query), summary: { key: 'matches', n: hits.length } };
}

async function runOutline(index: CodeIndex, args: { path: string }, ctx: ToolContext): Promise<ToolOutput> {
  // The state when the call came, so what it says about readiness is what it did.
  const ready = index.state === 'ready';
  const r = await resolveInWorkspace(ctx.root, args.path || '.');
  if (!r.ok) return toolError(r.error);
  const rel = relPath(ctx.root, r.real);
  if (!r.exists) return toolError(`${rel} does not exist`);
  if (ready) await index.refresh();
  if (!r.isDir) {
    const reason = skipReason(rel);
    if (reason === 'not_source') return toolError(`${rel} is not a source file the code index parses; read it with read_file`);
    const record = (ready && index.data.files.get(rel)?.record) || (await parseNow(ctx.root, [rel]))[0];
    if (!record) return toolError(`${rel} could not be read`);
    return { output: outlineFiles([record]) };
  }
  const prefix = rel === '.' ? '' : `${rel}/`;
  if (ready) {
    const records = [...index.data.files.values()].map((e) => e.record).filter((rec) => rec.path.startsWith(prefix)).sort((a, b) => (a.path < b.path ? -1 : 1));
    if (!records.length) return toolError(`no indexed source files under ${rel}`);
    return { output: outlineFiles(records, prefix) };
  }
  const listed = (await listWorkspace(ctx.root, index.rg)).files.filter((p) => p.startsWith(prefix));
  if (!listed.length) return toolError(`no source files under ${rel}`);
  const records = await parseNow(ctx.root, listed.slice(0, ON_DEMAND_FILES));
  const more = listed.length > ON_DEMAND_FILES ? `\n[… ${listed.length - ON_DEMAND_FILES} more files; outline a subfolder]` : '';
  return { output: `[${notReady(index)}; these files were parsed now]\n${outlineFiles(records, prefix)}${more}` };
}

/** A symbol as the model names it: `name`, `Class.method`, `path:name` or `path:line`. */
type SymbolQuery = { path?: string; container?: string; name: string; line?: number; qualified?: string };

function parseSymbol(spec: string): SymbolQuery {
  const at = /^(.+?\.[\w]+):(?!:)(.+)$/.exec(spec.trim());
  const path = at?.[1];
  const rest = (at?.[2] ?? spec).trim();
  if (/^\d+$/.test(rest)) return { path, name: '', line: Number(rest) };
  const parts = rest.split(/\.|::|#/).filter(Boolean);
  // `Outer.Inner.method`: Inner is the container; the whole path and the symbol's must agree as far as both go.
  return { path, name: parts.at(-1) ?? rest, container: parts.length > 1 ? parts.at(-2) : undefined, qualified: parts.length > 2 ? parts.join('.') : undefined };
}

/** The symbols `q` names among `records`. */
function matchSymbols(records: FileRecord[], q: SymbolQuery): SymRef[] {
  const refs: SymRef[] = [];
  for (const rec of records) {
    if (q.path && rec.path !== q.path) continue;
    if (q.line !== undefined) {
      const i = innermost(rec.symbols, q.line);
      if (i >= 0) refs.push({ path: rec.path, index: i });
      continue;
    }
    rec.symbols.forEach((s, index) => {
      if (s.name !== q.name || (q.container && s.container !== q.container)) return;
      // Either may say more than the other: `Net::HTTP#get` of `HTTP.get` in `module Net`, `java.util.HashMap.resize`.
      const full = q.qualified && fullName(s, rec.symbols);
      if (!full || full === q.qualified || full.endsWith(`.${q.qualified}`) || q.qualified!.endsWith(`.${full}`)) refs.push({ path: rec.path, index });
    });
  }
  // Definitions before declarations (an interface's method, a prototype).
  const byPath = new Map(records.map((r) => [r.path, r]));
  return refs.sort((a, b) => Number(byPath.get(a.path)!.symbols[a.index]!.decl ?? false) - Number(byPath.get(b.path)!.symbols[b.index]!.decl ?? false));
}

/**
 * Why a member `q` asks for is not there, when the index can tell: a member its type does not
 * define itself (an interface's, a field, an inherited method). '' if not.
 */
function whyMissing(index: CodeIndex, q: SymbolQuery): string {
  // A member that exists under other outer names (Other._Section.__init__) is no missing one.
  if (!q.container || index.state !== 'ready' || index.data.graph.members(q.container, q.name).length) return '';
  const types = index.data.graph.definitions(q.container).filter((r) => TYPE_KINDS.has(index.data.graph.symbol(r)?.kind ?? 'const'));
  if (!types.length) return '';
  const t = index.data.graph.symbol(types[0]!)!;
  const where = `${t.kind} ${q.container} (${types[0]!.path}:${t.line}${types.length > 1 ? ` and ${types.length - 1} more` : ''})`;
  // A TypeScript interface's members are not symbols of their own; a class's fields are none either.
  if (t.kind === 'interface' && /^(?:typescript|tsx)$/.test(index.data.files.get(types[0]!.path)?.record.lang ?? '')) return `${where}: its members are not symbols of their own; code_symbol ${q.container} shows them`;
  const base = /\bextends\s+([\w$.]+)/.exec(t.sig)?.[1];
  return `${where} has no method ${q.name} of its own (fields are no symbols)${base ? `; it extends ${base}: try ${base}.${q.name}` : ''}; code_symbol ${q.container} shows its source`;
}

/**
 * `Effect.gen`, `Option.map` as TypeScript code writes a namespace import's member: when no type
 * named so has the member, the module of that name (Effect.ts, option/index.ts) is looked in.
 */
async function inModule(index: CodeIndex, q: SymbolQuery, found: { records: FileRecord[]; note: string }): Promise<{ records: FileRecord[]; note: string }> {
  if (!q.container || q.qualified || q.path || index.state !== 'ready' || matchSymbols(found.records, q).length) return found;
  const named = (p: string) => new RegExp(`(?:^|/)${q.container!.replace(/[$]/g, '\\$')}(?:/index)?\\.[cm]?[jt]sx?$`, 'i').test(p);
  const paths = [...index.data.files.keys()].filter(named);
  await index.recheck(paths);
  const records = paths.flatMap((p) => index.data.files.get(p)?.record ?? []);
  const members = records.filter((r) => r.symbols.some((s) => s.name === q.name && !s.container));
  if (!members.length) return found;
  q.container = undefined;
  return { records: members, note: found.note };
}

/** Why `q` (asked as `spec`) names nothing, so that the next call can do better: no such file, a line past its end or in top-level code, an unknown name. */
function notFound(index: CodeIndex, spec: string, q: SymbolQuery, records: FileRecord[]): string {
  const record = q.path ? records.find((r) => r.path === q.path) : undefined;
  if (q.path && !record) return `${q.path} is no source file the index has; code_search or read_file`;
  if (!record || q.line === undefined) {
    // Asked with an owner that has none of its own (Path.stem is PurePath's): where the name is.
    const named = q.line === undefined ? records.flatMap((r) => r.symbols.filter((s) => s.name === q.name).map((s) => `${r.path}:${s.line} ${qualifiedName(s, r.symbols)}`)) : [];
    // What its owner is and why it has no such member (an interface's, a field, an inherited method).
    const why = whyMissing(index, q);
    const is = named.length ? `${q.name} is: ${named.slice(0, 5).join(', ')}${named.length > 5 ? `, … ${named.length - 5} more` : ''}` : '';
    if (why) return `no symbol ${spec} found: ${why}${is ? `; ${is}` : ''}`;
    if (is) return `no symbol ${spec} found; ${is}`;
    return `no symbol ${spec} found${q.path ? ` in ${q.path}` : ''}; try code_search`;
  }
  if (q.line < 1 || q.line > record.lines) return `${q.path} has ${record.lines} lines`;
  const before = record.symbols.filter((s) => s.line <= q.line!).at(-1);
  const after = record.symbols.find((s) => s.line > q.line!);
  const near = before ?? after;
  const where = near ? `the ${near === before ? 'one before' : 'next'} is ${q.path}:${near.line} ${qualifiedName(near, record.symbols)}` : 'the file has none';
  return `${q.path}:${q.line} is in no symbol (top-level code); ${where}; read_file shows the line`;
}

/** The records that may hold `q`, from the index when ready, else parsed now. Also says which. */
async function candidates(index: CodeIndex, q: SymbolQuery, ctx: ToolContext): Promise<{ records: FileRecord[]; note: string }> {
  // A path as the model may write it: from the workspace's root, with ./ before it, or its end only (stream.ts).
  if (q.path) q.path = q.path.replace(/^\.\//, '').replace(`${ctx.root}/`, '');
  if (index.state === 'ready') {
    await index.refresh();
    if (q.path && !index.data.files.has(q.path)) {
      // The end of a path: any file it ends may hold the symbol.
      const ends = [...index.data.files.keys()].filter((p) => p.endsWith(`/${q.path}`));
      // notFound() says that the index has no such file.
      if (!ends.length) return { records: [], note: '' };
      await index.recheck(ends);
      q.path = undefined;
      return { records: ends.flatMap((p) => index.data.files.get(p)?.record ?? []), note: '' };
    }
    const paths = () => (q.path ? [q.path] : [...new Set(index.data.graph.definitions(q.name).map((r) => r.path))]);
    await index.recheck(paths());
    return { records: paths().flatMap((p) => index.data.files.get(p)?.record ?? []), note: '' };
  }
  const why = notReady(index);
  const records = q.path ? await parseNow(ctx.root, [q.path]) : await recordsMentioning(index.rg, ctx.root, q.name, ctx.signal);
  return { records, note: `[${why}; found by parsing the files that mention it]\n` };
}

async function runSymbol(index: CodeIndex, args: { name: string }, ctx: ToolContext): Promise<ToolOutput> {
  if (typeof args.name !== 'string' || !args.name.trim()) return toolError('name is empty');
  const q = parseSymbol(args.name);
  const { records, note } = await candidates(index, q, ctx).then((c) => inModule(index, q, c));
  const refs = matchSymbols(records, q);
  if (!refs.length) return toolError(note + notFound(index, args.name, q, records));
  const byPath = new Map(records.map((r) => [r.path, r]));
  const symbolOf = (r: SymRef) => byPath.get(r.path)!.symbols[r.index]!;
  // One definition is shown with its declarations (overloads, an interface's method, a prototype)
  // left aside; several are listed, and so are several declarations when nothing defines them.
  const defined = refs.filter((r) => !symbolOf(r).decl);
  const choices = defined.length ? defined : refs;
  // A getter and its setter are one property: both are shown.
  const [a, b] = choices.map(symbolOf);
  const property = choices.length === 2 && a!.accessor && b!.accessor && choices[0]!.path === choices[1]!.path && a!.container === b!.container;
  if (choices.length > 1 && !property) {
    // Each with its owner and signature: overloads, or __init__ in 880 classes, differ by nothing else.
    const list = choices.slice(0, 20).map((r) => {
      const s = symbolOf(r);
      const described = describeSymbol(s, byPath.get(r.path)!.symbols);
      return `${r.path}:${s.line} ${clipLine(s.accessor ? described.replace(/^\S+/, s.accessor) : described, 120)}`;
    });
    const more = choices.length > 20 ? [`[… ${choices.length - 20} more]`] : [];
    return toolError(`${note}${choices.length} symbols match ${args.name}; name one as path:line:\n${[...list, ...more].join('\n')}`);
  }
  const ref = choices[0]!;
  const real = await realpath(`${ctx.root}/${ref.path}`).catch(() => null);
  if (!real || !inside(ctx.root, real)) return toolError(`${ref.path} is gone`);
  // Read as read_file reads: the open file checked (no link swapped in, not hard-linked elsewhere).
  const opened = await openForRead(ctx.root, real, ref.path);
  if ('error' in opened) return toolError(opened.error);
  const bytes = await opened.fh.readFile().finally(() => opened.fh.close());
  // Showing a symbol is reading that part of the file: its version is recorded as read_file records it.
  ctx.files.set(real, versionOf(bytes, opened.st));
  const text = bytes.toString('utf8');
  return { output: note + choices.map((r) => symbolSource(ref.path, symbolOf(r), text, byPath.get(ref.path)!.symbols)).join('\n') };
}

type RefsArgs = { symbol: string; direction: 'callers' | 'callees'; depth?: number };

async function runRefs(index: CodeIndex, args: RefsArgs, ctx: ToolContext): Promise<ToolOutput> {
  if (typeof args.symbol !== 'string' || !args.symbol.trim()) return toolError('symbol is empty');
  if (args.direction !== 'callers' && args.direction !== 'callees') return toolError('direction must be callers or callees');
  const depth = Math.min(3, Math.max(1, Math.floor(Number(args.depth) || 1)));
  const q = parseSymbol(args.symbol);
  const why = notReady(index);
  if (why) {
    if (args.direction === 'callees' || !q.name) return toolError(`${why}; the call graph is not available yet — use code_symbol and read the calls`);
    return { output: `[${why}; these are lines that call ${q.name}( by text, not resolved]\n${await callLines(index.rg, ctx.root, q.name, ctx.signal)}` };
  }
  const { records, note } = await candidates(index, q, ctx).then((c) => inModule(index, q, c));
  const symbolsIn = (path: string) => index.data.files.get(path)?.record.symbols;
  const found = matchSymbols(records, q);
  // An overload's edges are its implementation's (calls resolve to the body): it is not another definition.
  const sym = (r: SymRef) => symbolsIn(r.path)![r.index]!;
  const overload = (r: SymRef) => sym(r).decl && found.some((d) => d.path === r.path && !sym(d).decl && sym(d).name === sym(r).name && sym(d).container === sym(r).container);
  const refs = found.filter((r) => !overload(r));
  if (!refs.length) return toolError(note + notFound(index, args.symbol, q, records));
  // Definitions a call reaches only by name share their callers: an uncertain call site is listed
  // under the first definition it may reach, and counted under the others.
  const listed = new Set<string>();
  const shown = refs.slice(0, 3).map((r) => refsTree(index.data.graph, r, args.direction, depth, symbolsIn, listed));
  const more = refs.length > 3 ? [`[… ${refs.length - 3} more definitions of ${args.symbol}: ${refs.slice(3, 10).map((r) => placeOf(index.data.graph, r, symbolsIn)).join('; ')}${refs.length > 10 ? '; …' : ''}]`] : [];
  return { output: [...shown, ...more].join('\n\n') };
}

/** The four tools, reading `current()` at each call (a rebuild swaps the index). */
export function codeTools(current: () => CodeIndex): Tool[] {
  return [
    {
      name: 'code_search',
      brief: 'definitions matching words or identifiers, ranked',
      description: 'Find code by words or identifiers: ranked definitions grouped by file, each path:line kind name(signature) with a line of context.',
      parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', description: 'Default 10' } }, required: ['query'], additionalProperties: false },
      kind: 'read',
      describe: (a: SearchArgs) => ({ title: String(a.query ?? '') }),
      run: (args: SearchArgs, ctx: ToolContext) => runSearch(current(), args, ctx),
    },
    {
      name: 'code_outline',
      brief: 'signatures of a file or folder, with lines',
      description: "A file's or folder's signatures with line numbers, without bodies.",
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      kind: 'read',
      describe: (a: { path: string }) => ({ title: String(a.path ?? '.'), path: typeof a.path === 'string' ? a.path : undefined }),
      run: (args: { path: string }, ctx: ToolContext) => runOutline(current(), args, ctx),
    },
    {
      name: 'code_refs',
      brief: 'callers or callees of a function',
      description: 'Call-graph edges (path:line) of a function: its callers or callees, depth 1-3. Uncertain edges are marked.',
      parameters: {
        type: 'object',
        properties: { symbol: { type: 'string', description: 'name, Class.method or path:name' }, direction: { enum: ['callers', 'callees'] }, depth: { type: 'integer' } },
        required: ['symbol', 'direction'],
        additionalProperties: false,
      },
      kind: 'read',
      describe: (a: RefsArgs) => ({ title: `${String(a.direction ?? '')} ${String(a.symbol ?? '')}`.trim() }),
      run: (args: RefsArgs, ctx: ToolContext) => runRefs(current(), args, ctx),
    },
    {
      name: 'code_symbol',
      brief: "a symbol's full source",
      description: "One symbol's full source, numbered. Counts as reading that part of the file.",
      parameters: { type: 'object', properties: { name: { type: 'string', description: 'name, Class.method, path:name or path:line' } }, required: ['name'], additionalProperties: false },
      kind: 'read',
      describe: (a: { name: string }) => ({ title: String(a.name ?? '') }),
      run: (args: { name: string }, ctx: ToolContext) => runSymbol(current(), args, ctx),
    },
  ];
}
