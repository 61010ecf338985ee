// A parse worker: takes batches of files from the pool and sends back their records. Grammars are
// loaded through the shared liftoff-only loader, once per worker. Must not write anything.

import { parentPort, workerData } from 'node:worker_threads';
import { parseJob, type ParseJob } from './parsefile.js';

const root = (workerData as { root: string }).root;

// The pool sends the next batch only after this one's results, so batches never overlap.
parentPort?.on('message', async (jobs: ParseJob[]) => {
  const outcomes = [];
  for (const job of jobs) outcomes.push(await parseJob(root, job));
  parentPort!.postMessage(outcomes);
});
