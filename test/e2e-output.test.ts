// Headless output to a pipe, end to end: every byte of a big answer reaches a reader that is slow
// to read, in every output format; a reader that closes early (`| head -1`) ends nothing badly:
// no EPIPE trace, the run finishes and exits normally.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv } from './cli-harness.js';
import { useCliFixture } from './fixtures.js';
import { currentTest, waitFor } from './scope.js';

const { server, home, work } = await useCliFixture('feiyu-output', {});

/** About 330 KB: five times what a pipe holds. */
const BIG = Array.from({ length: 5000 }, (_, i) => `line ${i} ` + 'x'.repeat(60)).join('\n');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the session file holds the final answer: feiyu is done and about to print and exit. */
async function answered(): Promise<void> {
  const dir = join(home, 'state', 'feiyu', 'sessions');
  await waitFor(async () => {
    // Only the session files: the lock beside one comes and goes while it is read.
    for (const f of await readdir(dir).catch(() => [] as string[])) if (f.endsWith('.jsonl') && (await readFile(join(dir, f), 'utf8')).includes('line 4999 ')) return true;
    return false;
  }, 'the answer in the session file');
}

function startHeadless(format: string) {
  const child = spawn(process.execPath, [CLI, '-p', 'print it all', '--output-format', format], { cwd: work, env: cliEnv(home, currentTest().env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, closed, stderr: () => stderr };
}

describe.each(['text', 'json', 'stream-json'] as const)('--output-format %s to a pipe read slowly', (format) => {
  it('delivers every byte before exiting', async () => {
    server.enqueue({ text: BIG });
    const run = startHeadless(format);
    run.child.stdout.pause();
    await answered();
    await sleep(300);
    const chunks: Buffer[] = [];
    run.child.stdout.on('data', (c: Buffer) => chunks.push(c));
    run.child.stdout.resume();
    expect(await run.closed).toBe(0);
    const out = Buffer.concat(chunks).toString('utf8');
    if (format === 'text') expect(out).toBe(BIG + '\n');
    else expect(JSON.parse(out.trimEnd().split('\n').at(-1)!)).toMatchObject({ type: 'result', subtype: 'success', result: BIG });
    if (format === 'stream-json') expect(out.trimEnd().split('\n').every((line) => JSON.parse(line))).toBe(true);
    expect(run.stderr()).toBe('');
  });
});

describe('a reader that closes early', () => {
  it.each(['text', 'stream-json'] as const)('ends a %s run quietly, with exit 0 and no EPIPE trace', async (format) => {
    server.enqueue({ text: BIG });
    const run = startHeadless(format);
    await new Promise((r) => run.child.stdout.once('data', r));
    run.child.stdout.destroy();
    expect(await run.closed).toBe(0);
    expect(run.stderr()).toBe('');
  });
});
