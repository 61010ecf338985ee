// Answers without the index, for when it is not ready or cannot help: a ripgrep word search
// ranked by how many query words a file holds, call-like lines found by ripgrep, and records of a
// few files parsed on demand. Always says so in the output. Must not touch the index itself.

import { searchWithJs } from '../tools/find.js';
import { parseRgLines, runRg, skipReason, type RgLine } from './files.js';
import { languageOf } from './languages.js';
import type { FileRecord } from './model.js';
import { parseJob } from './parsefile.js';
import { identifiersOf } from './tokenize.js';
import { clipLine } from '../util/text.js';

/** Files parsed on demand at most, so a fallback stays quick. */
export const ON_DEMAND_FILES = 40;

/** Lines of `rg` (or of the plain-JS search when ripgrep is missing) for `words` as whole words. */
async function wordLines(rgPath: string, root: string, words: string[], ignoreCase: boolean, signal?: AbortSignal): Promise<RgLine[]> {
  if (!words.length) return [];
  if (rgPath) {
    const args = ['--fixed-strings', '--word-regexp', '--line-number', '--no-heading', '--with-filename', '--null', '--color', 'never', '--max-count', '30', '--max-columns', '300', ...(ignoreCase ? ['--ignore-case'] : []), ...words.flatMap((w) => ['-e', w])];
    const out = await runRg(rgPath, root, args, signal);
    if (out !== null) return parseRgLines(out);
  }
  const pattern = `\\b(?:${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`;
  const result = await searchWithJs({ root, target: '.', pattern, ignoreCase, signal });
  if ('error' in result) return [];
  return result.lines.flatMap((l) => {
    const m = /^(.*?):(\d+):(.*)$/.exec(l);
    return m ? [{ path: m[1]!, line: Number(m[2]), text: m[3]! }] : [];
  });
}

/** The query's words worth searching for: its identifiers and its words of three letters or more. */
function queryWords(query: string): string[] {
  const words = new Set([...identifiersOf(query), ...(query.match(/[\p{L}_$][\p{L}\p{N}_$]{2,}/gu) ?? [])]);
  return [...words].slice(0, 12);
}

/** Files ranked by how many distinct query words they hold (then by matches), each with its best line. */
export async function textSearch(rgPath: string, root: string, query: string, limit: number, signal?: AbortSignal): Promise<string> {
  const words = queryWords(query);
  const lines = await wordLines(rgPath, root, words, true, signal);
  const files = new Map<string, { words: Set<string>; matches: number; best: RgLine; bestWords: number }>();
  for (const line of lines) {
    const present = words.filter((w) => new RegExp(`(?<![\\p{L}\\p{N}_$])${w.replace(/[$]/g, '\\$')}(?![\\p{L}\\p{N}_$])`, 'iu').test(line.text));
    const entry = files.get(line.path) ?? { words: new Set<string>(), matches: 0, best: line, bestWords: 0 };
    files.set(line.path, entry);
    present.forEach((w) => entry.words.add(w.toLowerCase()));
    entry.matches++;
    if (present.length > entry.bestWords) Object.assign(entry, { best: line, bestWords: present.length });
  }
  const ranked = [...files.values()].sort((a, b) => b.words.size - a.words.size || b.matches - a.matches || (a.best.path < b.best.path ? -1 : 1));
  if (!ranked.length) return `No matches for ${words.join(', ') || query}`;
  return ranked
    .slice(0, limit)
    .map((f) => `${f.best.path}:${f.best.line} ${clipLine(f.best.text.trim())}`)
    .join('\n');
}

/** Lines that look like calls of `name` (`name(`), as path:line text. */
export async function callLines(rgPath: string, root: string, name: string, signal?: AbortSignal): Promise<string> {
  const escaped = name.replace(/[$]/g, '\\$');
  const call = new RegExp(`(?<![\\w$])${escaped}\\s*\\(`);
  // `function name(` and its kin define rather than call.
  const definition = new RegExp(`\\b(?:function|def|fn|func|sub|fun)\\s+${escaped}\\b`);
  const lines = (await wordLines(rgPath, root, [name], false, signal)).filter((l) => call.test(l.text) && !definition.test(l.text));
  if (!lines.length) return `No lines calling ${name}(`;
  return lines
    .slice(0, 80)
    .map((l) => `${l.path}:${l.line} ${clipLine(l.text.trim())}`)
    .join('\n');
}

/** Records of the source files that mention `name` as a word, parsed now (at most ON_DEMAND_FILES). */
export async function recordsMentioning(rgPath: string, root: string, name: string, signal?: AbortSignal): Promise<FileRecord[]> {
  const paths = [...new Set((await wordLines(rgPath, root, [name], false, signal)).map((l) => l.path))].filter((p) => skipReason(p) === null);
  return parseNow(root, paths.slice(0, ON_DEMAND_FILES));
}

/** Parses `paths` in this thread; files that cannot be parsed are left out. */
export async function parseNow(root: string, paths: string[]): Promise<FileRecord[]> {
  const records: FileRecord[] = [];
  for (const path of paths) {
    const lang = languageOf(path);
    if (!lang) continue;
    const outcome = await parseJob(root, { path, lang });
    if ('record' in outcome) records.push(outcome.record);
  }
  return records;
}
