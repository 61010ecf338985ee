// What bash does to a word's pattern before a program sees it, done against the real file system
// for the analyser: brace expansion, globbing (bash defaults: no dotglob, no globstar), and the
// realpath of the result. Must not decide anything; callers judge the paths it returns.

import { readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** How many directory entries one analysis may read while expanding globs. */
export const GLOB_BUDGET = 20_000;
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

function globRegex(part: string): RegExp {
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
    return /^$/;
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

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
