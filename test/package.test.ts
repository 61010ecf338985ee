// The package as others get it: the example script run as a user would run it, and the packed
// tarball installed in a scratch project, where `import { createHost } from 'feiyu'` must load
// (package.json `exports`) and type-check (the declarations in dist/types/), then run a task
// against the fake model server. The scratch project sits in the repository, so the tarball's
// dependencies resolve from our node_modules as an installer would have put them beside it.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { cliEnv } from './cli-harness.js';
import { writeFakeKeys } from './fake-server.js';
import { useCliFixture } from './fixtures.js';
import { currentTest } from './scope.js';

const REPO = join(import.meta.dirname, '..');
const f = await useCliFixture('feiyu-package', false);

beforeEach(() => void writeFakeKeys(join(f.home, 'config'), f.server, 'anthropic', { price: { input: 3, output: 15 } }));

/** Runs `node script args` in `cwd` as the test's own process; resolves with its exit code and output. */
function runNode(script: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script, ...args], { cwd, env: cliEnv(f.home, currentTest().env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The lines the example prints for a task that lists the files and answers. */
function expectExampleRun(run: { code: number | null; stdout: string; stderr: string }): void {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  const lines = run.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^task \d{8}-\d{6}-[0-9a-f]{6}$/);
  expect(lines).toContain('← list_files ok in ' + /← list_files ok in (\d+) ms/.exec(run.stdout)![1] + ' ms');
  expect(lines).toContain('A small project.');
  expect(lines).toContain('(end, 1 rounds)');
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'result', subtype: 'success', result: 'A small project.', session_id: lines[0]!.slice(5), num_turns: 2 });
}

describe('the package', () => {
  it('examples/run-task.mjs runs a task and prints its events and result', async () => {
    writeFileSync(join(f.work, 'a.txt'), 'a\n');
    f.server.enqueue({ toolCalls: [{ name: 'list_files', input: {} }] }, { text: 'A small project.' });
    expectExampleRun(await runNode(join(REPO, 'examples', 'run-task.mjs'), ['what is this?'], f.work));
  });

  it('packed and installed elsewhere: import { createHost } from "feiyu" loads, type-checks and runs', async () => {
    const scratch = mkdtempSync(join(REPO, '.feiyu-test-pack-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    // The declarations are built by `npm pack`'s prepare script; here by the same command, so
    // that dist/cli.js, which other suites are running, is not rebuilt under them.
    const types = spawnSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.types.json'], { cwd: REPO, encoding: 'utf8' });
    expect(types.stdout + types.stderr).toBe('');
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: REPO, encoding: 'utf8' });
    expect(pack.status).toBe(0);
    const [{ filename, files }] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    expect(files.map((x) => x.path)).toEqual(expect.arrayContaining(['dist/index.js', 'dist/cli.js', 'dist/types/index.d.ts', 'dist/types/app/host.d.ts', 'package.json']));
    const installed = join(scratch, 'node_modules', 'feiyu');
    mkdirSync(installed, { recursive: true });
    expect(spawnSync('tar', ['xzf', join(scratch, filename), '-C', installed, '--strip-components=1']).status).toBe(0);

    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    writeFileSync(
      join(scratch, 'check.ts'),
      [
        `import { createHost, type AgentEvent, type Host, type TaskResult } from 'feiyu';`,
        `const host: Host = await createHost({ mode: 'readonly', persistence: 'memory' });`,
        `const id: string = await host.submit({ prompt: 'hi', maxRounds: 3 });`,
        `for await (const event of host.events(id)) if (event.type === 'approval') host.answer(id, event.id, { answer: 'no' });`,
        `const result: TaskResult = await host.wait(id);`,
        `const stop: AgentEvent['type'] = 'turn_end';`,
        `console.log(result.subtype, stop, host.status(id).state);`,
        `// @ts-expect-error: a mode that does not exist`,
        `await createHost({ mode: 'yolo' });`,
      ].join('\n'),
    );
    const check = spawnSync(
      process.execPath,
      [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', 'check.ts'],
      { cwd: scratch, encoding: 'utf8' },
    );
    expect(check.stdout + check.stderr).toBe('');

    copyFileSync(join(REPO, 'examples', 'run-task.mjs'), join(scratch, 'run-task.mjs'));
    writeFileSync(join(f.work, 'a.txt'), 'a\n');
    f.server.enqueue({ toolCalls: [{ name: 'list_files', input: {} }] }, { text: 'A small project.' });
    const run = await runNode(join(scratch, 'run-task.mjs'), ['what is this?'], f.work);
    expectExampleRun(run);
  }, 180_000);
});
