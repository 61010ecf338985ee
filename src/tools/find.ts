// The finding tools: list_files (fast-glob + .gitignore, walk.ts) and search (ripgrep, with a
// plain-JS fallback that walks the same files). Both skip .git, node_modules and ignored files,
// and stop at a time limit with what they found, saying so.
// Must not read files on ripgrep's path: its speed is the point of using it.

import { spawn } from 'node:child_process';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { inside, relPath, resolveInWorkspace } from '../util/paths.js';
import { expandBraces } from '../safety/bash/expand.js';
import { SECRET_SEARCH_EXCLUDES, secretFileKind } from '../safety/secrets.js';
import { toolError, type Tool, type ToolContext, type ToolOutput } from '../types/tools.js';
import { SKIPPED, TIME_LIMIT_MS, walkFiles, type Walk } from './walk.js';

const MAX_FILES = 500;
const MAX_MATCHES = 200;
const MAX_COLUMNS = 300;
const SECRET_GLOBS = SECRET_SEARCH_EXCLUDES.flatMap((g) => [`**/${g}`, `**/${g}/**`]);

/**
 * fast-glob follows "..", "/" and "~" out of its folder, also when braces spell them (`.{.,}/*` is
 * `../*`); a glob here only ever selects inside it. walkFiles checks every result all the same.
 */
function leavesFolder(glob: string): boolean {
  const variants = expandBraces(glob.replace(/^!/, ''));
  return variants === null || variants.some((g) => /^[/~]|(^|\/)\.\.(\/|$)/.test(g));
}

// ---------------------------------------------------------------------------------------------
// list_files

type ListArgs = { pattern?: string; path?: string };

async function listFilesTool(args: ListArgs, ctx: ToolContext): Promise<ToolOutput> {
  const pattern = args.pattern || '**/*';
  if (leavesFolder(pattern)) return toolError(`pattern ${pattern} reaches outside the folder; choose the folder with path and keep the pattern relative`);
  const r = await resolveInWorkspace(ctx.root, args.path || '.');
  if (!r.ok) return toolError(r.error);
  const shown = relPath(ctx.root, r.real);
  if (!r.exists) return toolError(`folder ${shown} does not exist`);
  if (!r.isDir) return toolError(`${shown} is a file, not a folder; read it with read_file`);
  const { files, partial, unapplied } = await walkFiles(ctx.root, r.real, pattern);
  const notes = walkNotes('listing', partial, unapplied);
  if (files.length === 0) return { output: [`No files match ${pattern} in ${shown}`, ...notes].join('\n'), summary: { key: 'files', n: 0 } };
  const lines = files.slice(0, MAX_FILES);
  if (files.length > MAX_FILES) lines.push(`[… ${files.length - MAX_FILES} more files not shown; narrow the pattern or path]`);
  return { output: [...lines, ...notes].join('\n'), summary: { key: 'files', n: files.length } };
}

/** What the model must know about a result that is not the whole answer. */
function walkNotes(what: 'listing' | 'search', partial: boolean | undefined, unapplied: string[] = []): string[] {
  const notes: string[] = [];
  if (partial) notes.push(`[the ${what} stopped after ${TIME_LIMIT_MS / 1000} s: this is what was found until then, not everything; narrow the path, pattern or glob]`);
  if (unapplied.length) notes.push(`[.gitignore rules not applied (${unapplied.join('; ')}): files they would hide may be listed]`);
  return notes;
}

// ---------------------------------------------------------------------------------------------
// search

export type SearchQuery = {
  root: string;
  /** Root-relative file or folder to search ('.' for the whole workspace). */
  target: string;
  pattern: string;
  glob?: string;
  ignoreCase?: boolean;
  signal?: AbortSignal;
  /** When to stop and return what was found (default: TIME_LIMIT_MS from now). */
  deadline?: number;
};

/** The first matching lines (as path:line:text, root-relative) and how many there were in all; `partial` when the time limit cut it short. */
export type SearchResult = { lines: string[]; total: number; partial?: boolean } | { error: string };

/**
 * Searches with the ripgrep at `rgPath`; null when it cannot be started, so the caller falls back.
 * Output lines are counted, but only the first MAX_MATCHES are decoded and kept.
 */
export function searchWithRg(rgPath: string, q: SearchQuery): Promise<SearchResult | null> {
  const args = [
    '--line-number', '--no-heading', '--with-filename', '--color', 'never', '--no-config', '--null',
    '--max-columns', String(MAX_COLUMNS), '--max-columns-preview', '--hidden', '--no-require-git', '--engine', 'auto',
    ...SKIPPED.flatMap((d) => ['--glob', `!${d}`]),
    ...(q.ignoreCase ? ['--ignore-case'] : []),
    ...rgGlob(q.glob),
    // Secrets (.env, private keys) never come back as search results, whatever the glob: the last glob wins.
    ...SECRET_SEARCH_EXCLUDES.flatMap((g) => ['--glob', `!${g}`]),
    '-e', q.pattern, '--',
    // Without a path ripgrep searches its cwd and prints paths without "./".
    ...(q.target === '.' ? [] : [q.target]),
  ];
  return new Promise((resolve) => {
    const child = spawn(rgPath, args, { cwd: q.root, stdio: ['ignore', 'pipe', 'pipe'], signal: q.signal });
    const kept: string[] = [];
    let total = 0;
    let pending: Buffer = Buffer.alloc(0);
    let stderr = '';
    let partial = false;
    const timer = setTimeout(() => {
      partial = true;
      child.kill('SIGKILL');
    }, Math.max(0, (q.deadline ?? Date.now() + TIME_LIMIT_MS) - Date.now()));
    child.stdout.on('data', (chunk: Buffer) => {
      const buf = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      let start = 0;
      for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, start)) {
        const nul = buf.indexOf(0, start);
        const secret = nul >= 0 && nul < nl && isSecretResult(q.root, buf.toString('utf8', start, nul));
        if (!secret) {
          total++;
          if (kept.length < MAX_MATCHES) kept.push(buf.toString('utf8', start, nl));
        }
        start = nl + 1;
      }
      pending = kept.length < MAX_MATCHES ? buf.subarray(start) : Buffer.alloc(0);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.name === 'AbortError') resolve({ error: '[interrupted]' });
      else resolve(child.pid === undefined ? null : { error: `search failed: ${err.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // Globs that leave nothing to search (every match a secret) are no matches, not a failure.
      if (code === 2 && kept.length === 0 && /No files were searched/.test(stderr)) return resolve({ lines: [], total: 0 });
      if (code === 2 && kept.length === 0) {
        const message = stderr.replace(/^~+$/gm, '').replace(/\n{2,}/g, '\n').trim();
        resolve({ error: /regex/i.test(message) ? invalidRegex(message) : `search failed: ${message || `rg exit code ${code}`}` });
        return;
      }
      // ripgrep finishes files in any order: sort by path (a stable sort keeps each file's lines in order).
      const path = (line: string): string => line.slice(0, line.indexOf('\0'));
      kept.sort((a, b) => (path(a) < path(b) ? -1 : path(a) > path(b) ? 1 : 0));
      const lines = kept.map((l) => l.replace('\0', ':').replace(/\r$/, ''));
      resolve(partial ? { lines, total, partial } : { lines, total });
    });
  });
}

/**
 * ripgrep's --glob overrides .gitignore, so a glob on names only becomes a file type, which does
 * not. A glob with a slash stays a --glob: it names paths (relative to the root) on purpose.
 */
function rgGlob(glob: string | undefined): string[] {
  if (!glob) return [];
  if (glob.includes('/')) return ['--glob', glob];
  const negated = glob.startsWith('!');
  return ['--type-add', `feiyuglob:${negated ? glob.slice(1) : glob}`, negated ? '--type-not' : '--type', 'feiyuglob'];
}

/** The fast-glob pattern and exclusion selecting what ripgrep's glob would; anchored ones are relative to the root. */
function jsGlob(glob: string | undefined): { anchored: boolean; pattern: string; exclude: string[] } {
  if (!glob) return { anchored: false, pattern: '**/*', exclude: [] };
  const negated = glob.startsWith('!');
  const bare = negated ? glob.slice(1) : glob;
  const anchored = bare.includes('/');
  const pattern = anchored ? bare.replace(/^\//, '') : `**/${bare}`;
  return negated ? { anchored, pattern: '**/*', exclude: [pattern] } : { anchored, pattern, exclude: [] };
}

/** A result path (root-relative) that names a secret file: dropped whatever glob selected it. */
const isSecretResult = (root: string, rel: string): boolean => secretFileKind(resolve(root, rel)) !== null;

const invalidRegex = (message: string): string =>
  `invalid regular expression: ${message}\nEscape special characters such as ( [ { . * + ? with a backslash to search for them literally.`;

/** The same search in plain JavaScript, for when ripgrep cannot run. Regex syntax is JavaScript's. */
export async function searchWithJs(q: SearchQuery): Promise<SearchResult> {
  let re: RegExp;
  try {
    re = new RegExp(q.pattern, q.ignoreCase ? 'iu' : 'u');
  } catch {
    try {
      re = new RegExp(q.pattern, q.ignoreCase ? 'i' : '');
    } catch (err) {
      return { error: invalidRegex((err as Error).message) };
    }
  }
  const target = join(q.root, q.target);
  const { anchored, pattern, exclude } = jsGlob(q.glob);
  const under = (p: string): boolean => q.target === '.' || p.startsWith(`${q.target}/`);
  const deadline = q.deadline ?? Date.now() + TIME_LIMIT_MS;
  const walk: Walk = (await stat(target)).isFile()
    ? { files: [q.target], partial: false, unapplied: [] }
    : await walkFiles(q.root, anchored ? q.root : target, pattern, [...exclude, ...SECRET_GLOBS], deadline);
  const files = anchored ? walk.files.filter(under) : walk.files;
  let partial = walk.partial;
  const lines: string[] = [];
  let total = 0;
  for (const file of files) {
    if (q.signal?.aborted) return { error: '[interrupted]' };
    if (Date.now() > deadline) {
      partial = true;
      break;
    }
    // What is read must be a workspace file that is not a secret, after links too.
    const real = await realpath(join(q.root, file)).catch(() => '');
    if (!inside(q.root, real) || isSecretResult(q.root, file) || secretFileKind(real)) continue;
    const bytes = await readFile(real).catch(() => undefined);
    if (!bytes || bytes.subarray(0, 8192).includes(0)) continue;
    const fileLines = bytes.toString('utf8').split('\n');
    if (fileLines[fileLines.length - 1] === '') fileLines.pop();
    fileLines.forEach((raw, i) => {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (!re.test(line)) return;
      total++;
      const shown = line.length > MAX_COLUMNS ? `${line.slice(0, MAX_COLUMNS)} [... omitted end of long line]` : line;
      if (lines.length < MAX_MATCHES) lines.push(`${file}:${i + 1}:${shown}`);
    });
  }
  return partial ? { lines, total, partial } : { lines, total };
}

type SearchArgs = { pattern: string; path?: string; glob?: string; ignore_case?: boolean };

async function searchTool(args: SearchArgs, ctx: ToolContext): Promise<ToolOutput> {
  if (typeof args.pattern !== 'string' || args.pattern === '') return toolError('pattern is empty');
  if (args.glob && leavesFolder(args.glob)) return toolError(`glob ${args.glob} reaches outside the folder; choose the folder with path`);
  const r = await resolveInWorkspace(ctx.root, args.path || '.');
  if (!r.ok) return toolError(r.error);
  const target = relPath(ctx.root, r.real);
  if (!r.exists) return toolError(`${target} does not exist`);
  const q: SearchQuery = { root: ctx.root, target, pattern: args.pattern, glob: args.glob || undefined, ignoreCase: args.ignore_case === true, signal: ctx.signal };
  const rgPath = process.env.FEIYU_RG_PATH || (await import('@vscode/ripgrep').then((m) => m.rgPath, () => ''));
  const result = (rgPath && (await searchWithRg(rgPath, q))) || (await searchWithJs(q));
  if ('error' in result) return toolError(result.error);
  const notes = walkNotes('search', result.partial);
  if (result.total === 0) return { output: [`No matches for ${args.pattern} in ${target}`, ...notes].join('\n'), summary: { key: 'matches', n: 0 } };
  const lines = [...result.lines];
  if (result.total > lines.length) lines.push(`[… ${result.total - lines.length} more matching lines not shown; narrow the pattern, path or glob]`);
  return { output: [...lines, ...notes].join('\n'), summary: { key: 'matches', n: result.total } };
}

/** The folder a search covers: the one given, else the workspace. */
const folderOf = (path: unknown): string => (typeof path === 'string' && path ? path : '.');

export const listFiles: Tool<ListArgs> = {
  name: 'list_files',
  description: `Files matching a glob (default **/*) under path, sorted; skips .gitignore'd files, .git and node_modules. At most ${MAX_FILES}.`,
  parameters: {
    type: 'object',
    properties: {
      pattern: { type: 'string' },
      path: { type: 'string' },
    },
    additionalProperties: false,
  },
  kind: 'read',
  describe: (a) => ({ title: [a.path, a.pattern].filter(Boolean).join(' ') || '.', path: folderOf(a.path) }),
  run: listFilesTool,
};

export const search: Tool<SearchArgs> = {
  name: 'search',
  description: `Regex search of file contents (ripgrep) in a file or folder: path:line:text, at most ${MAX_MATCHES} lines; skips .gitignore'd files.`,
  parameters: {
    type: 'object',
    properties: {
      pattern: { type: 'string' },
      path: { type: 'string' },
      glob: { type: 'string', description: 'e.g. *.ts' },
      ignore_case: { type: 'boolean' },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  kind: 'read',
  describe: (a) => ({ title: a.pattern, path: folderOf(a.path) }),
  run: searchTool,
};
