// npm run bench, the REPL memory part: an interactive feiyu, its stdin and stdout piped, runs 150
// messages against the fake model server (each reads a 40 KB file, rewrites it, and answers with
// a page of Markdown), and its resident memory is read from /proc after 0, 50, 100 and 150, and
// the heap it keeps (after a full collection, heap-probe.cjs) after 50 and 150.
// Usage: node bench/repl-memory.mjs [rounds] [cli.js]  (prints one JSON line: MB at each point, and
// after 20 s at the prompt, once V8 has given back what the last requests used)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const here = new URL('..', import.meta.url).pathname;
const rounds = Number(process.argv[2] ?? 150);
const cli = process.argv[3] ?? join(here, 'dist', 'cli.js');

async function fakeServer() {
  const outfile = join(here, 'dist', 'bench-fake-server.mjs');
  await build({ entryPoints: [join(here, 'test', 'fake-server.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return import(outfile);
}

const { startFakeServer, writeFakeKeys } = await fakeServer();
const server = await startFakeServer();
// Compaction's summary requests (no tools) come whenever the context fills: answered apart from the script.
server.answer((body) => (body.tools?.length ? undefined : { text: 'Goal: update the values. Files: big.ts. Next step: the next round.' }));
const home = mkdtempSync(join(tmpdir(), 'feiyu-bench-repl-'));
const work = join(home, 'work');
mkdirSync(work);
writeFakeKeys(join(home, 'config'), server, 'anthropic', { contextWindow: 200_000, price: { input: 3, output: 15 } });
const page = (n) => Array.from({ length: 800 }, (_, i) => `export const value${i} = ${n * 1000 + i}; // line ${i}`).join('\n') + '\n';
writeFileSync(join(work, 'big.ts'), page(0));
const answer = (n) => `## Answer ${n}\n\n` + Array.from({ length: 30 }, (_, i) => `- point ${i}: **the value** of \`value${i}\` is now ${n * 1000 + i}`).join('\n') + `\n\nDone with message ${n}.`;

const heapFile = join(home, 'heap.txt');
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), LANG: 'en_US.UTF-8', FEIYU_BENCH_HEAP_FILE: heapFile };
const probe = ['--expose-gc', '--require', join(here, 'bench', 'heap-probe.cjs')];
const child = spawn(process.execPath, [...probe, cli, '--mode', 'auto', '--sandbox', 'off'], { cwd: work, env, stdio: ['pipe', 'pipe', 'inherit'] });
let out = '';
child.stdout.on('data', (d) => {
  out += d;
  if (out.length > 1 << 20) out = out.slice(-4096);
});
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
const waitFor = async (text) => {
  for (const deadline = Date.now() + 30_000; !out.includes(text); await new Promise((r) => setTimeout(r, 5))) if (Date.now() > deadline) throw new Error(`no "${text}" in: ${out.slice(-1500)}`);
};

await waitFor('› ');
await new Promise((r) => setTimeout(r, 300));
const samples = { 0: rssMb() };
const kept = {};
/** The heap in use after a full collection, in MB. */
const keptMb = async () => {
  const before = existsSync(heapFile) ? readFileSync(heapFile, 'utf8').split('\n').length : 1;
  child.kill('SIGUSR2');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const lines = existsSync(heapFile) ? readFileSync(heapFile, 'utf8').split('\n') : [''];
    if (lines.length > before) return Number(lines.at(-2));
  }
  return NaN;
};
for (let n = 1; n <= rounds; n++) {
  server.enqueue(
    { toolCalls: [{ name: 'read_file', input: { path: 'big.ts' } }] },
    { toolCalls: [{ name: 'write_file', input: { path: 'big.ts', content: page(n) } }] },
    { text: answer(n) },
  );
  child.stdin.write(`update the values, round ${n}\n`);
  await waitFor(`Done with message ${n}.`);
  if (n % 50 === 0) {
    await new Promise((r) => setTimeout(r, 300));
    samples[n] = rssMb();
    if (n % 100 === 50) kept[n] = await keptMb();
  }
}
await new Promise((r) => setTimeout(r, 20_000));
samples.idle = rssMb();
child.stdin.end();
await new Promise((r) => child.on('close', r));
await server.close();
console.log(JSON.stringify({ rounds, rssMb: samples, keptMb: kept, violations: server.violations.length }));
