// Preloaded into the REPL by repl-memory.mjs (node --expose-gc --require): on SIGUSR2, a full
// garbage collection, then the heap still in use appended to $FEIYU_BENCH_HEAP_FILE (MB), so the
// bench sees what is kept, apart from what V8 has not collected or given back yet.
process.on('SIGUSR2', () => {
  global.gc?.();
  require('node:fs').appendFileSync(process.env.FEIYU_BENCH_HEAP_FILE, `${process.memoryUsage().heapUsed / 1048576}\n`);
});
