// The two fixtures of the suites that talk to a model: one fake model server per test file, played
// out by every test (codex counts requests per test), and on top of it the end-to-end set-up of
// the built CLI (a home and a workspace emptied for every test, keys.json, CLIs the test owns).
// Call them at the top level of a test file, with await.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, expect, onTestFinished } from 'vitest';
import type { ModelConfig, WireFormat } from '../src/types/providers.js';
import { startCli, type CliRun, type StartedCli } from './cli-harness.js';
import { startFakeServer, writeFakeKeys, type FakeReply, type FakeServer, type FakeServerOptions } from './fake-server.js';
import { currentTest } from './scope.js';

/**
 * A fake model server for this file: emptied before each test; when a test ends (after the
 * processes it started are gone) the test fails if replies were left unplayed or a request broke
 * the API's rules. A test that provokes violations on purpose checks them and empties them.
 * Replies cannot be queued by a test body that goes on after its test ended.
 */
export async function useFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const server = await startFakeServer(options);
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    currentTest().atEnd(() => expect({ unplayed: server.unplayed(), violations: server.violations }).toEqual({ unplayed: [], violations: [] }));
  });
  return {
    ...server,
    enqueue: (...replies: FakeReply[]) => {
      currentTest();
      server.enqueue(...replies);
    },
  };
}

/** The text of every tool result the model was sent in the server's last request (Anthropic format, as useCliFixture's keys). */
export function toolResults(server: FakeServer): string[] {
  const body = server.requests.at(-1)!.body as { messages: { content: unknown }[] };
  return body.messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.filter((b: { type: string }) => b.type === 'tool_result').map((b: { content: unknown }) => (typeof b.content === 'string' ? b.content : JSON.stringify(b.content)))
      : [],
  );
}

export type CliOptions = { input?: string; env?: Record<string, string>; cwd?: string };

export type CliFixture = {
  server: FakeServer;
  /** The user's home (XDG folders inside it), emptied before each test. */
  home: string;
  /** The workspace the CLI starts in, emptied before each test. */
  work: string;
  /** Starts the CLI in `work` (or `cwd`); it is killed when the test ends, if it is still running. */
  start(args: string[], o?: CliOptions): StartedCli;
  /** Runs the CLI to its end. */
  run(args: string[], o?: CliOptions): Promise<CliRun>;
  /** Runs the REPL to its end with `lines` piped in, one a line; fails if it wrote an escape code. */
  pipe(args: string[], lines: string[], env?: Record<string, string>): Promise<CliRun>;
};

/**
 * The end-to-end set-up: useFakeServer(), a home and a workspace (`prefix`-…/home, /work) emptied
 * for each test, and keys.json pointing at the server (Anthropic format by default, `keys` the
 * overrides) unless `keys` is false.
 */
export async function useCliFixture(prefix: string, keys: Partial<ModelConfig> | false): Promise<CliFixture> {
  const server = await useFakeServer();
  const base = await realpath(await mkdtemp(join(tmpdir(), `${prefix}-`)));
  afterAll(() => rm(base, { recursive: true, force: true }));
  const home = join(base, 'home');
  const work = join(base, 'work');
  beforeEach(async () => {
    for (const dir of [home, work]) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
    }
    if (keys) writeFakeKeys(join(home, 'config'), server, 'anthropic', keys);
  });
  const start = (args: string[], o: CliOptions = {}) => startCli(args, { cwd: work, home, ...o });
  const run = (args: string[], o?: CliOptions) => start(args, o).done;
  const pipe = async (args: string[], lines: string[], env: Record<string, string> = {}) => {
    const r = await run(args, { env, input: lines.map((l) => l + '\n').join('') });
    expect(r.stdout).not.toMatch(/\x1b/);
    return r;
  };
  return { server, home, work, start, run, pipe };
}

/**
 * For a test of the app in-process: a home with keys.json pointing at `server` (in `format`) and
 * settings.json holding `settings`, a workspace, and the app's environment; removed when the test ends.
 */
export async function appPlace(server: FakeServer, settings: object = {}, format: WireFormat = 'openai') {
  const home = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-app-home-')));
  const work = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-app-work-')));
  onTestFinished(() => Promise.all([home, work].map((d) => rm(d, { recursive: true, force: true }))).then(() => {}));
  const config = join(home, 'config');
  writeFakeKeys(config, server, format);
  mkdirSync(join(config, 'feiyu'), { recursive: true });
  const settingsFile = join(config, 'feiyu', 'settings.json');
  writeFileSync(settingsFile, JSON.stringify(settings));
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: config, XDG_STATE_HOME: join(home, 'state'), LANG: 'en_US.UTF-8', ...currentTest().env };
  return { home, work, env, settingsFile, state: join(home, 'state', 'feiyu') };
}
