// Builds dist/cli.js: one ES module bundled from src/ by esbuild. One file loads faster than
// forty (start-up to the prompt is budgeted); packages stay external, so the heavy ones are
// still imported lazily, on first use. Type-checking is tsc's job (npm run typecheck).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
