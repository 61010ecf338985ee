// Which files the code index covers: ripgrep's listing of the workspace (so .gitignore holds),
// minus vendored and generated paths, secrets and files of languages it cannot parse; and the
// folders to watch for files appearing or going. Must not read file contents.

import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_SEARCH_EXCLUDES } from '../safety/secrets.js';
import { walkFiles } from '../tools/walk.js';
import { languageOf } from './languages.js';

/** Folders whose files are someone else's code or a build's output, wherever they are. */
const VENDORED_DIRS = new Set(['node_modules', 'vendor', 'third_party', 'third-party', 'bower_components', '__pycache__', '.venv', 'venv', 'site-packages', 'dist', 'coverage', '.next', '.nuxt', '.git']);
/** File names that say a tool wrote them. */
const GENERATED_NAME = /\.(?:min|bundle|generated|gen)\.[a-z]+$|_pb2(?:_grpc)?\.py$|\.pb\.(?:go|cc|h)$|\.designer\.cs$|_generated\.go$/i;

const TEST_PATH = /(?:^|\/)(?:tests?|__tests__|spec)\/|[._-](?:test|spec)\.[^/]+$|_test\.go$|(?:^|\/)test_[^/]+\.py$|Tests?\.(?:java|cs)$/;

/** Test files by the conventions of the languages the index parses. */
export const isTestPath = (path: string): boolean => TEST_PATH.test(path);

/** Why a listed path is left out, or null when the index covers it. */
export function skipReason(path: string): 'vendored' | 'generated' | 'not_source' | null {
  const parts = path.split('/');
  if (parts.slice(0, -1).some((p) => VENDORED_DIRS.has(p))) return 'vendored';
  if (GENERATED_NAME.test(parts.at(-1)!)) return 'generated';
  return languageOf(path) ? null : 'not_source';
}

export type Listing = {
  /** Source files the index covers, root-relative, sorted. */
  files: string[];
  /** Every package.json and tsconfig.json listed (for resolving imports between packages). */
  manifests: string[];
  /** Every folder holding a listed file, and its ancestors ('' is the root): where new files would appear. */
  folders: string[];
};

/** The ripgrep binary: FEIYU_RG_PATH, else @vscode/ripgrep's; '' when neither is there. */
export async function ripgrepPath(env: NodeJS.ProcessEnv): Promise<string> {
  return env.FEIYU_RG_PATH || (await import('@vscode/ripgrep').then((m) => m.rgPath, () => ''));
}

/** Lists the workspace with ripgrep, or by walking it when ripgrep cannot run. */
export async function listWorkspace(root: string, rgPath: string): Promise<Listing> {
  // The walk (no ripgrep) stops after the listing's time limit like every walk: a partial listing
  // leaves files out until the next full pass lists them.
  const all = (rgPath && (await rgFiles(root, rgPath))) || (await walkFiles(root, root, '**/*', SECRET_SEARCH_EXCLUDES.flatMap((g) => [`**/${g}`, `**/${g}/**`]))).files;
  const files: string[] = [];
  const manifests: string[] = [];
  const folders = new Set<string>(['']);
  for (const path of all) {
    const reason = skipReason(path);
    if (reason === 'vendored') continue;
    if (reason === null) files.push(path);
    else if (/(?:^|\/)(?:package\.json|tsconfig\.json|Cargo\.toml)$/.test(path)) manifests.push(path);
    for (let i = path.lastIndexOf('/'); i > 0 && !folders.has(path.slice(0, i)); i = path.lastIndexOf('/', i - 1)) folders.add(path.slice(0, i));
  }
  return { files: files.sort(), manifests: manifests.sort(), folders: [...folders].sort() };
}

/** What every ripgrep run of the index passes: hidden files yes; .git, node_modules and secrets no. */
const RG_COMMON = ['--hidden', '--no-require-git', '--no-config', '--max-filesize', '1M', '--glob', '!.git', '--glob', '!node_modules', ...SECRET_SEARCH_EXCLUDES.flatMap((g) => ['--glob', `!${g}`])];

async function rgFiles(root: string, rgPath: string): Promise<string[] | null> {
  const out = await runRg(rgPath, root, ['--files', '--null']);
  return out === null ? null : out.split('\0').filter(Boolean);
}

/**
 * Runs ripgrep in `root` with the index's common options; its stdout, or null when it could not
 * run or failed outright. Exit 1 ("nothing found") and 2 (some paths unreadable) still answer.
 */
export function runRg(rgPath: string, root: string, args: string[], signal?: AbortSignal): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(rgPath, [...RG_COMMON, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], signal });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 || code === 1 || code === 2 ? Buffer.concat(chunks).toString('utf8') : null));
  });
}

/** One matching line of `rg --null --line-number`: path, line number, text. */
export type RgLine = { path: string; line: number; text: string };

export function parseRgLines(out: string): RgLine[] {
  const lines: RgLine[] = [];
  for (const raw of out.split('\n')) {
    const nul = raw.indexOf('\0');
    if (nul < 0) continue;
    const colon = raw.indexOf(':', nul + 1);
    const line = Number(raw.slice(nul + 1, colon));
    if (Number.isInteger(line)) lines.push({ path: raw.slice(0, nul).replace(/^\.\//, ''), line, text: raw.slice(colon + 1).replace(/\r$/, '') });
  }
  return lines;
}

/** The mtimes of `folders` under `root` (-1 for one that is gone). */
export function folderTimes(root: string, folders: string[]): Map<string, number> {
  return new Map(folders.map((dir) => [dir, statSync(join(root, dir), { throwIfNoEntry: false })?.mtimeMs ?? -1]));
}

/** True when a folder was added to, removed from or renamed in since `times` was taken. */
export function foldersChanged(root: string, times: Map<string, number>): boolean {
  for (const [dir, mtime] of times) if ((statSync(join(root, dir), { throwIfNoEntry: false })?.mtimeMs ?? -1) !== mtime) return true;
  return false;
}
