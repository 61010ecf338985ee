// code_search over a ready index: BM25F over symbol chunks and an exact identifier channel
// (ripgrep, whole words, case-sensitive) fused by reciprocal rank fusion, then one hop of the call
// graph from the top hits; results grouped by file, each a definition line and one line of context.
// Must not refresh the index or decide what happens before it is ready (the tool does).

import { CERTAIN, type SymRef } from './graph.js';
import type { CodeIndex } from './engine.js';
import { parseRgLines, runRg } from './files.js';
import { describeSymbol, qualifiedName, type SymbolRecord } from './model.js';
import { identifiersOf, tokenize } from './tokenize.js';
import { clipLine } from '../util/text.js';

/** Reciprocal rank fusion's constant (Cormack, Clarke & Büttcher 2009). */
const RRF_K = 60;
/** Neighbours found through the call graph count for half a channel: they share no words with the query. */
const GRAPH_WEIGHT = 0.5;
/** How many of the top hits the call graph expands, one hop each way. */
const EXPAND = 5;
const CHANNEL_DEPTH = 100;

/** A hit: a symbol of a file (sym -1: the file's top-level code), or a line of a file the index does not cover. */
export type Hit = { path: string; sym: number; line?: number; score: number; via?: string };

const keyOf = (h: { path: string; sym: number; line?: number }): string => (h.sym === -2 ? `${h.path}:${h.line}` : `${h.path}#${h.sym}`);

/** The ranked hits for `query`, best first. */
export async function rankHits(index: CodeIndex, query: string, limit: number, signal?: AbortSignal): Promise<Hit[]> {
  const lexical = index.bm25
    .search(tokenize(query), CHANNEL_DEPTH)
    .map((h) => ({ ...index.owners[h.doc]!, score: h.score }))
    .filter((h) => !index.pending.has(h.path));
  const exact = await exactChannel(index, identifiersOf(query), signal);
  const fused = new Map<string, Hit>();
  const add = (list: Hit[], weight: number, via?: string) =>
    list.forEach((h, rank) => {
      const key = keyOf(h);
      const prev = fused.get(key);
      const score = weight / (RRF_K + rank + 1);
      if (prev) prev.score += score;
      else fused.set(key, { path: h.path, sym: h.sym, line: h.line, score, via: via && h.via });
    });
  add(lexical, 1);
  add(exact, 1);
  const top = [...fused.values()].sort(byScore).slice(0, EXPAND);
  add(neighbours(index, top), GRAPH_WEIGHT, 'graph');
  return [...fused.values()].sort(byScore).slice(0, limit);
}

const byScore = (a: Hit, b: Hit) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.sym - b.sym);

/**
 * Where the query's identifiers occur as whole words, as the chunks holding them: a definition of
 * the identifier first, then chunks by how many of the identifiers they hold. Lines of files the
 * index does not cover (docs, configuration) come as lines.
 */
async function exactChannel(index: CodeIndex, identifiers: string[], signal?: AbortSignal): Promise<Hit[]> {
  if (!identifiers.length || !index.rg) return [];
  const out = await runRg(index.rg, index.root, ['--fixed-strings', '--word-regexp', '--line-number', '--no-heading', '--with-filename', '--null', '--color', 'never', '--max-count', '50', '--max-columns', '300', ...identifiers.flatMap((id) => ['-e', id])], signal);
  if (!out) return [];
  const found = new Map<string, { hit: Hit; ids: Set<string>; defines: boolean }>();
  for (const m of parseRgLines(out)) {
    if (index.pending.has(m.path)) continue;
    const record = index.store.get(m.path)?.record;
    const sym = record ? innermost(record.symbols, m.line) : -2;
    const hit: Hit = sym === -2 ? { path: m.path, sym, line: m.line, score: 0 } : { path: m.path, sym, score: 0 };
    const key = keyOf(hit);
    const entry = found.get(key) ?? { hit, ids: new Set<string>(), defines: false };
    found.set(key, entry);
    for (const id of identifiers) {
      if (!new RegExp(`(?<![\\w$])${id.replace(/[$]/g, '\\$')}(?![\\w$])`).test(m.text)) continue;
      entry.ids.add(id);
      const s = sym >= 0 ? record!.symbols[sym]! : undefined;
      if (s && s.name === id && s.line === m.line) entry.defines = true;
    }
  }
  // Non-source lines rank below code that holds as many identifiers.
  const rank = (e: { hit: Hit; ids: Set<string>; defines: boolean }) => (e.defines ? 100 : 0) + e.ids.size * 2 + (e.hit.sym === -2 ? 0 : 1);
  return [...found.values()].sort((a, b) => rank(b) - rank(a) || (a.hit.path < b.hit.path ? -1 : a.hit.path > b.hit.path ? 1 : 0)).slice(0, CHANNEL_DEPTH).map((e) => e.hit);
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

/** The certain callers and callees of the top hits, ordered by the rank of the hit they hang off. */
function neighbours(index: CodeIndex, top: Hit[]): Hit[] {
  const out: Hit[] = [];
  for (const hit of top) {
    if (hit.sym < 0) continue;
    const ref: SymRef = { path: hit.path, index: hit.sym };
    const name = qualifiedName(index.store.get(hit.path)!.record.symbols[hit.sym]!);
    for (const e of index.graph.calleesOf(ref)) {
      if (!CERTAIN.has(e.how)) continue;
      for (const t of e.targets) out.push({ path: t.path, sym: t.index, score: 0, via: `called by ${name}` });
    }
    for (const e of index.graph.callersOf(ref)) {
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
    const record = index.store.get(path)?.record;
    for (const hit of hits.filter((h) => h.path === path)) {
      if (hit.sym === -2) {
        lines.push(`${path}:${hit.line} ${clipLine(fileLines[hit.line! - 1]?.trim() ?? '')}`);
        continue;
      }
      const s = hit.sym >= 0 ? record?.symbols[hit.sym] : undefined;
      const context = bestLine(fileLines, s ? s.line : 1, s ? s.endLine : fileLines.length, terms, s?.line);
      const line = s ? s.line : (context?.line ?? 1);
      lines.push(`${path}:${line} ${s ? describeSymbol(s) : 'top-level code'}${hit.via ? ` [${hit.via}]` : ''}`);
      const shown = context && context.line !== line ? context.text : s?.doc;
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
