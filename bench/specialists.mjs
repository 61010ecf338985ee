// npm run bench, the specialists part: a scripted exploration against the fake model server. The
// built CLI runs headless in a copy of src/; the main agent hands one question to the explore
// specialist, which reads nine files and searches once over four rounds, then submits its result.
// Measured in o200k tokens over the requests the server recorded: what the specialist spent (every
// request's input and its reply), what the task added to the main context (its call and result),
// and the ratio of the two; the result's size against the 2,000-token limit; and what the main
// context would have grown by had it read the same itself.
// Usage: node bench/specialists.mjs [cli.js]  (prints one JSON line)
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const here = new URL('..', import.meta.url).pathname;
const cli = process.argv[2] ?? join(here, 'dist', 'cli.js');

async function fakeServer() {
  const outfile = join(here, 'dist', 'bench-fake-server.mjs');
  await build({ entryPoints: [join(here, 'test', 'fake-server.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return import(outfile);
}

const read = (...paths) => ({ toolCalls: paths.map((path) => ({ name: 'read_file', input: { path } })) });
const CONCLUSION =
  'Compaction runs before every request: Agent.request calls compact(), which asks needsCompaction whether the next request would pass 75% of the window. The cheap step elides old tool results to stubs; when that is not enough, or on /compact, one summary request (summary.ts, no tools) replaces the old history, keeping the first and latest requests verbatim, pinned facts and the todo list; if the summary fails, the oldest rounds are dropped instead. The answer\'s room is lowered to what is left, and a request that cannot fit is never sent.';
const FACTS = [
  ['compact() runs at the start of every request', 'src/core/agent.ts: request()'],
  ['the 75% threshold', 'src/core/compact.ts: needsCompaction'],
  ['old tool results become stubs first', 'src/core/compact.ts: elideOldToolResults'],
  ['one summary request without tools', 'src/core/summary.ts: summarize'],
  ['pinned facts survive compaction', 'src/core/pinned.ts: readPinned'],
  ['a request that cannot fit is not sent', 'src/core/agent.ts: request(), context_full notice'],
].map(([fact, where]) => ({ fact, where }));

const { startFakeServer, writeFakeKeys } = await fakeServer();
const server = await startFakeServer();
const home = mkdtempSync(join(tmpdir(), 'feiyu-bench-agents-'));
const work = join(home, 'work');
mkdirSync(work);
cpSync(join(here, 'src'), join(work, 'src'), { recursive: true });
writeFakeKeys(join(home, 'config'), server, 'anthropic', { contextWindow: 200_000, price: { input: 3, output: 15 } });
server.enqueue(
  { toolCalls: [{ name: 'use_tool', input: { name: 'task', args: { description: 'how compaction works', prompt: 'How does feiyu decide when and how to compact the conversation? Cite path:line.' } } }] },
  read('src/core/agent.ts', 'src/core/compact.ts', 'src/core/summary.ts'),
  read('src/core/pinned.ts', 'src/core/history.ts', 'src/app/app.ts'),
  { toolCalls: [{ name: 'search', input: { pattern: 'needsCompaction|compactHistory' } }] },
  read('src/core/tooltable.ts', 'src/core/runtool.ts', 'src/core/coldtools.ts'),
  { toolCalls: [{ name: 'submit_result', input: { conclusion: CONCLUSION, facts: FACTS, open_questions: ['How often the drop step runs in long sessions was not measured.'], status: 'done' } }] },
  { text: 'Compaction runs before each request when the context passes 75% of the window; see the note for the details.' },
);
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), FEIYU_NO_LOG: '1' };
const child = spawn(process.execPath, [cli, '-p', 'How does compaction work here?', '--output-format', 'json', '--sandbox', 'off'], { cwd: work, env, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
child.stdout.on('data', (d) => (out += d));
await new Promise((resolve) => child.on('close', resolve));
const result = JSON.parse(out);

const tokens = (value) => encode(typeof value === 'string' ? value : JSON.stringify(value)).length;
const sent = (body) => tokens(body.system ?? '') + tokens(body.tools ?? []) + tokens(body.messages);
const isSpecialist = (body) => JSON.stringify(body.system ?? '').includes('You are explore, a specialist sub-agent');
const replies = server.requests.map((r, i) => ({ body: r.body, specialist: isSpecialist(r.body), i }));
const specialist = replies.filter((r) => r.specialist);
const main = replies.filter((r) => !r.specialist);
// What the specialist spent: every request it sent, and its replies (the next request's last assistant message).
const replyTokens = (r) => tokens(replies.find((n) => n.specialist && n.i > r.i)?.body.messages.at(-2) ?? {});
const spend = specialist.reduce((sum, r) => sum + sent(r.body) + replyTokens(r), 0);
const growth = tokens(main.at(-1).body.messages) - tokens(main[0].body.messages);
const handback = main.at(-1).body.messages.at(-1).content.find((b) => b.type === 'tool_result');
const returned = tokens(typeof handback.content === 'string' ? handback.content : handback.content.map((c) => c.text ?? '').join(''));
// Had the main agent read it all itself, its context would hold what the specialist's last request held.
const inline = tokens(specialist.at(-1).body.messages);
console.log(JSON.stringify({ ok: result.subtype === 'success', specialistRequests: specialist.length, spend, growth, returned, ratio: spend / growth, inline, unplayed: server.unplayed().length }));
await server.close();
rmSync(home, { recursive: true, force: true });
