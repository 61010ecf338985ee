// Bundles modules of src/ into one ES module that child processes can import, for tests that run
// the real code in two processes at once. Built with esbuild like dist/cli.js; packages external.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');

/** `exports` are lines such as `export { History } from './src/ui/history.ts';`. Returns the bundle's path. */
export async function bundleForChildren(exports: string[]): Promise<string> {
  const outfile = join(await mkdtemp(join(tmpdir(), 'feiyu-bundle-')), 'bundle.mjs');
  await build({ stdin: { contents: exports.join('\n'), resolveDir: ROOT, loader: 'ts' }, outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return outfile;
}
