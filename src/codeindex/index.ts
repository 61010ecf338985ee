// The code index as an optional module: the one entry point app/ imports (lazily, and only when
// the setting is not off). Opens the index of a workspace in the background and hands back its
// tools, its status for /index, rebuild, update for edits made through feiyu's tools, and close.
// Must not print: progress and notices go to the callbacks.

import type { Tool } from '../types/tools.js';
import { CodeIndex, type EngineOptions, type IndexNotice, type IndexState, type Progress } from './engine.js';
import { defaultWorkerFile } from './pool.js';
import { codeTools } from './tools.js';
import type { FileRecord } from './model.js';

export type { IndexNotice, IndexState, Progress };

/** The workspace, the state folder, the mode and the callbacks (see EngineOptions); the worker script defaults to dist/codeindex-worker.js. */
export type CodeIndexOptions = EngineOptions;

export type CodeIndexStatus = {
  state: IndexState;
  progress: { done: number; total: number };
  files: number;
  symbols: number;
  calls: number;
  /** Call sites that resolve to a definition in the workspace. */
  edges: number;
  /** The cache's size on disk. */
  bytes: number;
  /** When the last build finished (ms since the epoch); 0 before. */
  builtAt: number;
  /** Files whose symbols are missing or partial, by reason. */
  notes: Record<string, number>;
  /** Parse worker processes the last build used (0: it parsed in this thread). */
  workers: number;
  cacheProblem?: string;
};

export type CodeIndexHandle = {
  /** code_search, code_outline, code_refs, code_symbol: usable at once (they fall back while building). */
  tools: Tool[];
  /** Resolves once the index knows whether it is on (auto mode counts the source files first). */
  enabled: Promise<boolean>;
  /** Resolves when the current build is done (or the index turned out to be off). */
  ready(): Promise<void>;
  /** Everything /index shows; the first call after a change resolves every call site (about a second at 20 MB) unless countEdges() did. */
  status(): CodeIndexStatus;
  /** Resolves every call site for status()'s count a slice at a time, so the process stays responsive meanwhile. */
  countEdges(): Promise<void>;
  /** Files and symbols only: cheap at any time. */
  counts(): { files: number; symbols: number };
  /** Throws the cache away and builds again from the files. */
  rebuild(): Promise<void>;
  /** Re-reads these root-relative paths now (files written or edited through feiyu's tools). */
  update(paths: string[]): Promise<void>;
  close(): Promise<void>;
};

/** Starts indexing `opts.root` in the background. Contract: never throws; failures arrive as notices. */
export function openCodeIndex(opts: CodeIndexOptions): CodeIndexHandle {
  const engineOptions = { ...opts, workerFile: opts.workerFile ?? defaultWorkerFile() };
  let index = new CodeIndex(engineOptions);
  let building = index.start();
  let edges = { generation: -1, count: 0 };
  let counting: { generation: number; done: Promise<void> } | undefined;
  const handle: CodeIndexHandle = {
    tools: codeTools(() => index),
    enabled: building,
    ready: () => building.then(() => undefined),
    status() {
      if (edges.generation !== index.data.generation && index.state === 'ready') edges = { generation: index.data.generation, count: countEdges(index) };
      const notes: Record<string, number> = {};
      for (const { record } of index.data.files.values()) if (record.note) notes[record.note] = (notes[record.note] ?? 0) + 1;
      return { state: index.state, progress: { ...index.progress }, ...index.counts(), edges: edges.count, builtAt: index.builtAt, notes, workers: index.workers, cacheProblem: index.cacheProblem };
    },
    countEdges() {
      const { generation } = index.data;
      if (index.state !== 'ready' || edges.generation === generation) return Promise.resolve();
      const current = index;
      if (counting?.generation !== generation) counting = { generation, done: countInSlices(current, generation).then((count) => void (count !== null && current === index && (edges = { generation, count }))) };
      return counting.done;
    },
    counts: () => {
      const { files, symbols } = index.counts();
      return { files, symbols };
    },
    async rebuild() {
      await index.close();
      // A new index numbers its changes from the start again: the old count must not pass for its.
      edges = { generation: -1, count: 0 };
      counting = undefined;
      index = new CodeIndex({ ...engineOptions, mode: 'on' });
      building = index.start(true);
      await building;
    },
    update: (paths) => index.update(paths),
    close: () => index.close(),
  };
  return handle;
}

/** Call sites between turns of the event loop. */
const EDGE_SLICE = 4000;

/** countEdges() between turns of the event loop; null when the index changed meanwhile (status() counts then). */
async function countInSlices(index: CodeIndex, generation: number): Promise<number | null> {
  let n = 0;
  let since = 0;
  for (const { record } of [...index.data.files.values()]) {
    n += resolvedIn(index, record);
    since += record.calls.length;
    if (since < EDGE_SLICE) continue;
    since = 0;
    await new Promise((resolve) => setImmediate(resolve));
    if (index.data.generation !== generation || index.state !== 'ready') return null;
  }
  return n;
}

function countEdges(index: CodeIndex): number {
  let n = 0;
  for (const { record } of index.data.files.values()) n += resolvedIn(index, record);
  return n;
}

/** How many of a file's call sites resolve to a definition in the workspace. */
function resolvedIn(index: CodeIndex, record: FileRecord): number {
  let n = 0;
  for (let i = 0; i < record.calls.length; i++) if (index.data.graph.resolveAt(record, i)) n++;
  return n;
}
