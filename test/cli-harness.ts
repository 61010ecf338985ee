// Runs the built CLI (dist/cli.js) as a child process with an isolated home, config and state,
// for the end-to-end suites.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ModelConfig } from '../src/types.js';
import { startFakeServer, writeFakeKeys, type FakeServer } from './fake-server.js';

export const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** The environment of a user whose home is `home`: XDG folders inside it, English, no trace log. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    LANG: 'en_US.UTF-8',
    FEIYU_NO_LOG: '1',
    ...extra,
  };
}

/** Starts the CLI in `cwd`; `done` resolves with its exit code and output. */
export function startCli(args: string[], o: { cwd: string; home: string; env?: Record<string, string>; input?: string }): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: o.cwd, env: cliEnv(o.home, o.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdin!.end(o.input ?? '');
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

export type CliFixture = { server: FakeServer; home: string; work: string };

/**
 * The hooks every end-to-end suite needs: one fake model server for the file, and for each test a
 * fresh home and workspace (`prefix`-home-…, `prefix`-work-…), the server's script and records
 * emptied, and keys.json pointing at it (Anthropic format by default) unless `keys` is false.
 * `use` receives the current fixture after each change, for the suite's own variables.
 */
export function useCliFixture(prefix: string, keys: Partial<ModelConfig> | false, use: (f: CliFixture) => void): void {
  const f = {} as CliFixture;
  beforeAll(async () => {
    f.server = await startFakeServer();
    use(f);
  });
  afterAll(() => f.server.close());
  beforeEach(async () => {
    f.home = await realpath(await mkdtemp(join(tmpdir(), `${prefix}-home-`)));
    f.work = await realpath(await mkdtemp(join(tmpdir(), `${prefix}-work-`)));
    f.server.reset();
    if (keys) writeFakeKeys(join(f.home, 'config'), f.server, 'anthropic', keys);
    use(f);
  });
}
