// A parse worker: a process of its own, so that V8 may optimise the grammars (parsing is then
// about a fifth cheaper) without the main process paying for that at exit. It takes batches of
// files from the pool over IPC and sends back their records; it ends when the pool disconnects
// or kills it. Must not write anything.

import { optimiseGrammars } from '../util/treesitter.js';
import { termsSince } from './chunks.js';
import { parseJob, type ParseJob } from './parsefile.js';
import { send } from './wire.js';

optimiseGrammars();
const root = process.argv[2]!;

// Batches are parsed in the order they come; the pool keeps two in flight so this never waits.
let queue = Promise.resolve();
/** How many terms of this worker's dictionary were sent. */
let sentTerms = 0;
process.on('message', (jobs: ParseJob[]) => {
  queue = queue.then(async () => {
    const outcomes = [];
    for (const job of jobs) outcomes.push(await parseJob(root, job));
    const message = send(outcomes, sentTerms, termsSince);
    sentTerms += message.terms.length;
    process.send?.(message);
  });
});
// The pool went away (its process ended or was killed): nothing left to do.
process.on('disconnect', () => process.exit(0));
