// The code index's build and cache at their edges: more workers than batches, a close before the
// build got going, files that are no regular file, a save racing a close. Real files and processes.
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openCodeIndex } from '../src/codeindex/index.js';
import { runningWith, waitFor } from './scope.js';
import { workspace } from './tools-helpers.js';

const SRC = join(import.meta.dirname, '..', 'src');
async function workerScript(): Promise<string> {
  const dir = mkdtempSync(join(SRC, '..', 'node_modules', '.codeindex-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'codeindex-worker.js');
  await build({ entryPoints: [join(SRC, 'codeindex', 'worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return outfile;
}

function chain(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const previous = i > 0 ? `import { task${i - 1} } from './m${i - 1}.js';\n` : '';
    files[`src/m${i}.ts`] = `${previous}export function task${i}(n: number): number {\n  return ${i > 0 ? `task${i - 1}(n) + ` : ''}n;\n}\n`;
  }
  return files;
}

describe('parse workers', () => {
  it('a build with fewer batches than workers can hold still ends (a worker given nothing is ended too)', async () => {
    // 30 files, 4 workers: the first two take the four batches, the other two get none.
    const ctx = await workspace(chain(30));
    const workerFile = await workerScript();
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on', workerFile, threads: 4 });
    let ready = false;
    void handle.ready().then(() => (ready = true));
    await waitFor(() => ready, 'the build to end');
    const status = handle.status();
    expect({ state: status.state, files: status.files, progress: status.progress }).toEqual({ state: 'ready', files: 30, progress: { done: 30, total: 30 } });
    await waitFor(() => runningWith(dirname(workerFile)).length === 0, 'no parse worker left');
    await handle.close();
  });

  it('a close before the parse began ends the build and leaves no worker behind', async () => {
    const ctx = await workspace(chain(40));
    const workerFile = await workerScript();
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on', workerFile, threads: 2 });
    await handle.close();
    let ended = false;
    void handle.ready().then(() => (ended = true));
    await waitFor(() => ended, 'the build to end');
    await waitFor(() => runningWith(dirname(workerFile)).length === 0, 'no parse worker left');
  });
});
