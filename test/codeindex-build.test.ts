// The code index at build time: parse workers (real threads, gone when the build is done), what
// its four tools cost per request, the outline's share of a long file, and how the exact
// identifier channel and the word channels combine. Deterministic counts only; no timings.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openCodeIndex } from '../src/codeindex/index.js';
import { workspace } from './tools-helpers.js';

const SRC = join(import.meta.dirname, '..', 'src');
const threads = () => readdirSync('/proc/self/task').length;

/** The worker bundled as build.mjs does, somewhere its packages resolve from (under node_modules). */
async function workerScript(): Promise<string> {
  const dir = mkdtempSync(join(SRC, '..', 'node_modules', '.codeindex-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'codeindex-worker.js');
  await build({ entryPoints: [join(SRC, 'codeindex', 'worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return outfile;
}

describe('building', () => {
  it('parses in worker threads, one per core at most, and ends them when done', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) {
      const previous = i > 0 ? `import { task${i - 1} } from './m${i - 1}.js';\n` : '';
      files[`src/m${i}.ts`] = `${previous}export function task${i}(n: number): number {\n  return ${i > 0 ? `task${i - 1}(n) + ` : ''}n;\n}\n`;
    }
    const ctx = await workspace(files);
    const workerFile = await workerScript();
    // The thread pool of this process grows on first use: fill it before counting threads.
    await Promise.all(Array.from({ length: 8 }, () => readFile(workerFile)));
    const before = threads();
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on', workerFile, threads: 2 });
    await handle.ready();
    const status = handle.status();
    expect({ state: status.state, files: status.files, symbols: status.symbols, edges: status.edges }).toEqual({ state: 'ready', files: 40, symbols: 40, edges: 39 });
    expect(threads()).toBe(before);
    const refs = await handle.tools.find((t) => t.name === 'code_refs')!.run({ symbol: 'task20', direction: 'callers' }, ctx);
    expect(refs.output).toBe(['callers of task20 (src/m20.ts:2):', '  src/m21.ts:3 task21'].join('\n'));
    await handle.close();
  });
});

describe('what it costs', () => {
  it('the four tool schemas stay under 300 o200k tokens', async () => {
    const ctx = await workspace({ 'a.ts': 'export const a = 1;\n' });
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    const schemas = handle.tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
    expect(schemas.map((s) => s.name)).toEqual(['code_search', 'code_outline', 'code_refs', 'code_symbol']);
    expect(encode(JSON.stringify(schemas)).length).toBeLessThanOrEqual(300);
    await handle.close();
  });

  it("outlines a 2,000-line file in at most a tenth of the file's tokens", async () => {
    // Real code: this project's own sources, one after another, to 2,000 lines.
    const lines: string[] = [];
    for (const file of ['codeindex/engine.ts', 'codeindex/graph.ts', 'codeindex/extract.ts', 'codeindex/search.ts', 'codeindex/tools.ts', 'codeindex/views.ts', 'tools/fs.ts', 'tools/find.ts', 'tools/web.ts', 'tools/jobs.ts']) {
      if (lines.length < 2000) lines.push(...readFileSync(join(SRC, file), 'utf8').split('\n'));
    }
    const text = lines.slice(0, 2000).join('\n');
    const ctx = await workspace({ 'big.ts': text });
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    await handle.ready();
    const outline = (await handle.tools.find((t) => t.name === 'code_outline')!.run({ path: 'big.ts' }, ctx)).output;
    expect(outline.split('\n').length).toBeGreaterThan(100);
    expect(encode(outline).length / encode(text).length).toBeLessThanOrEqual(0.1);
    await handle.close();
  });
});

describe('fusion of the channels', () => {
  it('an identifier is found where it is, before code that only shares its words; prose ranks by words', async () => {
    const ctx = await workspace({
      'src/config.ts': 'export function parseConfig(text: string): object {\n  return JSON.parse(text);\n}\n',
      'src/notes.ts': '// Parse the config. The config parser reads config values and parses config files.\nexport const parsing = "config";\n',
      'src/main.ts': "import { parseConfig } from './config.js';\nexport function boot(): object {\n  return parseConfig('{}');\n}\n",
    });
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    await handle.ready();
    const heads = async (query: string) =>
      (await handle.tools.find((t) => t.name === 'code_search')!.run({ query, limit: 3 }, ctx)).output.split('\n').filter((l) => !l.startsWith('  '));
    expect(await heads('parseConfig')).toEqual(['src/config.ts:1 function parseConfig(text: string): object', 'src/main.ts:1 top-level code', 'src/main.ts:2 function boot(): object']);
    expect((await heads('parse the config values'))[0]).toBe('src/notes.ts:2 const parsing = "config"');
    await handle.close();
  });
});
