// The code index over real temporary workspaces: callers and callees across files, the fused
// ranking, outlines and symbols, freshness after edits, renames and deletions (in a session and
// between sessions), the cache's verification, and every fallback. Real files, real ripgrep.
import { appendFileSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheFile } from '../src/codeindex/cache.js';
import { openCodeIndex, type CodeIndexHandle, type IndexNotice } from '../src/codeindex/index.js';
import type { ToolContext } from '../src/types/tools.js';
import { workspace } from './tools-helpers.js';

const FILES = {
  'src/util/hash.ts': ['/** A stable key for an id. */', 'export function hashKey(id: string): string {', "  return id.split('').reverse().join('');", '}', ''].join('\n'),
  'src/store.ts': [
    "import { hashKey } from './util/hash.js';",
    '',
    '/** Keeps sessions on disk, one file each. */',
    'export class SessionStore {',
    '  constructor(private readonly dir: string) {}',
    '  save(session: Session): void {',
    '    writeSession(this.dir, hashKey(session.id), session);',
    '  }',
    '  load(id: string): Session | null {',
    '    return readSession(this.dir, hashKey(id));',
    '  }',
    '}',
    '',
    'export function writeSession(dir: string, key: string, session: Session): void {',
    '  void [dir, key, session];',
    '}',
    '',
    'export function readSession(dir: string, key: string): Session | null {',
    '  return dir && key ? { id: key } : null;',
    '}',
    '',
    'export interface Session {',
    '  id: string;',
    '}',
    '',
  ].join('\n'),
  'src/app.ts': [
    "import { SessionStore } from './store.js';",
    '',
    'export function main(): void {',
    "  const store = new SessionStore('/tmp/sessions');",
    "  store.save({ id: 'a' });",
    "  store.load('a');",
    '}',
    '',
  ].join('\n'),
  'test/store.test.ts': ["import { SessionStore } from '../src/store.js';", '', "test('saves a session and loads it back', () => {", "  const sessions = new SessionStore('x');", "  sessions.save({ id: '1' });", '});', ''].join('\n'),
  'docs/notes.md': 'Set SESSION_DIR_ENV to move the sessions.\n',
};

type Opened = { handle: CodeIndexHandle; ctx: ToolContext; stateDir: string; notices: IndexNotice[]; run: (tool: string, args: Record<string, unknown>) => Promise<string> };

async function open(files: Record<string, string> = FILES, opts: { stateDir?: string; wait?: boolean; root?: string } = {}): Promise<Opened> {
  const ctx: ToolContext = opts.root ? { root: opts.root, signal: new AbortController().signal, files: new Map(), shell: { cwd: opts.root }, env: process.env } : await workspace(files);
  const stateDir = opts.stateDir ?? join(ctx.root, '..', 'state');
  const notices: IndexNotice[] = [];
  const handle = openCodeIndex({ root: ctx.root, stateDir, env: process.env, mode: 'on', onNotice: (n) => notices.push(n) });
  if (opts.wait !== false) await handle.ready();
  const run = async (tool: string, args: Record<string, unknown>) => {
    const result = await handle.tools.find((t) => t.name === tool)!.run(args, ctx);
    return result.isError ? `ERROR ${result.output}` : result.output;
  };
  return { handle, ctx, stateDir, notices, run };
}

describe('the call graph', () => {
  it('finds callers across files through imports, typed receivers and constructors', async () => {
    const { handle, run } = await open();
    expect(await run('code_refs', { symbol: 'hashKey', direction: 'callers', depth: 2 })).toBe(
      [
        'callers of hashKey (src/util/hash.ts:2):',
        '  src/store.ts:7 SessionStore.save',
        '    src/app.ts:5 main',
        '    test/store.test.ts:5 (top level)',
        '  src/store.ts:10 SessionStore.load',
        '    src/app.ts:6 main',
      ].join('\n'),
    );
    expect(await run('code_refs', { symbol: 'SessionStore.save', direction: 'callees' })).toBe(
      ['callees of SessionStore.save (src/store.ts:6):', '  src/store.ts:7 → src/store.ts:14 writeSession', '  src/store.ts:7 → src/util/hash.ts:2 hashKey'].join('\n'),
    );
    expect(await run('code_refs', { symbol: 'SessionStore', direction: 'callers' })).toBe(
      ['callers of SessionStore (src/store.ts:4):', '  src/app.ts:4 main', '  test/store.test.ts:4 (top level)'].join('\n'),
    );
    await handle.close();
  });

  it('marks a method matched by name only, and never follows it', async () => {
    const { handle, run } = await open({
      'a.ts': 'export class A { flush(): void {} }\n',
      'b.ts': 'export function drain(x: any) { x.flush(); }\n',
    });
    expect(await run('code_refs', { symbol: 'A.flush', direction: 'callers' })).toBe(
      ['callers of A.flush (a.ts:1):', '  b.ts:1 drain (matched by method name only; receiver type unknown)'].join('\n'),
    );
    await handle.close();
  });
});

describe('code_search', () => {
  it('ranks the implementation first, tests below the code, call-graph neighbours under their hit', async () => {
    const { handle, run } = await open();
    expect(await run('code_search', { query: 'save session', limit: 6 })).toBe(
      [
        'src/store.ts:6 method SessionStore.save(session: Session): void',
        '  writeSession(this.dir, hashKey(session.id), session);',
        'src/store.ts:14 function writeSession(dir: string, key: string, session: Session): void',
        '  void [dir, key, session];',
        'src/store.ts:18 function readSession(dir: string, key: string): Session | null',
        '  return dir && key ? { id: key } : null;',
        'src/app.ts:3 function main(): void',
        "  const store = new SessionStore('/tmp/sessions');",
        'test/store.test.ts:3 top-level code',
        "  test('saves a session and loads it back', () => {",
        'src/util/hash.ts:2 function hashKey(id: string): string [called by SessionStore.save]',
        "  return id.split('').reverse().join('');",
      ].join('\n'),
    );
    await handle.close();
  });

  it("adds a hit's callers under it, but not the callers of a name called from everywhere", async () => {
    const files: Record<string, string> = {
      'src/log.ts': '/** Prints one message on the console output. */\nexport function logLine(msg: string): void {\n  void msg;\n}\n',
      'src/buffer.ts': "/** Writes the pending bytes out. */\nexport function flushBuffer(): void {\n  void 0;\n}\nexport function drainQueue(): void {\n  flushBuffer();\n}\n",
    };
    // 41 callers of logLine: a hub; its callers are found by code_refs, not added to a search.
    for (let i = 0; i < 41; i++) files[`src/job${i}.ts`] = `import { logLine } from './log.js';\nexport function job${i}(): void {\n  logLine('job ${i}');\n}\n`;
    const { handle, run } = await open(files);
    expect((await run('code_search', { query: 'pending bytes', limit: 2 })).split('\n').filter((l) => !l.startsWith('  '))).toEqual([
      'src/buffer.ts:2 function flushBuffer(): void',
      'src/buffer.ts:5 function drainQueue(): void [calls flushBuffer]',
    ]);
    expect((await run('code_search', { query: 'console output message', limit: 3 })).split('\n').filter((l) => !l.startsWith('  '))).toEqual(['src/log.ts:2 function logLine(msg: string): void']);
    expect((await run('code_refs', { symbol: 'logLine', direction: 'callers' })).split('\n').length).toBe(42);
    await handle.close();
  });

  it('finds an identifier at its definition, and in files the index does not parse', async () => {
    const { handle, run } = await open();
    expect((await run('code_search', { query: 'hashKey', limit: 1 })).split('\n')[0]).toBe('src/util/hash.ts:2 function hashKey(id: string): string');
    expect((await run('code_search', { query: 'SESSION_DIR_ENV', limit: 3 })).split('\n')[0]).toBe('docs/notes.md:1 Set SESSION_DIR_ENV to move the sessions.');
    await handle.close();
  });
});

describe('code_outline and code_symbol', () => {
  it('outlines a file and a folder without bodies', async () => {
    const { handle, run } = await open();
    expect(await run('code_outline', { path: 'src/store.ts' })).toBe(
      [
        'src/store.ts (24 lines)',
        'imports: ./util/hash.js',
        '4 class SessionStore',
        '  5 constructor(private readonly dir: string)',
        '  6 save(session: Session): void',
        '  9 load(id: string): Session | null',
        '14 function writeSession(dir: string, key: string, session: Session): void',
        '18 function readSession(dir: string, key: string): Session | null',
        '22 interface Session',
      ].join('\n'),
    );
    expect(await run('code_outline', { path: 'src/util' })).toBe(['src/util/hash.ts (4 lines)', '2 function hashKey(id: string): string'].join('\n'));
    expect(await run('code_outline', { path: 'docs/notes.md' })).toBe('ERROR docs/notes.md is not a source file the code index parses; read it with read_file');
    await handle.close();
  });

  it('shows one symbol numbered, by name, Class.method or path:line, and records the read', async () => {
    const { handle, ctx, run } = await open();
    const expected = ['src/store.ts:6-8 method SessionStore.save(session: Session): void', '     6\t  save(session: Session): void {', '     7\t    writeSession(this.dir, hashKey(session.id), session);', '     8\t  }'].join('\n');
    expect(await run('code_symbol', { name: 'SessionStore.save' })).toBe(expected);
    expect(await run('code_symbol', { name: 'src/store.ts:7' })).toBe(expected);
    expect([...ctx.files.keys()]).toEqual([join(ctx.root, 'src/store.ts')]);
    expect(await run('code_symbol', { name: 'hashKey' })).toBe(
      ['src/util/hash.ts:2-4 function hashKey(id: string): string', '     1\t/** A stable key for an id. */', '     2\texport function hashKey(id: string): string {', "     3\t  return id.split('').reverse().join('');", '     4\t}'].join('\n'),
    );
    expect(await run('code_symbol', { name: 'nothingLikeThis' })).toBe('ERROR no symbol nothingLikeThis found; try code_search');
    await handle.close();
  });

  it('neither indexes nor shows a source file with another name outside the workspace (a hard link), as read_file refuses it', async () => {
    const ctx = await workspace(FILES);
    const outside = join(ctx.root, '..', 'outside.ts');
    writeFileSync(outside, "export function leakedKey(): string {\n  return 'OUTSIDE_SECRET';\n}\n");
    linkSync(outside, join(ctx.root, 'src', 'linked.ts'));
    const { handle, run } = await open(FILES, { root: ctx.root });
    const shown = [await run('code_symbol', { name: 'leakedKey' }), await run('code_outline', { path: 'src/linked.ts' })];
    expect(shown.join('\n')).not.toContain('OUTSIDE_SECRET');
    expect(shown[0]).toBe('ERROR no symbol leakedKey found; try code_search');
    await handle.close();
  });
});

describe('freshness', () => {
  it('sees files edited, renamed and deleted behind its back before the next query', async () => {
    const { handle, ctx, run } = await open();
    appendFileSync(join(ctx.root, 'src/util/hash.ts'), 'export function purgeSessions(): void {}\n');
    expect((await run('code_search', { query: 'purgeSessions', limit: 1 })).split('\n')[0]).toBe('src/util/hash.ts:5 function purgeSessions(): void');
    renameSync(join(ctx.root, 'src/util/hash.ts'), join(ctx.root, 'src/util/digest.ts'));
    writeFileSync(join(ctx.root, 'src/store.ts'), FILES['src/store.ts'].replace('./util/hash.js', './util/digest.js'));
    expect(await run('code_refs', { symbol: 'hashKey', direction: 'callers' })).toBe(
      ['callers of hashKey (src/util/digest.ts:2):', '  src/store.ts:7 SessionStore.save', '  src/store.ts:10 SessionStore.load'].join('\n'),
    );
    rmSync(join(ctx.root, 'src/util/digest.ts'));
    expect(await run('code_symbol', { name: 'hashKey' })).toBe('ERROR no symbol hashKey found; try code_search');
    await handle.close();
  });

  it('takes an edit made through its update() at once', async () => {
    const { handle, ctx, run } = await open();
    writeFileSync(join(ctx.root, 'src/app.ts'), 'export function start(): void {}\n');
    await handle.update(['src/app.ts']);
    expect(await run('code_outline', { path: 'src/app.ts' })).toBe(['src/app.ts (1 lines)', '1 function start(): void'].join('\n'));
    await handle.close();
  });

  it('between sessions, parses only what changed and forgets what is gone', async () => {
    const first = await open();
    await first.handle.close();
    writeFileSync(join(first.ctx.root, 'src/app.ts'), 'export function restart(): void {}\n');
    rmSync(join(first.ctx.root, 'test/store.test.ts'));
    const second = await open(FILES, { root: first.ctx.root, stateDir: first.stateDir });
    const status = second.handle.status();
    expect({ state: status.state, files: status.files, parsed: status.progress.total, notices: second.notices }).toEqual({ state: 'ready', files: 3, parsed: 1, notices: [] });
    expect((await second.run('code_search', { query: 'restart', limit: 1 })).split('\n')[0]).toBe('src/app.ts:1 function restart(): void');
    expect(await second.run('code_refs', { symbol: 'SessionStore', direction: 'callers' })).toBe(['callers of SessionStore (src/store.ts:4):', '  no call sites found in the index'].join('\n'));
    await second.handle.close();
  });
});

describe('fallbacks', () => {
  it('a corrupt or truncated cache is rebuilt, and says so', async () => {
    const first = await open();
    await first.handle.close();
    const file = cacheFile(first.stateDir, first.ctx.root);
    const bytes = readFileSync(file);
    bytes[bytes.length - 10] ^= 0xff;
    writeFileSync(file, bytes);
    const second = await open(FILES, { root: first.ctx.root, stateDir: first.stateDir });
    expect({ notices: second.notices, problem: second.handle.status().cacheProblem, files: second.handle.status().files }).toEqual({
      notices: [{ code: 'cache_corrupt', detail: 'checksum mismatch' }], problem: 'checksum mismatch', files: 4,
    });
    await second.handle.close();
    writeFileSync(file, readFileSync(file).subarray(0, 200));
    const third = await open(FILES, { root: first.ctx.root, stateDir: first.stateDir });
    expect(third.notices[0]!.code).toBe('cache_corrupt');
    expect(third.notices[0]!.detail).toMatch(/^truncated/);
    expect((await third.run('code_search', { query: 'hashKey', limit: 1 })).split('\n')[0]).toBe('src/util/hash.ts:2 function hashKey(id: string): string');
    await third.handle.close();
  });

  it('before the index is ready, every tool answers another way and says so', async () => {
    const { handle, run } = await open(FILES, { wait: false });
    expect(handle.status().state).toBe('listing');
    // Asked at once, before the listing is back: every answer comes from the fallbacks.
    const [search, refs, symbol, outline] = await Promise.all([
      run('code_search', { query: 'hashKey session' }),
      run('code_refs', { symbol: 'hashKey', direction: 'callers' }),
      run('code_symbol', { name: 'hashKey' }),
      run('code_outline', { path: 'src/app.ts' }),
    ]);
    const building = '[the code index is still building (0 of ? files);';
    expect(search.split('\n').slice(0, 2)).toEqual([
      `${building} these are ripgrep matches, files ranked by how many query words they hold]`,
      'src/store.ts:7 writeSession(this.dir, hashKey(session.id), session);',
    ]);
    expect(refs).toBe(
      [
        `${building} these are lines that call hashKey( by text, not resolved]`,
        'src/store.ts:7 writeSession(this.dir, hashKey(session.id), session);',
        'src/store.ts:10 return readSession(this.dir, hashKey(id));',
      ].join('\n'),
    );
    expect(symbol.split('\n').slice(0, 2)).toEqual([`${building} found by parsing the files that mention it]`, 'src/util/hash.ts:2-4 function hashKey(id: string): string']);
    expect(outline).toBe(['src/app.ts (7 lines)', 'imports: ./store.js', '3 function main(): void'].join('\n'));
    await handle.ready();
    expect(handle.status().state).toBe('ready');
    await handle.close();
  });

  it('a file with syntax errors is outlined with what parsed and a note', async () => {
    const { handle, run } = await open({ 'src/bad.ts': 'export function ok(): number { return 1; }\nfunction broken( {\n' });
    expect(await run('code_outline', { path: 'src/bad.ts' })).toBe(['src/bad.ts (2 lines) [the file has syntax errors; symbols may be incomplete]', '1 function ok(): number'].join('\n'));
    expect(handle.status().notes).toEqual({ syntax_errors: 1 });
    await handle.close();
  });

  it('in auto mode stays off below the number of source files it is worth it for', async () => {
    const ctx = await workspace(FILES);
    const notices: IndexNotice[] = [];
    const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'auto', onNotice: (n) => notices.push(n) });
    expect({ enabled: await handle.enabled, state: handle.status().state, notices }).toEqual({ enabled: false, state: 'off', notices: [{ code: 'too_few_files', n: 4 }] });
    const few = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'auto', minFiles: 4 });
    expect(await few.enabled).toBe(true);
    await few.close();
  });
});
