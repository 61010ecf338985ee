import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash } from '../src/tools/bash.js';
import { capOutput } from '../src/util/cap.js';
import type { Launch, LaunchRequest, ToolContext } from '../src/types/tools.js';
import { alive, waitFor } from './scope.js';
import { workspace } from './tools-helpers.js';

const run = (ctx: ToolContext, command: string, timeout?: number) => bash.run({ command, timeout }, ctx);

/** Splits a capped text at its marker and checks that the marker states exactly what is missing from `full`. */
function checkCut(capped: string, full: string): { chars: number; lines: number } {
  const m = /\n\[… ([\d,]+) characters(?: \(([\d,]+) lines\))? cut from the middle …\]\n/.exec(capped);
  if (!m) throw new Error('no cut marker');
  const head = capped.slice(0, m.index);
  const tail = capped.slice(m.index + m[0].length);
  expect(full.startsWith(head) && full.endsWith(tail)).toBe(true);
  // Cut on line boundaries: the marker line stands for whole lines between head and tail.
  const cut = full.slice(head.length + 1, full.length - tail.length);
  const chars = Number(m[1].replace(/,/g, ''));
  const lines = Number((m[2] ?? '0').replace(/,/g, ''));
  expect({ chars, lines }).toEqual({ chars: cut.length, lines: cut.split('\n').length - 1 });
  return { chars, lines };
}

/** Waits until none of `pids` is left. */
const gone = (pids: number[]) => waitFor(() => !pids.some(alive), `processes ${pids.join(', ')} to end`);

describe('capOutput', () => {
  it('leaves short text alone and cuts long text in the middle, on line boundaries', () => {
    expect(capOutput('short', 100)).toBe('short');
    const full = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const capped = capOutput(full, 300);
    expect(capped.length).toBeLessThanOrEqual(300);
    expect(capped.startsWith('line 0\nline 1\n')).toBe(true);
    expect(capped.endsWith('line 98\nline 99')).toBe(true);
    checkCut(capped, full);
  });

  it('counts text dropped before capping as cut', () => {
    const [head, middle, tail] = ['a\n'.repeat(100), 'm\n'.repeat(2500), 'b\n'.repeat(100)];
    const capped = capOutput(head + tail, 300, { at: head.length, chars: middle.length, lines: 2500 });
    expect(checkCut(capped, head + middle + tail).lines).toBeGreaterThan(2500);
  });
});

describe('bash', () => {
  it('interleaves stdout and stderr and ends with the exit code', async () => {
    const ctx = await workspace();
    const result = await run(ctx, 'echo one; echo two >&2; echo three');
    expect(result).toEqual({ output: 'one\ntwo\nthree\nexit code 0', isError: false, summary: { key: 'exit', code: 0, secs: expect.any(Number) } });
    expect(await run(ctx, 'echo no >&2; exit 4')).toMatchObject({ output: 'no\nexit code 4', isError: true, summary: { key: 'exit', code: 4 } });
    expect((await run(ctx, 'true')).output).toBe('(no output)\nexit code 0');
  });

  it('keeps the working directory across calls, also through exit N', async () => {
    const ctx = await workspace();
    await mkdir(join(ctx.root, 'sub/deeper'), { recursive: true });
    await run(ctx, 'cd sub');
    expect((await run(ctx, 'pwd')).output).toBe(`${join(ctx.root, 'sub')}\nexit code 0`);
    expect((await run(ctx, 'cd deeper && exit 3')).output).toBe('(no output)\nexit code 3');
    expect(ctx.shell.cwd).toBe(join(ctx.root, 'sub/deeper'));
    // A syntax error stops the command where it is, the cwd is still learned, and the error shows
    // the command, not the wrapper.
    const bad = await run(ctx, 'cd ..\nif then');
    expect(bad.output).toMatch(/^bash: eval: line \d: syntax error near unexpected token `then'\nbash: eval: line \d: `if then'\nexit code 2$/);
    expect(ctx.shell.cwd).toBe(join(ctx.root, 'sub'));
  });

  it('starts over at the root when the command ends outside it or its folder is gone', async () => {
    const ctx = await workspace();
    expect((await run(ctx, 'cd /')).output).toBe(`(no output)\n[the command ended in /, outside the workspace; the next command starts in ${ctx.root}]\nexit code 0`);
    expect(ctx.shell.cwd).toBe(ctx.root);
    await mkdir(join(ctx.root, 'tmp'));
    await run(ctx, 'cd tmp');
    await rm(join(ctx.root, 'tmp'), { recursive: true });
    expect((await run(ctx, 'pwd')).output).toBe(`${ctx.root}\n[the working directory ${join(ctx.root, 'tmp')} is gone; this command ran in ${ctx.root}]\nexit code 0`);
  });

  it('caps a huge output and states exactly what was cut', async () => {
    const ctx = await workspace();
    const seq = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join('\n');
    const full = seq(200_000);
    const out = (await run(ctx, 'seq 1 200000')).output;
    expect(out.endsWith('\n200000\nexit code 0')).toBe(true);
    expect(out.length).toBeLessThan(30_000);
    const { lines } = checkCut(out.replace(/\nexit code 0$/, ''), full);
    expect(lines).toBeGreaterThan(190_000);
    // Small enough to be kept whole before capping.
    const mid = seq(10_000);
    checkCut((await run(ctx, 'seq 1 10000')).output.replace(/\nexit code 0$/, ''), mid);
  });

  it('kills the whole process group on timeout', async () => {
    const ctx = await workspace();
    const result = await run(ctx, `sh -c 'sleep 100 & echo $!; echo $$; sleep 100'`, 1);
    const pids = result.output.split('\n').slice(0, 2).map(Number);
    expect(result).toEqual({
      output: `${pids[0]}\n${pids[1]}\n[timed out after 1 s; the command and its child processes were killed]`,
      isError: true,
      summary: { key: 'timeout', secs: 1 },
    });
    expect(pids.every((p) => p > 0)).toBe(true);
    await gone(pids);
  });

  it('stops on abort and says it was interrupted', async () => {
    const ctx = await workspace();
    const controller = new AbortController();
    const running = run({ ...ctx, signal: controller.signal }, 'echo $$; touch started; sleep 30');
    await waitFor(() => existsSync(join(ctx.root, 'started')), 'the command to start');
    controller.abort();
    const result = await running;
    const pid = Number(result.output.split('\n')[0]);
    expect(result).toEqual({ output: `${pid}\n[interrupted]`, isError: true });
    await gone([pid]);
  });

  it('does not wait for a backgrounded child holding the output open, and stops it', async () => {
    const ctx = await workspace();
    const result = await run(ctx, 'sleep 100 & echo $!');
    const pid = Number(result.output.split('\n')[0]);
    expect(result.output).toBe(`${pid}\n[background processes still holding the output were stopped when the command ended]\nexit code 0`);
    await gone([pid]);
  });

  it("runs through the context's launcher with the granted profile (write when none), and releases each launch once the command exits", async () => {
    const ctx = await workspace();
    const seen: unknown[] = [];
    const wrapCommand = (req: LaunchRequest): Launch => {
      seen.push([req.cwd, req.profile]);
      return { file: 'bash', args: ['-c', req.command], env: { ...req.env, WRAPPED: req.profile }, release: () => seen.push('released') };
    };
    expect((await bash.run({ command: 'echo $WRAPPED' }, { ...ctx, wrapCommand }, { sandbox: 'read' })).output).toBe('read\nexit code 0');
    expect((await run({ ...ctx, wrapCommand }, 'echo $WRAPPED')).output).toBe('write\nexit code 0');
    expect(seen).toEqual([[ctx.root, 'read'], 'released', [ctx.root, 'write'], 'released']);
  });
});
