// What bash does to a word before a program sees it, done against the real file system for the
// analyser: brace expansion, tilde expansion, field splitting and globbing (bash 5.2 defaults: no
// dotglob, no globstar, no nullglob, . and .. never matched), and the realpath of a result.
// Must not decide anything; callers judge the words and paths it returns.

import { readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative as relativePath, resolve } from 'node:path';
import type { ShellWord } from './words.js';

/** How many directory entries one analysis may read while expanding globs. */
export const GLOB_BUDGET = 20_000;
/** How many directory entries one analysis may read below folders that a command reads whole (grep -r). */
export const WALK_BUDGET = 50_000;
/** How many words one brace expression may produce before the analyser gives up. */
const BRACE_LIMIT = 256;

export type Budget = { entries: number };

/** True when the pattern has an unescaped *, ? or [. */
export function hasGlob(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '*' || c === '?' || c === '[') return true;
  }
  return false;
}

export function unescapePattern(pattern: string): string {
  return pattern.replace(/\\(.)/gs, '$1');
}

/** A word whose expansion this check cannot know exactly: it could be any word, options included. */
const unknownWord = (w: ShellWord): ShellWord & { globbed?: boolean } => ({ value: null, pattern: '\0', text: w.text });

/**
 * The words bash makes of `w` in `cwd` (null: unknown), in its order: braces, then ~, then field
 * splitting of unquoted expansions, then globs (sorted), then quote removal. A glob result that
 * starts with `-` could be an option in an order this check cannot promise: it fails closed.
 */
export function expandWord(w: ShellWord, cwd: string | null, home: string, budget: Budget): (ShellWord & { globbed?: boolean })[] {
  if (w.value === null) return [w];
  if (!/[{\x01*?[~]/.test(w.pattern)) return [w];
  const braced = expandBraces(w.pattern);
  if (!braced) return [unknownWord(w)];
  const out: (ShellWord & { globbed?: boolean })[] = [];
  for (const variant of braced) {
    let p = variant;
    if (p === '~' || p.startsWith('~/')) p = home.replace(/[\\*?[\]{},~]/g, '\\$&') + p.slice(1);
    else if (p.startsWith('~')) return [unknownWord(w)];
    const fields = p.includes('\x01') ? p.split(/\x01+/).filter((f) => f !== '') : [p];
    for (const field of fields) {
      if (!hasGlob(field)) {
        out.push({ value: unescapePattern(field), pattern: field, text: w.text });
        continue;
      }
      if (cwd === null) return [unknownWord(w)];
      const relative = !unescapePattern(field).startsWith('/');
      const abs = relative ? `${cwd.replace(/[\\*?[\]{},~]/g, '\\$&')}/${field}` : field;
      const found = globPaths(abs, budget);
      if (found === null) return [unknownWord(w)];
      if (!found.length) {
        out.push({ value: unescapePattern(field), pattern: field, text: w.text });
        continue;
      }
      const names = found.map((f) => (relative ? relativePath(cwd, f) : f)).sort();
      if (names.some((n) => n.startsWith('-'))) return [unknownWord(w)];
      out.push(...names.map((n) => ({ value: n, pattern: n.replace(/[\\*?[\]{},~]/g, '\\$&'), text: w.text, globbed: true })));
    }
  }
  // Several words from one: messages show each as bash made it.
  const shown = (v: string): string => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  return out.length === 1 && !out[0]!.globbed ? out : out.map((x) => ({ ...x, text: x.value === null ? x.text : shown(x.value) }));
}

/** Brace expansion ({a,b}, {1..3}, {a..c}); null when it would make more than BRACE_LIMIT words. */
export function expandBraces(pattern: string): string[] | null {
  const out: string[] = [];
  const grow = (p: string): boolean => {
    const group = firstBraceGroup(p);
    if (!group) {
      out.push(p);
      return out.length <= BRACE_LIMIT;
    }
    return group.alternatives.every((alt) => grow(group.prefix + alt + group.suffix));
  };
  return grow(pattern) ? out : null;
}

function firstBraceGroup(p: string): { prefix: string; alternatives: string[]; suffix: string } | null {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') {
      i++;
      continue;
    }
    if (p[i] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i; j < p.length && close < 0; j++) {
      if (p[j] === '\\') j++;
      else if (p[j] === '{') depth++;
      else if (p[j] === '}' && --depth === 0) close = j;
      else if (p[j] === ',' && depth === 1) commas.push(j);
    }
    if (close < 0) return null;
    const body = p.slice(i + 1, close);
    const alternatives = commas.length
      ? [i, ...commas].map((at, k) => p.slice(at + 1, k < commas.length ? commas[k] : close))
      : braceRange(body);
    if (alternatives) return { prefix: p.slice(0, i), alternatives, suffix: p.slice(close + 1) };
  }
  return null;
}

function braceRange(body: string): string[] | null {
  const m = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return null;
  const numeric = /\d/.test(m[1]!);
  if (numeric !== /\d/.test(m[2]!)) return null;
  const from = numeric ? Number(m[1]) : m[1]!.charCodeAt(0);
  const to = numeric ? Number(m[2]) : m[2]!.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)));
  const out: string[] = [];
  // One past the limit is enough for expandBraces to refuse it.
  for (let v = from; (from <= to ? v <= to : v >= to) && out.length <= BRACE_LIMIT; v += from <= to ? step : -step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
  }
  return out;
}

/**
 * The paths an absolute glob pattern matches now, as bash would expand it; null when expanding
 * it would read more entries than the budget allows.
 */
export function globPaths(pattern: string, budget: Budget): string[] | null {
  let current = ['/'];
  for (const part of pattern.split('/').filter((p) => p !== '')) {
    if (!hasGlob(part)) {
      const name = unescapePattern(part);
      current = current.map((dir) => join(dir, name));
      continue;
    }
    const re = globRegex(part);
    if (!re) return null;
    const next: string[] = [];
    for (const dir of current) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      budget.entries -= names.length;
      if (budget.entries < 0) return null;
      for (const name of names) {
        if (name.startsWith('.') && !part.startsWith('.')) continue;
        if (re.test(name)) next.push(join(dir, name));
      }
    }
    current = next;
    if (!current.length) break;
  }
  return current;
}

/** The regex of one glob segment; null for bracket classes bash reads by locale ([[:alpha:]], [[=a=]]). */
function globRegex(part: string): RegExp | null {
  if (/\[[^\]]*\[[:=.]/.test(part)) return null;
  let re = '';
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === '\\' && i + 1 < part.length) re += escapeRe(part[++i]!);
    else if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = part.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        const body = part.slice(i + 1, end).replace(/^[!^]/, '^').replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else re += escapeRe(c);
  }
  try {
    return new RegExp(`^${re}$`, 's');
  } catch {
    return null;
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A regex for a gitignore-style glob (ripgrep's -g, grep's --include): `*` and `?` stay within a
 * name, `**` crosses folders, `{a,b}` alternates; a leading `/` anchors. Null when it is too large.
 */
export function pathGlobRegex(glob: string, caseInsensitive: boolean): RegExp | null {
  const variants = expandBraces(glob.replace(/^\//, ''));
  if (!variants) return null;
  const one = (g: string): string => {
    let re = '';
    for (let i = 0; i < g.length; i++) {
      const c = g[i]!;
      if (c === '\\' && i + 1 < g.length) re += escapeRe(g[++i]!);
      else if (c === '*' && g[i + 1] === '*') {
        re += '.*';
        i++;
        if (g[i + 1] === '/') i++;
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else if (c === '[') {
        const end = g.indexOf(']', i + 2);
        if (end < 0) re += '\\[';
        else {
          re += `[${g.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
          i = end;
        }
      } else re += escapeRe(c);
    }
    return re;
  };
  try {
    return new RegExp(`^(?:${variants.map(one).join('|')})$`, caseInsensitive ? 'is' : 's');
  } catch {
    return null;
  }
}

/** The path with symlinks resolved: the whole path if it exists, else its folder's realpath and the name. */
export function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    try {
      return join(realpathSync(dirname(p)), basename(p));
    } catch {
      return resolve(p);
    }
  }
}
