// Shared by the code index tests: the parse worker bundled as build.mjs bundles it, and a
// workspace of modules that call each other in a chain.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { onTestFinished } from 'vitest';

export const SRC = join(import.meta.dirname, '..', 'src');

/** The worker bundled as build.mjs does, somewhere its packages resolve from (under node_modules); its folder names its processes. */
export async function workerScript(): Promise<string> {
  const dir = mkdtempSync(join(SRC, '..', 'node_modules', '.codeindex-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'codeindex-worker.js');
  await build({ entryPoints: [join(SRC, 'codeindex', 'worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return outfile;
}

/** A chain of `n` modules, each calling the one before. */
export function chain(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const previous = i > 0 ? `import { task${i - 1} } from './m${i - 1}.js';\n` : '';
    files[`src/m${i}.ts`] = `${previous}export function task${i}(n: number): number {\n  return ${i > 0 ? `task${i - 1}(n) + ` : ''}n;\n}\n`;
  }
  return files;
}
