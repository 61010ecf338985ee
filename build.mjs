// Builds dist/: cli.js, one ES module bundled from src/ by esbuild (one file loads faster than
// forty; start-up to the prompt is budgeted), and the optional code index beside it as
// codeindex.js and its parse worker codeindex-worker.js, so that a session with the index off
// never even reads them. Packages stay external, so the heavy ones are still imported lazily.
// Type-checking is tsc's job (npm run typecheck).
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' };

/** app/ imports the code index with `await import('../codeindex/index.js')`: that stays a separate file. */
const codeIndexApart = {
  name: 'codeindex-apart',
  setup(b) {
    b.onResolve({ filter: /\/codeindex\/index\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './codeindex.js', external: true } : undefined));
  },
};

await Promise.all([
  build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', plugins: [codeIndexApart] }),
  build({ ...common, entryPoints: ['src/codeindex/index.ts'], outfile: 'dist/codeindex.js' }),
  build({ ...common, entryPoints: ['src/codeindex/worker.ts'], outfile: 'dist/codeindex-worker.js' }),
]);
