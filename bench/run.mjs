// npm run bench: measures what tests must not time, and prints a table.
// start-up to the prompt, resident memory at the idle prompt, fixed tokens per request,
// and the search tool against raw ripgrep. Targets are from the core issue.
// With a corpus (`npm run bench -- --corpus DIR [--localize FILE]`, or FEIYU_BENCH_CORPUS and
// FEIYU_BENCH_LOCALIZE) the code index is measured too; `--scale N` also times it on N copies of
// the corpus side by side; `--only codeindex` measures only the index.
import { spawn, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { codeIndexBench } from './codeindex.mjs';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const here = new URL('..', import.meta.url).pathname;
const cli = join(here, 'dist', 'cli.js');
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function isolatedEnv() {
  const home = mkdtempSync(join(tmpdir(), 'feiyu-bench-'));
  return {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.state'),
    ANTHROPIC_API_KEY: 'bench',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    FEIYU_NO_LOG: '1',
    NO_COLOR: '1',
  };
}

/** Starts the REPL and resolves when its prompt appears: { ms, rssKb }. */
function startToPrompt(env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli], { env, cwd: here, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let seen = false;
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('no prompt after 10 s: ' + out))), 10_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (seen || !out.includes('› ')) return;
      seen = true;
      const ms = performance.now() - t0;
      clearTimeout(timer);
      // Let the event loop settle before reading memory: this is the idle prompt.
      setTimeout(() => {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
        child.stdin.end();
        child.once('exit', () => resolve({ ms, rssKb }));
      }, 300);
    });
  });
}

async function startup() {
  const env = isolatedEnv();
  await startToPrompt(env); // warm the file cache
  const runs = [];
  for (let i = 0; i < 10; i++) runs.push(await startToPrompt(env));
  const bare = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    bare.push(performance.now() - t0);
  }
  return { ms: median(runs.map((r) => r.ms)), rssMb: median(runs.map((r) => r.rssKb)) / 1024, bare: median(bare) };
}

/** The modules the benchmark calls directly, bundled from src/ like the CLI. */
async function internals() {
  const { build } = await import('esbuild');
  const outfile = join(here, 'dist', 'bench-internals.mjs');
  await build({
    stdin: { contents: "export { fixedRequest } from './src/app/toolset.ts'; export { coreTools } from './src/tools/index.ts';", resolveDir: here, loader: 'ts' },
    outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning',
  });
  return import(outfile);
}

async function fixedTokens() {
  const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
  const { system, tools } = (await internals()).fixedRequest('/home/user/project');
  return { system: encode(system).length, tools: encode(JSON.stringify(tools)).length, count: tools.length };
}

/** A tree of about 40 MB in 3,000 files, made once and kept in the temp folder. */
function benchTree() {
  const dir = join(tmpdir(), 'feiyu-bench-tree-v1');
  if (existsSync(join(dir, 'done'))) return dir;
  const words = ['alpha', 'beta', 'gamma', 'delta', 'render', 'parse', 'token', 'buffer', 'stream', 'config'];
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
  for (let f = 0; f < 3000; f++) {
    const sub = join(dir, `pkg${f % 30}`, `mod${f % 7}`);
    mkdirSync(sub, { recursive: true });
    const lines = [];
    let size = 0;
    while (size < 13_600) {
      const line = `const ${words[rand() % 10]}${rand() % 1000} = ${words[rand() % 10]}(${rand() % 100000}); // ${words[rand() % 10]} ${words[rand() % 10]}`;
      lines.push(rand() % 997 === 0 ? line + ' NEEDLE_marker' : line);
      size += line.length + 1;
    }
    writeFileSync(join(sub, `file${f}.ts`), lines.join('\n'));
  }
  writeFileSync(join(dir, 'done'), '');
  return dir;
}

async function searchRatio() {
  const dir = benchTree();
  const { coreTools } = await internals();
  const { rgPath } = await import('@vscode/ripgrep');
  const search = coreTools().find((t) => t.name === 'search');
  const ctx = { root: dir, signal: new AbortController().signal, files: new Map(), shellCwd: dir, env: process.env };
  const pattern = 'NEEDLE_\\w+';
  const timeTool = async () => {
    const t0 = performance.now();
    await search.run({ pattern }, ctx);
    return performance.now() - t0;
  };
  const timeRg = () => {
    const t0 = performance.now();
    spawnSync(rgPath, ['--line-number', '--no-heading', '--with-filename', '--color', 'never', '-e', pattern, '.'], { cwd: dir, maxBuffer: 1 << 28 });
    return performance.now() - t0;
  };
  await timeTool();
  timeRg();
  const tool = [];
  const rg = [];
  for (let i = 0; i < 7; i++) {
    tool.push(await timeTool());
    rg.push(timeRg());
  }
  return { tool: median(tool), rg: median(rg) };
}

const rows = [];
const row = (what, value, target, ok) => rows.push([what, value, target, ok ? 'ok' : 'OVER']);

const { values: opts } = parseArgs({ options: { corpus: { type: 'string' }, localize: { type: 'string' }, only: { type: 'string' }, scale: { type: 'string' } } });
const corpus = opts.corpus ?? process.env.FEIYU_BENCH_CORPUS;
const localize = opts.localize ?? process.env.FEIYU_BENCH_LOCALIZE;

if (opts.only !== 'codeindex') {
  const s = await startup();
  row('start-up to prompt (median of 10)', `${s.ms.toFixed(0)} ms`, '≤ 150 ms', s.ms <= 150);
  row('bare `node -e 0` (reference)', `${s.bare.toFixed(0)} ms`, '', true);
  row('resident memory at idle prompt', `${s.rssMb.toFixed(1)} MB`, '≤ 80 MB', s.rssMb <= 80);
  const tk = await fixedTokens();
  row(`fixed tokens per request (system + ${tk.count} tools, o200k)`, `${tk.system + tk.tools} (${tk.system} + ${tk.tools})`, '≤ 1,500', tk.system + tk.tools <= 1500);
  const sr = await searchRatio();
  row('search 40 MB / 3,000 files: tool vs raw rg', `${sr.tool.toFixed(0)} / ${sr.rg.toFixed(0)} ms = ${(sr.tool / sr.rg).toFixed(2)}`, '≤ 1.3', sr.tool / sr.rg <= 1.3);
}
if (corpus) await codeIndexBench(corpus, localize, row, Number(opts.scale ?? process.env.FEIYU_BENCH_SCALE ?? 1));

const widths = [0, 1, 2, 3].map((i) => Math.max(...[['measure', 'value', 'target', ''], ...rows].map((r) => r[i].length)));
const fmt = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(fmt(['measure', 'value', 'target', '']));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(fmt(r));
