// The code index's build and cache at their edges: more workers than batches, a close before the
// build got going, files that are no regular file, a save racing a close, a quit during a build.
// Real files and processes.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it, onTestFinished } from 'vitest';
import { linkCodeIndex } from '../src/app/codeindex.js';
import { cacheFile } from '../src/codeindex/cache.js';
import { openCodeIndex } from '../src/codeindex/index.js';
import { parseAll } from '../src/codeindex/pool.js';
import { currentTest, runningWith, waitFor } from './scope.js';
import { chain, SRC, workerScript } from './codeindex-helpers.js';
import { workspace } from './tools-helpers.js';

describe('parse workers', () => {
  it('a build with fewer batches than workers can hold still ends (a worker given nothing is ended too)', async () => {
    // 30 files, 4 workers: the first two take the four batches, the other two get none.
    const ctx = await workspace(chain(30));
    const workerFile = await workerScript();
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on', workerFile, threads: 4 });
    let ready = false;
    void handle.ready().then(() => (ready = true));
    await waitFor(() => ready, 'the build to end');
    const status = handle.status();
    expect({ state: status.state, files: status.files, progress: status.progress }).toEqual({ state: 'ready', files: 30, progress: { done: 30, total: 30 } });
    await waitFor(() => runningWith(dirname(workerFile)).length === 0, 'no parse worker left');
    await handle.close();
  });

  it('a close before the parse began ends the build and leaves no worker behind', async () => {
    const ctx = await workspace(chain(40));
    const workerFile = await workerScript();
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on', workerFile, threads: 2 });
    await handle.close();
    let ended = false;
    void handle.ready().then(() => (ended = true));
    await waitFor(() => ended, 'the build to end');
    await waitFor(() => runningWith(dirname(workerFile)).length === 0, 'no parse worker left');
  });
});

describe('files that stop being regular files', () => {
  it('a file reached through a linked folder is not indexed: the folder may be outside the workspace', async () => {
    const ctx = await workspace(chain(3));
    const outside = join(ctx.root, '..', 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.ts'), 'export function leakedHelperFromOutside(): number {\n  return 42;\n}\n');
    symlinkSync(outside, join(ctx.root, 'linked'));
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    await handle.ready();
    // As an edit through feiyu's tools would report it.
    await handle.update(['linked/secret.ts']);
    const found = await handle.tools.find((t) => t.name === 'code_symbol')!.run({ name: 'leakedHelperFromOutside' }, ctx);
    expect({ files: handle.counts().files, leaked: found.output.includes('return 42') }).toEqual({ files: 3, leaked: false });
    await handle.close();
  });

  it('an empty file replaced by a FIFO is dropped on update, not read (a read would block the process for good)', async () => {
    const ctx = await workspace({ ...chain(3), 'src/empty.ts': '' });
    const dir = mkdtempSync(join(SRC, '..', 'node_modules', '.codeindex-test-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    // In a process of its own: a blocked read would stop this one's event loop, timeouts and all.
    const entry = join(dir, 'fifo.mjs');
    await build({
      stdin: {
        contents: `import { execFileSync } from 'node:child_process';\nimport { rmSync } from 'node:fs';\nimport { openCodeIndex } from ${JSON.stringify(join(SRC, 'codeindex', 'index.ts'))};\nconst [root, state] = process.argv.slice(2);\nconst handle = openCodeIndex({ root, stateDir: state, env: process.env, mode: 'on' });\nawait handle.ready();\nconst before = handle.counts().files;\nrmSync(root + '/src/empty.ts');\nexecFileSync('mkfifo', [root + '/src/empty.ts']);\nawait handle.update(['src/empty.ts']);\nconsole.log(JSON.stringify({ before, after: handle.counts().files }));\nawait handle.close();\n`,
        resolveDir: SRC,
        loader: 'ts',
      },
      outfile: entry, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning',
    });
    const child = spawn(process.execPath, [entry, ctx.root, join(ctx.root, '..', 'state')], { env: { ...process.env, ...currentTest().env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    let code: number | null = null;
    child.on('exit', (c) => (code = c ?? -1));
    await waitFor(() => code !== null, () => `the indexing process to end (it printed ${JSON.stringify(out)})`);
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: JSON.stringify({ before: 4, after: 3 }) });
  });
});

describe('closing', () => {
  it('an index closed while it lists says nothing more and watches nothing (a rebuild would hear the old index say ready)', async () => {
    const ctx = await workspace(chain(30));
    const stateDir = join(ctx.root, '..', 'state');
    // A warm cache: the next start has nothing to parse.
    const first = openCodeIndex({ root: ctx.root, stateDir, env: process.env, mode: 'on' });
    await first.ready();
    await first.close();
    const inotifyBefore = inotifyWatches();
    const heard: string[] = [];
    const handle = openCodeIndex({ root: ctx.root, stateDir, env: process.env, mode: 'on', onProgress: (p) => heard.push(p.state) });
    await handle.close();
    const afterClose = heard.length;
    await handle.ready();
    expect({ said: heard.slice(afterClose), watches: inotifyWatches() }).toEqual({ said: [], watches: inotifyBefore });
  });
});

/** The inotify watches this process holds (every fs.watch shares libuv's one inotify descriptor). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fdinfo')) {
    try {
      n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

describe('an abort', () => {
  it('no outcome reaches the caller once the signal aborted, in workers as in this process', async () => {
    const ctx = await workspace(chain(40));
    const workerFile = await workerScript();
    const jobs = Object.keys(chain(40)).map((path) => ({ path, lang: 'typescript' }));
    const delivered: Record<string, number> = {};
    for (const [how, file] of [['here', undefined], ['workers', workerFile]] as const) {
      const abort = new AbortController();
      let n = 0;
      await parseAll(jobs, { root: ctx.root, workerFile: file, threads: 2, signal: abort.signal, onOutcome: () => (n++, abort.abort()) });
      delivered[how] = n;
    }
    expect(delivered).toEqual({ here: 1, workers: 1 });
    await waitFor(() => runningWith(dirname(workerFile)).length === 0, 'no parse worker left');
  });
});

describe('worker flags', () => {
  it("a worker takes none of this process's node options, NODE_OPTIONS included (a --require hook or --inspect-brk is not for it)", async () => {
    const ctx = await workspace(chain(40));
    const workerFile = await workerScript();
    const hook = join(dirname(workerFile), 'hook.cjs');
    const seen = join(dirname(workerFile), 'seen.txt');
    writeFileSync(hook, `require('node:fs').appendFileSync(${JSON.stringify(seen)}, process.argv[1] + '\\n');\n`);
    writeFileSync(seen, '');
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = `--require ${hook}`;
    try {
      const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on', workerFile, threads: 2 });
      await handle.ready();
      expect({ workers: handle.status().workers, hooked: readFileSync(seen, 'utf8') }).toEqual({ workers: 2, hooked: '' });
      await handle.close();
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
  });
});

describe('saving', () => {
  it('an index closed as it turns ready saves once: the save deferred past ready does not run after close()', async () => {
    const ctx = await workspace(chain(5));
    const stateDir = join(ctx.root, '..', 'state');
    // The cache's folder is a link to nowhere: there is no cache to read, and every save fails (and says so).
    const folder = dirname(cacheFile(stateDir, ctx.root));
    mkdirSync(dirname(folder), { recursive: true });
    symlinkSync(join(stateDir, 'nowhere'), folder);
    const notices: string[] = [];
    let closing: Promise<void> | undefined;
    const handle = openCodeIndex({
      root: ctx.root,
      stateDir,
      env: process.env,
      mode: 'on',
      onNotice: (n) => notices.push(n.code),
      onProgress: (p) => {
        if (p.state === 'ready' && !closing) closing = handle.close();
      },
    });
    await handle.ready();
    await waitFor(() => closing !== undefined, 'the close');
    await closing;
    // One more turn of the event loop, where the deferred save would run.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(notices).toEqual(['save_failed']);
  });
});

describe("feiyu's link to the index", () => {
  it('quitting during a build stops it instead of waiting for it to finish', async () => {
    // Parsed in this process (no worker script next to the sources): 3,000 files take seconds.
    const ctx = await workspace(chain(3000));
    const seen: { done: number; total: number; state: string }[] = [];
    const link = linkCodeIndex({ setting: 'on', root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, addTools: () => undefined, onEvent: () => undefined, notify: () => undefined, announce: false })!;
    link.onProgress((p) => seen.push({ done: p.done, total: p.total, state: p.state }));
    link.start();
    await waitFor(() => seen.some((p) => p.done > 0), 'the build to start');
    await link.close();
    const last = seen.at(-1)!;
    expect({ state: last.state, stoppedEarly: last.done < last.total }).toEqual({ state: 'building', stoppedEarly: true });
  });
});

describe('the count of call edges (/index)', () => {
  it('is made between turns of the event loop, and comes out as the count made at once', async () => {
    // One file calling one function 12,000 times: three slices of call sites.
    const body = Array.from({ length: 12_000 }, () => '  f();').join('\n');
    const ctx = await workspace({ 'src/calls.ts': `export function f() {}\nexport function g() {\n${body}\n}\n` });
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    await handle.ready();
    let turns = 0;
    const tick = (): void => void setImmediate(() => (turns++, counted || tick()));
    let counted = false;
    tick();
    await handle.countEdges();
    counted = true;
    expect({ edges: handle.status().edges, turned: turns > 0 }).toEqual({ edges: 12_000, turned: true });
    await handle.close();
  });

  it('a rebuild counts again, even when the new index has had as many changes as the old one', async () => {
    const files = chain(40);
    const ctx = await workspace(files);
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
    await handle.ready();
    expect(handle.status().edges).toBe(39);
    // Changed behind the index's back: task20 no longer calls task19.
    writeFileSync(join(ctx.root, 'src/m20.ts'), 'export function task20(n: number): number {\n  return n;\n}\n');
    await handle.rebuild();
    expect(handle.status().edges).toBe(38);
    await handle.close();
  });
});
