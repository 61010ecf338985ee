// Small private JSON files in the config folder (keys, settings, approvals, trust): written with
// mode 0600, atomically; changed under their lock, so two processes never lose each other's
// updates; the per-project ones read with a clear error naming the file.

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CONFIG_FILE_MAX, FileReadError, readRegularFile } from './readfile.js';
import { withFileLock } from './lock.js';

/**
 * Writes JSON with mode 0600 through a temporary file renamed over the old one, so a crash never
 * leaves half a file and the result is 0600 whatever the old mode was. Only folders created here
 * get 0700: an existing one (perhaps shared) keeps its mode.
 */
export function writePrivateJson(file: string, data: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Reads `file` with `read`, lets `change` change the data in place, and writes it back (0600,
 * atomic), all under the file's lock: a read-modify-write that another process's own cannot
 * undo. Returns the data written.
 */
export function updatePrivateJson<T>(file: string, read: (file: string) => T, change: (data: T) => void): T {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  return withFileLock(file, () => {
    const data = read(file);
    change(data);
    writePrivateJson(file, data);
    return data;
  });
}

/** A `{ "version": 1, "projects": { "<workspace realpath>": … } }` file; missing = empty. Throws naming the file. */
export function readProjectsFile<T>(file: string): { version: 1; projects: Record<string, T> } {
  let data: unknown;
  try {
    const text = readRegularFile(file, CONFIG_FILE_MAX);
    if (text === undefined) return { version: 1, projects: {} };
    data = JSON.parse(text);
  } catch (err) {
    if (err instanceof FileReadError) throw err;
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  const projects = (data as { projects?: unknown } | null)?.projects;
  if (typeof projects !== 'object' || projects === null || Array.isArray(projects)) throw new Error(`${file}: "projects" must be an object`);
  return { version: 1, projects: projects as Record<string, T> };
}
