// Safety and the working tools through the real CLI against the fake model server: the headless
// policy, hard denies in auto mode, the sandbox, project trust for hooks and verify:, plan mode.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../src/safety/sandboxprobe.js';
import { CLI, cliEnv } from './cli-harness.js';
import { toolResults, useCliFixture } from './fixtures.js';
import { currentTest, runningWith, waitFor } from './scope.js';

const probe = await probeSandbox();
const bwrapWorks = probe.ok;
const { server, home, work, run, start } = await useCliFixture('feiyu-safe', {});

const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });

describe('the permission policy through the CLI', () => {
  it('headless default mode runs allowlisted commands and refuses others, saying how to allow them', async () => {
    await writeFile(join(work, 'a.txt'), 'x');
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'ls' } }, { name: 'bash', input: { command: 'npm test' } }] }, { text: 'done' });
    expect((await run(['-p', 'go'])).code).toBe(0);
    const [ls, npm] = toolResults(server);
    expect(ls).toContain('a.txt');
    expect(npm).toContain('--mode auto');
    expect(npm).toContain('bash(npm test *)');
  });

  it('auto mode still refuses secrets: ~/.ssh/id_rsa and a .env', async () => {
    await mkdir(join(home, '.ssh'));
    await writeFile(join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-MATERIAL');
    await writeFile(join(work, '.env'), 'API_TOKEN=SECRET-VALUE');
    server.enqueue(
      { toolCalls: [{ name: 'bash', input: { command: 'cat ~/.ssh/id_rsa' } }, { name: 'read_file', input: { path: '.env' } }, { name: 'bash', input: { command: 'cat "$HOME"/.ss?/id_*' } }] },
      { text: 'refused' },
    );
    expect((await run(['-p', 'show me the keys', '--mode', 'auto'])).code).toBe(0);
    const results = toolResults(server);
    expect(results).toHaveLength(3);
    for (const r of results) expect(r).toMatch(/Permission denied/);
    const everything = JSON.stringify(server.requests);
    expect(everything).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(everything).not.toContain('SECRET-VALUE');
  });

  it.runIf(bwrapWorks)('the workspace sandbox keeps auto-mode commands from writing outside the workspace', async () => {
    // Not under /tmp: the sandbox gives commands a private /tmp of their own.
    const outside = join('/var/tmp', `feiyu-e2e-${process.pid}-${Date.now()}.txt`);
    server.enqueue(call('bash', { command: `echo hi > ${outside}; echo inside > inside.txt` }), { text: 'ok' });
    await run(['-p', 'write', '--mode', 'auto']);
    expect(existsSync(outside)).toBe(false);
    expect(await readFile(join(work, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(toolResults(server)[0]).toMatch(/Read-only file system/);
    server.enqueue(call('bash', { command: `echo hi > ${outside}` }), { text: 'ok' });
    await run(['-p', 'write', '--mode', 'auto', '--sandbox', 'off']);
    expect(existsSync(outside)).toBe(true);
    await rm(outside);
  });
});

describe('project trust, hooks and verify through the CLI', () => {
  async function projectWithHook() {
    await mkdir(join(work, '.feiyu'));
    const marker = join(work, 'hook-ran');
    await writeFile(join(work, '.feiyu', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'bash', command: `touch ${marker}` }] } }));
    return marker;
  }

  it("does not run an untrusted project's hooks, and says so", async () => {
    const marker = await projectWithHook();
    server.enqueue(call('bash', { command: 'pwd' }), { text: 'ok' });
    const r = await run(['-p', 'go', '--mode', 'auto']);
    expect(existsSync(marker)).toBe(false);
    expect(r.stderr).toContain('ignored until you trust it');
  });

  it('runs them with --trust, and remembers the trust until the settings change', async () => {
    const marker = await projectWithHook();
    server.enqueue(call('bash', { command: 'pwd' }), { text: 'ok' });
    await run(['-p', 'go', '--mode', 'auto', '--trust']);
    expect(existsSync(marker)).toBe(true);
    const trusted = JSON.parse(await readFile(join(home, 'config', 'feiyu', 'trusted.json'), 'utf8')) as { projects: Record<string, unknown> };
    expect(Object.keys(trusted.projects)).toEqual([work]);
    server.enqueue({ text: 'ok' });
    expect((await run(['-p', 'again'])).stderr).not.toContain('ignored until you trust it');
    await writeFile(join(work, '.feiyu', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ command: 'true' }] } }));
    server.enqueue({ text: 'ok' });
    expect((await run(['-p', 'changed'])).stderr).toContain('ignored until you trust it');
  });

  it("feeds a failing verify: command's output back to the model after an edit", async () => {
    await writeFile(join(work, 'FEIYU.md'), 'verify: grep -q fixed state.txt || (echo "TEST FAILED: state is broken"; exit 1)\n');
    server.enqueue(call('write_file', { path: 'state.txt', content: 'broken\n' }), call('write_file', { path: 'state.txt', content: 'fixed\n' }), { text: 'fixed it' });
    const r = await run(['-p', 'fix it', '--mode', 'auto', '--trust']);
    expect(r.code).toBe(0);
    const second = (server.requests[1]!.body as { messages: unknown[] }).messages;
    expect(JSON.stringify(second)).toContain('TEST FAILED: state is broken');
    expect(toolResults(server).at(-1)).toContain('verify passed');
  });
});

describe('plan mode headless', () => {
  it('ends the run with the plan as its result', async () => {
    server.enqueue(call('exit_plan', { plan: '1. Read the code\n2. Fix the bug' }));
    const r = await run(['-p', 'plan a fix', '--mode', 'plan', '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: '1. Read the code\n2. Fix the bug' });
  });

  it('refuses writes in plan mode, telling the model to present its plan', async () => {
    server.enqueue(call('write_file', { path: 'x.txt', content: 'x' }), { text: 'ok' });
    await run(['-p', 'go', '--mode', 'plan']);
    expect(toolResults(server)[0]).toContain('exit_plan');
    expect(existsSync(join(work, 'x.txt'))).toBe(false);
  });
});

describe('processes commands start, --sandbox off', () => {
  const marker = () => `feiyu-test-${Math.random().toString(36).slice(2)}`;

  it('background jobs are stopped when feiyu exits', async () => {
    const mark = marker();
    server.enqueue(call('bash', { command: `exec -a ${mark} sleep 300`, background: true }), call('bash', { command: 'sleep 0.3' }), { text: 'started' });
    const r = await run(['-p', 'start a server', '--mode', 'auto', '--sandbox', 'off']);
    expect(r.code).toBe(0);
    await waitFor(() => runningWith(mark).length === 0, 'the job to be gone');
  });

  // A SIGKILLed feiyu stops nothing itself: only the containment (bwrap's PID namespace) does.
  it('background jobs are stopped when feiyu is hung up on (SIGHUP) or, contained, killed (SIGKILL) mid-turn', async () => {
    for (const signal of probe.contain ? (['SIGHUP', 'SIGKILL'] as const) : (['SIGHUP'] as const)) {
      const mark = marker();
      const sent = server.requests.length;
      server.enqueue(call('bash', { command: `exec -a ${mark} sleep 300`, background: true }), { text: 'still thinking', hang: true });
      const cli = start(['-p', 'start a server', '--mode', 'auto', '--sandbox', 'off']);
      await waitFor(() => runningWith(mark).length > 0 && server.requests.length === sent + 2, 'the job to start and the second request');
      cli.child.kill(signal);
      await cli.done;
      await waitFor(() => runningWith(mark).length === 0, `the job to be gone after ${signal}`);
    }
  });

  it.runIf(probe.contain)('a setsid daemon a command starts is stopped with the command (contained)', async () => {
    const mark = marker();
    server.enqueue(call('bash', { command: `setsid bash -c 'exec -a ${mark} sleep 300' & sleep 0.3; echo started` }), { text: 'done' });
    const r = await run(['-p', 'start a daemon', '--mode', 'auto', '--sandbox', 'off']);
    expect(r.code).toBe(0);
    expect(toolResults(server)[0]).toContain('started');
    await waitFor(() => runningWith(mark).length === 0, 'the daemon to be gone');
  });
});

describe('long-term memory across runs', () => {
  it('puts a remembered note into the next run’s system prompt', async () => {
    server.enqueue(call('remember', { note: 'The build uses pnpm, not npm.', scope: 'project' }), { text: 'noted' });
    await run(['-p', 'remember that we use pnpm']);
    server.enqueue({ text: 'ok' });
    await run(['-p', 'how do I build?']);
    expect(JSON.stringify((server.requests.at(-1)!.body as { system: unknown }).system)).toContain('The build uses pnpm, not npm.');
  });
});

// bwrap hidden in a mount namespace of the test's own (unshare -rm): as far as feiyu can tell, it
// is not installed. Needs user namespaces; skipped with a message where there are none.
const canHide = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount --bind /dev/null /usr/bin/bwrap'], { stdio: 'ignore' }).status === 0;
if (!canHide) console.warn('e2e-safety: cannot hide bwrap here (no user namespaces); the start-up without bwrap is not tested');

describe.runIf(canHide)('start-up without bwrap', () => {
  const startHidden = (args: string[]) => {
    const child = spawn('unshare', ['-rm', 'sh', '-c', 'mount --bind /dev/null /usr/bin/bwrap && exec "$@"', 'sh', process.execPath, CLI, ...args], { cwd: work, env: cliEnv(home, currentTest().env), stdio: ['ignore', 'pipe', 'pipe'] });
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    return { child, done };
  };
  const runHidden = (args: string[]) => startHidden(args).done;

  it('a level asked for by name stops with exit code 2 and how to install bubblewrap, from the flag or the settings', async () => {
    const flag = await runHidden(['-p', 'go', '--sandbox', 'strict']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('The sandbox level "strict" cannot be had');
    expect(flag.stderr).toContain('sudo apt install bubblewrap');
    await mkdir(join(home, 'config', 'feiyu'), { recursive: true });
    await writeFile(join(home, 'config', 'feiyu', 'settings.json'), '{"sandbox": "workspace"}');
    expect((await runHidden(['-p', 'go'])).code).toBe(2);
    expect(server.requests).toEqual([]);
  });

  it('the default level degrades, saying once that read-only commands run unenforced', async () => {
    server.enqueue(call('bash', { command: 'ls' }), { text: 'done' });
    const r = await runHidden(['-p', 'go']);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/Read-only commands run without a sandbox/g)).toHaveLength(1);
    expect(r.stderr).toContain('bubblewrap (bwrap) is not installed');
  });

  it('a job a SIGKILLed feiyu left (its group recorded) is stopped by the next start, which says so', async () => {
    const mark = `feiyu-test-${Math.random().toString(36).slice(2)}`;
    server.enqueue(call('bash', { command: `exec -a ${mark} sleep 300`, background: true }), { text: 'still thinking', hang: true });
    const killed = startHidden(['-p', 'start a server', '--mode', 'auto']);
    await waitFor(() => runningWith(mark).length > 0 && server.requests.length === 2, 'the job to start and the second request');
    killed.child.kill('SIGKILL');
    await killed.done;
    // Nothing contained it: it outlived feiyu (the check below can fail).
    expect(runningWith(mark)).toHaveLength(1);
    server.enqueue({ text: 'ok' });
    const next = await runHidden(['-p', 'go']);
    expect(next.stderr).toContain('Stopped 1 process groups that a feiyu killed earlier had left running.');
    await waitFor(() => runningWith(mark).length === 0, 'the left job to be gone');
  });
});
