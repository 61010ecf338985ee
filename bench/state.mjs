// npm run bench, the state files part: `--resume` (finding and loading the last session) and
// `/cost` (7 days of trace) at three sizes, each measured in a fresh process for its time and its
// peak resident memory. The data is generated once per size and kept in the temp folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = '/home/user/project';
const pad = (n) => String(n).padStart(2, '0');
const dayName = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** Seven daily trace files of `perDay` events each: turns of a request, four rounds, an answer. */
function traceDays(perDay) {
  const dir = join(tmpdir(), `feiyu-bench-trace-${perDay}-v1`);
  if (existsSync(join(dir, 'done'))) return dir;
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const now = new Date();
  for (let d = 0; d < 7; d++) {
    const date = new Date(now.getFullYear(), now.getMonth(), now.getDate() - d, 12);
    const ts = date.toISOString();
    const base = `"run_id":"run-${d}","ts":"${ts}","root":${JSON.stringify(ROOT)}`;
    const lines = [];
    for (let n = 0; lines.length < perDay; n++) {
      lines.push(`{"type":"turn_start","text":"task ${n}: fix the parser so that tabs work again",${base}}`);
      for (let r = 1; r <= 4 && lines.length < perDay; r++) {
        lines.push(`{"type":"request_start","round":${r},"model":"sonnet",${base}}`);
        lines.push(`{"type":"usage","model":"sonnet","input":1200,"output":80,"cacheRead":30000,"cacheWrite":0,"cost":0.0142,"estimated":false,${base}}`);
        lines.push(`{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"${'Reading the parser. '.repeat(10)}"},{"type":"tool_call","id":"c${n}_${r}","name":"read_file","input":{"path":"src/parser.ts"}}]},${base}}`);
        lines.push(`{"type":"tool_call","id":"c${n}_${r}","name":"read_file","input":{"path":"src/parser.ts"},"mainArg":"src/parser.ts",${base}}`);
        lines.push(`{"type":"tool_result","id":"c${n}_${r}","name":"read_file","output":"${'     1\\texport function parse(text: string) {'.repeat(8)}","isError":false,"durationMs":3,${base}}`);
      }
      lines.push(`{"type":"turn_end","stopReason":"end","text":"Fixed.","rounds":4,${base}}`);
    }
    writeFileSync(join(dir, 'logs', `${dayName(date)}.jsonl`), lines.slice(0, perDay).join('\n') + '\n');
  }
  writeFileSync(join(dir, 'done'), '');
  return dir;
}

/** 20 sessions of this workspace holding `events` message lines in all, the newest the one resumed. */
function sessionsOf(events) {
  const dir = join(tmpdir(), `feiyu-bench-sessions-${events}-v1`);
  if (existsSync(join(dir, 'done'))) return dir;
  mkdirSync(join(dir, 'sessions'), { recursive: true });
  for (let s = 0; s < 20; s++) {
    const id = `20250101-0000${pad(s)}-bench${pad(s)}`;
    const lines = [JSON.stringify({ type: 'header', version: 1, id, root: ROOT, created: new Date(2025, 0, 1, 0, s).toISOString(), model: 'sonnet' })];
    lines.push(JSON.stringify({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: `session ${s}: port the lexer` }] } }));
    for (let n = 0; lines.length < events / 20; n++) {
      lines.push(JSON.stringify({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Reading. '.repeat(20) }, { type: 'tool_call', id: `c${n}`, name: 'read_file', input: { path: `src/f${n}.ts` } }] } }));
      lines.push(JSON.stringify({ type: 'message', message: { role: 'user', content: [{ type: 'tool_result', callId: `c${n}`, content: 'export const x = 1;\n'.repeat(20) }] } }));
      lines.push(JSON.stringify({ type: 'state', totals: { input: n * 1000, output: n * 50, cacheRead: 0, cacheWrite: 0, cost: n / 100, costUnknown: false, requests: n }, filesChanged: { [`${ROOT}/src/f${n}.ts`]: { hash: 'a'.repeat(64), size: 420, mtimeMs: n } } }));
    }
    const file = join(dir, 'sessions', `${id}.jsonl`);
    writeFileSync(file, lines.join('\n') + '\n');
    const at = new Date(2025, 0, 1, 0, s);
    spawnSync('touch', ['-d', at.toISOString(), file]);
  }
  writeFileSync(join(dir, 'done'), '');
  return dir;
}

/** Runs `code` (which calls the bundled internals as `m`) in a fresh process: { ms, peakMb }. */
function measure(bundle, code) {
  // CPU time, not wall time: several developers share the machine the bench runs on.
  const script = `const m = await import(${JSON.stringify(bundle)}); const t0 = process.cpuUsage(); ${code}; const used = process.cpuUsage(t0); const ms = (used.user + used.system) / 1000;
    const hwm = Number(/VmHWM:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]);
    console.log(JSON.stringify({ ms, peakMb: hwm / 1024 }));`.replace("require('node:fs')", "(await import('node:fs'))");
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) return { ms: NaN, peakMb: NaN, error: r.stderr.slice(0, 300) };
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

/** The state code alone (listing, loading, the cost report), so a row's peak is theirs, not the whole bench's. */
async function stateBundle(here) {
  const { build } = await import('esbuild');
  const outfile = join(here, 'dist', 'bench-state.mjs');
  const contents = [
    "export { costReport } from './src/session/costreport.ts';",
    "export { findLastSession } from './src/session/listing.ts';",
    "export { loadSession } from './src/session/store.ts';",
  ].join('\n');
  await build({ stdin: { contents, resolveDir: here, loader: 'ts' }, outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return outfile;
}

/** Rows for the bench table: resume and /cost at 2k, 20k and 200k events. */
export async function stateRows(here) {
  const bundle = await stateBundle(here);
  const rows = [];
  for (const size of [2000, 20_000, 200_000]) {
    const dir = sessionsOf(size);
    const r = measure(bundle, `const file = m.findLastSession(${JSON.stringify(dir)}, ${JSON.stringify(ROOT)}); m.loadSession(file)`);
    rows.push([`--resume, 20 sessions, ${size.toLocaleString('en-US')} lines in all`, `${r.ms.toFixed(0)} ms CPU, ${r.peakMb.toFixed(0)} MB peak`, '< 100 MB', r.peakMb < 100]);
  }
  for (const size of [2000, 20_000, 200_000]) {
    const dir = traceDays(size);
    const r = measure(bundle, `m.costReport(${JSON.stringify(dir)}, ${JSON.stringify(ROOT)})`);
    rows.push([`/cost, 7 days × ${size.toLocaleString('en-US')} events`, `${r.ms.toFixed(0)} ms CPU, ${r.peakMb.toFixed(0)} MB peak`, '< 100 MB', r.peakMb < 100]);
  }
  return rows;
}
