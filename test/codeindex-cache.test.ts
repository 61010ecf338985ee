// The code index's cache file on its own: records and chunks read back exactly as written (every
// optional field present or absent, the fields made on first read among them), in path order with
// their postings, a snapshot saved again from what was read, and every way a file can be wrong:
// truncated, a byte flipped in any part, another project's, an older format, rows or postings
// that do not fit together. Real files, no mocks.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { invert } from '../src/codeindex/bm25.js';
import { CACHE_VERSION, cacheFile, loadSnapshot, saveSnapshot, type Snapshot, type StoredFile } from '../src/codeindex/cache.js';
import type { FileRecord, IndexedChunk } from '../src/codeindex/model.js';

const ROOT = '/work/project';

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'feiyu-cache-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const chunk = (sym: number, lengths: number[], terms: [number, number][]): IndexedChunk => ({
  sym,
  lengths,
  data: Int32Array.from([...terms.map(([id]) => id), ...terms.map(([, tf]) => tf)]),
  at: 0,
  n: terms.length,
});

/** Two files between them holding every optional field, present and absent. */
function files(): StoredFile[] {
  const full: FileRecord = {
    path: 'src/store.ts',
    size: 812,
    mtimeMs: 1733212345678.1235,
    hash: '9734c7c66e0b1d46f243ec5a4757d2078fe6944c',
    lang: 'typescript',
    lines: 40,
    symbols: [
      { name: 'Store', kind: 'class', line: 3, endLine: 30, sig: 'implements Saver', doc: 'Keeps sessions — on disk.', exported: true },
      { name: 'save', kind: 'method', container: 'Store', line: 5, endLine: 9, sig: '(s: Session): void', exported: false, decl: true },
      { name: 'load', kind: 'method', container: 'Store', line: 10, endLine: 12, sig: '', doc: '', exported: false, decl: false },
      { name: 'size', kind: 'method', container: 'Store', line: 13, endLine: 15, sig: '(): number', exported: false, accessor: 'get' },
    ],
    calls: [
      { name: 'hashKey', line: 6, from: 1 },
      { name: 'write', line: 7, recv: 'this.db', from: 1 },
      { name: 'main', line: 35, recv: '', from: -1 },
    ],
    imports: [
      { local: 'hashKey', name: 'hashKey', from: './hash.js' },
      { local: '*', name: '*', from: './types.js', reexport: true },
      { local: 'x', name: 'y', from: 'z', reexport: false },
    ],
    bindings: [
      { name: 'db', type: 'Db', scope: 0, field: true },
      { name: 's', type: '', scope: 1 },
    ],
    note: 'syntax_errors',
  };
  const bare: FileRecord = { path: 'lib/empty.py', size: 0, mtimeMs: 1, hash: 'da39a3ee5e6b4b0d3255bfef95601890afd80709', lang: 'python', lines: 1, symbols: [], calls: [], imports: [], bindings: [], note: 'no_grammar', detail: 'grammar "python" failed: boom' };
  return [
    { record: full, chunks: [chunk(-1, [0, 0, 0, 4, 2], [[0, 1], [2, 8192]]), chunk(0, [1, 2, 3, 20, 2], [[1, 17], [3, 1 << 23]])], whole: chunk(-1, [1, 2, 3, 24, 2], [[0, 1], [1, 17], [2, 8192], [3, 1 << 23]]) },
    { record: bare, chunks: [], whole: chunk(-1, [0, 0, 0, 0, 0], []) },
  ];
}

const snapshot = (): Snapshot => ({ root: ROOT, builtAt: 1733212345678, terms: ['store', 'session', 'hash', 'kei'], files: files() });

/** What a test can compare: files in path order (as the cache keeps them), chunks by their own terms whatever array they live in. */
const plain = ({ postings: _, ...s }: Snapshot) => ({
  ...s,
  files: [...s.files]
    .sort((a, b) => a.record.path.localeCompare(b.record.path))
    .map((f) => ({ record: { ...f.record }, chunks: f.chunks.map(terms), whole: terms(f.whole) })),
});
const terms = (c: IndexedChunk) => ({ sym: c.sym, lengths: c.lengths, data: [...c.data.subarray(c.at, c.at + c.n * 2)] });

async function loaded(file: string): Promise<Snapshot> {
  const result = await loadSnapshot(file, ROOT);
  if (!('snapshot' in result)) throw new Error(`not loaded: ${JSON.stringify(result)}`);
  return result.snapshot;
}

describe('the cache file', () => {
  it('reads back every record and chunk as written, and saves again what it read', async () => {
    const file = cacheFile(stateDir(), ROOT);
    const bytes = saveSnapshot(file, snapshot());
    expect(statSync(file).size).toBe(bytes);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    const first = await loaded(file);
    expect(first.files.map((f) => f.record.path)).toEqual(['lib/empty.py', 'src/store.ts']);
    // The postings of the chunks and of the files, numbered in that order.
    expect(first.postings).toEqual({ chunks: invert(first.files.flatMap((f) => f.chunks), 4), files: invert(first.files.map((f) => f.whole), 4) });
    // Calls, imports and bindings are made on first read, and look like any other field.
    expect(Object.keys(first.files[1]!.record)).toEqual(expect.arrayContaining(['calls', 'imports', 'bindings']));
    // Saved again before anything is made: their rows are copied.
    saveSnapshot(file, first);
    expect(plain(first)).toEqual(plain(snapshot()));
    const second = await loaded(file);
    expect(plain(second)).toEqual(plain(snapshot()));
    // A field replaced before it was made, the others copied as rows.
    const third = await loaded(file);
    third.files[1]!.record.calls = [{ name: 'other', line: 2, from: -1 }];
    saveSnapshot(file, third);
    const want = plain(snapshot());
    want.files[1]!.record.calls = [{ name: 'other', line: 2, from: -1 }];
    expect(plain(await loaded(file))).toEqual(want);
  });

  it('a file cut short, a byte flipped in any part, or another project is corrupt; an older format is missing', async () => {
    const file = cacheFile(stateDir(), ROOT);
    saveSnapshot(file, snapshot());
    const good = readFileSync(file);
    const header = good.subarray(0, good.indexOf(10) + 1).toString();
    const [jsonLength, rowsLength] = header.trim().split(' ').slice(2, 4).map(Number) as [number, number];
    const at = (bytes: Buffer) => {
      writeFileSync(file, bytes);
      return loadSnapshot(file, ROOT);
    };
    for (const cut of [1, header.length - 1, header.length + 10, good.length - 4, good.length - 1]) {
      expect(await at(good.subarray(0, cut))).toEqual(cut < header.length ? { corrupt: 'not a code index file' } : { corrupt: `truncated (${cut - header.length} of ${good.length - header.length} bytes)` });
    }
    expect(await at(Buffer.concat([good, Buffer.from([0, 0, 0, 0])]))).toEqual({ corrupt: `truncated (${good.length - header.length + 4} of ${good.length - header.length} bytes)` });
    for (const offset of [header.length + 5, header.length + jsonLength + 3, header.length + jsonLength + rowsLength + 2, good.length - 1]) {
      const flipped = Buffer.from(good);
      flipped[offset]! ^= 0x10;
      expect(await at(flipped)).toEqual({ corrupt: 'checksum mismatch' });
    }
    writeFileSync(file, good);
    expect(await loadSnapshot(file, '/work/other')).toEqual({ corrupt: 'not this project' });
    expect(await at(Buffer.from(good.toString('latin1').replace(`feiyu-codeindex ${CACHE_VERSION} `, `feiyu-codeindex ${CACHE_VERSION - 1} `), 'latin1'))).toEqual({ missing: true });
    rmSync(file);
    expect(await loadSnapshot(file, ROOT)).toEqual({ missing: true });
  });

  it('rows or postings that do not fit together are corrupt even under a matching checksum', async () => {
    const file = cacheFile(stateDir(), ROOT);
    saveSnapshot(file, snapshot());
    const good = readFileSync(file);
    const nl = good.indexOf(10);
    const fields = good.subarray(0, nl).toString().trim().split(' ');
    const lengths = fields.slice(2, -1).map(Number);
    /** The file with one Int32 of an Int32 part changed and the checksum made to match. */
    const withInt = (part: number, index: number, value: number) => {
      const bytes = Buffer.from(good);
      bytes.writeInt32LE(value, nl + 1 + lengths.slice(0, part + 1).reduce((a, b) => a + b, 0) + index * 4);
      const sum = createHash('sha256').update(bytes.subarray(nl + 1)).digest('hex');
      writeFileSync(file, Buffer.concat([Buffer.from(`${fields.slice(0, -1).join(' ')} ${sum}`.padEnd(nl) + '\n'), bytes.subarray(nl + 1)]));
      return loadSnapshot(file, ROOT);
    };
    // The rows (part 0) start with the counts of the first file in path order (lib/empty.py):
    // symbols, calls, imports, bindings, chunks; then its whole-file chunk, then src/store.ts's
    // counts and its first symbol's name.
    expect(await withInt(0, 0, 1000)).toEqual({ corrupt: 'unreadable: rows outside the block' });
    expect(await withInt(0, 1, -1)).toEqual({ corrupt: 'unreadable: rows outside the block' });
    expect(await withInt(0, 5 + 8 + 5, 99)).toEqual({ corrupt: 'unreadable: a string outside the table' });
    // One chunk more: what follows is read out of step, and fails one way or another.
    expect(await withInt(0, 4, 1)).toEqual({ corrupt: expect.stringMatching(/^unreadable: /) });
    // Postings (parts 2 to 5: offsets and postings of the chunks, then of the files).
    expect(await withInt(2, 1, 3)).toEqual({ corrupt: 'unreadable: postings out of order' });
    expect(await withInt(4, 4, 0)).toEqual({ corrupt: 'unreadable: postings that do not cover the terms' });
  });
});
