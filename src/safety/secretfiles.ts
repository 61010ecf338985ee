// Which files the sandbox covers with an empty file and which folders it hides: secret files found
// in the workspace at each command's start (ignored files included), nested repositories, and the
// credentials of the home folder. A cache keyed by each folder's mtime makes a repeat listing one
// lstat per folder. Must not build bwrap arguments or decide anything about commands.

import { lstatSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** Templates committed by convention without values: the model needs them to learn the names. */
const ENV_TEMPLATES = /^\.env\.(example|sample|template|dist)$/i;
// Source files and documentation that merely carry such a name (credentials.ts) are not masked.
const SOURCE_EXT = /\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|md|rst|html|css|vue|svelte)$/i;

/** Whether a file of the workspace named `name` is a secret the sandbox covers (compared in lower case). */
export function isSecretFileName(name: string): boolean {
  const n = name.toLowerCase();
  if (n.startsWith('.env')) return !ENV_TEMPLATES.test(n);
  if (/\.(pem|key|p12|pfx|ppk)$/.test(n)) return true;
  if (/^id_[a-z0-9_-]+$/.test(n)) return true;
  if (['.npmrc', '.pypirc', '.netrc', '_netrc', '.git-credentials'].includes(n)) return true;
  return n.startsWith('credentials') && !SOURCE_EXT.test(n);
}

/** Folders never walked: installed packages hold no secret of the user's, and would cost most of the walk. */
const NOT_WALKED = new Set(['node_modules']);
/** Past this many folders the listing stops (a workspace that is a whole home folder); README says so. */
export const MAX_FOLDERS = 100_000;
const RECENT_MS = 2000;

/** A file with several hard links: one of its other names may be a secret outside. */
export type Linked = { path: string; dev: number; ino: number };

/** `files` (other regular files) are kept so hard links can be looked for; `linked` once they were. */
type Folder = { mtime: number; ino: number; secrets: string[]; symlinks: string[]; dirs: string[]; files: string[]; git: boolean; linked?: Linked[] };

export type WorkspaceListing = {
  /** Realpaths of the secret files (a symlink counts by its target, when that is a regular file). */
  secrets: string[];
  /** `.git` entries below the root (nested repositories), folders or files. */
  nestedGits: string[];
  /** With `links`: regular files with several hard links, to match against the inodes of secrets. */
  linked: Linked[];
  /** Folders visited, and whether MAX_FOLDERS cut the walk short. */
  folders: number;
  truncated: boolean;
};

/** Lists a workspace's secret files again and again, reading only folders that changed since the last time. */
export class WorkspaceScanner {
  private cache = new Map<string, Folder>();

  constructor(private readonly root: string) {}

  /**
   * The listing now. `links` also finds files with several hard links: a stat per file of each
   * folder not looked at that way yet, so the caller asks only when some secret has other names.
   */
  scan(links = false): WorkspaceListing {
    const next = new Map<string, Folder>();
    const out: WorkspaceListing = { secrets: [], nestedGits: [], linked: [], folders: 0, truncated: false };
    const stack = [this.root];
    while (stack.length) {
      if (out.folders >= MAX_FOLDERS) {
        out.truncated = true;
        break;
      }
      const dir = stack.pop()!;
      const folder = this.folder(dir);
      if (!folder) continue;
      out.folders++;
      next.set(dir, folder);
      for (const name of folder.secrets) out.secrets.push(join(dir, name));
      for (const name of folder.symlinks) {
        const target = regularTarget(join(dir, name));
        if (target) out.secrets.push(target);
      }
      if (folder.git && dir !== this.root) out.nestedGits.push(join(dir, '.git'));
      if (links) {
        folder.linked ??= folder.files.map((n) => statIfLinked(join(dir, n))).filter((f): f is Linked => f !== null);
        out.linked.push(...folder.linked);
      }
      for (const name of folder.dirs) stack.push(join(dir, name));
    }
    this.cache = next;
    out.secrets.sort();
    out.nestedGits.sort();
    return out;
  }

  private folder(dir: string): Folder | null {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      return null;
    }
    if (!st.isDirectory()) return null;
    const cached = this.cache.get(dir);
    // A file system with coarse timestamps can change a folder twice within one tick: a folder
    // changed in the last seconds is read again rather than trusted.
    const settled = Date.now() - st.mtimeMs > RECENT_MS;
    if (cached && settled && cached.mtime === st.mtimeMs && cached.ino === st.ino) return cached;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return null;
    }
    const folder: Folder = { mtime: st.mtimeMs, ino: st.ino, secrets: [], symlinks: [], dirs: [], files: [], git: false };
    for (const e of entries) {
      if (e.name === '.git') folder.git = true;
      else if (e.isDirectory()) {
        if (!NOT_WALKED.has(e.name)) folder.dirs.push(e.name);
      } else if (isSecretFileName(e.name)) (e.isSymbolicLink() ? folder.symlinks : folder.secrets).push(e.name);
      // Making a hard link changes the folder's mtime, so the cache sees new ones.
      else if (e.isFile()) folder.files.push(e.name);
    }
    return folder;
  }
}

function statIfLinked(path: string): Linked | null {
  try {
    const st = lstatSync(path);
    return st.nlink > 1 ? { path, dev: st.dev, ino: st.ino } : null;
  } catch {
    return null;
  }
}

/**
 * The (device, inode) keys of the regular files under `paths` (files, or folders walked to
 * `limit` entries) that have other names: only those can be reached through a hard link.
 */
export function linkedInodes(paths: string[], limit = 2000): Set<string> {
  const out = new Set<string>();
  const stack = [...paths];
  let seen = 0;
  while (stack.length && seen++ < limit) {
    const p = stack.pop()!;
    try {
      const st = lstatSync(p);
      if (st.isFile() && st.nlink > 1) out.add(`${st.dev}:${st.ino}`);
      else if (st.isDirectory()) for (const n of readdirSync(p)) stack.push(join(p, n));
    } catch {
      // Unreadable or gone: nothing to match.
    }
  }
  return out;
}

function regularTarget(link: string): string | null {
  try {
    const real = realpathSync(link);
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** Folders under $HOME that hold credentials: hidden whole. */
export const HOME_SECRET_DIRS = ['.ssh', '.aws', '.gnupg', '.kube', '.docker', '.config/gh', '.config/gcloud', '.azure'];
/** Files under $HOME that hold credentials: covered by an empty file. */
export const HOME_SECRET_FILES = ['.npmrc', '.pypirc', '.netrc', '.git-credentials', '.config/git/credentials', '.vault-token'];

export type HomeSecrets = { dirs: string[]; files: string[] };

/**
 * The home folder's credentials that exist now: the fixed folders and files, `.cargo/credentials*`
 * and every `*_history` at the top of home (shell, REPL and database histories hold pasted secrets).
 */
export function homeSecrets(home: string): HomeSecrets {
  const dirs = HOME_SECRET_DIRS.map((d) => join(home, d)).filter((p) => kind(p) === 'dir');
  const files = HOME_SECRET_FILES.map((f) => join(home, f)).filter((p) => kind(p) === 'file');
  for (const [dir, match] of [[home, (n: string) => n.endsWith('_history')], [join(home, '.cargo'), (n: string) => n.startsWith('credentials')]] as const) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) if (match(n) && kind(join(dir, n)) === 'file') files.push(join(dir, n));
  }
  return { dirs, files: files.sort() };
}

/** A folder, a regular file, or neither (missing, a device, a socket…); symlinks followed. */
export function kind(path: string): 'dir' | 'file' | null {
  try {
    const st = statSync(path);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}
