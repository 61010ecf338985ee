// The code index of one workspace: every covered file's record, the BM25F chunks and the call
// graph built from them, kept true to the disk. Builds in the background (cache first, then the
// changed files in workers), applies edits at once, and checks the disk before each query.
// Must not format results or talk to the model: the tools do that.

import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Terms } from './bm25.js';
import { cacheFile, cacheSize, parseSnapshot, readCache, removeCache, saveSnapshot, type Loaded, type StoredFile } from './cache.js';
import { folderTimes, foldersChanged, listWorkspace, ripgrepPath, skipReason, type Listing } from './files.js';
import { languageOf } from './languages.js';
import type { FileRecord } from './model.js';
import { readModuleConfig } from './modules.js';
import { IndexStore } from './store.js';
import { FolderWatch } from './watch.js';
import { hashOf, parseJob, type ParseJob, type ParseOutcome } from './parsefile.js';
import { parseAll } from './pool.js';

export type IndexState = 'listing' | 'building' | 'ready' | 'off' | 'failed';

export type Progress = { state: IndexState; done: number; total: number };

/** Something the user should hear about, as an i18n key's tail and its parameters. */
export type IndexNotice = { code: 'cache_corrupt' | 'too_few_files' | 'build_failed' | 'save_failed'; detail?: string; n?: number };

export type EngineOptions = {
  /** The workspace (a realpath). */
  root: string;
  /** feiyu's state folder; the cache goes under codeindex/ in it. */
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** auto: on only with at least `minFiles` (200) source files; the caller checks for a git repository. */
  mode: 'auto' | 'on';
  minFiles?: number;
  /** The parse worker script; absent or missing: files are parsed in this thread. */
  workerFile?: string;
  threads?: number;
  onProgress?: (p: Progress) => void;
  onNotice?: (n: IndexNotice) => void;
};

/** Above this many changed files a query does not wait for them: they are rebuilt in the background and left out meanwhile. */
const INLINE_UPDATE_MAX = 48;
/** Even with the watch healthy, every file is statted at least this often (a missed event, a network disk). */
const FULL_CHECK_MS = 30_000;
/** File texts kept for showing context lines: up to this many characters in all, the files last shown kept first. */
const TEXT_CHARS_KEPT = 4_000_000;
const SAVE_DELAY_MS = 2000;

const isFolder = (abs: string): boolean => statSync(abs, { throwIfNoEntry: false })?.isDirectory() ?? false;

export class CodeIndex {
  readonly root: string;
  readonly file: string;
  state: IndexState = 'listing';
  progress = { done: 0, total: 0 };
  builtAt = 0;
  workers = 0;
  /** Why the cache was not used at start, when it was corrupt. */
  cacheProblem?: string;
  /** What the index holds; replaced whole when a build starts (its dictionary comes with the cache). */
  data = new IndexStore(new Terms(), { packages: new Map(), aliases: [], crates: new Map() });
  /** Files being parsed in the background after a query found too many changes: left out of results meanwhile. */
  readonly pending = new Set<string>();
  private folders = new Map<string, number>();
  private watch?: FolderWatch;
  private lastFullCheck = 0;
  private readonly texts = new Map<string, { hash: string; text: string }>();
  private textChars = 0;
  private rgPath = '';
  private dirty = false;
  private saveTimer?: NodeJS.Timeout;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();

  constructor(private readonly opts: EngineOptions) {
    this.root = opts.root;
    this.file = cacheFile(opts.stateDir, opts.root);
  }

  /** Lists, loads the cache, parses what changed. Resolves false when auto mode found too few files. Contract: never throws. */
  async start(fresh = false): Promise<boolean> {
    try {
      this.setState('listing');
      this.rgPath = await ripgrepPath(this.opts.env);
      const listed = listWorkspace(this.root, this.rgPath);
      // The cache is read on the thread pool, and verified as soon as it is here, while ripgrep
      // (another process) lists the workspace.
      const loading = fresh ? undefined : readCache(this.file).then((read) => parseSnapshot(read, this.root));
      const listing = await listed;
      if (this.opts.mode === 'auto' && listing.files.length < (this.opts.minFiles ?? 200)) {
        this.opts.onNotice?.({ code: 'too_few_files', n: listing.files.length });
        this.setState('off');
        return false;
      }
      await this.build(listing, loading);
      return true;
    } catch (err) {
      this.opts.onNotice?.({ code: 'build_failed', detail: (err as Error).message });
      this.setState('failed');
      return true;
    }
  }

  private async build(listing: Listing, loading?: Promise<Loaded>): Promise<void> {
    // Closed while ripgrep listed: nothing to watch or say any more.
    if (this.abort.signal.aborted) return;
    this.folders = folderTimes(this.root, listing.folders);
    this.watch = new FolderWatch(this.root, listing.folders);
    this.lastFullCheck = Date.now();
    // Statted while the cache may still be on its way; compared with it once it is here (size -1: gone).
    const sizes = new Float64Array(listing.files.length);
    const mtimes = new Float64Array(listing.files.length);
    listing.files.forEach((path, i) => {
      // Listed paths are plain relative ones: joined without path.join's normalising.
      const st = statSync(`${this.root}/${path}`, { throwIfNoEntry: false });
      sizes[i] = st ? st.size : -1;
      mtimes[i] = st ? st.mtimeMs : 0;
    });
    const loaded: Loaded = (await loading) ?? { missing: true };
    // Closed while the cache was read: close() found no watch to close yet.
    if (this.abort.signal.aborted) {
      this.watch.close();
      return;
    }
    const cached = new Map<string, StoredFile>();
    let terms: string[] = [];
    if ('corrupt' in loaded) {
      this.cacheProblem = loaded.corrupt;
      this.opts.onNotice?.({ code: 'cache_corrupt', detail: loaded.corrupt });
      removeCache(this.file);
    } else if ('snapshot' in loaded) {
      terms = loaded.snapshot.terms;
      for (const f of loaded.snapshot.files) cached.set(f.record.path, f);
    }
    // The cached chunks are numbered in the cached dictionary: it becomes this index's.
    this.data = new IndexStore(new Terms(terms), readModuleConfig(this.root, listing.manifests));
    const jobs: ParseJob[] = [];
    const unchanged: StoredFile[] = [];
    listing.files.forEach((path, i) => {
      const old = cached.get(path);
      if (old && sizes[i] === old.record.size && mtimes[i] === old.record.mtimeMs) unchanged.push(old);
      else if (sizes[i]! >= 0) jobs.push({ path, lang: languageOf(path)! });
    });
    this.data.load(unchanged, 'snapshot' in loaded ? loaded.snapshot : undefined);
    // What came from the cache is already saved.
    this.dirty = false;
    this.progress = { done: 0, total: jobs.length };
    this.setState(jobs.length ? 'building' : 'ready');
    if (jobs.length) {
      const { workers } = await parseAll(jobs, {
        root: this.root,
        workerFile: this.opts.workerFile,
        threads: this.opts.threads,
        signal: this.abort.signal,
        onOutcome: (o) => {
          this.applyOutcome(o);
          this.progress.done++;
          this.opts.onProgress?.({ state: 'building', ...this.progress });
        },
      });
      this.workers = workers;
      if (this.abort.signal.aborted) return;
      // What the build added one file at a time moves into the compact arrays.
      this.data.compact();
    }
    this.builtAt = Date.now();
    this.setState('ready');
    // Queries are answered from memory at once; the cache is written just after (close() writes it too).
    // Not once closed: close() has saved (or failed to, and said so) already.
    if (this.dirty) setImmediate(() => this.dirty && !this.abort.signal.aborted && this.save());
  }

  private setState(state: IndexState): void {
    this.state = state;
    this.opts.onProgress?.({ state, ...this.progress });
  }

  private applyOutcome(o: ParseOutcome): void {
    this.apply(o.path, 'record' in o ? o.record : null);
  }

  private apply(path: string, record: FileRecord | null): void {
    this.data.apply(path, record);
    this.dirty = true;
  }

  /**
   * Re-reads `paths` (root-relative) now: an edit, a new file, a deletion. Files outside the
   * index's coverage are ignored. Serialised with other updates.
   */
  update(paths: string[]): Promise<void> {
    const run = async () => {
      for (const path of new Set(paths)) {
        if (skipReason(path) !== null) continue;
        const old = this.data.files.get(path)?.record;
        if (old && this.unchanged(path, old)) continue;
        this.applyOutcome(await parseJob(this.root, { path, lang: languageOf(path)! }));
        this.pending.delete(path);
      }
      this.scheduleSave();
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Same content despite a new mtime (a touch, a checkout of the same bytes): only the mtime is updated. */
  private unchanged(path: string, old: FileRecord): boolean {
    try {
      const abs = join(this.root, path);
      // Not through a link, and a regular file only: a FIFO's read would block this thread for good.
      const st = lstatSync(abs);
      if (!st.isFile() || st.size !== old.size) return false;
      if (st.mtimeMs === old.mtimeMs) return true;
      if (hashOf(readFileSync(abs)) !== old.hash) return false;
      old.mtimeMs = st.mtimeMs;
      this.dirty = true;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Makes the index describe the disk as it is now. With the folder watch healthy, only the paths
   * it reported are checked (and a new listing taken when files or folders appeared or went);
   * otherwise, and at least every FULL_CHECK_MS, every indexed file is statted. A few changed
   * files are parsed before returning; many are parsed in the background and stay in `pending`
   * (left out of results) until done.
   */
  async refresh(): Promise<void> {
    if (this.state !== 'ready') return;
    // Two check phases have a poll phase between them, where the watch events of writes that
    // just happened are read; one setImmediate alone may run before it.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const events = this.watch?.take() ?? { paths: [], folders: [] };
    const full = !this.watch?.healthy || events.folders.length > 0 || Date.now() - this.lastFullCheck > FULL_CHECK_MS;
    const changed: string[] = [];
    let relist = false;
    if (full) {
      this.lastFullCheck = Date.now();
      for (const path of this.data.files.keys()) if (this.stale(path)) changed.push(path);
      relist = foldersChanged(this.root, this.folders);
    } else {
      for (const path of new Set(events.paths)) {
        if (this.data.files.has(path)) {
          if (this.stale(path)) changed.push(path);
        } else if (this.folders.has(path) || (skipReason(path) === null && !this.pending.has(path)) || isFolder(join(this.root, path))) relist = true;
      }
    }
    if (relist) {
      const listing = await listWorkspace(this.root, this.rgPath);
      this.folders = folderTimes(this.root, listing.folders);
      this.watch?.follow(listing.folders);
      const listed = new Set(listing.files);
      for (const path of listing.files) if (!this.data.files.has(path) && !this.pending.has(path)) changed.push(path);
      for (const path of this.data.files.keys()) if (!listed.has(path)) this.apply(path, null);
    }
    if (changed.length <= INLINE_UPDATE_MAX) return this.update(changed);
    for (const path of changed) this.pending.add(path);
    void this.update(changed);
  }

  /**
   * Checks the files a result is about once more, right before it is shown (a change whose
   * watch event has not arrived yet); re-indexes the stale ones. True when any was.
   */
  async recheck(paths: Iterable<string>): Promise<boolean> {
    const stale = [...new Set(paths)].filter((p) => this.stale(p));
    if (stale.length) await this.update(stale);
    return stale.length > 0;
  }

  /** True when the file on disk is not the one recorded (changed, gone, or not a file any more). */
  stale(path: string): boolean {
    const record = this.data.files.get(path)?.record;
    if (!record || this.pending.has(path)) return false;
    const st = statSync(join(this.root, path), { throwIfNoEntry: false });
    return !st || !st.isFile() || st.size !== record.size || st.mtimeMs !== record.mtimeMs;
  }

  private scheduleSave(): void {
    if (!this.dirty || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, SAVE_DELAY_MS);
    this.saveTimer.unref();
  }

  /** Writes the cache now. A failure (full disk, read-only state folder) is reported, never thrown. */
  save(): void {
    // Records are valid one by one, so a build cut short saves what it has: the next start parses the rest.
    if (this.state === 'listing' || this.state === 'off' || this.state === 'failed') return;
    try {
      saveSnapshot(this.file, { root: this.root, builtAt: this.builtAt, ...this.data.snapshot() });
      this.dirty = false;
    } catch (err) {
      this.opts.onNotice?.({ code: 'save_failed', detail: (err as Error).message });
    }
  }

  /** The current text of an indexed file (remembered for the few files last shown), or null when it cannot be read. */
  text(path: string): string | null {
    const record = this.data.files.get(path)?.record;
    const cached = this.texts.get(path);
    if (record && cached?.hash === record.hash) {
      this.remember(path, cached);
      return cached.text;
    }
    try {
      const bytes = readFileSync(join(this.root, path));
      const text = bytes.toString('utf8');
      if (record && hashOf(bytes) === record.hash) this.remember(path, { hash: record.hash, text });
      return text;
    } catch {
      return null;
    }
  }

  /** Keeps `entry` as the file last shown, letting go of the least recently shown past the budget. */
  private remember(path: string, entry: { hash: string; text: string }): void {
    const old = this.texts.get(path);
    if (old) {
      this.texts.delete(path);
      this.textChars -= old.text.length;
    }
    this.texts.set(path, entry);
    this.textChars += entry.text.length;
    for (const [oldest, { text }] of this.texts) {
      if (this.textChars <= TEXT_CHARS_KEPT || oldest === path) break;
      this.texts.delete(oldest);
      this.textChars -= text.length;
    }
  }

  /** Counts for /index: files, symbols, call sites, the cache's size on disk. */
  counts(): { files: number; symbols: number; calls: number; bytes: number } {
    let symbols = 0;
    let calls = 0;
    for (const { record } of this.data.files.values()) {
      symbols += record.symbols.length;
      calls += record.calls.length;
    }
    return { files: this.data.files.size, symbols, calls, bytes: cacheSize(this.file) };
  }

  /** The ripgrep binary found at start ('' when there is none). */
  get rg(): string {
    return this.rgPath;
  }

  /** Stops building and saves what is worth saving. */
  async close(): Promise<void> {
    this.abort.abort();
    this.watch?.close();
    clearTimeout(this.saveTimer);
    await this.queue;
    if (this.dirty) this.save();
  }
}
