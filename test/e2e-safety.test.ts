// Safety and the working tools through the real CLI against the fake model server: the headless
// policy, hard denies in auto mode, the sandbox, project trust for hooks and verify:, plan mode.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../src/safety/sandbox.js';
import { toolResults, useCliFixture } from './fixtures.js';
import { alive, waitFor } from './scope.js';

const bwrapWorks = (await probeSandbox()).ok;
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

describe('background jobs', () => {
  it('are stopped when feiyu exits', async () => {
    server.enqueue(call('bash', { command: 'echo $$ > job.pid; exec sleep 300', background: true }), call('bash', { command: 'until [ -s job.pid ]; do sleep 0.05; done; cat job.pid' }), { text: 'started' });
    const r = await run(['-p', 'start a server', '--mode', 'auto', '--sandbox', 'off']);
    expect(r.code).toBe(0);
    const pid = Number(await readFile(join(work, 'job.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(1);
    await waitFor(() => !alive(pid), `job ${pid} to end`);
  });

  it('are stopped when feiyu is hung up on (SIGHUP) mid-turn', async () => {
    server.enqueue(call('bash', { command: 'echo $$ > job.pid; exec sleep 300', background: true }), { text: 'still thinking', hang: true });
    const cli = start(['-p', 'start a server', '--mode', 'auto', '--sandbox', 'off']);
    const file = join(work, 'job.pid');
    await waitFor(() => existsSync(file) && server.requests.length === 2, 'the job to start and the second request');
    // The shell may not have written its pid yet when the file appears.
    const pid = await waitFor(async () => Number(await readFile(file, 'utf8')), 'the job to write its pid');
    expect(alive(pid)).toBe(true);
    cli.child.kill('SIGHUP');
    await cli.done;
    await waitFor(() => !alive(pid), `job ${pid} to end`);
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
