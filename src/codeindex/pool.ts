// Parses many files at once: in parse worker processes (one per core) when the worker script is
// there and the batch is big enough to pay for starting them, else in this thread, a file at a
// time between turns of the event loop. Workers are processes, not threads, so that V8 may
// optimise their grammars without this process waiting for that work at exit; each is killed as
// soon as its work is done or abandoned, and ends by itself if this process goes away.
// Must not keep records: each outcome goes to the caller as it arrives.

import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseJob, type ParseJob, type ParseOutcome } from './parsefile.js';
import { receive, type Sent } from './wire.js';

/** Below this many files, starting workers (and their grammars) costs more than it saves. */
const WORKER_THRESHOLD = 24;
const BATCH = 8;
/** Batches a worker holds at once: the next is already there when it sends one back. */
const IN_FLIGHT = 2;

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
  // Each worker takes IN_FLIGHT batches at once: more workers than that covers would get nothing.
  const threads = Math.max(1, Math.min(opts.threads ?? availableParallelism(), Math.ceil(jobs.length / (BATCH * IN_FLIGHT))));
  if (opts.signal?.aborted) return { workers: 0 };
  if (jobs.length < WORKER_THRESHOLD || !opts.workerFile || !existsSync(opts.workerFile)) {
    await parseHere(jobs, opts);
    return { workers: 0 };
  }
  const queue = jobs.slice();
  const leftovers: ParseJob[] = [];
  const workers: ChildProcess[] = [];
  const stop = () => workers.forEach((w) => w.kill('SIGKILL'));
  opts.signal?.addEventListener('abort', stop, { once: true });
  await Promise.all(Array.from({ length: threads }, () => new Promise<void>((resolve) => workers.push(startWorker(opts, queue, leftovers, resolve)))));
  opts.signal?.removeEventListener('abort', stop);
  // What a worker that died was holding, and what no worker took, is parsed here.
  if (!opts.signal?.aborted) await parseHere([...leftovers, ...queue], opts);
  return { workers: threads };
}

/** One worker process taking batches from `queue` until it is empty; `done` once it has ended. */
function startWorker(opts: PoolOptions, queue: ParseJob[], leftovers: ParseJob[], done: () => void): ChildProcess {
  const held: ParseJob[][] = [];
  // Its own flags (none of this process's: a profiler or a loader hook is not for it), no output,
  // and a process group of its own: a Ctrl+C at the terminal is feiyu's to handle, not the workers'.
  // NODE_OPTIONS too: it would give the worker this process's flags (a --require hook, --inspect-brk) all the same.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const worker = fork(opts.workerFile!, [opts.root], { execArgv: [], env, serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'], detached: true });
  const give = () => {
    const batch = opts.signal?.aborted ? [] : queue.splice(0, BATCH);
    if (!batch.length) return;
    held.push(batch);
    worker.send(batch, (err) => err && worker.kill('SIGKILL'));
  };
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    leftovers.push(...held.flat());
    held.length = 0;
    done();
  };
  // The worker's dictionary as far as it has sent it.
  const dictionary: string[] = [];
  worker.on('message', (sent: Sent) => {
    // Its batches were handed back already (a failed send): they are parsed elsewhere.
    if (ended) return;
    held.shift();
    const outcomes = receive(sent, dictionary);
    // After an abort (the caller's, or one from an outcome just delivered) the caller hears nothing more.
    for (const o of outcomes) {
      if (opts.signal?.aborted) break;
      opts.onOutcome(o);
    }
    give();
    // Killed, not asked to exit: its optimising compiler may still be busy, and nothing it does now matters.
    if (!held.length) worker.kill('SIGKILL');
  });
  // A worker that cannot start or dies hands its batches back.
  worker.on('error', () => {
    worker.kill('SIGKILL');
    end();
  });
  worker.on('exit', end);
  for (let i = 0; i < IN_FLIGHT; i++) give();
  // Given nothing (the others took every batch): it would wait for work forever, and so would the pool.
  if (!held.length) worker.kill('SIGKILL');
  return worker;
}

async function parseHere(jobs: ParseJob[], opts: PoolOptions): Promise<void> {
  for (const job of jobs) {
    if (opts.signal?.aborted) return;
    const outcome = await parseJob(opts.root, job);
    // Aborted while this file was read (a close during the first grammar's load): not delivered.
    if (opts.signal?.aborted) return;
    opts.onOutcome(outcome);
    // Let the prompt and other work run between files.
    await new Promise((r) => setImmediate(r));
  }
}
