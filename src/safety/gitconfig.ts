// The one reader of git's configuration: the syntax, where a repository keeps its data (.git as a
// folder or a `gitdir:` file, the common dir of a worktree), and its config files with what they
// include, read as git would find them. The sandbox (protected paths, hardening) and the bash
// analysis (program-valued keys, bash/gitconfig.ts) act on what it reads. Must not run git, and
// must not decide anything.

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { CONFIG_FILE_MAX, readRegularFile } from '../util/readfile.js';

/** Where a worktree's repository data lives; `dotGit` is the workspace's .git (a folder or a file). */
export type GitLayout = { dotGit: string; dotGitKind: 'dir' | 'file'; gitDir: string; commonDir: string };

/**
 * One entry: `key` is `section.subsection.name` with section and name lower-cased, as git compares
 * them (a subsection keeps its case, but for the old `[section.sub]` form); a bare name is 'true'.
 */
export type GitConfigEntry = { key: string; value: string; file: string };

/** How deep includes are followed. */
export const MAX_INCLUDES = 10;

export const kindOf = (path: string): 'dir' | 'file' | null => {
  try {
    const st = statSync(path);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : null;
  } catch {
    return null;
  }
};

/**
 * A small regular file's text (readRegularFile: opened without waiting, checked on the open file);
 * 'missing' when there is none; null when it cannot be read, is not a regular file or is larger
 * than any real config. A FIFO or a device would block the reader, or never end.
 */
export function readConfigText(path: string): string | 'missing' | null {
  try {
    return readRegularFile(path, CONFIG_FILE_MAX) ?? 'missing';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'missing' : null;
  }
}

const textOf = (path: string): string | null => {
  const text = readConfigText(path);
  return text === 'missing' ? null : text;
};

/** The git dir `dir/.git` names: the folder itself, or the one a `gitdir:` file points to; null when neither. */
export function dotGitDir(dir: string): { gitDir: string; kind: 'dir' | 'file' } | null {
  const dotGit = join(dir, '.git');
  const kind = kindOf(dotGit);
  if (kind === 'dir') return { gitDir: dotGit, kind };
  if (kind !== 'file') return null;
  const named = /^gitdir:\s*(.+?)\s*$/m.exec(textOf(dotGit) ?? '')?.[1];
  return named ? { gitDir: resolve(dir, named), kind } : null;
}

/** The repository of the worktree at `root`, or null when `root/.git` is missing or unreadable. */
export function gitLayout(root: string): GitLayout | null {
  const found = dotGitDir(root);
  if (!found) return null;
  const { gitDir } = found;
  const common = textOf(join(gitDir, 'commondir'))?.trim();
  return { dotGit: join(root, '.git'), dotGitKind: found.kind, gitDir, commonDir: common ? resolve(gitDir, common) : gitDir };
}

/** Whether `key` is an include of another config file (include.path, includeIf.<condition>.path). */
export const isInclude = (key: string): boolean => /^include(if\..*)?\.path$/.test(key);

/** The file an include's value names, as git resolves it: `~/` from the home folder, else from the including file's folder. */
export function includePath(value: string, from: string, home = homedir()): string {
  if (value === '~' || value.startsWith('~/')) return home + value.slice(1);
  return isAbsolute(value) ? value : resolve(dirname(from), value);
}

/** Every entry of the repository's config files and what they include, in the order git reads them. */
export function repoConfig(layout: GitLayout): GitConfigEntry[] {
  const files = [join(layout.commonDir, 'config'), join(layout.gitDir, 'config.worktree')];
  const out: GitConfigEntry[] = [];
  const seen = new Set<string>();
  const read = (file: string, depth: number): void => {
    if (seen.has(file) || depth > MAX_INCLUDES) return;
    seen.add(file);
    const text = textOf(file);
    if (text === null) return;
    for (const entry of parseGitConfig(text, file)) {
      out.push(entry);
      // Conditions are not evaluated: every included file is read, a superset of what git reads.
      if (isInclude(entry.key) && entry.value) read(includePath(entry.value, file), depth + 1);
    }
  };
  for (const file of files) read(file, 0);
  return out;
}

/** The last value of `key` (lower-case section and name), or undefined. */
export function configValue(entries: GitConfigEntry[], key: string): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.key === key) return entries[i]!.value;
  return undefined;
}

/**
 * Parses git's config syntax: `[section]`, `[section "sub"]`, the old `[section.sub]`, `name =
 * value` or a bare `name` (true), `#`/`;` comments, double quotes with \" \\ \n \t escapes, and
 * backslash-newline continuations. Lines it cannot read are skipped, as they would make git fail.
 */
export function parseGitConfig(text: string, file = ''): GitConfigEntry[] {
  const out: GitConfigEntry[] = [];
  let section = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /[ \t\r\n]/.test(text[i]!)) i++;
    if (i >= n) break;
    const c = text[i]!;
    if (c === '#' || c === ';') {
      i = lineEnd(text, i);
      continue;
    }
    if (c === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) break;
      section = sectionName(text.slice(i + 1, close));
      i = close + 1;
      continue;
    }
    const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(i, i + 200))?.[0];
    if (!name || !section) {
      i = lineEnd(text, i);
      continue;
    }
    i += name.length;
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
    let value = 'true';
    if (text[i] === '=') [value, i] = readValue(text, i + 1);
    else i = lineEnd(text, i);
    out.push({ key: `${section}.${name.toLowerCase()}`, value, file });
  }
  return out;
}

const lineEnd = (text: string, i: number): number => {
  const nl = text.indexOf('\n', i);
  return nl < 0 ? text.length : nl + 1;
};

function sectionName(inside: string): string {
  const quoted = /^\s*([A-Za-z0-9.-]+)\s+"((?:[^"\\]|\\.)*)"\s*$/.exec(inside);
  if (quoted) return `${quoted[1]!.toLowerCase()}.${quoted[2]!.replace(/\\(.)/g, '$1')}`;
  // [section.sub] (deprecated): the subsection is compared in lower case.
  return inside.trim().toLowerCase();
}

/** A value from just after `=` to the end of its logical line. */
function readValue(text: string, i: number): [string, number] {
  let value = '';
  let quoted = false;
  let pendingSpace = '';
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') return [value, i + 1];
    if (!quoted && (c === '#' || c === ';')) return [value, lineEnd(text, i)];
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\') {
      const next = text[++i];
      if (next === '\n') continue;
      if (next === '\r' && text[i + 1] === '\n') {
        i++;
        continue;
      }
      value += pendingSpace + (next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : (next ?? ''));
      pendingSpace = '';
      continue;
    }
    if (!quoted && (c === ' ' || c === '\t' || c === '\r')) {
      // Inner whitespace is kept, leading and trailing whitespace is not.
      if (value) pendingSpace += c;
      continue;
    }
    value += pendingSpace + c;
    pendingSpace = '';
  }
  return [value, i];
}
