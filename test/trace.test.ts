// The trace on real files: what a real agent run logs (and leaves out), daily files by the event's
// date, FEIYU_NO_LOG, pruning, and a failing disk that never throws into the caller.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createProvider } from '../src/providers/stream.js';
import { logsDir, openTrace, pruneLogs } from '../src/session/trace.js';
import { localDate } from '../src/util/text.js';
import type { Tool, ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

let state: string;
const ROOT = '/work/project';
const base = { root: ROOT, env: {}, model: 'fake-openai', version: '0.1.0', mode: 'default' };

const server = await useFakeServer();

beforeEach(async () => {
  state = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-trace-')));
});

const readLog = (day: string) =>
  readFileSync(join(logsDir(state), `${day}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

const write: Tool = {
  name: 'write_note',
  description: 'Writes a note.',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  kind: 'write',
  describe: (args: { text: string }) => ({ title: 'note.txt', path: 'note.txt', preview: { kind: 'write', path: 'note.txt', content: args.text } }),
  run: async (args: { text: string }) => ({ output: 'written', change: { path: 'note.txt', before: 'x'.repeat(5000), after: args.text } }),
};

describe('trace', () => {
  it('logs a real run: run_start first, every event with run_id, ts and root, no deltas and no user pieces', async () => {
    const at = new Date(2025, 4, 6, 10, 0, 0);
    const trace = openTrace({ ...base, stateDir: state, runId: 'run-1', clock: () => at })!;
    const ctx: ToolContext = { root: state, signal: new AbortController().signal, files: new Map(), shell: { cwd: state }, env: {} };
    const provider = createProvider(fakeModel(server, 'openai', { price: { input: 1, output: 2 } }), { retry: { baseDelayMs: 1 } });
    const agent = new Agent({ provider, tools: [write], system: 'test', ctx });
    agent.on((e) => trace.write(e));
    server.enqueue(
      { text: 'Writing.', toolCalls: [{ id: 'w1', name: 'write_note', input: { text: 'hello' } }], usage: { input: 100, output: 20 } },
      { text: 'Done.', usage: { input: 150, output: 5 } },
    );
    await agent.send('write a note');
    trace.close();

    const lines = readLog('2025-05-06');
    expect(lines.map((l) => l.type)).toEqual([
      'run_start',
      'turn_start',
      'request_start',
      'usage',
      'message',
      'tool_call',
      'tool_result',
      'request_start',
      'usage',
      'message',
      'turn_end',
    ]);
    const ts = at.toISOString();
    expect(lines[0]).toEqual({ type: 'run_start', run_id: 'run-1', ts, root: ROOT, model: 'fake-openai', version: '0.1.0', mode: 'default' });
    expect(lines.every((l) => l.run_id === 'run-1' && l.ts === ts && l.root === ROOT)).toBe(true);
    expect(lines[1]).toEqual({ type: 'turn_start', text: 'write a note', run_id: 'run-1', ts, root: ROOT });
    expect(lines[3]).toMatchObject({ type: 'usage', input: 100, output: 20, cost: (100 + 40) / 1e6 });
    // The preview repeats the input: it is not logged twice.
    expect(lines[5]).toEqual({ type: 'tool_call', id: 'w1', name: 'write_note', input: { text: 'hello' }, title: 'note.txt', run_id: 'run-1', ts, root: ROOT });
    // Whole files before and after an edit are not logged: their sizes are.
    expect(lines[6]).toMatchObject({ type: 'tool_result', name: 'write_note', output: 'written', change: { path: 'note.txt', beforeBytes: 5000, afterBytes: 5 } });
    expect(lines[9]).toMatchObject({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } });
    expect(lines[10]).toMatchObject({ type: 'turn_end', stopReason: 'end', text: 'Done.', rounds: 1 });

    expect(statSync(join(logsDir(state), '2025-05-06.jsonl')).mode & 0o777).toBe(0o600);
    expect(statSync(logsDir(state)).mode & 0o777).toBe(0o700);
  });

  it('writes each event to the file of its own date, so a run crossing midnight goes on in the next file', () => {
    let now = new Date(2025, 0, 31, 23, 59, 30);
    const trace = openTrace({ ...base, stateDir: state, runId: 'r', clock: () => now })!;
    trace.write({ type: 'turn_start', text: 'late' });
    now = new Date(2025, 1, 1, 0, 0, 10);
    trace.write({ type: 'turn_end', stopReason: 'end', text: 'early', rounds: 0 });
    expect(readLog('2025-01-31').map((l) => l.type)).toEqual(['run_start', 'turn_start']);
    expect(readLog('2025-02-01').map((l) => l.type)).toEqual(['turn_end']);
  });

  it('is off with FEIYU_NO_LOG=1', () => {
    expect(openTrace({ ...base, stateDir: state, env: { FEIYU_NO_LOG: '1' } })).toBeNull();
    expect(existsSync(logsDir(state))).toBe(false);
    expect(openTrace({ ...base, stateDir: state, env: { FEIYU_NO_LOG: '0' } })).not.toBeNull();
  });

  it('reports a failed write once, never throws, and writes the missed lines once it can', () => {
    writeFileSync(logsDir(state), 'a file where the folder should be');
    const events: string[] = [];
    const at = new Date(2025, 4, 6, 10, 0, 0);
    const trace = openTrace({ ...base, stateDir: state, clock: () => at, onError: () => events.push('error'), onRecovered: () => events.push('recovered') })!;
    trace.write({ type: 'turn_start', text: 'a' });
    expect(events).toEqual(['error']);
    unlinkSync(logsDir(state));
    trace.write({ type: 'turn_start', text: 'b' });
    expect(events).toEqual(['error', 'recovered']);
    expect(readLog('2025-05-06').map((l) => l.text ?? l.type)).toEqual(['run_start', 'a', 'b']);
  });

  it('ends a torn last line (another process killed mid-write) before its first line', () => {
    const at = new Date(2025, 4, 6, 10, 0, 0);
    mkdirSync(logsDir(state), { recursive: true });
    writeFileSync(join(logsDir(state), '2025-05-06.jsonl'), '{"type":"run_start"}\n{"type":"usage","inp');
    openTrace({ ...base, stateDir: state, runId: 'r2', clock: () => at })!.write({ type: 'turn_start', text: 'next' });
    const lines = readFileSync(join(logsDir(state), '2025-05-06.jsonl'), 'utf8').split('\n');
    expect(lines.slice(1, 3)).toEqual(['{"type":"usage","inp', expect.stringMatching(/^\{"type":"run_start","run_id":"r2"/)]);
    expect(JSON.parse(lines[3]!)).toMatchObject({ type: 'turn_start', text: 'next' });
  });

  it('prunes daily files older than 30 days and leaves anything else alone', () => {
    const dir = logsDir(state);
    mkdirSync(dir, { recursive: true });
    const now = new Date(2025, 2, 31, 12, 0);
    const daysAgo = (n: number) => localDate(new Date(2025, 2, 31 - n));
    for (const n of [0, 29, 30, 31, 90]) writeFileSync(join(dir, `${daysAgo(n)}.jsonl`), '{}\n');
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect(pruneLogs(state, 30, now)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([`${daysAgo(30)}.jsonl`, `${daysAgo(29)}.jsonl`, `${daysAgo(0)}.jsonl`, 'notes.txt']);
    expect(pruneLogs(join(state, 'nothing-here'))).toBe(0);
  });
});
