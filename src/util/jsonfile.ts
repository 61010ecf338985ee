// JSON as feiyu keeps it: the plain-object check every reader of parsed JSON uses, and small
// private files in the config folder (keys, settings, approvals, trust), written with mode 0600,
// atomically; the per-project ones read with a clear error naming the file.

import { readFileSync } from 'node:fs';
import { writeFileAtomic } from './paths.js';

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Writes JSON with mode 0600 atomically, creating missing folders 0700 (writeFileAtomic). */
export function writePrivateJson(file: string, data: unknown): void {
  writeFileAtomic(file, JSON.stringify(data, null, 2) + '\n', { private: true });
}

/** A `{ "version": 1, "projects": { "<workspace realpath>": … } }` file; missing = empty. Throws naming the file. */
export function readProjectsFile<T>(file: string): { version: 1; projects: Record<string, T> } {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, projects: {} };
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  const projects = isObject(data) ? data.projects : undefined;
  if (!isObject(projects)) throw new Error(`${file}: "projects" must be an object`);
  return { version: 1, projects: projects as Record<string, T> };
}
