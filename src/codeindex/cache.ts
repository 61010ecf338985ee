// The code index's cache: one file per project under the state folder holding every file's
// record, written atomically (temporary file, then rename) and verified on load (format, version,
// lengths and a SHA-256 of the contents), so a torn or tampered file is rebuilt, never trusted.
// Must not decide what is stale: the index compares records with the disk.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FileRecord, IndexedChunk } from './model.js';
import { pack, unpack, type Head } from './packing.js';

/** Bumped whenever records, the tokenizer or the queries change meaning: an old cache is rebuilt. */
export const CACHE_VERSION = 4;
const MAGIC = 'feiyu-codeindex';

/** A file as cached: its record, and its chunks and whole-file terms numbered in `Snapshot.terms`. */
export type StoredFile = { record: FileRecord; chunks: IndexedChunk[]; whole: IndexedChunk };

export type Snapshot = { root: string; builtAt: number; terms: string[]; files: StoredFile[] };

export type Loaded = { snapshot: Snapshot; bytes: number } | { missing: true } | { corrupt: string };

/** Where the cache of the project at `root` lives: a folder per project under <state>/codeindex/. */
export function cacheFile(stateDir: string, root: string): string {
  const id = `${basename(root) || 'root'}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`;
  return join(stateDir, 'codeindex', id, 'index.bin');
}

const bytesOf = (ints: Int32Array): Buffer => Buffer.from(ints.buffer, ints.byteOffset, ints.byteLength);

/**
 * Writes the snapshot: 0600 in a 0700 folder, through a temporary file renamed over the old one.
 * On disk: a header line (magic, version, the lengths of the three parts and their SHA-256), then
 * the parts packing.ts makes: the JSON head, the rows, the chunks' terms. Returns its size.
 */
export function saveSnapshot(file: string, snapshot: Snapshot): number {
  const { head, rows, chunkTerms } = pack(snapshot);
  const parts = [Buffer.from(JSON.stringify(head)), bytesOf(rows), bytesOf(chunkTerms)];
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  const header = Buffer.from(`${MAGIC} ${CACHE_VERSION} ${parts.map((p) => p.length).join(' ')} ${hash.digest('hex')}\n`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, Buffer.concat([header, ...parts]), { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return header.length + parts.reduce((n, p) => n + p.length, 0);
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
  const [jsonLength, rowsLength, termsLength] = header.slice(2, 5).map(Number) as [number, number, number];
  const body = bytes.subarray(nl + 1);
  const total = jsonLength + rowsLength + termsLength;
  if (body.length !== total || rowsLength % 4 || termsLength % 4) return { corrupt: `truncated (${body.length} of ${total} bytes)` };
  if (createHash('sha256').update(body).digest('hex') !== header[5]) return { corrupt: 'checksum mismatch' };
  try {
    const head = JSON.parse(body.toString('utf8', 0, jsonLength)) as Head;
    if (!head || !Array.isArray(head.files) || !Array.isArray(head.terms) || !Array.isArray(head.strings)) return { corrupt: 'not a code index snapshot' };
    if (head.root !== root) return { corrupt: 'not this project' };
    // Copies, aligned for the Int32 views whatever the JSON's length; the file's bytes are let go.
    const ints = (from: number, length: number) => new Int32Array(body.buffer.slice(body.byteOffset + from, body.byteOffset + from + length));
    const snapshot = unpack({ head, rows: ints(jsonLength, rowsLength), chunkTerms: ints(jsonLength + rowsLength, termsLength) });
    return { snapshot, bytes: bytes.length };
  } catch (err) {
    return { corrupt: `unreadable: ${(err as Error).message}` };
  }
}

/** The cache's size on disk in bytes, 0 when there is none. */
export const cacheSize = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export const removeCache = (file: string): void => rmSync(file, { force: true });
