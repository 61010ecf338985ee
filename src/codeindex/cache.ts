// The code index's cache: one file per project under the state folder holding every file's
// record, written atomically (temporary file, then rename) and verified on load (format, version,
// lengths and a SHA-256 of the contents), so a torn or tampered file is rebuilt, never trusted.
// Must not decide what is stale: the index compares records with the disk.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CallRecord, FileRecord, IndexedChunk } from './model.js';

/** Bumped whenever records, the tokenizer or the queries change meaning: an old cache is rebuilt. */
export const CACHE_VERSION = 3;
const MAGIC = 'feiyu-codeindex';

/** A file as cached: its record, and its chunks and whole-file terms numbered in `Snapshot.terms`. */
export type StoredFile = { record: FileRecord; chunks: IndexedChunk[]; whole: IndexedChunk };

export type Snapshot = { root: string; builtAt: number; terms: string[]; files: StoredFile[] };

export type Loaded = { snapshot: Snapshot; bytes: number } | { missing: true } | { corrupt: string };

/**
 * On disk: a header line, the objects as JSON (read back faster than any other form of many small
 * objects), then every number (chunk terms and frequencies, call lines) as one Int32 block. A
 * chunk or a file's calls name where in that block they are; calls' names and receivers go as
 * one line each of two strings per file.
 */
type PackedChunk = { sym: number; lengths: number[]; at: number; n: number };
type PackedFile = { record: Omit<FileRecord, 'calls'>; names: string; recvs: string; callsAt: number; chunks: PackedChunk[]; whole: PackedChunk };
type Packed = { root: string; builtAt: number; terms: string[]; files: PackedFile[] };

/** Where the cache of the project at `root` lives: a folder per project under <state>/codeindex/. */
export function cacheFile(stateDir: string, root: string): string {
  const id = `${basename(root) || 'root'}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`;
  return join(stateDir, 'codeindex', id, 'index.bin');
}

function pack(snapshot: Snapshot): { packed: Packed; numbers: Int32Array } {
  let total = 0;
  for (const f of snapshot.files) total += f.record.calls.length * 2 + [...f.chunks, f.whole].reduce((n, c) => n + c.n * 2, 0);
  const numbers = new Int32Array(total);
  let at = 0;
  const put = (c: IndexedChunk): PackedChunk => {
    numbers.set(c.data.subarray(c.at, c.at + c.n * 2), at);
    const packed = { sym: c.sym, lengths: c.lengths, at, n: c.n };
    at += c.n * 2;
    return packed;
  };
  const files = snapshot.files.map((f): PackedFile => {
    const { calls, ...record } = f.record;
    const callsAt = at;
    for (const c of calls) {
      numbers[at++] = c.line;
      numbers[at++] = c.from;
    }
    const names = calls.map((c) => c.name).join('\n');
    const recvs = calls.map((c) => c.recv ?? '').join('\n');
    return { record, names, recvs, callsAt, chunks: f.chunks.map(put), whole: put(f.whole) };
  });
  return { packed: { root: snapshot.root, builtAt: snapshot.builtAt, terms: snapshot.terms, files }, numbers };
}

function unpack(packed: Packed, numbers: Int32Array): Snapshot {
  const take = (c: PackedChunk): IndexedChunk => {
    if (!(c.at >= 0 && c.at + c.n * 2 <= numbers.length)) throw new Error('a chunk outside the numbers');
    return { sym: c.sym, lengths: c.lengths, data: numbers, at: c.at, n: c.n };
  };
  const files = packed.files.map((f) => {
    const names = f.names ? f.names.split('\n') : [];
    const recvs = f.recvs.split('\n');
    if (!(f.callsAt >= 0 && f.callsAt + names.length * 2 <= numbers.length)) throw new Error('calls outside the numbers');
    const calls = names.map((name, i) => {
      const call: CallRecord = { name, line: numbers[f.callsAt + i * 2]!, from: numbers[f.callsAt + i * 2 + 1]! };
      if (recvs[i]) call.recv = recvs[i];
      return call;
    });
    return { record: { ...f.record, calls } as FileRecord, chunks: f.chunks.map(take), whole: take(f.whole) };
  });
  return { root: packed.root, builtAt: packed.builtAt, terms: packed.terms, files };
}

/** Writes the snapshot: 0600 in a 0700 folder, through a temporary file renamed over the old one. Returns its size. */
export function saveSnapshot(file: string, snapshot: Snapshot): number {
  const { packed, numbers } = pack(snapshot);
  const json = Buffer.from(JSON.stringify(packed));
  const block = Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength);
  const sum = createHash('sha256').update(json).update(block).digest('hex');
  const header = Buffer.from(`${MAGIC} ${CACHE_VERSION} ${json.length} ${block.length} ${sum}\n`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, Buffer.concat([header, json, block]), { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return header.length + json.length + block.length;
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
  const jsonLength = Number(header[2]);
  const blockLength = Number(header[3]);
  const body = bytes.subarray(nl + 1);
  if (body.length !== jsonLength + blockLength || blockLength % 4) return { corrupt: `truncated (${body.length} of ${jsonLength + blockLength} bytes)` };
  if (createHash('sha256').update(body).digest('hex') !== header[4]) return { corrupt: 'checksum mismatch' };
  try {
    const packed = JSON.parse(body.toString('utf8', 0, jsonLength)) as Packed;
    if (!packed || !Array.isArray(packed.files) || !Array.isArray(packed.terms)) return { corrupt: 'not a code index snapshot' };
    if (packed.root !== root) return { corrupt: 'not this project' };
    // A copy, aligned for the Int32 view whatever the JSON's length.
    const numbers = new Int32Array(body.buffer.slice(body.byteOffset + jsonLength, body.byteOffset + jsonLength + blockLength));
    return { snapshot: unpack(packed, numbers), bytes: bytes.length };
  } catch (err) {
    return { corrupt: `unreadable: ${(err as Error).message}` };
  }
}

/** The cache's size on disk in bytes, 0 when there is none. */
export const cacheSize = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

export const removeCache = (file: string): void => rmSync(file, { force: true });
