// JSON as feiyu keeps it: the plain-object check every reader of parsed JSON uses, and small
// private files in the config folder (keys, settings, approvals, trust), written with mode 0600,
// atomically, and changed under their lock so two processes never lose each other's updates; the
// per-project ones read with a clear error naming the file.

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from './paths.js';
import { withFileLock } from './lock.js';
import { CONFIG_FILE_MAX, FileReadError, readRegularFile } from './readfile.js';

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Writes JSON with mode 0600 atomically, creating missing folders 0700 (writeFileAtomic). */
export function writePrivateJson(file: string, data: unknown): void {
  writeFileAtomic(file, JSON.stringify(data, null, 2) + '\n', { private: true });
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
  const projects = isObject(data) ? data.projects : undefined;
  if (!isObject(projects)) throw new Error(`${file}: "projects" must be an object`);
  return { version: 1, projects: projects as Record<string, T> };
}
