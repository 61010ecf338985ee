// Walking the workspace for list_files and the search fallback: fast-glob for the files, the
// .gitignore files (read with a size limit, matched by gitignore.ts) for what to leave out, and a
// time limit after which what was found so far is returned, marked partial; every result checked
// to lie in the workspace, links included. Reads, never writes.

import { realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { inside, relPath } from '../util/paths.js';
import { FileReadError, readRegularFile } from '../util/readfile.js';
import { GitignoreRules } from './gitignore.js';

/** Folders never walked below the starting folder; given as `path` they are searched all the same. */
export const SKIPPED = ['.git', 'node_modules'];

type IgnoreTest = (rel: string) => boolean;

/** A listing or a search stops after this long and returns what it found, saying so. */
export const TIME_LIMIT_MS = 20_000;
/** A .gitignore past this is not one anybody maintains by hand: it is not applied. */
const MAX_GITIGNORE_BYTES = 8 << 20;

export type Walk = {
  files: string[];
  /** The time limit cut the walk short: `files` is what was found until then. */
  partial: boolean;
  /** .gitignore files that could not be applied (not a regular file, too big), and why. */
  unapplied: string[];
};

/**
 * Files under `dir` matching `pattern` and none of `exclude` (globs relative to `dir`), as sorted root-relative paths,
 * without .git, node_modules and what .gitignore files ignore (the root's, .git/info/exclude,
 * those between the root and `dir`, and nested ones). Stops at `deadline` with what it has.
 */
export async function walkFiles(root: string, dir: string, pattern: string, exclude: string[] = [], deadline = Date.now() + TIME_LIMIT_MS): Promise<Walk> {
  const fg = (await import('fast-glob')).default;
  const options = { cwd: dir, dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: true, ignore: SKIPPED.map((d) => `**/${d}/**`) };
  const [found, nested] = await Promise.all([
    collect(fg.stream(pattern, { ...options, ignore: [...options.ignore, ...exclude] }), deadline),
    collect(fg.stream('**/.gitignore', options), deadline),
  ]);
  const base = relPath(root, dir);
  const toRoot = (p: string): string => (base === '.' ? p : `${base}/${p}`);
  const unapplied: string[] = [];
  const ignored = gitignores(root, base, nested.paths.map(toRoot), unapplied);
  const files: string[] = [];
  let partial = found.partial || nested.partial;
  for (const path of await containedIn(root, dir, found.paths)) {
    if (Date.now() > deadline) {
      partial = true;
      break;
    }
    const rel = toRoot(path);
    if (!ignored(rel)) files.push(rel);
  }
  return { files: files.sort(), partial, unapplied };
}

/**
 * The results that lie in the workspace, by path and by the real path of their folder: a glob may
 * still spell its way out, or pass through a symbolic link to a folder (`links/out/*`).
 */
async function containedIn(root: string, dir: string, found: string[]): Promise<string[]> {
  const folders = new Map<string, Promise<boolean>>();
  const folderInside = (folder: string): Promise<boolean> => {
    let known = folders.get(folder);
    if (!known) {
      known = realpath(folder).then((real) => inside(root, real), () => false);
      folders.set(folder, known);
    }
    return known;
  };
  const keep = await Promise.all(found.map(async (p) => {
    const abs = resolve(dir, p);
    return inside(root, abs) && (await folderInside(dirname(abs)));
  }));
  return found.filter((_, i) => keep[i]);
}

/** The paths a fast-glob stream gives until it ends or the deadline passes. */
async function collect(stream: NodeJS.ReadableStream, deadline: number): Promise<{ paths: string[]; partial: boolean }> {
  const paths: string[] = [];
  const timer = setTimeout(() => (stream as unknown as { destroy(): void }).destroy(), Math.max(0, deadline - Date.now()));
  try {
    for await (const entry of stream) paths.push(String(entry));
  } catch {
    // destroyed at the deadline
  } finally {
    clearTimeout(timer);
  }
  return { paths, partial: Date.now() >= deadline };
}

/**
 * Whether a root-relative file is ignored: each folder on its way is checked first (an ignored
 * folder's contents stay ignored, as in git), each against the rules of every .gitignore above
 * it, a deeper file's matching rule winning.
 */
function gitignores(root: string, base: string, nested: string[], unapplied: string[]): IgnoreTest {
  const above = base === '.' ? [] : base.split('/').map((_, i, parts) => `${parts.slice(0, i).join('/')}/.gitignore`.replace(/^\//, ''));
  const rules = new Map<string, GitignoreRules[]>();
  for (const file of new Set(['.gitignore', '.git/info/exclude', ...above, ...nested])) {
    let text: string | undefined;
    try {
      text = readRegularFile(join(root, file), MAX_GITIGNORE_BYTES);
    } catch (err) {
      unapplied.push(err instanceof FileReadError ? `${file}: ${err.problem.code === 'too_big' ? `${err.problem.size} bytes, over the limit` : `a ${err.problem.kind}`}` : `${file}: ${(err as Error).message}`);
      continue;
    }
    if (!text) continue;
    const owner = file === '.git/info/exclude' ? '' : file.slice(0, file.lastIndexOf('/') + 1).replace(/\/$/, '');
    rules.set(owner, [...(rules.get(owner) ?? []), new GitignoreRules(text)]);
  }
  if (rules.size === 0) return () => false;
  const verdict = (rel: string, isDir: boolean): boolean => {
    const parts = rel.split('/');
    let ignored = false;
    for (let d = 0; d < parts.length; d++) {
      for (const set of rules.get(parts.slice(0, d).join('/')) ?? []) {
        const v = set.test(parts.slice(d).join('/'), isDir);
        if (v) ignored = v === 'ignored';
      }
    }
    return ignored;
  };
  const folders = new Map<string, boolean>();
  const folderIgnored = (folder: string): boolean => {
    let known = folders.get(folder);
    if (known === undefined) {
      const parent = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
      known = (parent !== '' && folderIgnored(parent)) || verdict(folder, true);
      folders.set(folder, known);
    }
    return known;
  };
  return (rel) => {
    const slash = rel.lastIndexOf('/');
    return (slash > 0 && folderIgnored(rel.slice(0, slash))) || verdict(rel, false);
  };
}
