// Sessions on real files: what the real agent emits is written and read back as the same history;
// torn lines, killed tool calls, garbage and newer formats load safely; the history a load gives
// is one the provider accepts (checked by the fake server over real HTTP); read records written as
// changes; a full disk (a real small tmpfs) loses nothing once space is free, nor does the trace.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { fileVersion } from '../src/util/paths.js';
import { createProvider } from '../src/providers/stream.js';
import { findLastSession, findSession, listSessions } from '../src/session/listing.js';
import { loadSession, restoreFiles, SessionError, SessionWriter, sessionsDir } from '../src/session/store.js';
import { openTrace } from '../src/session/trace.js';
import type { Message } from '../src/types/conversation.js';
import type { Tool, ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

let state: string;
const ROOT = '/work/project';

const server = await useFakeServer();

beforeEach(async () => {
  state = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-session-')));
});

const echo: Tool = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  kind: 'read',
  run: async (args: { text: string }) => ({ output: `echo: ${args.text}` }),
};

function makeAgent(maxRounds = 25) {
  const ctx: ToolContext = { root: state, signal: new AbortController().signal, files: new Map(), shell: { cwd: state }, env: {} };
  const provider = createProvider(fakeModel(server, 'anthropic'), { retry: { baseDelayMs: 1 } });
  return new Agent({ provider, tools: [echo], system: 'test', ctx, maxRounds });
}

/** Writes a session file by hand: a header, then the given lines (objects become JSON). */
function handWritten(lines: (object | string)[], header: object = {}): string {
  const dir = sessionsDir(state);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'hand.jsonl');
  const all = [{ type: 'header', version: 1, id: 'hand', root: ROOT, created: '2025-01-01T00:00:00.000Z', model: 'm', ...header }, ...lines];
  writeFileSync(file, all.map((l) => (typeof l === 'string' ? l : JSON.stringify(l)) + '\n').join(''));
  return file;
}

const msg = (message: Message) => ({ type: 'message', message });
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): Message => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool_call' as const, id, name: 'echo', input: { text: id } })),
});
const result = (id: string, content = `echo: ${id}`) => ({ type: 'tool_result' as const, callId: id, content });
const interrupted = (id: string) => ({ type: 'tool_result' as const, callId: id, content: '[interrupted]', isError: true });

/** Sends the history to the fake server the way the agent would; returns what the server found wrong. */
async function providerAccepts(messages: Message[]): Promise<string[]> {
  server.enqueue({ text: 'ok' });
  const provider = createProvider(fakeModel(server, 'anthropic'), { retry: { maxAttempts: 1 } });
  for await (const _event of provider.stream({ system: 's', messages, tools: [echo] })) {
    // drained
  }
  return server.violations;
}

describe('writing a session', () => {
  it('writes what the agent emits, 0600 in a 0700 folder, and loads the same history back', async () => {
    const agent = makeAgent(1);
    const writer = SessionWriter.create(state, ROOT, 'fake-anthropic');
    agent.on((e) => writer.onEvent(e));
    server.enqueue({ toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'one' } }] });
    expect((await agent.send('first')).stopReason).toBe('max_rounds');
    // After the round limit the history ends with tool results: the next text is merged into that message.
    server.enqueue({ text: 'Done.' });
    await agent.send('go on');
    expect(agent.messages[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'text']);

    expect(statSync(writer.file).mode & 0o777).toBe(0o600);
    expect(statSync(sessionsDir(state)).mode & 0o777).toBe(0o700);
    const loaded = loadSession(writer.file);
    expect(loaded).toEqual({
      header: { type: 'header', version: 1, id: writer.id, root: ROOT, created: expect.any(String), model: 'fake-anthropic' },
      messages: agent.messages,
      state: {},
      skipped: 0,
    });
    expect(writer.file).toBe(join(sessionsDir(state), `${writer.id}.jsonl`));
  });

  it('creates no file before the first message; state saved before it follows the header', () => {
    const writer = SessionWriter.create(state, ROOT, 'm');
    writer.saveState({ mode: 'auto', todo: [{ text: 'a', done: false }] });
    writer.onEvent({ type: 'turn_start', text: 'hi' });
    expect(() => statSync(writer.file)).toThrow();
    writer.onEvent({ type: 'message', message: user('hi') });
    const lines = readFileSync(writer.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['header', 'state', 'message']);
  });

  it('merges state lines in order and writes only the fields that changed', () => {
    const writer = SessionWriter.create(state, ROOT, 'm');
    writer.onEvent({ type: 'message', message: user('hi') });
    const totals = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: 0.01, costUnknown: false, requests: 1 };
    const files = new Map([['/p/a.ts', { hash: 'h1', size: 3, mtimeMs: 1 }]]);
    writer.saveState({ model: 'm', mode: 'default', todo: ['x'], totals, files });
    writer.saveState({ model: 'm', mode: 'plan', todo: ['x'], totals, files });
    writer.saveState({ model: 'm', mode: 'plan', todo: ['x'], totals, files });
    const stateLines = readFileSync(writer.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'state');
    expect(stateLines).toEqual([
      { type: 'state', model: 'm', mode: 'default', todo: ['x'], totals, filesChanged: { '/p/a.ts': { hash: 'h1', size: 3, mtimeMs: 1 } } },
      { type: 'state', mode: 'plan' },
    ]);
    expect(loadSession(writer.file).state).toEqual({ model: 'm', mode: 'plan', todo: ['x'], totals, files: { '/p/a.ts': { hash: 'h1', size: 3, mtimeMs: 1 } } });
  });

  it('never writes image data, neither from user content nor from tool results', () => {
    const data = Buffer.alloc(3000, 7).toString('base64');
    const writer = SessionWriter.create(state, ROOT, 'm');
    writer.onEvent({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', mediaType: 'image/png', data, path: 'shot.png', bytes: 125_000 }] } });
    writer.onEvent({ type: 'message', message: calls('c1') });
    writer.onEvent({
      type: 'message',
      message: { role: 'user', content: [{ ...result('c1', 'an image'), images: [{ type: 'image', mediaType: 'image/jpeg', data }] }] },
    });
    const text = readFileSync(writer.file, 'utf8');
    expect(text).not.toContain(data.slice(0, 100));
    expect(loadSession(writer.file).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'text', text: '[image: shot.png, 122 KB, not saved]' }] },
      calls('c1'),
      { role: 'user', content: [result('c1', 'an image\n[image: image/jpeg, 3 KB, not saved]')] },
    ]);
  });

  it('starts the history over after a compaction, with the messages emitted after it', () => {
    const writer = SessionWriter.create(state, ROOT, 'm');
    for (const m of [user('old'), { role: 'assistant', content: [{ type: 'text', text: 'old answer' }] } as Message]) writer.onEvent({ type: 'message', message: m });
    writer.onEvent({ type: 'compaction', before: 100, after: 10, method: 'summary', elided: 0, removed: 2 });
    writer.onEvent({ type: 'message', message: user('summary') });
    expect(loadSession(writer.file).messages).toEqual([user('summary')]);
  });

  it('delete() removes the file and writes nothing more', () => {
    const writer = SessionWriter.create(state, ROOT, 'm');
    writer.onEvent({ type: 'message', message: user('hi') });
    writer.delete();
    writer.onEvent({ type: 'message', message: user('again') });
    expect(() => statSync(writer.file)).toThrow();
  });

  it('reports a failed write once, never throws, and writes what it missed once it can', () => {
    writeFileSync(join(state, 'sessions'), 'a file where the folder should be');
    const events: string[] = [];
    const writer = SessionWriter.create(state, ROOT, 'm', { onError: (e) => events.push(`error ${(e as NodeJS.ErrnoException).code}`), onRecovered: () => events.push('recovered') });
    writer.onEvent({ type: 'message', message: user('hi') });
    writer.saveState({ mode: 'plan' });
    writer.onEvent({ type: 'message', message: user('again') });
    expect(events).toEqual([expect.stringMatching(/^error E(NOTDIR|EXIST)$/)]);
    unlinkSync(join(state, 'sessions'));
    writer.onEvent({ type: 'message', message: user('third') });
    expect(events.slice(1)).toEqual(['recovered']);
    expect(loadSession(writer.file)).toMatchObject({ messages: [{ role: 'user', content: [...user('hi').content, ...user('again').content, ...user('third').content] }], state: { mode: 'plan' }, skipped: 0 });
  });
});

describe('read records in the session file', () => {
  const version = (n: number) => ({ hash: String(n).padStart(64, 'a'), size: n, mtimeMs: n });

  it('are written as changes: a file per read, not the whole list again (linear in the files read)', () => {
    const writer = SessionWriter.create(state, ROOT, 'm');
    writer.onEvent({ type: 'message', message: user('read them all') });
    const files = new Map<string, ReturnType<typeof version>>();
    for (let n = 1; n <= 300; n++) {
      files.set(`${ROOT}/src/file${n}.ts`, version(n));
      writer.saveState({ mode: 'default', files });
    }
    // Read again (moves last), changed on disk by an edit, and forgotten by /undo.
    files.delete(`${ROOT}/src/file1.ts`);
    files.set(`${ROOT}/src/file1.ts`, version(1));
    files.set(`${ROOT}/src/file2.ts`, version(2000));
    files.delete(`${ROOT}/src/file3.ts`);
    writer.saveState({ mode: 'default', files });
    const bytes = statSync(writer.file).size;
    // About 170 bytes a record once each; the whole list each time would be 300 × 300 / 2 records.
    expect(bytes).toBeLessThan(300 * 200 + 1000);
    const lines = readFileSync(writer.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toEqual({ type: 'state', filesChanged: { [`${ROOT}/src/file2.ts`]: version(2000) }, filesDropped: [`${ROOT}/src/file3.ts`] });
    const loaded = loadSession(writer.file).state.files!;
    expect(loaded).toEqual(Object.fromEntries(files));
    expect(Object.keys(loaded).length).toBe(299);
  });

  it('fold over a whole list written by an earlier version, and a resumed writer writes only what changed', () => {
    const a = `${ROOT}/a.ts`;
    const b = `${ROOT}/b.ts`;
    const file = handWritten([msg(user('hi')), { type: 'state', files: { [a]: version(1), [b]: version(2) } }, { type: 'state', filesChanged: { [a]: version(3) } }]);
    const loaded = loadSession(file);
    expect(Object.entries(loaded.state.files!)).toEqual([[b, version(2)], [a, version(3)]]);
    const writer = SessionWriter.open(file, loaded.state) as SessionWriter;
    writer.saveState({ files: new Map(Object.entries(loaded.state.files!)) });
    writer.saveState({ files: new Map([[a, version(3)]]) });
    const tail = readFileSync(file, 'utf8').trim().split('\n').slice(4).map((l) => JSON.parse(l));
    expect(tail).toEqual([{ type: 'state', filesDropped: [b] }]);
    expect(loadSession(file).state.files).toEqual({ [a]: version(3) });
  });
});

/** A 64 KiB tmpfs at a fresh folder, when this process may mount one (root); undefined otherwise. */
function smallDisk(): { dir: string; unmount(): void } | undefined {
  const dir = join(state, 'small-disk');
  mkdirSync(dir);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', dir]).status !== 0) return undefined;
  return { dir, unmount: () => void spawnSync('umount', [dir]) };
}

describe.skipIf(process.getuid?.() !== 0)('a full disk (needs root to mount a small tmpfs)', () => {
  it('the session reports it once, loses no message, and leaves no torn line once space is free', () => {
    const disk = smallDisk()!;
    try {
      const events: string[] = [];
      const writer = SessionWriter.create(disk.dir, ROOT, 'm', { onError: (e) => events.push((e as NodeJS.ErrnoException).code!), onRecovered: () => events.push('recovered') });
      writer.onEvent({ type: 'message', message: user('first') });
      writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(40 * 1024));
      const big = (n: number) => user(`${n} ` + 'x'.repeat(8000));
      for (let n = 1; n <= 4; n++) writer.onEvent({ type: 'message', message: big(n) });
      expect(events).toEqual(['ENOSPC']);
      unlinkSync(join(disk.dir, 'filler'));
      writer.onEvent({ type: 'message', message: user('after') });
      expect(events).toEqual(['ENOSPC', 'recovered']);
      const loaded = loadSession(writer.file);
      expect(loaded.skipped).toBe(0);
      expect(loaded.messages[0]!.content.map((b) => (b.type === 'text' ? b.text.slice(0, 5) : ''))).toEqual(['first', '1 xxx', '2 xxx', '3 xxx', '4 xxx', 'after']);
    } finally {
      disk.unmount();
    }
  });

  it('the trace starts its next line on a line of its own', () => {
    const disk = smallDisk()!;
    try {
      const at = new Date(2025, 4, 6, 10, 0, 0);
      const events: string[] = [];
      const trace = openTrace({ root: ROOT, env: {}, model: 'm', version: '0', mode: 'default', stateDir: disk.dir, clock: () => at, onError: () => events.push('error'), onRecovered: () => events.push('recovered') })!;
      writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(50 * 1024));
      for (let n = 1; n <= 3; n++) trace.write({ type: 'turn_start', text: `${n} ` + 'y'.repeat(5000) });
      unlinkSync(join(disk.dir, 'filler'));
      trace.write({ type: 'turn_start', text: 'after' });
      expect(events).toEqual(['error', 'recovered']);
      const lines = readFileSync(join(disk.dir, 'logs', '2025-05-06.jsonl'), 'utf8').trim().split('\n');
      const parsed = lines.flatMap((l) => {
        try {
          return [JSON.parse(l).text?.slice(0, 5) ?? 'start'];
        } catch {
          return ['torn'];
        }
      });
      expect(parsed.filter((p) => p !== 'torn')).toEqual(['start', '1 yyy', '2 yyy', '3 yyy', 'after']);
    } finally {
      disk.unmount();
    }
  });
});

describe('loading a session', () => {
  it('skips a torn last line, and appending after it on resume keeps the next line whole', () => {
    const file = handWritten([msg(user('hi')), msg({ role: 'assistant', content: [{ type: 'text', text: 'hello' }] })]);
    appendFileSync(file, '{"type":"message","message":{"role":"user","cont');
    const loaded = loadSession(file);
    expect(loaded.skipped).toBe(1);
    expect(loaded.messages).toEqual([user('hi'), { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }]);

    const writer = SessionWriter.open(file, loadSession(file).state) as SessionWriter;
    expect(writer.id).toBe('hand');
    writer.onEvent({ type: 'message', message: user('next') });
    expect(loadSession(file)).toMatchObject({ skipped: 1, messages: [user('hi'), expect.anything(), user('next')] });
  });

  it('answers tool calls killed mid-tool with [interrupted], before any later user text', async () => {
    const file = handWritten([msg(user('do it')), msg(calls('c1', 'c2')), msg(user('are you there?'))]);
    const { messages } = loadSession(file);
    expect(messages).toEqual([
      user('do it'),
      calls('c1', 'c2'),
      { role: 'user', content: [interrupted('c1'), interrupted('c2'), { type: 'text', text: 'are you there?' }] },
    ]);
    expect(await providerAccepts(messages)).toEqual([]);
  });

  it('answers a call at the very end, and only the missing ones of a partly answered reply', async () => {
    const partly = handWritten([msg(user('do it')), msg(calls('a', 'b')), msg({ role: 'user', content: [result('b')] }), msg(calls('c'))]);
    const { messages } = loadSession(partly);
    expect(messages).toEqual([
      user('do it'),
      calls('a', 'b'),
      { role: 'user', content: [interrupted('a'), result('b')] },
      calls('c'),
      { role: 'user', content: [interrupted('c')] },
    ]);
    expect(await providerAccepts(messages)).toEqual([]);
  });

  it('skips garbage in the middle, drops empty and orphaned pieces, and counts what it skipped', async () => {
    const file = handWritten([
      msg(user('start')),
      'this is not JSON',
      msg({ role: 'assistant', content: [] }),
      '[1,2,3]',
      msg({ role: 'user', content: [result('lost-call')] }),
      { type: 'message', message: { role: 'robot', content: [] } },
      msg({ role: 'assistant', content: [{ type: 'text', text: 'fine' }] }),
      { type: 'from-the-future', x: 1 },
    ]);
    const loaded = loadSession(file);
    expect(loaded.messages).toEqual([user('start'), { role: 'assistant', content: [{ type: 'text', text: 'fine' }] }]);
    expect(loaded.skipped).toBe(4);
    expect(await providerAccepts([...loaded.messages, user('next')])).toEqual([]);
  });

  it('refuses a newer format with a clear message, and a file that is not a session', () => {
    const newer = handWritten([msg(user('hi'))], { version: 3, id: 'abc' });
    expect(() => loadSession(newer)).toThrow(
      new SessionError('session_newer', { id: 'abc', version: 3, supported: 1 }, 'session abc was written by a newer feiyu (format 3); this version reads format 1'),
    );
    const err = (() => {
      try {
        loadSession(newer);
      } catch (e) {
        return e as SessionError;
      }
    })();
    expect({ code: err?.code, params: err?.params }).toEqual({ code: 'session_newer', params: { id: 'abc', version: 3, supported: 1 } });

    const junk = join(state, 'junk.jsonl');
    writeFileSync(junk, '\u0000\u0001garbage\n');
    expect(() => loadSession(junk)).toThrow(SessionError);
    expect(() => loadSession(join(state, 'missing.jsonl'))).toThrow(/cannot read session/);
  });
});

describe('finding sessions', () => {
  function session(root: string, texts: string[], cost: number | null, mtime: number): SessionWriter {
    const writer = SessionWriter.create(state, root, 'm');
    texts.forEach((text, i) => {
      writer.onEvent({ type: 'message', message: user(text) });
      writer.onEvent({ type: 'message', message: calls(`c${i}`) });
      writer.onEvent({ type: 'message', message: { role: 'user', content: [result(`c${i}`)] } });
    });
    const totals = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: cost ?? 0, costUnknown: cost === null, requests: 1 };
    writer.saveState({ totals });
    utimesSync(writer.file, mtime, mtime);
    return writer;
  }

  it('lists this directory’s sessions newest first, and finds them by id, prefix or recency', () => {
    const older = session(ROOT, ['fix the bug\nin parser.ts', 'and test it'], 0.25, 1_700_000_000);
    const newer = session(ROOT, ['add a flag'], null, 1_700_000_500);
    // A compaction after it: the history starts over at a summary, and kept rounds are written again.
    newer.onEvent({ type: 'compaction', before: 9000, after: 900, method: 'summary', elided: 0, removed: 3 });
    for (const message of [user('This is a summary of our earlier conversation'), calls('c0'), { role: 'user' as const, content: [result('c0')] }]) newer.onEvent({ type: 'message', message });
    utimesSync(newer.file, 1_700_000_500, 1_700_000_500);
    session('/elsewhere', ['not here'], 1, 1_700_000_900);
    SessionWriter.create(state, ROOT, 'm').saveState({ mode: 'auto' }); // never sent anything: no file

    expect(listSessions(state, ROOT)).toEqual([
      { id: newer.id, file: newer.file, created: expect.any(String), updated: new Date(1_700_000_500_000).toISOString(), firstRequest: 'add a flag', rounds: 1, cost: null },
      { id: older.id, file: older.file, created: expect.any(String), updated: new Date(1_700_000_000_000).toISOString(), firstRequest: 'fix the bug', rounds: 2, cost: 0.25 },
    ]);
    expect(findLastSession(state, ROOT)).toBe(newer.file);
    expect(findLastSession(state, '/nowhere')).toBeNull();
    expect(findSession(state, older.id)).toBe(older.file);
    expect(findSession(state, older.id.slice(0, -2))).toBe(older.file);
    expect(findSession(state, '')).toBeNull();
    expect(findSession(state, 'no-such-id')).toBeNull();
  });
});

describe('read-before-write records on resume', () => {
  it('keeps the records of unchanged files and drops changed or missing ones', async () => {
    const [same, changed, gone] = ['same.txt', 'changed.txt', 'gone.txt'].map((n) => join(state, n));
    for (const f of [same!, changed!]) writeFileSync(f, 'content\n');
    const saved = { [same!]: await fileVersion(same!), [changed!]: await fileVersion(changed!), [gone!]: { hash: 'x', size: 1, mtimeMs: 1 } };
    writeFileSync(changed!, 'content, edited elsewhere\n');
    const files = new Map();
    const dropped = await restoreFiles(saved, files);
    expect({ kept: [...files.keys()], dropped }).toEqual({ kept: [same], dropped: [changed, gone] });
  });
});
