// Parses many files at once: in worker threads (one per core) when the worker script is there
// and the batch is big enough to pay for starting them, else in this thread, a file at a time
// between turns of the event loop. Workers are terminated when the work is done or abandoned.
// Must not keep records: each outcome goes to the caller as it arrives.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseJob, type ParseJob, type ParseOutcome } from './parsefile.js';

/** Below this many files, starting workers (and their grammars) costs more than it saves. */
const WORKER_THRESHOLD = 24;
const BATCH = 8;

export type PoolOptions = {
  root: string;
  /** The built worker script; absent or missing = parse in this thread. */
  workerFile?: string;
  /** How many workers at most; default one per core. */
  threads?: number;
  signal?: AbortSignal;
  onOutcome: (outcome: ParseOutcome) => void;
};

/** The worker script next to this module once bundled (dist/codeindex-worker.js). */
export function defaultWorkerFile(): string | undefined {
  try {
    return fileURLToPath(new URL('./codeindex-worker.js', import.meta.url));
  } catch {
    return undefined;
  }
}

/** Parses `jobs`; resolves when every outcome was delivered (or the signal aborted). Contract: never throws. */
export async function parseAll(jobs: ParseJob[], opts: PoolOptions): Promise<{ workers: number }> {
  const threads = Math.max(1, Math.min(opts.threads ?? availableParallelism(), Math.ceil(jobs.length / BATCH)));
  if (jobs.length < WORKER_THRESHOLD || !opts.workerFile || !existsSync(opts.workerFile)) {
    await parseHere(jobs, opts);
    return { workers: 0 };
  }
  const queue = jobs.slice();
  const leftovers: ParseJob[] = [];
  const workers: Worker[] = [];
  const stop = () => workers.forEach((w) => void w.terminate());
  opts.signal?.addEventListener('abort', stop, { once: true });
  await Promise.all(
    Array.from({ length: threads }, () =>
      new Promise<void>((resolve) => {
        let inFlight: ParseJob[] = [];
        const worker = new Worker(opts.workerFile!, { workerData: { root: opts.root } });
        workers.push(worker);
        const next = () => {
          inFlight = opts.signal?.aborted ? [] : queue.splice(0, BATCH);
          if (inFlight.length) worker.postMessage(inFlight);
          else void worker.terminate();
        };
        worker.on('message', (outcomes: ParseOutcome[]) => {
          for (const o of outcomes) opts.onOutcome(o);
          next();
        });
        // A worker that dies hands its batch back; what no worker took is parsed here at the end.
        worker.on('error', () => void 0);
        worker.on('exit', () => {
          leftovers.push(...inFlight);
          inFlight = [];
          resolve();
        });
        next();
      }),
    ),
  );
  opts.signal?.removeEventListener('abort', stop);
  if (!opts.signal?.aborted) await parseHere([...leftovers, ...queue], opts);
  return { workers: threads };
}

async function parseHere(jobs: ParseJob[], opts: PoolOptions): Promise<void> {
  for (const job of jobs) {
    if (opts.signal?.aborted) return;
    opts.onOutcome(await parseJob(opts.root, job));
    // Let the prompt and other work run between files.
    await new Promise((r) => setImmediate(r));
  }
}
