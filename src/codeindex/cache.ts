// The code index's cache: one file per project under the state folder holding every file's
// record, written atomically (temporary file, then rename) and verified on load (format, version,
// length and a SHA-256 of the contents), so a torn or tampered file is rebuilt, never trusted.
// Must not decide what is stale: the index compares records with the disk.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { FileRecord } from './model.js';

/** Bumped whenever records, the tokenizer or the queries change meaning: an old cache is rebuilt. */
export const CACHE_VERSION = 1;
const MAGIC = 'feiyu-codeindex';

export type Snapshot = { root: string; builtAt: number; files: FileRecord[] };

export type Loaded = { snapshot: Snapshot; bytes: number } | { missing: true } | { corrupt: string };

/** Where the cache of the project at `root` lives: a folder per project under <state>/codeindex/. */
export function cacheFile(stateDir: string, root: string): string {
  const id = `${basename(root) || 'root'}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`;
  return join(stateDir, 'codeindex', id, 'index.bin');
}

/** Writes the snapshot: 0600 in a 0700 folder, through a temporary file renamed over the old one. */
export function saveSnapshot(file: string, snapshot: Snapshot): number {
  const payload = serialize(snapshot);
  const header = Buffer.from(`${MAGIC} ${CACHE_VERSION} ${payload.length} ${createHash('sha256').update(payload).digest('hex')}\n`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, Buffer.concat([header, payload]), { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return header.length + payload.length;
}

/** Reads and verifies the snapshot for `root`. Contract: never throws. */
export function loadSnapshot(file: string, root: string): Loaded {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
    return { corrupt: `cannot read it: ${(err as Error).message}` };
  }
  const nl = bytes.indexOf(10);
  const header = nl > 0 && nl < 200 ? bytes.toString('utf8', 0, nl).split(' ') : [];
  if (header[0] !== MAGIC) return { corrupt: 'not a code index file' };
  if (header[1] !== String(CACHE_VERSION)) return { missing: true }; // an older format: rebuild without alarm
  const payload = bytes.subarray(nl + 1);
  if (payload.length !== Number(header[2])) return { corrupt: `truncated (${payload.length} of ${header[2]} bytes)` };
  if (createHash('sha256').update(payload).digest('hex') !== header[3]) return { corrupt: 'checksum mismatch' };
  let snapshot: Snapshot;
  try {
    snapshot = deserialize(payload) as Snapshot;
  } catch (err) {
    return { corrupt: `unreadable: ${(err as Error).message}` };
  }
  if (!snapshot || !Array.isArray(snapshot.files) || snapshot.root !== root) return { corrupt: 'not this project' };
  return { snapshot, bytes: bytes.length };
}

/** The cache's size on disk in bytes, 0 when there is none. */
export const cacheSize = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export const removeCache = (file: string): void => rmSync(file, { force: true });
