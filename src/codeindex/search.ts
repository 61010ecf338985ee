// code_search over a ready index: BM25F over symbol chunks and an exact identifier channel
// (ripgrep, whole words, case-sensitive) fused by reciprocal rank fusion, then one hop of the call
// graph from the top hits; results grouped by file, each a definition line and one line of context.
// Must not refresh the index or decide what happens before it is ready (the tool does).

import { CERTAIN, type SymRef } from './graph.js';
import type { CodeIndex } from './engine.js';
import { isTestPath, parseRgLines, runRg } from './files.js';
import { describeSymbol, qualifiedName, type SymbolRecord } from './model.js';
import { identifiersOf, tokenize } from './tokenize.js';
import { clipLine } from '../util/text.js';

/** Reciprocal rank fusion's constant (Cormack, Clarke & Büttcher 2009). */
const RRF_K = 60;
/** A neighbour through the call graph scores this fraction of the hit it hangs off. */
const GRAPH_DECAY = 0.5;
/** How many of the top hits the call graph expands, one hop each way. */
const EXPAND = 5;
/**
 * A hit whose name is called from more places than this is a hub (render, get, parse): its
 * callers say little about the query, would crowd the list, and cost a resolution each.
 */
const HUB_SITES = 40;
const CHANNEL_DEPTH = 100;
/** Tests rank a little below the code they test (a fifth off their fused score). */
const TEST_FACTOR = 0.8;

/** A hit: a symbol of a file (sym -1: the file's top-level code), or a line of a file the index does not cover. */
export type Hit = { path: string; sym: number; line?: number; score: number; via?: string };

const keyOf = (h: { path: string; sym: number; line?: number }): string => (h.sym === -2 ? `${h.path}:${h.line}` : `${h.path}#${h.sym}`);

/** The ranked hits for `query`, best first; the query's identifiers found nowhere in the workspace are added to `absent`. */
export async function rankHits(index: CodeIndex, query: string, limit: number, signal?: AbortSignal, absent: string[] = []): Promise<Hit[]> {
  const terms = tokenize(query);
  const chunks = index.data.bm25
    .search(terms, CHANNEL_DEPTH * 4)
    .map((h) => ({ ...index.data.owners[h.doc]!, score: h.score }))
    .filter((h) => !index.pending.has(h.path));
  // Whole files: evidence spread over a file counts too. Each file stands for its best chunk.
  const bestChunk = new Map<string, Hit>();
  for (const h of chunks) if (!bestChunk.has(h.path)) bestChunk.set(h.path, h);
  const files = index.data.fileBm25
    .search(terms, CHANNEL_DEPTH)
    .map((h) => index.data.fileOwners[h.doc]!)
    .filter((path) => !index.pending.has(path))
    .map((path): Hit => bestChunk.get(path) ?? { path, sym: -1, score: 0 });
  const identifiers = identifiersOf(query);
  const exact = await exactChannel(index, identifiers, absent, signal);
  const fused = new Map<string, Hit>();
  const add = (list: Hit[], weight: number, via?: string) =>
    list.forEach((h, rank) => {
      const key = keyOf(h);
      const prev = fused.get(key);
      const score = weight / (RRF_K + rank + 1);
      if (prev) prev.score += score;
      else fused.set(key, { path: h.path, sym: h.sym, line: h.line, score, via: via && h.via });
    });
  add(chunks.slice(0, CHANNEL_DEPTH), 1);
  add(files, 1);
  add(exact, 1);
  // A query of identifiers alone asks where they are: their occurrences come before code that
  // only shares words with them (the parts of an identifier nothing defines match a lot).
  if (identifiers.length && query.trim().split(/\s+/).every((w) => identifiersOf(w).length > 0)) {
    for (const h of exact) fused.get(keyOf(h))!.score += 1;
  }
  // A query describes behaviour: the code that has it comes before the tests that check it.
  for (const hit of fused.values()) if (isTestPath(hit.path)) hit.score *= TEST_FACTOR;
  // One hop of the call graph from the top hits adds what they call and what calls them, each
  // ranked just under the hit it hangs off; it never lifts a hit found on its own.
  for (const parent of [...fused.values()].sort(byScore).slice(0, EXPAND)) {
    for (const n of neighbours(index, parent)) if (!fused.has(keyOf(n))) fused.set(keyOf(n), { ...n, score: parent.score * GRAPH_DECAY });
  }
  return [...fused.values()].sort(byScore).slice(0, limit);
}

const byScore = (a: Hit, b: Hit) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.sym - b.sym);

/**
 * The chunks holding the query's identifiers whole (multi-part ones: `fooBar`, `foo_bar`; a
 * single word is the lexical channel's), definitions of an identifier first, then by how many of
 * them a chunk holds. Identifiers the index does not hold at all are looked for with ripgrep in
 * every file, so configuration and documents are found too.
 */
async function exactChannel(index: CodeIndex, identifiers: string[], absent: string[], signal?: AbortSignal): Promise<Hit[]> {
  const found = new Map<string, { hit: Hit; ids: number; defines: boolean; tf: number }>();
  const missing: string[] = [];
  for (const id of identifiers) {
    const term = id.toLowerCase();
    if (tokenize(id).length < 2) continue;
    const docs = index.data.bm25.holding(term);
    if (!docs.length) missing.push(id);
    for (const { doc, tf } of docs) {
      const owner = index.data.owners[doc]!;
      if (index.pending.has(owner.path)) continue;
      const hit: Hit = { path: owner.path, sym: owner.sym, score: 0 };
      const key = keyOf(hit);
      const entry = found.get(key) ?? { hit, ids: 0, defines: false, tf: 0 };
      found.set(key, entry);
      entry.ids++;
      entry.tf += tf & 1023;
      const s = owner.sym >= 0 ? index.data.files.get(owner.path)?.record.symbols[owner.sym] : undefined;
      if (s?.name === id) entry.defines = true;
    }
  }
  if (missing.length && index.rg) absent.push(...(await ripgrepLines(index, missing, found, signal)));
  const rank = (e: { ids: number; defines: boolean; tf: number }) => (e.defines ? 1e6 : 0) + e.ids * 1e3 + Math.min(e.tf, 999);
  return [...found.values()].sort((a, b) => rank(b) - rank(a) || byScore(a.hit, b.hit)).slice(0, CHANNEL_DEPTH).map((e) => e.hit);
}

/** Adds ripgrep's whole-word matches of `ids` (files the index does not cover come as lines); returns the ids that occur nowhere. */
async function ripgrepLines(index: CodeIndex, ids: string[], found: Map<string, { hit: Hit; ids: number; defines: boolean; tf: number }>, signal?: AbortSignal): Promise<string[]> {
  const out = await runRg(index.rg, index.root, ['--fixed-strings', '--word-regexp', '--line-number', '--no-heading', '--with-filename', '--null', '--color', 'never', '--max-count', '20', '--max-columns', '300', ...ids.flatMap((id) => ['-e', id])], signal);
  const lines = parseRgLines(out ?? '');
  for (const m of lines) {
    if (index.pending.has(m.path)) continue;
    const record = index.data.files.get(m.path)?.record;
    const sym = record ? innermost(record.symbols, m.line) : -2;
    const hit: Hit = sym === -2 ? { path: m.path, sym, line: m.line, score: 0 } : { path: m.path, sym, score: 0 };
    const entry = found.get(keyOf(hit)) ?? { hit, ids: 0, defines: false, tf: 0 };
    found.set(keyOf(hit), entry);
    entry.ids++;
    entry.tf++;
  }
  // Said only when ripgrep ran and no line it printed could hold the id (a long line is left out).
  if (out === null || signal?.aborted) return [];
  return ids.filter((id) => !lines.some((m) => m.text.includes(id) || m.text.startsWith('[Omitted long line')));
}

/** The index of the smallest symbol (with a body) around `line`, or -1 for top-level code. */
export function innermost(symbols: SymbolRecord[], line: number): number {
  let best = -1;
  symbols.forEach((s, i) => {
    if (s.decl || line < s.line || line > s.endLine) return;
    if (best < 0 || s.endLine - s.line <= symbols[best]!.endLine - symbols[best]!.line) best = i;
  });
  return best;
}

/** The certain callees and callers of one hit (a symbol), each once. */
function neighbours(index: CodeIndex, hit: Hit): Hit[] {
  if (hit.sym < 0) return [];
  const ref: SymRef = { path: hit.path, index: hit.sym };
  const symbol = index.data.files.get(hit.path)!.record.symbols[hit.sym]!;
  const name = qualifiedName(symbol, index.data.files.get(hit.path)!.record.symbols);
  const out: Hit[] = [];
  for (const e of index.data.graph.calleesOf(ref)) {
    if (CERTAIN.has(e.how)) for (const t of e.targets) out.push({ path: t.path, sym: t.index, score: 0, via: `called by ${name}` });
  }
  if (index.data.graph.siteCount(symbol.name) <= HUB_SITES) {
    for (const e of index.data.graph.callersOf(ref)) {
      if (CERTAIN.has(e.how) && e.caller >= 0) out.push({ path: e.path, sym: e.caller, score: 0, via: `calls ${name}` });
    }
  }
  const seen = new Set<string>();
  return out.filter((h) => !index.pending.has(h.path) && !seen.has(keyOf(h)) && seen.add(keyOf(h)));
}

// ---------------------------------------------------------------------------------------------
// Presentation

/** Hits grouped by file (files in the order of their best hit), each `path:line kind name(sig)` and a line of context. */
export function formatHits(index: CodeIndex, hits: Hit[], query: string): string {
  const order = [...new Set(hits.map((h) => h.path))];
  const terms = [...new Set(tokenize(query))].filter((t) => t.length > 2);
  const lines: string[] = [];
  for (const path of order) {
    const fileLines = index.text(path)?.split('\n') ?? [];
    const record = index.data.files.get(path)?.record;
    for (const hit of hits.filter((h) => h.path === path)) {
      if (hit.sym === -2) {
        lines.push(`${path}:${hit.line} ${clipLine(fileLines[hit.line! - 1]?.trim() ?? '')}`);
        continue;
      }
      const s = hit.sym >= 0 ? record?.symbols[hit.sym] : undefined;
      const context = bestLine(fileLines, s ? s.line : 1, s ? s.endLine : fileLines.length, terms, s?.line);
      const line = s ? s.line : (context?.line ?? 1);
      lines.push(`${path}:${line} ${s ? describeSymbol(s, record?.symbols) : 'top-level code'}${hit.via ? ` [${hit.via}]` : ''}`);
      const shown = context && (context.line !== line || !s) ? context.text : s?.doc;
      if (shown) lines.push(`  ${clipLine(shown)}`);
    }
  }
  return lines.join('\n');
}

/**
 * The line of [from, to] that holds the most query terms (as substrings of the lower-cased line:
 * terms are stems, and identifiers hold them inside), else the first line with content after `from`.
 */
function bestLine(lines: string[], from: number, to: number, terms: string[], skip?: number): { line: number; text: string } | undefined {
  let best: { line: number; text: string; n: number } | undefined;
  const last = Math.min(to, from + 400, lines.length);
  for (let l = from; l <= last; l++) {
    if (l === skip) continue;
    const lower = lines[l - 1]!.toLowerCase();
    let n = 0;
    for (const t of terms) if (lower.includes(t)) n++;
    if (n && (!best || n > best.n)) best = { line: l, text: lines[l - 1]!.trim(), n };
  }
  if (best) return best;
  for (let l = from + 1; l <= last; l++) {
    const text = lines[l - 1]?.trim();
    if (text && !/^[{}()[\];,]*$/.test(text)) return { line: l, text };
  }
  return undefined;
}
