// The code index's cache: one file per project under the state folder holding every file's
// record, written atomically (temporary file, then rename) and verified on load (format, version,
// length and a SHA-256 of the contents), so a torn or tampered file is rebuilt, never trusted.
// Must not decide what is stale: the index compares records with the disk.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { CallRecord, FileRecord, IndexedChunk } from './model.js';

/** Bumped whenever records, the tokenizer or the queries change meaning: an old cache is rebuilt. */
export const CACHE_VERSION = 2;
const MAGIC = 'feiyu-codeindex';

/** A file as cached: its record, and its chunks and whole-file terms numbered in `Snapshot.terms`. */
export type StoredFile = { record: FileRecord; chunks: IndexedChunk[]; whole: IndexedChunk };

export type Snapshot = { root: string; builtAt: number; terms: string[]; files: StoredFile[] };

/** A chunk on disk: its term ids and frequencies are `n` numbers each at `at` in the snapshot's one array. */
type PackedChunk = { sym: number; lengths: number[]; at: number; n: number };
/**
 * A file on disk. Its calls, the most numerous objects, go as two strings (names, receivers; one
 * a line) and [line, from] pairs in the numbers: reading back objects is what makes loading slow.
 */
type PackedFile = { record: Omit<FileRecord, 'calls'>; names: string; recvs: string; callsAt: number; chunks: PackedChunk[]; whole: PackedChunk };
/** One typed array for all chunks: a typed array each would cost a callback each to read back. */
type Packed = { root: string; builtAt: number; terms: string[]; files: PackedFile[]; numbers: Int32Array };

function pack(snapshot: Snapshot): Packed {
  let total = 0;
  for (const f of snapshot.files) {
    total += f.record.calls.length * 2;
    for (const c of [...f.chunks, f.whole]) total += c.ids.length * 2;
  }
  const numbers = new Int32Array(total);
  let at = 0;
  const calls = (record: FileRecord) => {
    const callsAt = at;
    for (const c of record.calls) {
      numbers[at++] = c.line;
      numbers[at++] = c.from;
    }
    return { names: record.calls.map((c) => c.name).join('\n'), recvs: record.calls.map((c) => c.recv ?? '').join('\n'), callsAt };
  };
  const put = (c: IndexedChunk): PackedChunk => {
    numbers.set(c.ids, at);
    numbers.set(c.tfs, at + c.ids.length);
    const packed = { sym: c.sym, lengths: c.lengths, at, n: c.ids.length };
    at += c.ids.length * 2;
    return packed;
  };
  const files = snapshot.files.map((f) => {
    const { calls: _calls, ...record } = f.record;
    return { record, ...calls(f.record), chunks: f.chunks.map(put), whole: put(f.whole) };
  });
  return { root: snapshot.root, builtAt: snapshot.builtAt, terms: snapshot.terms, files, numbers };
}

function unpack(packed: Packed): Snapshot {
  const { numbers } = packed;
  const take = (c: PackedChunk): IndexedChunk => {
    if (c.at < 0 || c.at + c.n * 2 > numbers.length) throw new Error('chunk outside the data');
    return { sym: c.sym, lengths: c.lengths, ids: numbers.subarray(c.at, c.at + c.n), tfs: numbers.subarray(c.at + c.n, c.at + c.n * 2) };
  };
  const files = packed.files.map((f) => {
    const names = f.names ? f.names.split('\n') : [];
    const recvs = f.recvs.split('\n');
    if (f.callsAt < 0 || f.callsAt + names.length * 2 > numbers.length) throw new Error('calls outside the data');
    const calls = names.map((name, i) => {
      const call: CallRecord = { name, line: numbers[f.callsAt + i * 2]!, from: numbers[f.callsAt + i * 2 + 1]! };
      if (recvs[i]) call.recv = recvs[i];
      return call;
    });
    return { record: { ...f.record, calls }, chunks: f.chunks.map(take), whole: take(f.whole) };
  });
  return { root: packed.root, builtAt: packed.builtAt, terms: packed.terms, files };
}

export type Loaded = { snapshot: Snapshot; bytes: number } | { missing: true } | { corrupt: string };

/** Where the cache of the project at `root` lives: a folder per project under <state>/codeindex/. */
export function cacheFile(stateDir: string, root: string): string {
  const id = `${basename(root) || 'root'}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`;
  return join(stateDir, 'codeindex', id, 'index.bin');
}

/** Writes the snapshot: 0600 in a 0700 folder, through a temporary file renamed over the old one. */
export function saveSnapshot(file: string, snapshot: Snapshot): number {
  const payload = serialize(pack(snapshot));
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
    const packed = deserialize(payload) as Packed;
    if (!packed || !Array.isArray(packed.files) || !Array.isArray(packed.terms) || !(packed.numbers instanceof Int32Array)) return { corrupt: 'not a code index snapshot' };
    if (packed.root !== root) return { corrupt: 'not this project' };
    snapshot = unpack(packed);
  } catch (err) {
    return { corrupt: `unreadable: ${(err as Error).message}` };
  }
  return { snapshot, bytes: bytes.length };
}

/** The cache's size on disk in bytes, 0 when there is none. */
export const cacheSize = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export const removeCache = (file: string): void => rmSync(file, { force: true });
