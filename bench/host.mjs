// npm run bench, the library's and the editor's part: `import('feiyu')` in a fresh process (what
// a script pays before its first call), createHost to a ready host (the sandbox probe and the
// configuration), and `feiyu --acp` from spawn to its answer to initialize and to session/new.
// Each is the median of five fresh processes.
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Milliseconds printed by a fresh node running `code` as an ES module in `cwd`. */
function timed(code, cwd, env) {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd, env, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout.trim().split('\n').at(-1));
}

/** Spawn → the answers to initialize and session/new, over newline-delimited JSON-RPC. */
function acpTimes(cli, cwd, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, '--acp', '--sandbox', 'off'], { cwd, env, stdio: ['pipe', 'pipe', 'inherit'] });
    const marks = {};
    let buffer = '';
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('no answer from feiyu --acp in 10 s'))), 10_000);
    child.stdout.on('data', (d) => {
      buffer += d;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (msg.id === 1) {
          marks.initialize = performance.now() - t0;
          child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd, mcpServers: [] } }) + '\n');
        }
        if (msg.id === 2) {
          marks.session = performance.now() - t0;
          clearTimeout(timer);
          child.stdin.end();
          child.once('exit', () => resolve(marks));
        }
      }
    });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }) + '\n');
  });
}

/** The rows for bench/run.mjs: [measure, value, target, ok]. */
export function hostRows(here, env) {
  const importMs = [];
  const readyMs = [];
  for (let i = 0; i < 5; i++) {
    importMs.push(timed(`const t = performance.now(); await import('feiyu'); console.log(performance.now() - t);`, here, env));
    readyMs.push(timed(`const { createHost } = await import('feiyu'); const t = performance.now(); const h = await createHost({ sandbox: 'off' }); const ms = performance.now() - t; await h.close(); console.log(ms);`, here, env));
  }
  return [
    ["import('feiyu') in a fresh process (median of 5)", `${median(importMs).toFixed(0)} ms`, '≤ 100 ms', median(importMs) <= 100],
    ['createHost to a ready host (median of 5)', `${median(readyMs).toFixed(0)} ms`, '', true],
  ];
}

export async function acpRows(cli, cwd, env) {
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await acpTimes(cli, cwd, env));
  const init = median(runs.map((r) => r.initialize));
  const session = median(runs.map((r) => r.session));
  return [['feiyu --acp: spawn → initialize / → session/new (median of 5)', `${init.toFixed(0)} / ${session.toFixed(0)} ms`, 'initialize ≤ 500 ms', init <= 500]];
}

