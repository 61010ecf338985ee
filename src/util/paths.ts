// Workspace confinement and read-before-write records: every path a tool touches goes through
// resolveInWorkspace (which refuses when the workspace itself is gone, rather than re-create it),
// every read of the workspace through openForRead, every write through checkFresh and writeInside.
// Reads and writes are race-free: what is checked is the open descriptor (its real path through
// /proc/self/fd, its inode), not a name that a symbolic link swapped in afterwards could redirect.
// Temporary files carry the writer's pid, so a later run can tell a killed process's leftovers and
// remove them. Must not decode or format file contents.

import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, readlink, realpath, rename, rmdir, stat, symlink, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { processAlive } from './lock.js';
import type { FileVersion } from '../types/tools.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

export type Resolved =
  | { ok: true; abs: string; real: string; exists: boolean; isDir: boolean }
  | { ok: false; error: string };

/**
 * Resolves a path the model gave (relative to `root`, or absolute inside it) to its realpath,
 * refusing anything outside the workspace after symlinks, and anything not a file or folder.
 * `~` is not expanded: "~/x" is refused rather than silently becoming a folder named "~".
 * Contract: callers use `real` for every file operation, never `abs`.
 */
export async function resolveInWorkspace(root: string, p: string): Promise<Resolved> {
  if (typeof p !== 'string') return { ok: false, error: 'path must be a string' };
  if (p.trim() === '') return { ok: false, error: 'path is empty' };
  if (p === '~' || p.startsWith('~/')) {
    return { ok: false, error: `path ${p}: ~ is not expanded; give a path relative to the workspace ${root} or an absolute path inside it` };
  }
  if (p.includes('\0')) return { ok: false, error: 'path contains a NUL byte' };
  const abs = resolve(root, p);
  if (!inside(root, abs)) return { ok: false, error: `path ${p} is outside the workspace ${root}` };
  const gone = await workspaceGone(root);
  if (gone) return { ok: false, error: gone };
  const found = await realpathOfDeepest(abs);
  if ('error' in found) return { ok: false, error: `path ${p}: ${found.error}` };
  const { real, exists } = found;
  if (!inside(root, real)) {
    return { ok: false, error: `path ${p} resolves to ${real} (through a symbolic link), outside the workspace ${root}` };
  }
  if (!exists) return { ok: true, abs, real, exists, isDir: false };
  const st = await stat(real);
  if (!st.isFile() && !st.isDirectory()) {
    return { ok: false, error: `path ${p} is a ${specialKind(st)}; only regular files and folders can be used` };
  }
  return { ok: true, abs, real, exists, isDir: st.isDirectory() };
}

/**
 * Why the workspace cannot be used any more (its folder was deleted or moved), or null. Every tool
 * checks: a write must not re-create a deleted workspace, a command must not fail obscurely.
 */
export async function workspaceGone(root: string): Promise<string | null> {
  const st = await stat(root).catch(() => undefined);
  if (st?.isDirectory()) return null;
  return `the workspace folder ${root} no longer exists (deleted or moved); nothing was done. Tell the user: feiyu must be restarted in an existing folder`;
}

/**
 * resolveInWorkspace for reading: an absolute path inside one of `readRoots` (realpaths outside the
 * workspace that may be read: the user's skill folders) resolves too. `base` is the root the path
 * is in, to confine the open to (openForRead).
 */
export async function resolveForRead(root: string, readRoots: readonly string[], p: string): Promise<(Resolved & { ok: true; base: string }) | (Resolved & { ok: false })> {
  const r = await resolveInWorkspace(root, p);
  if (r.ok) return { ...r, base: root };
  if (!readRoots.length || typeof p !== 'string' || !p.startsWith('/') || p.includes('\0')) return r;
  const found = await realpathOfDeepest(p);
  const base = 'real' in found ? readRoots.find((dir) => inside(dir, found.real)) : undefined;
  if (!base || !('real' in found)) return r;
  if (!found.exists) return { ok: true, abs: p, real: found.real, exists: false, isDir: false, base };
  const st = await stat(found.real);
  if (!st.isFile() && !st.isDirectory()) return { ok: false, error: `path ${p} is a ${specialKind(st)}; only regular files and folders can be used` };
  return { ok: true, abs: p, real: found.real, exists: true, isDir: st.isDirectory(), base };
}

/** Containment by path segments: /a/ws contains /a/ws/x but not /a/ws2/x. */
export function inside(root: string, p: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return p.startsWith(prefix);
}

/** The path as the model should see it: relative to the root, "." for the root itself. */
export function relPath(root: string, real: string): string {
  const rel = relative(root, real);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** The realpath of `abs`, or for a missing path the realpath of its deepest existing ancestor plus the rest. */
async function realpathOfDeepest(abs: string): Promise<{ real: string; exists: boolean } | { error: string }> {
  const rest: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = await realpath(cur);
      if (rest.length === 0) return { real, exists: true };
      if (!(await stat(real)).isDirectory()) return { error: `${real} is a file, not a folder` };
      return { real: join(real, ...rest), exists: false };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') return { error: `a part of it is a file, not a folder` };
      if (code !== 'ENOENT') return { error: (err as Error).message };
      // A dangling symlink would let a later write land wherever it points: refuse it.
      if (await lstat(cur).then(() => true, () => false)) return { error: `${cur} is a symbolic link to a missing target` };
      const parent = dirname(cur);
      if (parent === cur) return { error: 'no part of it exists' };
      rest.unshift(basename(cur));
      cur = parent;
    }
  }
}

function specialKind(st: Stats): string {
  if (st.isFIFO()) return 'FIFO (named pipe)';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  return 'special file';
}

// ---------------------------------------------------------------------------------------------
// Read-before-write

export function versionOf(bytes: Buffer, st: Stats): FileVersion {
  return { hash: createHash('sha256').update(bytes).digest('hex'), size: st.size, mtimeMs: st.mtimeMs };
}

/** The version of the file at `real` as it is on disk now. */
export async function fileVersion(real: string): Promise<FileVersion> {
  const [bytes, st] = await Promise.all([readFile(real), stat(real)]);
  return versionOf(bytes, st);
}

/**
 * Why writing over the existing file `real` (whose current bytes are `bytes`) is refused, or null
 * when the agent's record matches it. The size is the quick check; the hash decides.
 */
export function checkFresh(files: Map<string, FileVersion>, real: string, bytes: Buffer, shown: string): string | null {
  const record = files.get(real);
  if (!record) return `${shown} already exists and you have not read it; read it first with read_file`;
  const changed =
    record.size !== bytes.length || record.hash !== createHash('sha256').update(bytes).digest('hex');
  return changed ? `${shown} changed since you read it (edited outside this conversation?); read it again with read_file` : null;
}

/**
 * Writes `data` to `file` through a temporary file in the same folder and a rename, so an error
 * or a crash never leaves half a file. `private`: the file becomes 0600 whatever its old mode, and
 * folders created for it 0700 (an existing folder keeps its mode); otherwise the file keeps the
 * mode of the one it replaces. The one atomic write: workspace files, config files, notes.
 */
export function writeFileAtomic(file: string, data: string | Buffer, o: { private?: boolean } = {}): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, ...(o.private && { mode: 0o700 }) });
  let mode: number | undefined = o.private ? 0o600 : undefined;
  if (!o.private) {
    try {
      mode = statSync(file).mode & 0o7777;
    } catch {
      // A new file: the default mode.
    }
  }
  const tmp = join(dir, tempName(basename(file)));
  try {
    writeFileSync(tmp, data, { flag: 'wx', ...(o.private && { mode: 0o600 }) });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Race-free opens

/** Whether this system shows an open descriptor's path (Linux /proc); without it the checks fall back to names. */
const FD_PATHS = existsSync('/proc/self/fd');
const fdPath = (fh: FileHandle): string => `/proc/self/fd/${fh.fd}`;

/** The real path of what `fh` has open now, or null when the system cannot tell. */
async function pathOf(fh: FileHandle): Promise<string | null> {
  if (!FD_PATHS) return null;
  return readlink(fdPath(fh));
}

export type Opened = { fh: FileHandle; st: Stats };

/**
 * Opens the regular file at `real` (a realpath inside `root`) for reading, race-free: the last
 * component is opened without following a link, and the descriptor's own path must still be
 * `real`, so a symbolic link swapped into any component after the check cannot redirect the read.
 * Confinement by inode too: a file with several hard links is refused, since another of its
 * names may be outside the workspace. The caller closes `fh`.
 */
export async function openForRead(root: string, real: string, shown: string): Promise<Opened | { error: string }> {
  let fh: FileHandle;
  try {
    fh = await open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { error: `${shown} became a symbolic link while it was being opened; nothing was read` };
    return { error: `${shown}: ${(err as Error).message}` };
  }
  const refuse = async (error: string) => {
    await fh.close();
    return { error };
  };
  const st = await fh.stat();
  const now = await pathOf(fh).catch(() => null);
  if (now !== null && (now !== real || !inside(root, now))) return refuse(`${shown} was swapped for ${now} while it was being opened (a symbolic link?); nothing was read`);
  if (!st.isFile()) return refuse(`${shown} is a ${specialKind(st)}; only regular files can be read`);
  if (st.nlink > 1) {
    return refuse(`${shown} has ${st.nlink} hard links; another name of the same file may be outside the workspace, so file tools do not read it. Ask the user if you need it.`);
  }
  return { fh, st };
}

/**
 * Opens the folder `dir` (inside `root`, a realpath) one component at a time from the root,
 * never following a symbolic link, creating what is missing; the descriptor's path is checked at
 * the end. What happens to the names meanwhile cannot move the folder the caller writes into.
 */
async function openDirInside(root: string, dir: string, create = true): Promise<FileHandle> {
  const flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
  let fh = await open(root, O_RDONLY | O_DIRECTORY);
  try {
    const parts = relative(root, dir).split(sep).filter(Boolean);
    for (const name of parts) {
      const next = FD_PATHS ? `${fdPath(fh)}/${name}` : join(await pathOf(fh) ?? dir, name);
      if (create) {
        await mkdir(next).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
      }
      const child = await open(next, flags);
      await fh.close();
      fh = child;
    }
    const now = await pathOf(fh);
    if (now !== null && now !== dir) throw new Error(`the folder ${dir} was swapped for ${now} while it was being written (a symbolic link?); nothing was written`);
    return fh;
  } catch (err) {
    await fh.close().catch(() => {});
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR' || (err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new Error(`a part of ${relative(root, dir) || '.'} is not a folder or became a symbolic link; nothing was written`);
    }
    throw err;
  }
}

/**
 * writeFileAtomic for the workspace, race-free: the temporary file is created and renamed through a
 * descriptor of the folder opened by openDirInside, so a symbolic link swapped into the path
 * cannot send the bytes outside; a link swapped in as the file itself is replaced, not followed.
 */
export async function writeInside(root: string, real: string, bytes: Buffer, o: { executable?: boolean; sweep?: boolean } = {}): Promise<FileVersion> {
  const dir = await openDirInside(root, dirname(real));
  const at = (name: string): string => (FD_PATHS ? `${fdPath(dir)}/${name}` : join(dirname(real), name));
  const name = basename(real);
  const tmp = at(tempName(name));
  let created = false;
  try {
    const before = await lstat(at(name)).catch(() => undefined);
    const file = await open(tmp, 'wx');
    created = true;
    let st: Stats;
    try {
      await file.writeFile(bytes);
      const mode = modeFor(before, o.executable);
      if (mode !== undefined) await file.chmod(mode);
      st = await file.stat();
    } finally {
      await file.close();
    }
    await rename(tmp, at(name));
    if (o.sweep !== false) await sweepTemps(at(''));
    return versionOf(bytes, st);
  } catch (err) {
    if (created) await unlink(tmp).catch(() => {});
    throw err;
  } finally {
    await dir.close();
  }
}

/**
 * The mode of a file written over `before`: its own, with the executable bits set or cleared
 * where asked (as git does: x wherever r is); a new file's from the umask.
 */
function modeFor(before: Stats | undefined, executable: boolean | undefined): number | undefined {
  const kept = before?.isFile() ? before.mode & 0o7777 : undefined;
  if (executable === undefined) return kept;
  const base = kept ?? 0o666 & ~process.umask();
  return executable ? base | ((base & 0o444) >> 2) : base & ~0o111;
}

/** Makes `real` (inside `root`) a symbolic link to `target`, race-free as writeInside; what was there is replaced. */
export async function symlinkInside(root: string, real: string, target: string): Promise<void> {
  const dir = await openDirInside(root, dirname(real));
  const at = (name: string): string => (FD_PATHS ? `${fdPath(dir)}/${name}` : join(dirname(real), name));
  const tmp = at(tempName(basename(real)));
  try {
    await symlink(target, tmp);
    await rename(tmp, at(basename(real))).catch(async (err) => {
      await unlink(tmp).catch(() => {});
      throw err;
    });
  } finally {
    await dir.close();
  }
}

/**
 * Removes the file (or link) `real` inside `root` without following a link in any folder of its
 * path, and then the folders it leaves empty up to `root`. A missing file is no error; a folder is.
 */
export async function unlinkInside(root: string, real: string): Promise<void> {
  let dir: FileHandle;
  try {
    dir = await openDirInside(root, dirname(real), false);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const at = (name: string): string => (FD_PATHS ? `${fdPath(dir)}/${name}` : join(dirname(real), name));
  try {
    const st = await lstat(at(basename(real))).catch(() => undefined);
    if (!st) return;
    if (st.isDirectory()) throw new Error(`${relative(root, real)} is a folder now; it was left alone`);
    await unlink(at(basename(real)));
  } finally {
    await dir.close();
  }
  for (let sub = dirname(real); sub !== root && inside(root, sub); sub = dirname(sub)) {
    const parent = await openDirInside(root, dirname(sub), false).catch(() => undefined);
    if (!parent) break;
    const removed = await rmdir(FD_PATHS ? `${fdPath(parent)}/${basename(sub)}` : sub).then(() => true, () => false);
    await parent.close();
    if (!removed) break;
  }
}

/** Temporary files of writeFileAtomic and writeInside: `.<name>.feiyu-<pid>-<8 hex>.tmp`, beside the file they become. */
const tempName = (name: string): string => `.${name}.feiyu-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
const TEMP_NAME = /^\..+\.feiyu-(\d+)-[0-9a-f]{8}\.tmp$/;

/** Removes from `dir` the temporary files of feiyu processes that are gone (killed mid-write). Returns their names. */
export async function sweepTemps(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? 0);
    return pid > 0 && pid !== process.pid && !processAlive(pid);
  });
  await Promise.all(stale.map((name) => unlink(join(dir, name)).catch(() => {})));
  return stale;
}
