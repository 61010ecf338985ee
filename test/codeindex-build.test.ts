// The code index at build time: parse workers (real processes, gone when the build is done), what
// its four tools cost per request, the outline's share of a long file, and how the exact
// identifier channel and the word channels combine. Deterministic counts only; no timings.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { largest } from '../src/codeindex/bm25.js';
import { CodeIndex } from '../src/codeindex/engine.js';
import { openCodeIndex } from '../src/codeindex/index.js';
import { alive, currentTest, runningWith, waitFor } from './scope.js';
import { chain, SRC, workerScript } from './codeindex-helpers.js';
import { workspace } from './tools-helpers.js';

describe('building', () => {
  it('parses in worker processes, one per core at most, and ends them when done', async () => {
    const ctx = await workspace(chain(40));
    const workerFile = await workerScript();
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on', workerFile, threads: 2 });
    await handle.ready();
    const status = handle.status();
    expect({ state: status.state, files: status.files, symbols: status.symbols, edges: status.edges, workers: status.workers }).toEqual({ state: 'ready', files: 40, symbols: 40, edges: 39, workers: 2 });
    // Each worker was killed once its work was done: none is left by the time the index is ready.
    expect(runningWith(dirname(workerFile))).toEqual([]);
    const refs = await handle.tools.find((t) => t.name === 'code_refs')!.run({ symbol: 'task20', direction: 'callers' }, ctx);
    expect(refs.output).toBe(['callers of task20 (src/m20.ts:2):', '  src/m21.ts:3 task21'].join('\n'));
    await handle.close();
  });

  it('what workers send (rows, terms in their own dictionaries) makes the same index as parsing here', async () => {
    // Real code: this project's sources, enough files for two workers.
    const files = Object.fromEntries(readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.ts')).map((p) => [`src/${p}`, readFileSync(join(SRC, p), 'utf8')]));
    const ctx = await workspace(files);
    const built = async (workerFile?: string) => {
      const index = new CodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', `state-${workerFile ? 'workers' : 'here'}`), env: process.env, mode: 'on', workerFile, threads: 2 });
      await index.start();
      const { data, workers } = index;
      const name = (c: { data: Int32Array; at: number; n: number }) => Object.fromEntries(Array.from({ length: c.n }, (_, i) => [data.terms.list[c.data[c.at + i]!], c.data[c.at + c.n + i]]));
      const byPath = [...data.files.values()].sort((a, b) => a.record.path.localeCompare(b.record.path));
      const result = { workers, files: byPath.map(({ record, chunks, whole }) => ({ record: { ...record }, chunks: chunks.map((c) => ({ sym: c.sym, lengths: c.lengths, terms: name(c) })), whole: { lengths: whole.lengths, terms: name(whole) } })) };
      await index.close();
      return result;
    };
    const [here, sent] = [await built(), await built(await workerScript())];
    expect(here.files.length).toBeGreaterThan(100);
    expect({ ...sent, workers: 0 }).toEqual(here);
    expect(sent.workers).toBe(2);
  });

  it('a worker that dies or cannot start hands its files back: they are parsed in this process', async () => {
    const ctx = await workspace(chain(40));
    const dir = dirname(await workerScript());
    for (const [name, body] of [['dies.js', "process.on('message', () => process.kill(process.pid, 'SIGKILL'));\n"], ['broken.js', 'this is not javascript\n']]) {
      writeFileSync(join(dir, name), body);
      const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', `state-${name}`), env: process.env, mode: 'on', workerFile: join(dir, name), threads: 2 });
      await handle.ready();
      const status = handle.status();
      expect({ name, state: status.state, files: status.files, symbols: status.symbols, edges: status.edges }).toEqual({ name, state: 'ready', files: 40, symbols: 40, edges: 39 });
      await handle.close();
    }
  });

  it("a Ctrl+C at the terminal does not reach its workers (their own process group); they end when the process that started them is killed", async () => {
    const ctx = await workspace(chain(3000));
    const workerFile = await workerScript();
    const dir = dirname(workerFile);
    // A process of its own that builds the index and says when the first files came back.
    const entry = join(dir, 'builder.mjs');
    await build({
      stdin: { contents: `import { openCodeIndex } from ${JSON.stringify(join(SRC, 'codeindex', 'index.ts'))};\nprocess.on('SIGINT', () => console.log('interrupted'));\nlet said = false;\nopenCodeIndex({ root: process.argv[2], stateDir: process.argv[3], env: process.env, mode: 'on', workerFile: process.argv[4], threads: 2, onProgress: (p) => { if (!said && p.done > 0) { said = true; console.log('building'); } } });\n`, resolveDir: SRC, loader: 'ts' },
      outfile: entry, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning',
    });
    // In a process group of its own, as a terminal's foreground job is: a Ctrl+C goes to the whole group.
    const builder = spawn(process.execPath, [entry, ctx.root, join(ctx.root, '..', 'state'), workerFile], { env: { ...process.env, ...currentTest().env }, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let out = '';
    builder.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('building'), 'the build to start');
    const workers = runningWith(dir).filter((pid) => pid !== builder.pid);
    expect(workers.length).toBeGreaterThan(0);
    process.kill(-builder.pid!, 'SIGINT');
    await waitFor(() => out.includes('interrupted'), 'the builder to hear the Ctrl+C');
    expect(workers.filter((pid) => alive(pid))).toEqual(workers);
    builder.kill('SIGKILL');
    await waitFor(() => workers.every((pid) => !runningWith(dir).includes(pid)), () => `the workers ${workers.join(', ')} to end`);
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

  it('a file of thousands of constants outlines as the first of their names and how many more there are', async () => {
    // A table of key codes, as a header of constants is written.
    const text = Array.from({ length: 3000 }, (_, i) => `export const KEY_${i.toString(16).toUpperCase()} = 0x${i.toString(16)};`).join('\n') + '\n';
    const ctx = await workspace({ 'keys.ts': text });
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    await handle.ready();
    const outline = (await handle.tools.find((t) => t.name === 'code_outline')!.run({ path: 'keys.ts' }, ctx)).output.split('\n');
    const shown = outline.length - 2;
    expect({ head: outline.slice(0, 3), tail: outline.at(-1) }).toEqual({
      head: ['keys.ts (3000 lines) [signatures shortened to fit; code_symbol shows one in full]', '1 const KEY_0', '2 const KEY_1'],
      tail: `[… ${3000 - shown} more symbols not shown; code_search or read_file for the rest]`,
    });
    expect(encode(outline.join('\n')).length / encode(text).length).toBeLessThanOrEqual(0.1);
    await handle.close();
  });
});

describe('a folder outline', () => {
  it('says once, at its end, that signatures were shortened, and only when one was', async () => {
    const long = `export function configure(${Array.from({ length: 8 }, (_, i) => `option${i}: string`).join(', ')}): void {}`;
    const ctx = await workspace({ 'a.ts': 'export function add(a: number, b: number): number { return a + b; }\n', 'b.ts': `${long}\n` });
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    await handle.ready();
    const outline = (await handle.tools.find((t) => t.name === 'code_outline')!.run({ path: '.' }, ctx)).output;
    expect(outline.split('\n')).toEqual([
      'a.ts (1 lines)',
      '1 add(a: number, b: number): number',
      'b.ts (1 lines)',
      `1 configure${long.slice('export function configure'.length, 'export function configure'.length + 79).trimEnd()}…`,
      '[signatures shortened to fit; code_outline a file or code_symbol shows them in full]',
    ]);
    writeFileSync(join(ctx.root, 'b.ts'), 'export function sub(a: number, b: number): number { return a - b; }\n');
    expect((await handle.tools.find((t) => t.name === 'code_outline')!.run({ path: '.' }, ctx)).output.split('\n')).toEqual([
      'a.ts (1 lines)',
      '1 add(a: number, b: number): number',
      'b.ts (1 lines)',
      '1 sub(a: number, b: number): number',
    ]);
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

describe('the cut-off of a search', () => {
  it('is the k-th largest score, ties and all, as a full sort would give', () => {
    // A fixed pseudo-random sequence: many ties (scores in steps of 1/8), and sizes round the cut-off.
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const [n, k] of [[1, 1], [2, 1], [2, 2], [5, 3], [100, 100], [1000, 100], [20000, 100], [20000, 1]] as const) {
      const values = Float64Array.from({ length: n }, () => Math.floor(next() * 64) / 8);
      const sorted = values.slice().sort();
      expect({ n, k, cut: largest(values, k) }).toEqual({ n, k, cut: sorted[n - k] });
    }
  });
});
