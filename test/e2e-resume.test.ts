// A real CLI killed with SIGKILL mid-stream and mid-tool, then resumed: the conversation and the
// totals come back, and the next request is one the provider accepts. Two processes at once: a
// session open in one is refused to the other, which can fork it. A read-only state folder.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv } from './cli-harness.js';
import { useCliFixture } from './fixtures.js';
import { currentTest, waitFor } from './scope.js';

const { server, home, work, start } = await useCliFixture('feiyu-resume', { price: { input: 3, output: 15 } });

/** Waits until this workspace's session file contains `text`. */
async function sessionContains(text: string): Promise<void> {
  const dir = join(home, 'state', 'feiyu', 'sessions');
  await waitFor(async () => {
    const files = await readdir(dir).catch(() => []);
    for (const f of files) if ((await readFile(join(dir, f), 'utf8')).includes(text)) return true;
    return false;
  }, `a session file with ${text}`);
}

type Body = { messages: { role: string; content: { type: string; text?: string; content?: unknown; tool_use_id?: string; is_error?: boolean }[] }[] };

describe('resume after SIGKILL', () => {
  it('mid-stream: the request survives, and the next message continues the conversation', async () => {
    server.enqueue({ text: 'The first answer is still streaming', hang: true, usage: { input: 500, output: 7 } });
    const first = start(['-p', 'remember the word kumquat']);
    await sessionContains('kumquat');
    await waitFor(() => server.requests.length === 1, 'the request');
    first.child.kill('SIGKILL');
    await first.done;

    server.enqueue({ text: 'You said kumquat.', usage: { input: 600, output: 5 } });
    const second = await start(['-p', 'what word?', '--resume', '--output-format', 'json']).done;
    expect(second.stderr).toMatch(/^Resumed session [\w-]+ from \d+ s ago: "remember the word kumquat", 0 tool rounds\.\n$/);
    expect(second.code).toBe(0);
    const body = server.requests.at(-1)!.body as Body;
    const texts = body.messages.flatMap((m) => m.content.map((b) => b.text ?? ''));
    expect(texts.join('\n')).toContain('remember the word kumquat');
    expect(texts.join('\n')).toContain('what word?');
    expect(JSON.parse(second.stdout)).toMatchObject({ subtype: 'success', result: 'You said kumquat.' });
  });

  it('mid-tool: the cut-off call gets an [interrupted] result and the totals come back', async () => {
    const todo = { items: [{ content: 'Sleep well', status: 'in_progress' }, { content: 'Wake up', status: 'pending' }] };
    server.enqueue(
      {
        toolCalls: [
          { id: 'toolu_todo', name: 'todo', input: todo },
          { id: 'toolu_sleep', name: 'bash', input: { command: 'sleep 30' } },
        ],
        usage: { input: 1000, output: 20 },
      },
    );
    const first = start(['-p', 'sleep for me', '--mode', 'auto']);
    await sessionContains('toolu_sleep');
    await sessionContains('"totals"');
    await sessionContains('"todo":[');
    first.child.kill('SIGKILL');
    await first.done;

    // The restored todo list still has open items: the model is sent back once to finish them.
    server.enqueue({ text: 'The sleep was interrupted.', usage: { input: 1200, output: 6 } }, { text: 'Both items are moot now.', usage: { input: 0, output: 0 } });
    const second = await start(['-p', 'what happened?', '--resume', '--output-format', 'json']).done;
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('open items: \\"Sleep well\\", \\"Wake up\\"');
    expect(second.stderr).toContain('The todo list has 2 open items; the model was asked to finish them.\n');
    expect(second.code).toBe(0);
    const body = server.requests.at(-2)!.body as Body;
    const results = body.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
    expect(results).toEqual([
      // Both results were in flight: the batch's results are written together when it completes.
      { type: 'tool_result', tool_use_id: 'toolu_todo', is_error: true, content: '[interrupted]' },
      { type: 'tool_result', tool_use_id: 'toolu_sleep', is_error: true, content: '[interrupted]' },
    ]);
    // The result counts this invocation, as claude -p's does; the session's totals count both runs.
    const result = JSON.parse(second.stdout) as { usage: { input_tokens: number; output_tokens: number }; session_id: string };
    expect(result.usage).toMatchObject({ input_tokens: 1200, output_tokens: 6 });
    expect(result).toMatchObject({ result: 'Both items are moot now.' });
    const records = (await readFile(join(home, 'state', 'feiyu', 'sessions', `${result.session_id}.jsonl`), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { type: string; totals?: { input: number; output: number } });
    expect(records.filter((r) => r.type === 'state' && r.totals).at(-1)!.totals).toMatchObject({ input: 2200, output: 26 });
  });

  it('continues with the model the session used, and says so', async () => {
    server.enqueue({ text: 'first' }, { text: 'second' });
    await start(['-p', 'hello', '--model', 'fake-openai']).done;
    const r = await start(['-p', 'again', '--resume']).done;
    expect(r.stderr).toContain('The session continues with its model, fake-openai');
    expect(server.requests.map((q) => q.format)).toEqual(['openai', 'openai']);
  });

  it('refuses to resume where there is nothing to resume, with exit 2', async () => {
    const r = await start(['-p', 'hi', '--resume']).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('No earlier sessions in this directory.');
  });
});

const sessionsFolder = () => join(home, 'state', 'feiyu', 'sessions');

describe('two processes and one session', () => {
  it('refuses a session open in another feiyu, forks it on request, and takes it over once that one is gone', async () => {
    server.enqueue({ text: 'Noted: kumquat.' });
    const first = await start(['-p', 'remember the word kumquat', '--output-format', 'json']).done;
    const id = JSON.parse(first.stdout).session_id as string;
    const original = join(sessionsFolder(), `${id}.jsonl`);
    const before = await readFile(original, 'utf8');

    // An interactive feiyu that resumed the session and waits at its prompt.
    const repl = spawn(process.execPath, [CLI, '--resume', id], { cwd: work, env: cliEnv(home, currentTest().env), stdio: ['pipe', 'pipe', 'pipe'] });
    let replOut = '';
    repl.stdout.on('data', (d) => (replOut += d));
    await waitFor(() => replOut.includes('› '), 'the REPL prompt');
    expect(existsSync(join(sessionsFolder(), `${id}.lock`))).toBe(true);

    const refused = await start(['-p', 'what word?', '--resume', id]).done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Session ${id} is open in another feiyu (process ${repl.pid}). Continue it as a new session with --resume ${id} --fork-session`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    server.enqueue({ text: 'You said kumquat.' });
    const forked = await start(['-p', 'what word?', '--resume', id, '--fork-session', '--output-format', 'json']).done;
    expect(forked.code).toBe(0);
    const fork = JSON.parse(forked.stdout) as { session_id: string; result: string };
    expect(fork.result).toBe('You said kumquat.');
    expect(fork.session_id).not.toBe(id);
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('remember the word kumquat');
    expect(await readFile(original, 'utf8')).toBe(before);
    const copy = await readFile(join(sessionsFolder(), `${fork.session_id}.jsonl`), 'utf8');
    expect(copy).toContain('remember the word kumquat');
    expect(copy).toContain('You said kumquat.');

    // Killed without a chance to let go: its lock names a process that is gone.
    repl.kill('SIGKILL');
    await new Promise((r) => repl.once('close', r));
    server.enqueue({ text: 'Still kumquat.' });
    const after = await start(['-p', 'and now?', '--resume', id]).done;
    expect(after.code).toBe(0);
    expect(after.stderr).toMatch(/^Resumed session [\w-]+ from \d+ s ago: "remember the word kumquat", 0 tool rounds\.\n$/);
    expect(await readFile(original, 'utf8')).toContain('Still kumquat.');
  });
});

describe.skipIf(!existsSync('/usr/bin/bwrap'))('a read-only state folder (needs bwrap)', () => {
  it('resumes, answers, and says the session and the trace cannot be written, without a stack trace', async () => {
    server.enqueue({ text: 'Noted.' }, { text: 'Answered anyway.' });
    await start(['-p', 'remember this']).done;
    const state = join(home, 'state');
    const args = ['--bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--ro-bind', state, state, '--', process.execPath, CLI, '-p', 'go on', '--resume', '--sandbox', 'off'];
    const child = spawn('/usr/bin/bwrap', args, { cwd: work, env: cliEnv(home, { ...currentTest().env, FEIYU_NO_LOG: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.on('close', r));
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'Answered anyway.\n' });
    // --sandbox off says first that read-only commands are unenforced; then the two failures.
    expect(stderr).toMatch(/^Read-only commands run without a sandbox \(--sandbox off\).*\nCannot write the trace log: .*logs/);
    expect(stderr).toMatch(/Cannot write the session file .*read-only file system/i);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

