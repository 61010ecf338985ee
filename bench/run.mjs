// npm run bench: measures what tests must not time, and prints a table.
// start-up to the prompt, resident memory at the idle prompt, fixed tokens per request, the
// search tool against raw ripgrep, and the hidden costs of issue 12: a headless run with one bash
// call against one without, the first tool call of a process, a page of a 9 MB file; and its long
// sessions: list_files under a huge .gitignore, resume and /cost at three sizes (state.mjs), the
// REPL's memory over 150 messages (repl-memory.mjs); the sandbox's probe, secret listing and launch;
// the library's import and the editor protocol's start (host.mjs).
// and a specialist's scripted exploration (specialists.mjs): what it returns and what it spent.
// With a corpus (`npm run bench -- --corpus DIR [--localize FILE]`, or FEIYU_BENCH_CORPUS and
// FEIYU_BENCH_LOCALIZE) the code index is measured too; `--scale N` also times it on N copies of
// the corpus side by side; `--only codeindex` measures only the index.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { codeIndexBench } from './codeindex.mjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stateRows } from './state.mjs';
import { acpRows, hostRows } from './host.mjs';
import { checkpointRows } from './checkpoints.mjs';
import { tierRows } from './tiers.mjs';
import { mcpRows } from './mcp.mjs';

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
function startToPrompt(env, cwd = join(env.HOME, 'work')) {
  // A plain folder by default: feiyu's own cost, without the code index a large git repository turns on.
  mkdirSync(cwd, { recursive: true });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
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
  // In this repository (a git repository of over 200 source files) the code index starts once the prompt is up.
  const indexed = [];
  for (let i = 0; i < 3; i++) indexed.push(await startToPrompt(env, here));
  return { ms: median(runs.map((r) => r.ms)), rssMb: median(runs.map((r) => r.rssKb)) / 1024, indexedMb: median(indexed.map((r) => r.rssKb)) / 1024, bare: median(bare) };
}

/** The modules the benchmark calls directly, bundled from src/ like the CLI. */
async function internals() {
  const { build } = await import('esbuild');
  const outfile = join(here, 'dist', 'bench-internals.mjs');
  await build({
    stdin: {
      contents: [
        "export { fixedRequest } from './src/app/toolset.ts';",
        "export { systemPrompt } from './src/core/prompt.ts';",
        "export { coldLine } from './src/core/coldtools.ts';",
        "export { codeTools } from './src/codeindex/tools.ts';",
        "export { specOf } from './src/types/tools.ts';",
        "export { cacheSession, deferralTask } from './test/cache-scenario.ts';",
        "export { coreTools } from './src/tools/index.ts';",
        "export { costReport } from './src/session/costreport.ts';",
        "export { findLastSession } from './src/session/listing.ts';",
        "export { loadSession } from './src/session/store.ts';",
        "export { runTool } from './src/core/runtool.ts';",
        "export { startFakeServer, writeFakeKeys } from './test/fake-server.ts';",
        "export { probeSandbox } from './src/safety/sandboxprobe.ts';",
        "export { WorkspaceScanner } from './src/safety/secretfiles.ts';",
        "export { createLauncher } from './src/safety/sandboxhost.ts';",
        "export { McpHub } from './src/mcp/hub.ts';",
        "export { toFeiyuTool } from './src/mcp/tools.ts';",
        "export { Checkpoints } from './src/session/checkpoints.ts';",
        "export { applyRewind, planRewind } from './src/session/rewindfiles.ts';",
      ].join('\n'),
      resolveDir: here,
      loader: 'ts',
    },
    outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning',
  });
  return { ...(await import(outfile)), bundle: outfile };
}

/** What listing skills costs (o200k): the heading once, then each skill beyond its own name and description. */
async function skillTokens() {
  const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
  const { systemPrompt } = await internals();
  const skills = [
    { name: 'pdf', description: 'Extract text and tables from PDF files, fill forms, merge documents.', group: '.claude/skills', folder: 'pdf' },
    { name: 'release-notes', description: 'Write release notes from the git log since the last tag.', group: '.claude/skills', folder: 'release-notes' },
  ];
  const tokens = (list) => encode(systemPrompt('/home/user/project', [], [], list)).length;
  const own = (s) => encode(s.name).length + encode(s.description).length;
  const one = tokens(skills.slice(0, 1));
  return { heading: one - tokens([]) - own(skills[0]), perSkill: tokens(skills) - one - own(skills[1]) };
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
  const ctx = { root: dir, signal: new AbortController().signal, files: new Map(), shell: { cwd: dir }, env: process.env };
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

/** list_files over 3,000 files under a 100,000-line .gitignore (mostly paths, some globs). */
async function bigGitignore() {
  const dir = join(tmpdir(), 'feiyu-bench-gitignore-v1');
  if (!existsSync(join(dir, 'done'))) {
    mkdirSync(join(dir, 'gen'), { recursive: true });
    const lines = Array.from({ length: 100_000 }, (_, i) => (i % 1000 === 999 ? `*.gen${i}` : `gen/file${i}.txt`));
    writeFileSync(join(dir, '.gitignore'), lines.join('\n') + '\n');
    for (let i = 0; i < 3000; i++) writeFileSync(join(dir, 'gen', `file${i * 7}.txt`), '');
    writeFileSync(join(dir, 'done'), '');
  }
  const list = (await internals()).coreTools().find((t) => t.name === 'list_files');
  const ctx = { root: dir, signal: new AbortController().signal, files: new Map(), shell: { cwd: dir }, env: process.env };
  const t0 = performance.now();
  await list.run({}, ctx);
  return performance.now() - t0;
}

/**
 * `feiyu -p` with one `echo hi` bash call against none (grammar loading, sandbox, one more round):
 * wall time, and the feiyu process's own CPU time, which a busy shared machine disturbs less.
 */
async function headlessBashRatio() {
  const { startFakeServer, writeFakeKeys } = await internals();
  const server = await startFakeServer();
  const env = isolatedEnv();
  writeFakeKeys(env.XDG_CONFIG_HOME, server, 'anthropic');
  const work = mkdtempSync(join(tmpdir(), 'feiyu-bench-work-'));
  const preload = join(work, 'cpu-at-exit.cjs');
  writeFileSync(preload, "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, `\\nCPU ${(u.user + u.system) / 1000}\\n`); });\n");
  const run = async (bash) => {
    server.enqueue(...(bash ? [{ toolCalls: [{ name: 'bash', input: { command: 'echo hi' } }] }] : []), { text: 'done' });
    const t0 = performance.now();
    let stderr = '';
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, ['-r', preload, cli, '-p', 'go'], { env, cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`feiyu -p exited ${code}: ${stderr}`);
    return { ms: performance.now() - t0, cpu: Number(/CPU ([\d.]+)/.exec(stderr)?.[1]) };
  };
  await run(true);
  const none = [];
  const one = [];
  for (let i = 0; i < 9; i++) {
    none.push(await run(false));
    one.push(await run(true));
  }
  await server.close();
  const med = (runs, key) => median(runs.map((r) => r[key]));
  return { none: med(none, 'ms'), one: med(one, 'ms'), noneCpu: med(none, 'cpu'), oneCpu: med(one, 'cpu') };
}

/** The first runTool of a fresh process (argument validation included) and the second, median of 9 processes. */
async function firstToolCall() {
  const bundle = join(here, 'dist', 'bench-internals.mjs');
  await internals();
  const script = `
    const { runTool, coreTools } = await import(${JSON.stringify(bundle)});
    const tools = new Map(coreTools().map((t) => [t.name, t]));
    const root = ${JSON.stringify(here)};
    const ctx = { root, files: new Map(), shell: { cwd: root }, env: process.env };
    const call = (id) => ({ type: 'tool_call', id, name: 'read_file', input: { path: 'package.json', limit: 5 } });
    const times = [];
    for (const id of ['1', '2']) {
      const t0 = performance.now();
      const { block } = await runTool(call(id), { tools, ctx, emit() {} }, new AbortController().signal);
      if (block.isError) throw new Error(block.content);
      times.push(performance.now() - t0);
    }
    console.log(JSON.stringify(times));`;
  const runs = [];
  for (let i = 0; i < 9; i++) runs.push(JSON.parse(spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).stdout));
  return { first: median(runs.map((r) => r[0])), second: median(runs.map((r) => r[1])) };
}

/** read_file of the first and the last page of a 9 MB text file, warm, median of 9. */
async function readPage() {
  const { coreTools } = await internals();
  const dir = mkdtempSync(join(tmpdir(), 'feiyu-bench-read-'));
  const lines = Array.from({ length: 120_000 }, (_, i) => `export const v${i} = compute(${i}, 'a line of sixty characters'); // ${i}`);
  writeFileSync(join(dir, 'big.ts'), lines.join('\n') + '\n');
  const read = coreTools().find((t) => t.name === 'read_file');
  const ctx = { root: dir, signal: new AbortController().signal, files: new Map(), shell: { cwd: dir }, env: process.env };
  const time = async (offset) => {
    const t0 = performance.now();
    const r = await read.run({ path: 'big.ts', offset, limit: 200 }, ctx);
    if (r.isError) throw new Error(r.output);
    return { ms: performance.now() - t0, bytes: r.output.length };
  };
  await time(1);
  const first = [];
  const last = [];
  for (let i = 0; i < 9; i++) {
    first.push(await time(1));
    last.push(await time(119_801));
  }
  return { mb: statSync(join(dir, 'big.ts')).size / 1024 / 1024, first: median(first.map((r) => r.ms)), last: median(last.map((r) => r.ms)), bytes: first[0].bytes };
}

/** A workspace of 6,000 folders and 60,000 files (a few secrets among them) beside a node_modules of 10,000 folders, made once. */
function bigWorkspace() {
  const dir = join(tmpdir(), 'feiyu-bench-workspace-v1');
  if (existsSync(join(dir, 'done'))) return dir;
  for (let d = 0; d < 6000; d++) {
    const sub = join(dir, `src${d % 60}`, `m${d}`);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 10; f++) writeFileSync(join(sub, `f${f}.ts`), '');
    if (d % 500 === 0) writeFileSync(join(sub, '.env'), 'X=1');
  }
  for (let d = 0; d < 10000; d++) mkdirSync(join(dir, 'node_modules', `p${d % 100}`, `q${d}`), { recursive: true });
  writeFileSync(join(dir, 'done'), '');
  return dir;
}

async function sandboxCosts() {
  const { probeSandbox, WorkspaceScanner, createLauncher } = await internals();
  const probes = [];
  let probe;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    probe = await probeSandbox();
    probes.push(performance.now() - t0);
  }
  const dir = bigWorkspace();
  const scanner = new WorkspaceScanner(dir);
  let t0 = performance.now();
  const listing = scanner.scan();
  const first = performance.now() - t0;
  const again = [];
  for (let i = 0; i < 7; i++) {
    t0 = performance.now();
    scanner.scan();
    again.push(performance.now() - t0);
  }
  const features = probe.ok ? probe.features : { userns: false, disableUserns: false };
  const launcher = createLauncher({ level: 'workspace', root: dir, home: tmpdir(), configDir: join(tmpdir(), 'none'), stateDir: join(tmpdir(), 'none2'), network: false, features, contain: false });
  launcher({ command: 'true', cwd: dir, profile: 'write', env: process.env }).release();
  const launches = [];
  for (let i = 0; i < 7; i++) {
    t0 = performance.now();
    launcher({ command: 'true', cwd: dir, profile: 'write', env: process.env }).release();
    launches.push(performance.now() - t0);
  }
  return { probe: median(probes), probeOk: probe.ok, folders: listing.folders, secrets: listing.secrets.length, first, again: median(again), launch: median(launches) };
}

const rows = [];
const row = (what, value, target, ok) => rows.push([what, value, target, ok ? 'ok' : 'OVER']);

const { values: opts } = parseArgs({ options: { corpus: { type: 'string' }, localize: { type: 'string' }, only: { type: 'string' }, scale: { type: 'string' } } });
const corpus = opts.corpus ?? process.env.FEIYU_BENCH_CORPUS;
const localize = opts.localize ?? process.env.FEIYU_BENCH_LOCALIZE;

/** --only codeindex: the code index's rows; --only tools: the tool tiers' (fixed tokens, prompt cache, extra requests); --only mcp: the MCP client's. */
const everything = opts.only === undefined;
if (everything) {
  const s = await startup();
  row('start-up to prompt (median of 10)', `${s.ms.toFixed(0)} ms`, '≤ 150 ms', s.ms <= 150);
  row('bare `node -e 0` (reference)', `${s.bare.toFixed(0)} ms`, '', true);
  row('resident memory at idle prompt', `${s.rssMb.toFixed(1)} MB`, '≤ 80 MB', s.rssMb <= 80);
  row('  the same in this repository, the code index building (0.3 s after the prompt)', `${s.indexedMb.toFixed(1)} MB`, '', true);
}
if (everything || opts.only === 'mcp') for (const r of await mcpRows(await internals(), startToPrompt, isolatedEnv)) row(...r);
if (everything || opts.only === 'tools') rows.push(...(await tierRows(await internals())));
if (everything) {
  const sk = await skillTokens();
  row('skills in the prompt: heading / each skill beyond name + description', `${sk.heading} / ${sk.perSkill} tokens`, '≤ 45 / ≤ 3', sk.heading <= 45 && sk.perSkill <= 3);
  const sb = await sandboxCosts();
  row(`sandbox probe, in parallel with config loading (${sb.probeOk ? 'works' : 'unavailable'})`, `${sb.probe.toFixed(0)} ms`, '', true);
  row(`secret listing, ${sb.folders.toLocaleString('en-US')} folders (${sb.secrets} secrets): first / again`, `${sb.first.toFixed(0)} / ${sb.again.toFixed(0)} ms`, 'again ≤ 50 ms', sb.again <= 50);
  row('one sandboxed launch prepared (listing, masks, argv)', `${sb.launch.toFixed(0)} ms`, '≤ 60 ms', sb.launch <= 60);
  const sr = await searchRatio().catch((err) => ({ error: err.message }));
  if ('error' in sr) row('search: tool vs raw rg', 'ripgrep missing', '', true);
  else row('search 40 MB / 3,000 files: tool vs raw rg', `${sr.tool.toFixed(0)} / ${sr.rg.toFixed(0)} ms = ${(sr.tool / sr.rg).toFixed(2)}`, '≤ 1.3', sr.tool / sr.rg <= 1.3);
  const gi = await bigGitignore();
  row('list_files, 3,000 files, 100,000-line .gitignore', `${gi.toFixed(0)} ms`, '≤ 2,000 ms', gi <= 2000);
  for (const r of await stateRows(here)) row(...r);
  for (const r of await checkpointRows(await internals(), benchTree())) row(...r);
  const mem = JSON.parse(spawnSync(process.execPath, [join(here, 'bench', 'repl-memory.mjs'), '150'], { encoding: 'utf8' }).stdout.trim().split('\n').at(-1));
  const m = mem.rssMb;
  row('REPL resident memory: start → 150 messages (→ 20 s idle)', `${m[0].toFixed(0)} → ${m[150].toFixed(0)} MB (→ ${m.idle.toFixed(0)})`, '≤ 200 MB', m[150] <= 200);
  const k = mem.keptMb;
  row('REPL heap kept after 50 → 150 messages', `${k[50].toFixed(1)} → ${k[150].toFixed(1)} MB`, 'grows ≤ 1 MB', k[150] - k[50] <= 1);
  const sp = JSON.parse(spawnSync(process.execPath, [join(here, 'bench', 'specialists.mjs')], { encoding: 'utf8' }).stdout.trim().split('\n').at(-1));
  const n = (x) => x.toLocaleString('en-US');
  row('specialist: returned to the main context, scripted exploration', `${n(sp.returned)} tokens`, '≤ 2,000', sp.ok && sp.returned <= 2000);
  row(`  specialist spend (${sp.specialistRequests} requests) / main-context growth`, `${n(sp.spend)} / ${n(sp.growth)} = ${sp.ratio.toFixed(0)}×`, '', true);
  row('  main-context growth had the main agent read it itself', `${n(sp.inline)} tokens`, '', true);
  const hb = await headlessBashRatio();
  row('headless run: one bash call vs none (wall)', `${hb.one.toFixed(0)} / ${hb.none.toFixed(0)} ms = ${(hb.one / hb.none).toFixed(2)}`, '≤ 1.2', hb.one / hb.none <= 1.2);
  row('  the same, feiyu process CPU', `${hb.oneCpu.toFixed(0)} / ${hb.noneCpu.toFixed(0)} ms = ${(hb.oneCpu / hb.noneCpu).toFixed(2)}`, '', true);
  const ft = await firstToolCall();
  row('first tool call of a process (second call)', `${ft.first.toFixed(1)} ms (${ft.second.toFixed(1)} ms)`, '≤ 20 ms', ft.first <= 20);
  const rp = await readPage();
  row(`read_file 200 lines of a ${rp.mb.toFixed(1)} MB file: first / last page`, `${rp.first.toFixed(1)} / ${rp.last.toFixed(1)} ms`, '≤ 20 ms', Math.max(rp.first, rp.last) <= 20);
  for (const r of hostRows(here, isolatedEnv())) row(...r);
  for (const r of await acpRows(cli, here, isolatedEnv())) row(...r);
}
if (corpus) await codeIndexBench(corpus, localize, row, Number(opts.scale ?? process.env.FEIYU_BENCH_SCALE ?? 1));

const widths = [0, 1, 2, 3].map((i) => Math.max(...[['measure', 'value', 'target', ''], ...rows].map((r) => r[i].length)));
const fmt = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(fmt(['measure', 'value', 'target', '']));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(fmt(r));
