// Builds dist/: cli.js, one ES module bundled from src/ by esbuild (one file loads faster than
// forty; start-up to the prompt is budgeted), index.js, the package's entry (`import { createHost }
// from 'feiyu'`), and the optional code index beside them as codeindex.js and its parse worker
// codeindex-worker.js, so that a session with the index off never even reads them. Packages stay
// external, so the heavy ones are still imported lazily. Type-checking is tsc's job (npm run
// typecheck); `--types` also emits the entry's declarations into dist/types/ (npm pack runs it).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
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
  build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', plugins: [codeIndexApart] }),
  build({ ...common, entryPoints: ['src/codeindex/index.ts'], outfile: 'dist/codeindex.js' }),
  build({ ...common, entryPoints: ['src/codeindex/worker.ts'], outfile: 'dist/codeindex-worker.js' }),
]);

if (process.argv.includes('--types')) {
  rmSync('dist/types', { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.types.json'], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
