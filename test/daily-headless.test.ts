// Headless runs a new user tries on the first day: `cat log | feiyu -p "explain this log"` sends
// the piped text as context of the message (as claude -p does), its middle cut past a limit with a
// note; a slow writer is waited for; a message alone still comes from stdin.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, type CliRun } from './cli-harness.js';
import { useCliFixture } from './fixtures.js';
import { currentTest } from './scope.js';

const { server, home, work, run } = await useCliFixture('feiyu-daily-headless', {});

/** The text of the first user message the model received. */
const sentText = () => (server.requests[0]!.body.messages[0].content as { type: string; text: string }[]).map((b) => b.text).join('');

/** Runs `script | feiyu args` through bash: stdin is a real pipe, as in a shell. */
function piped(script: string, args: string[]): Promise<CliRun> {
  const command = `${script} | ${[process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;
  const child = spawn('bash', ['-c', command], { cwd: work, env: cliEnv(home, currentTest().env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('piped stdin with -p', () => {
  it('cat log | feiyu -p "explain this log": the log is the context of the message', async () => {
    await writeFile(join(work, 'app.log'), 'ERROR disk full at 12:00\n');
    server.enqueue({ text: 'The disk is full.' });
    const r = await piped('cat app.log', ['-p', 'explain this log']);
    expect(r).toEqual({ code: 0, stdout: 'The disk is full.\n', stderr: '' });
    expect(sentText()).toBe('explain this log\n\n<stdin>\nERROR disk full at 12:00\n</stdin>');
  });

  it('waits for a slow writer to finish (npm test | feiyu -p …)', async () => {
    server.enqueue({ text: 'Two lines.' });
    const r = await piped('(echo first; sleep 1.5; echo second)', ['-p', 'what failed?']);
    expect(r.code).toBe(0);
    expect(sentText()).toBe('what failed?\n\n<stdin>\nfirst\nsecond\n</stdin>');
  });

  it('keeps the head and the tail of a big input, says what was cut, and notes it on stderr', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `log line ${i + 1}`);
    server.enqueue({ text: 'Long log.' });
    const r = await run(['-p', 'summarise'], { input: lines.join('\n') + '\n' });
    expect(r.code).toBe(0);
    const text = sentText();
    expect(text.length).toBeLessThan(101_000);
    expect(text).toContain('<stdin>\nlog line 1\nlog line 2\n');
    expect(text).toContain('log line 20000\n</stdin>');
    expect(text).toMatch(/\[… [\d,]+ characters \([\d,]+ lines\) cut from the middle …\]/);
    expect(r.stderr).toBe(`stdin held ${(lines.join('\n').length + 1).toLocaleString('en-US')} bytes: its middle was cut, and its first and last 100,000 characters in all were sent as context.\n`);
  });

  it('with no message, stdin is the message, as before', async () => {
    server.enqueue({ text: 'Hi.' });
    expect((await run(['-p'], { input: 'hello there\n' })).code).toBe(0);
    expect(sentText()).toBe('hello there');
  });
});
