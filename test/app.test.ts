// The app in-process over a fake model server, checking what its wiring promises: the loop's
// events and the app's own (hook failures, notices) are one stream that the trace records.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { createApp } from '../src/app/app.js';
import { parseArgs } from '../src/app/args.js';
import { logsDir } from '../src/session/trace.js';
import { startFakeServer, writeFakeKeys, type FakeServer } from './fake-server.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** A home with keys.json pointing at the fake server and `settings`, a workspace, and the app's environment. */
async function place(settings: object = {}) {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-app-home-')));
  const work = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-app-work-')));
  onTestFinished(() => Promise.all([home, work].map((d) => rm(d, { recursive: true, force: true }))).then(() => {}));
  const config = join(home, 'config');
  writeFakeKeys(config, server, 'openai');
  mkdirSync(join(config, 'feiyu'), { recursive: true });
  writeFileSync(join(config, 'feiyu', 'settings.json'), JSON.stringify(settings));
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: config, XDG_STATE_HOME: join(home, 'state'), LANG: 'en_US.UTF-8' };
  return { home, work, env, state: join(home, 'state', 'feiyu') };
}

/** Every line the trace wrote, all days together. */
function traced(stateDir: string): Record<string, unknown>[] {
  const dir = logsDir(stateDir);
  return readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l)));
}

describe('one event stream', () => {
  it('a failing PreToolUse hook reaches the trace, and the call it blocked is refused', async () => {
    const p = await place({ hooks: { PreToolUse: [{ matcher: 'bash', command: 'echo broken >&2; exit 1' }] } });
    const app = await createApp(parseArgs(['-p', 'go', '-C', p.work, '--sandbox', 'off']), { env: p.env });
    const seen: string[] = [];
    app.on((e) => seen.push(e.type));
    server.enqueue({ toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'echo hi' } }] }, { text: 'Could not run it.' });
    expect(await app.send('go', new AbortController().signal)).toEqual({ stopReason: 'end', text: 'Could not run it.', rounds: 1 });
    await app.close();

    const failed = { type: 'hook_failed', event: 'PreToolUse', command: 'echo broken >&2; exit 1', failure: { kind: 'exit', code: 1 }, stderr: 'broken', blocked: true };
    expect(seen).toContain('hook_failed');
    const lines = traced(p.state);
    const hook = lines.findIndex((l) => l.type === 'hook_failed');
    expect(lines[hook]).toEqual({ ...failed, run_id: expect.any(String), ts: expect.any(String), root: p.work });
    expect(lines[hook - 1]).toMatchObject({ type: 'tool_call', id: 'b1' });
    expect(lines[hook + 1]).toMatchObject({ type: 'permission', id: 'b1', decision: 'deny' });
    expect(server.violations).toEqual([]);
  });
});
