// Background jobs with real processes: a server polled twice, stop taking the whole process
// group with it, the drop marker after a flood of output, and feiyu's exit stopping its jobs.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { bash } from '../src/tools/bash.js';
import { JOB_BUFFER_BYTES, JobManager, jobTool } from '../src/tools/jobs.js';
import type { ToolContext } from '../src/types/tools.js';
import { alive, currentTest, waitFor } from './scope.js';
import { workspace } from './tools-helpers.js';

/** Live (non-zombie) processes of process group `pgid`, with their command names. */
async function groupMembers(pgid: number): Promise<{ pid: number; comm: string }[]> {
  const out: { pid: number; comm: string }[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const m = /^\d+ \((.*)\) (\S) \d+ (\d+)/.exec(stat);
    if (m && m[2] !== 'Z' && Number(m[3]) === pgid) out.push({ pid: Number(name), comm: m[1]! });
  }
  return out;
}

/** `base` with background jobs of its own, stopped when the test ends. */
function managed(base: ToolContext): ToolContext & { jobs: JobManager } {
  const jobs = new JobManager();
  onTestFinished(() => jobs.stopAll());
  return { ...base, jobs };
}

const SERVER = `node -e '
const http = require("http");
const server = http.createServer((req, res) => { console.log("GET " + req.url); res.end("ok"); });
server.listen(0, "127.0.0.1", () => console.log("listening " + server.address().port));
'`;

describe('background jobs', () => {
  it('keeps a server running, shows only new output on each poll, and stops it', async () => {
    const ctx = managed(await workspace());
    const { jobs } = ctx;
    const tool = jobTool(jobs);
    const started = await bash.run({ command: SERVER, background: true }, ctx);
    expect(started.isError).toBe(false);
    expect(started.output).toMatch(/^Started job 1 in the background; use the job tool to read its output or stop it\.\n/);
    expect(started.output).toMatch(/\[job 1 running\]$/);

    // The first lines may already have come with the start message; collect until the port shows.
    let seen = started.output;
    const port = await waitFor(async () => {
      seen += (await tool.run({ action: 'output', id: 1 }, ctx)).output;
      return /listening (\d+)/.exec(seen)?.[1];
    }, 'the server to listen');

    expect(await (await fetch(`http://127.0.0.1:${port}/first`)).text()).toBe('ok');
    const first = await waitFor(async () => {
      const r = await tool.run({ action: 'output', id: 1 }, ctx);
      return r.output.includes('GET') ? r : undefined;
    }, 'the first request in the log');
    expect(first).toEqual({ output: 'GET /first\n[job 1 running]' });

    await fetch(`http://127.0.0.1:${port}/second`);
    const second = await waitFor(async () => {
      const r = await tool.run({ action: 'output', id: 1 }, ctx);
      return r.output.includes('GET') ? r : undefined;
    }, 'the second request in the log');
    expect(second).toEqual({ output: 'GET /second\n[job 1 running]' });
    expect(await tool.run({ action: 'output', id: 1 }, ctx)).toEqual({ output: '(no new output)\n[job 1 running]' });

    expect(await tool.run({ action: 'list' }, ctx)).toEqual({ output: `job 1 running: ${SERVER}` });
    expect(await tool.run({ action: 'stop', id: 1 }, ctx)).toEqual({ output: '(no new output)\n[job 1 killed by SIGTERM]' });
    await expect(fetch(`http://127.0.0.1:${port}/third`)).rejects.toThrow();
    expect(jobs.list()).toEqual([
      { id: 1, pid: expect.any(Number), command: SERVER, state: { kind: 'killed', signal: 'SIGTERM' }, startedAt: expect.any(Number), unread: false, lingering: false },
    ]);
  });

  it('stop ends the whole process group, children included', async () => {
    const ctx = managed(await workspace());
    const { jobs } = ctx;
    const { id, pid } = jobs.start(`sh -c 'sleep 100 & sleep 100'`, ctx);
    const members = await waitFor(async () => {
      const m = await groupMembers(pid);
      return m.filter((p) => p.comm === 'sleep').length === 2 ? m : undefined;
    }, 'both sleeps');
    expect(members.length).toBeGreaterThanOrEqual(3);
    expect(await jobs.stop(id)).toBe(true);
    // stop() waits for the job's shell; the other members get the signal at the same moment but
    // may take a little longer to die.
    await waitFor(async () => !members.some((p) => alive(p.pid)) && (await groupMembers(pid)).length === 0, 'the whole group to end');
    expect(jobs.output(id)).toMatch(/\[job 1 killed by SIG(TERM|KILL)\]$/);
  });

  it('answers mistakes with errors the model can act on', async () => {
    const ctx = managed(await workspace());
    const tool = jobTool(ctx.jobs);
    expect(await tool.run({ action: 'list' }, ctx)).toEqual({ output: 'no background jobs' });
    expect(await tool.run({ action: 'output' }, ctx)).toEqual({ output: 'output needs the job id; list shows the jobs', isError: true });
    expect(await tool.run({ action: 'stop', id: 7 }, ctx)).toEqual({ output: 'no job 7; list shows the jobs', isError: true });
    const broken = managed({ ...(await workspace()), wrapCommand: (req) => ({ file: '/nonexistent/bwrap', args: [], env: req.env, release: () => {} }) });
    expect(await bash.run({ command: 'sleep 1', background: true }, broken)).toEqual({
      output: 'Started job 1 in the background; use the job tool to read its output or stop it.\n(no new output)\n[job 1 could not start: spawn /nonexistent/bwrap ENOENT]',
      isError: true,
    });
    const other = await workspace();
    expect(await bash.run({ command: 'sleep 1', background: true }, other)).toEqual({
      output: 'background jobs are not available here; run the command without background',
      isError: true,
    });
  });

  it('reports a job that fails at once as an error, with its output, colours removed', async () => {
    const ctx = managed(await workspace());
    const result = await bash.run({ command: `printf '\\033[31moops\\033[0m\\n'; exit 3`, background: true }, ctx);
    expect(result).toEqual({
      output: 'Started job 1 in the background; use the job tool to read its output or stop it.\noops\n[job 1 exited with code 3]',
      isError: true,
    });
  });

  it('keeps about 1 MB and says how many unread lines were dropped', async () => {
    const ctx = managed(await workspace());
    const { jobs } = ctx;
    // 10,000,000 bytes: 101,010 lines of 99 x's, then a last line of 10 with no newline.
    const { id } = jobs.start(`head -c 10000000 /dev/zero | tr '\\0' x | fold -w 99`, ctx);
    await waitFor(() => jobs.list()[0]!.state.kind === 'exited' && !jobs.list()[0]!.lingering, 'the flood to end');
    const out = jobs.output(id)!;
    const m = /^\[… ([\d,]+) lines dropped …\]\n/.exec(out)!;
    expect(m).not.toBeNull();
    const body = out.slice(m[0].length).split('\n');
    expect(body.pop()).toBe('[job 1 exited with code 0]');
    expect(Number(m[1]!.replace(/,/g, '')) + body.length).toBe(101_011);
    expect(body.slice(0, -1).every((line) => line === 'x'.repeat(99))).toBe(true);
    expect(body.at(-1)).toBe('x'.repeat(10));
    expect(body.join('\n').length).toBeLessThanOrEqual(JOB_BUFFER_BYTES);
    expect(body.join('\n').length).toBeGreaterThan(JOB_BUFFER_BYTES - 70_000);
    expect(jobs.output(id)).toBe('(no new output)\n[job 1 exited with code 0]');
  });

  it('counts as dropped only what the model had not read', async () => {
    const ctx = managed(await workspace());
    const { jobs } = ctx;
    const { id } = jobs.start('echo first; sleep 0.5; seq 1 300000', ctx);
    await waitFor(() => jobs.output(id)!.startsWith('first\n'), 'the first line');
    await waitFor(() => jobs.list()[0]!.state.kind === 'exited', 'seq to end');
    const out = jobs.output(id)!;
    const m = /^\[… ([\d,]+) lines dropped …\]\n(\d+)\n/.exec(out)!;
    expect(Number(m[1]!.replace(/,/g, ''))).toBe(Number(m[2]) - 1);
    expect(out.endsWith('\n300000\n[job 1 exited with code 0]')).toBe(true);
  });
});

describe('exit', () => {
  /** jobs.ts and what it imports, bundled into one module a plain node script can import. */
  async function buildJobsModule(): Promise<string> {
    const { build } = await import('esbuild');
    const out = await mkdtemp(join(tmpdir(), 'feiyu-jobs-build-'));
    onTestFinished(() => rm(out, { recursive: true, force: true }));
    await writeFile(join(out, 'package.json'), '{"type":"module"}');
    const entry = join(import.meta.dirname, '..', 'src', 'tools', 'jobs.ts');
    await build({ entryPoints: [entry], outfile: join(out, 'jobs.js'), bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent' });
    return out;
  }

  const script = (lib: string, ending: string) => `
import { JobManager, installExitHandlers } from ${JSON.stringify(join(lib, 'jobs.js'))};
const jobs = new JobManager();
installExitHandlers(jobs);
const ctx = { root: process.cwd(), shell: { cwd: process.cwd() }, env: process.env, files: new Map(), signal: new AbortController().signal };
const { pid } = jobs.start("sleep 100 & sleep 100", ctx);
setTimeout(() => { console.log(pid); ${ending} }, 300);
setInterval(() => {}, 1000);
`;

  async function runScript(lib: string, ending: string, signal?: NodeJS.Signals): Promise<{ code: number | null; pid: number }> {
    const dir = await mkdtemp(join(tmpdir(), 'feiyu-jobs-exit-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'main.mjs'), script(lib, ending));
    const child = spawn(process.execPath, ['main.mjs'], { cwd: dir, env: { ...process.env, ...currentTest().env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (signal && stdout.includes('\n')) child.kill(signal);
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    return { code, pid: Number(stdout.trim()) };
  }

  it('stops the jobs on process.exit() and on SIGTERM', async () => {
    const lib = await buildJobsModule();
    const exited = await runScript(lib, 'process.exit(0);');
    expect(exited.code).toBe(0);
    expect(exited.pid).toBeGreaterThan(0);
    await waitFor(async () => (await groupMembers(exited.pid)).length === 0, 'the job to go');

    const terminated = await runScript(lib, '', 'SIGTERM');
    expect(terminated.code).toBe(143);
    await waitFor(async () => (await groupMembers(terminated.pid)).length === 0, 'the job to go');
  });
});
