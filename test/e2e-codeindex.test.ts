// The code index in the built CLI: off (by the setting, or auto outside a git repository) its
// module is never even loaded, proven by a module-resolution hook that logs every module the
// process loads; on, its four tools are cold tools from the first request on, the model loads
// and calls them, and a sub-agent is given them declared.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';

const { server, home, work, start } = await useCliFixture('feiyu-ci', {});

const CODE_TOOLS = ['code_search', 'code_outline', 'code_refs', 'code_symbol'];

/** A small project; `git` makes it a repository. */
function project(git: boolean): void {
  mkdirSync(join(work, 'src', 'util'), { recursive: true });
  writeFileSync(join(work, 'src', 'util', 'hash.ts'), 'export function hashKey(id: string): string {\n  return id;\n}\n');
  writeFileSync(join(work, 'src', 'store.ts'), "import { hashKey } from './util/hash.js';\nexport function save(id: string): string {\n  return hashKey(id);\n}\n");
  if (git) execFileSync('git', ['init', '-q'], { cwd: work });
}

function settings(codeIndex?: string): void {
  mkdirSync(join(home, 'config', 'feiyu'), { recursive: true });
  writeFileSync(join(home, 'config', 'feiyu', 'settings.json'), JSON.stringify(codeIndex ? { codeIndex } : {}));
}

/** Runs `feiyu -p` with a hook logging every module the process resolves; returns the run and the modules. */
async function runLogged(prompt: string) {
  const hooks = join(home, 'hooks');
  mkdirSync(hooks, { recursive: true });
  const log = join(hooks, 'modules.log');
  writeFileSync(log, '');
  writeFileSync(
    join(hooks, 'log.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function resolve(spec, context, next) {\n  const found = await next(spec, context);\n  appendFileSync(process.env.FEIYU_TEST_MODULE_LOG, found.url + '\\n');\n  return found;\n}\n",
  );
  writeFileSync(join(hooks, 'register.mjs'), "import { register } from 'node:module';\nregister('./log.mjs', import.meta.url);\n");
  const env = { NODE_OPTIONS: `--import ${pathToFileURL(join(hooks, 'register.mjs')).href}`, FEIYU_TEST_MODULE_LOG: log };
  const run = await start(['-p', prompt], { env }).done;
  return { run, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const toolNames = (request: { body: { tools?: { name: string }[] } }) => (request.body.tools ?? []).map((t) => t.name);
const systemText = (request: { body: { system?: string | { text: string }[] } }) => {
  const { system } = request.body;
  return typeof system === 'string' ? system : (system ?? []).map((b) => b.text).join('\n');
};
const results = (request: { body: { messages?: unknown } }) =>
  (request.body.messages as { content: { type: string; content?: unknown }[] }[]).flatMap((m) => m.content).filter((b) => b.type === 'tool_result');
const loadsIndex = (modules: string[]) => modules.filter((m) => /\/dist\/codeindex(-worker)?\.js$|tree-sitter/.test(m));

describe('the code index in the CLI', () => {
  it('off in the settings: the module is never loaded and no code tool is offered', async () => {
    project(true);
    settings('off');
    server.enqueue({ text: 'Done.' });
    const { run, modules } = await runLogged('hello');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(modules.some((m) => m.endsWith('/dist/cli.js'))).toBe(true);
    expect(loadsIndex(modules)).toEqual([]);
    expect(toolNames(server.requests[0]!).filter((n) => n.startsWith('code_'))).toEqual([]);
  });

  it('auto outside a git repository: not loaded either', async () => {
    project(false);
    settings();
    server.enqueue({ text: 'Done.' });
    const { run, modules } = await runLogged('hello');
    expect(run.code).toBe(0);
    expect(loadsIndex(modules)).toEqual([]);
  });

  it('on: loaded, its tools cold (one line each), loaded by the model, answering it, declared to sub-agents', async () => {
    project(true);
    settings('on');
    server.enqueue(
      { toolCalls: [{ id: 'toolu_load', name: 'load_tools', input: { names: ['code_refs', 'task'] } }] },
      { toolCalls: [{ id: 'toolu_refs', name: 'use_tool', input: { name: 'code_refs', args: { symbol: 'hashKey', direction: 'callers' } } }] },
      { toolCalls: [{ id: 'toolu_task', name: 'use_tool', input: { name: 'task', args: { prompt: 'where is hashKey defined?' } } }] },
      { toolCalls: [{ name: 'submit_result', input: { conclusion: 'hashKey: src/util/hash.ts:1', facts: [{ fact: 'defined', where: 'src/util/hash.ts:1' }], open_questions: [], status: 'done' } }] },
      { text: 'Done.' },
    );
    const { run, modules } = await runLogged('who calls hashKey?');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(modules.some((m) => m.endsWith('/dist/codeindex.js'))).toBe(true);
    const main = [0, 1, 2, 4].map((i) => server.requests[i]!);
    expect(toolNames(main[0]!).filter((n) => n.startsWith('code_'))).toEqual([]);
    expect(systemText(main[0]!).split('\n').filter((l) => l.startsWith('- code_')).map((l) => l.split('(')[0])).toEqual(CODE_TOOLS.map((n) => `- ${n}`));
    // Loading changed neither the declared tools nor the system prompt.
    expect(new Set(main.map((r) => JSON.stringify([r.body.tools, r.body.system]))).size).toBe(1);
    expect(JSON.stringify(results(server.requests[1]!))).toContain('<tool name=\\"code_refs\\">');
    expect(JSON.stringify(results(server.requests[2]!))).toContain('src/store.ts:3');
    // The explore specialist has no tiers: its read-only tools, the index's among them, are all declared.
    expect(toolNames(server.requests[3]!)).toEqual(['read_file', 'list_files', 'search', 'read_note', ...CODE_TOOLS, 'submit_result']);
    expect(systemText(server.requests[3]!)).not.toContain('Cold tools');
    expect(server.violations).toEqual([]);
  });

  it('/index says why it is off, and rebuild turns it on and shows what it holds', async () => {
    project(true);
    settings();
    const off = await start([], { input: '/index\n/index rebuild\n/index\n' }).done;
    expect(off.code).toBe(0);
    const lines = off.stdout.split('\n').map((l) => l.replace(/^›\s*/, '').trim());
    expect(lines).toContain('The code index is off: this project has fewer than 200 source files ("auto"). /index rebuild turns it on for this session, "codeIndex": "on" in settings.json for good.');
    expect(lines).toContain('Rebuilding the code index from the files…');
    expect(lines.filter((l) => /^Code index: 2 files, 2 symbols, 1 call edges; cache 0\.\d MB on disk, built just now\.$/.test(l))).toHaveLength(2);
  });
});
