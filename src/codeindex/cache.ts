// The code index's cache: one file per project under the state folder holding every file's
// record, written atomically (temporary file, then rename) and verified on load (format, version,
// lengths and a SHA-256 of the contents), so a torn or tampered file is rebuilt, never trusted.
// Must not decide what is stale: the index compares records with the disk.

import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { INT_PARTS, pack, unpack, type Head, type Snapshot } from './packing.js';

export type { Snapshot, StoredFile } from './packing.js';

/** Bumped whenever records, the tokenizer or the queries change meaning: an old cache is rebuilt. */
export const CACHE_VERSION = 7;
const MAGIC = 'feiyu-codeindex';

export type Loaded = { snapshot: Snapshot; bytes: number } | { missing: true } | { corrupt: string };

/** Where the cache of the project at `root` lives: a folder per project under <state>/codeindex/. */
export function cacheFile(stateDir: string, root: string): string {
  const id = `${basename(root) || 'root'}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`;
  return join(stateDir, 'codeindex', id, 'index.bin');
}

const bytesOf = (ints: Int32Array): Buffer => Buffer.from(ints.buffer, ints.byteOffset, ints.byteLength);

/**
 * The bytes as Int32s: a view where they are aligned (the writer pads the header so they are),
 * else a copy. The view keeps the file's bytes, most of which the index keeps anyway.
 */
const int32s = (bytes: Buffer): Int32Array =>
  bytes.byteOffset % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) : new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));

/**
 * Writes the snapshot: 0600 in a 0700 folder, through a temporary file renamed over the old one.
 * On disk: a header line (magic, version, the lengths of the parts and their SHA-256), then the
 * parts packing.ts makes: the JSON head, then Int32 parts. Returns its size.
 */
export function saveSnapshot(file: string, snapshot: Snapshot): number {
  const { head, ints } = pack(snapshot);
  const parts = [Buffer.from(JSON.stringify(head)), ...ints.map(bytesOf)];
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  const line = `${MAGIC} ${CACHE_VERSION} ${parts.map((p) => p.length).join(' ')} ${hash.digest('hex')}`;
  // Spaces before the newline put the Int32 parts on 4-byte boundaries, for reading them in place.
  const header = Buffer.from(`${line.padEnd(line.length + ((4 - ((line.length + 1 + parts[0]!.length) % 4)) % 4))}\n`);
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

/** The cache file's bytes and the SHA-256 of all after the header line, or why there are none. */
export type Read = { bytes: Buffer; sum: string } | { missing: true } | { corrupt: string };

/** Read in parts, all asked for at once: each is hashed as it arrives while the others are read. */
const READ_PART = 2 << 20;

/**
 * Reads the cache file on the thread pool, so the caller's thread goes on meanwhile, and hashes
 * each part as it arrives (reading 20 MB took the thread as long as hashing them, and the hashing
 * waited for the whole file). Contract: never rejects.
 */
export async function readCache(file: string): Promise<Read> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const { size } = await handle.stat();
    // Its own memory, at offset 0: the Int32 parts are read in place.
    const bytes = Buffer.allocUnsafeSlow(size);
    const reads: Promise<number>[] = [];
    for (let from = 0; from < size; from += READ_PART) reads.push(handle.read(bytes, from, Math.min(READ_PART, size - from), from).then((r) => r.bytesRead));
    const hash = createHash('sha256');
    let failure: unknown;
    let at = 0;
    let body = -1;
    for (const [i, read] of reads.entries()) {
      // Every read is awaited, even after one failed or came up short: none is left to fail unheard.
      const count = await read.catch((err: unknown) => ((failure ??= err), 0));
      if (at !== i * READ_PART) continue;
      const from = at;
      at += count;
      const nl = body < 0 ? bytes.subarray(from, at).indexOf(10) : -1;
      if (nl >= 0) body = from + nl + 1;
      if (body >= 0) hash.update(bytes.subarray(Math.max(from, body), at));
    }
    if (failure) throw failure;
    // The bytes end where a part came up short (a file cut while it was read): then it reads as truncated.
    return { bytes: bytes.subarray(0, at), sum: hash.digest('hex') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
    return { corrupt: `cannot read it: ${(err as Error).message}` };
  } finally {
    // Closed in the background: the caller need not wait another trip to the thread pool.
    void handle?.close().catch(() => undefined);
  }
}

/** Reads and verifies the snapshot for `root`. Contract: never rejects. */
export const loadSnapshot = async (file: string, root: string): Promise<Loaded> => parseSnapshot(await readCache(file), root);

/** Verifies the bytes read and reads the snapshot for `root` from them. Contract: never throws. */
export function parseSnapshot(read: Read, root: string): Loaded {
  if (!('bytes' in read)) return read;
  const { bytes } = read;
  const nl = bytes.indexOf(10);
  const header = nl > 0 && nl < 300 ? bytes.toString('utf8', 0, nl).trimEnd().split(' ') : [];
  if (header[0] !== MAGIC) return { corrupt: 'not a code index file' };
  if (header[1] !== String(CACHE_VERSION)) return { missing: true }; // an older format: rebuild without alarm
  const lengths = header.slice(2, -1).map(Number);
  const body = bytes.subarray(nl + 1);
  const total = lengths.reduce((n, l) => n + l, 0);
  if (lengths.length !== 1 + INT_PARTS || lengths.some((l, i) => !(Number.isInteger(l) && l >= 0) || (i > 0 && l % 4))) return { corrupt: 'not a code index file' };
  if (body.length !== total) return { corrupt: `truncated (${body.length} of ${total} bytes)` };
  if (read.sum !== header.at(-1)) return { corrupt: 'checksum mismatch' };
  try {
    const head = JSON.parse(body.toString('utf8', 0, lengths[0])) as Head;
    if (!head || !Array.isArray(head.files) || !Array.isArray(head.terms) || !Array.isArray(head.strings)) return { corrupt: 'not a code index snapshot' };
    if (head.root !== root) return { corrupt: 'not this project' };
    let at = lengths[0]!;
    const ints = lengths.slice(1).map((length) => int32s(body.subarray(at, (at += length))));
    const snapshot = unpack({ head, ints });
    return { snapshot, bytes: bytes.length };
  } catch (err) {
    return { corrupt: `unreadable: ${(err as Error).message}` };
  }
}

/** The cache's size on disk in bytes, 0 when there is none. */
export const cacheSize = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export const removeCache = (file: string): void => rmSync(file, { force: true });
