// The in-memory index of one workspace: each file's record and numbered chunks, the BM25F indexes
// over chunks and over whole files, and the call graph, changed one file at a time or loaded in
// bulk from the cache. Must not touch the disk: the engine brings the records and decides when.

import { Bm25Index, Terms } from './bm25.js';
import type { Snapshot, StoredFile } from './cache.js';
import { CallGraph } from './graph.js';
import { NO_TERMS, numbered, type FileRecord, type IndexedChunk } from './model.js';
import type { ModuleConfig } from './modules.js';

/** A file in the index: its record, its chunks (their terms numbered) and their documents, and the same for the whole file. */
export type Entry = { record: FileRecord; chunks: IndexedChunk[]; docs: number[]; whole: IndexedChunk; fileDoc: number };

export class IndexStore {
  readonly files = new Map<string, Entry>();
  readonly bm25: Bm25Index;
  /** For each BM25 document, the file and symbol (-1: top-level code) it came from. */
  owners: { path: string; sym: number }[] = [];
  /** BM25F over whole files, and the file of each of its documents. */
  readonly fileBm25: Bm25Index;
  fileOwners: string[] = [];
  readonly graph: CallGraph;
  /** Bumped on every change, so derived figures (edge counts) know when to recount. */
  generation = 0;
  /** Per parsing thread's dictionary, the workspace's number of each of its terms met so far. */
  private readonly known = new WeakMap<readonly string[], number[]>();

  /** `terms` is the dictionary the cached chunks are numbered in (empty for a fresh build). */
  constructor(
    readonly terms: Terms,
    modules: ModuleConfig,
  ) {
    this.bm25 = new Bm25Index(terms);
    this.fileBm25 = new Bm25Index(terms);
    this.graph = new CallGraph((p) => this.files.get(p)?.record, modules, () => [...this.files.values()].map((e) => e.record));
  }

  /**
   * Puts the unchanged files of the cache in, all at once (the indexes are empty). With the
   * cache's postings, every document of `cached` is taken as it is and those of files not among
   * `files` (changed or gone) removed again; without, the postings are made from the chunks.
   */
  load(files: StoredFile[], cached?: Snapshot): void {
    const postings = cached?.postings && inOrder(files, cached.files) ? cached.postings : undefined;
    const all = postings ? cached!.files : files;
    const docs = this.bm25.bulk(all.flatMap((f) => f.chunks), postings?.chunks);
    const fileDocs = this.fileBm25.bulk(all.map((f) => f.whole), postings?.files);
    const kept = new Set(files);
    let next = 0;
    all.forEach((f, i) => {
      const own = docs.slice(next, (next += f.chunks.length));
      if (!kept.has(f)) {
        own.forEach((doc, k) => this.bm25.remove(doc, f.chunks[k]!));
        this.fileBm25.remove(fileDocs[i]!, f.whole);
        return;
      }
      const entry: Entry = { record: f.record, chunks: f.chunks, docs: own, whole: f.whole, fileDoc: fileDocs[i]! };
      this.files.set(f.record.path, entry);
      own.forEach((doc, k) => (this.owners[doc] = { path: f.record.path, sym: f.chunks[k]!.sym }));
      this.fileOwners[entry.fileDoc] = f.record.path;
      this.graph.add(f.record);
    });
    this.generation++;
  }

  /**
   * Replaces (or with null removes) one file's record in the store, the chunks and the graph.
   */
  apply(path: string, record: FileRecord | null): void {
    const old = this.files.get(path);
    if (old) {
      this.graph.remove(old.record);
      old.docs.forEach((doc, i) => this.bm25.remove(doc, old.chunks[i]!));
      this.fileBm25.remove(old.fileDoc, old.whole);
      this.files.delete(path);
    }
    if (record) {
      const terms = record.terms ?? NO_TERMS;
      let known = this.known.get(terms.dictionary);
      if (!known) this.known.set(terms.dictionary, (known = []));
      const { chunks, whole } = numbered(terms, (t) => this.terms.idOf(t), known);
      // The terms live on as numbers in the chunks; the strings would only double the memory.
      delete record.terms;
      const fileDoc = this.fileBm25.add(whole);
      this.fileOwners[fileDoc] = path;
      const entry: Entry = { record, chunks, docs: [], whole, fileDoc };
      this.files.set(path, entry);
      for (const chunk of chunks) {
        const doc = this.bm25.add(chunk);
        this.owners[doc] = { path, sym: chunk.sym };
        entry.docs.push(doc);
      }
      this.graph.add(record);
    }
    if (this.bm25.wantsCompaction || this.fileBm25.wantsCompaction) this.compact();
    this.generation++;
  }

  /** Moves every posting into the compact arrays and drops removed documents. */
  compact(): void {
    const renumber = this.bm25.compact();
    const renumberFiles = this.fileBm25.compact();
    const owners: { path: string; sym: number }[] = [];
    const fileOwners: string[] = [];
    for (const entry of this.files.values()) {
      entry.docs = entry.docs.map((d) => renumber[d]!);
      entry.docs.forEach((d, i) => (owners[d] = { path: entry.record.path, sym: entry.chunks[i]!.sym }));
      entry.fileDoc = renumberFiles[entry.fileDoc]!;
      fileOwners[entry.fileDoc] = entry.record.path;
    }
    this.owners = owners;
    this.fileOwners = fileOwners;
  }

  /** What the cache keeps: the dictionary and every file with its numbered chunks. */
  snapshot(): { terms: string[]; files: StoredFile[] } {
    return { terms: this.terms.list, files: [...this.files.values()].map(({ record, chunks, whole }) => ({ record, chunks, whole })) };
  }
}

/** True when `some` are among `all` in the same order (so documents numbered in `all`'s order keep theirs). */
function inOrder(some: StoredFile[], all: StoredFile[]): boolean {
  let i = 0;
  for (const f of all) if (f === some[i]) i++;
  return i === some.length;
}
