// npm run bench, the MCP client's part: what twenty GitHub-like server tools cost per request cold
// (a line each) and declared, the start-up to the prompt with a server configured and without (it
// starts once the prompt is up), and a stdio server's start to its tools listed, and its stop. `lib` is the bench's
// bundle of the sources; the server is bench/mcp-server.mjs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TOOLS } from './mcp-server.mjs';

const server = new URL('./mcp-server.mjs', import.meta.url).pathname;
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function tokens(lib) {
  const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
  const conn = { name: 'github' };
  const mcp = TOOLS.map((t) => lib.toFeiyuTool(conn, t));
  const size = (settings, more) => {
    const { system, tools } = lib.fixedRequest('/home/user/project', settings, more);
    return encode(system).length + encode(JSON.stringify(tools)).length;
  };
  return { cold: size({}, mcp) - size({}, []), declared: size({ deferTools: false }, mcp) - size({ deferTools: false }, []) };
}

async function lifecycle(lib) {
  const starts = [];
  const stops = [];
  for (let i = 0; i < 5; i++) {
    let offered = 0;
    const hub = new lib.McpHub({
      specs: [{ name: 'github', source: 'user', config: { command: process.execPath, args: [server] } }],
      env: process.env,
      childEnv: process.env,
      root: process.cwd(),
      version: 'bench',
      timeouts: { startMs: 30_000, callMs: 60_000 },
      onTools: (added) => (offered += added.length),
      onFailure: (name, f) => {
        throw new Error(`${name}: ${f.code} ${f.detail}`);
      },
    });
    const t0 = performance.now();
    hub.start();
    await hub.ready();
    starts.push(performance.now() - t0);
    if (offered !== TOOLS.length) throw new Error(`${offered} tools offered`);
    const t1 = performance.now();
    await hub.stop();
    stops.push(performance.now() - t1);
  }
  return { start: median(starts), stop: median(stops) };
}

/** The rows: [what, value, target, ok]. `startToPrompt(env)` and `isolatedEnv()` are run.mjs's. */
export async function mcpRows(lib, startToPrompt, isolatedEnv) {
  const t = await tokens(lib);
  const plain = isolatedEnv();
  const env = isolatedEnv();
  mkdirSync(join(env.XDG_CONFIG_HOME, 'feiyu'), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME, 'feiyu', 'settings.json'), JSON.stringify({ mcpServers: { github: { command: process.execPath, args: [server] } } }));
  await startToPrompt(env);
  // Interleaved, so that the machine's load falls on both alike.
  const runs = [];
  const without = [];
  for (let i = 0; i < 10; i++) {
    runs.push((await startToPrompt(env)).ms);
    without.push((await startToPrompt(plain)).ms);
  }
  const [withMs, withoutMs] = [median(runs), median(without)];
  const l = await lifecycle(lib);
  return [
    ['MCP: 20 GitHub-like tools per request, cold lines / all declared', `${t.cold.toLocaleString('en-US')} / ${t.declared.toLocaleString('en-US')} tokens`, 'cold ≤ 1/3', t.cold * 3 <= t.declared],
    ['start-up to prompt with / without a stdio MCP server (median of 10)', `${withMs.toFixed(0)} / ${withoutMs.toFixed(0)} ms`, 'with ≤ without + 10%', withMs <= withoutMs * 1.1],
    ['MCP stdio server: start → 20 tools listed / stop (median of 5)', `${l.start.toFixed(0)} / ${l.stop.toFixed(0)} ms`, '', true],
  ];
}
