// The built CLI as a child process against the fake model server: headless output formats,
// exit codes, configuration errors, the headless permission policy, and the piped-stdin REPL.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFakeKeys } from './fake-server.js';
import { useCliFixture } from './fixtures.js';

const { server, home, work, run } = await useCliFixture('feiyu-cli', false);

const keys = (format: 'anthropic' | 'openai' = 'anthropic', overrides = {}) => writeFakeKeys(join(home, 'config'), server, format, overrides);

/** The tool results the model saw in the last recorded request (Anthropic wire format). */
function lastToolResults(): { content: unknown; is_error?: boolean }[] {
  const messages = (server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
  return messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b: { type: string }) => b.type === 'tool_result') : []));
}

describe('feiyu -p', () => {
  it('prints the answer as text and exits 0', async () => {
    await keys();
    server.enqueue({ text: 'All good.' });
    expect(await run(['-p', 'check'])).toEqual({ code: 0, stdout: 'All good.\n', stderr: '' });
  });

  it('prints one JSON result object, the shape of claude -p --output-format json', async () => {
    await keys('openai', { price: { input: 3, output: 15 } });
    server.enqueue({ toolCalls: [{ name: 'list_files', input: {} }], usage: { input: 1000, output: 20, cacheRead: 0 } }, { text: 'Empty folder.', usage: { input: 1100, output: 5, cacheRead: 800 } });
    const r = await run(['-p', 'what is here?', '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: expect.any(Number),
      duration_api_ms: expect.any(Number),
      num_turns: 2,
      result: 'Empty folder.',
      session_id: expect.stringMatching(/^[\w-]{8,}$/),
      // 2,100 input × $3 + 25 output × $15 + 800 cache reads × $0.30 (a tenth of input), per million
      total_cost_usd: 0.006915,
      usage: { input_tokens: 2100, cache_creation_input_tokens: 0, cache_read_input_tokens: 800, output_tokens: 25 },
      modelUsage: {
        'gpt-fake': { inputTokens: 2100, outputTokens: 25, cacheReadInputTokens: 800, cacheCreationInputTokens: 0, webSearchRequests: 0, costUSD: 0.006915, contextWindow: 200000 },
      },
      permission_denials: [],
      stop_reason: 'end_turn',
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('streams feiyu’s own events as JSON lines with --output-format events, then the result', async () => {
    await keys();
    server.enqueue({ text: 'Hi.' });
    const r = await run(['-p', 'hi', '--output-format', 'events']);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; subtype?: string });
    expect(lines[0]).toEqual({ type: 'turn_start', text: 'hi' });
    expect(lines.map((l) => l.type)).toContain('text_delta');
    expect(lines.at(-2)).toMatchObject({ type: 'turn_end', stopReason: 'end', text: 'Hi.' });
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Hi.' });
  });

  it('exits 3 at the round limit', async () => {
    await keys();
    server.enqueue({ toolCalls: [{ name: 'list_files', input: {} }] }, { toolCalls: [{ name: 'list_files', input: {} }] });
    const r = await run(['-p', 'loop', '--max-rounds', '2', '--output-format', 'json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 2, stop_reason: 'tool_use' });
    expect(r.stderr).toContain('Stopped after 2 tool rounds');
    expect(r.stderr).not.toContain('Send any message');
  });

  it('exits 1 with a plain explanation when the key is rejected, without retrying', async () => {
    await keys();
    server.enqueue({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    const r = await run(['-p', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rejected the API key (HTTP 401)');
    expect(r.stderr).toContain('keys.json');
    expect(server.requests).toHaveLength(1);
  });

  it('says in the JSON result why a run failed: the provider, the round limit, the configuration', async () => {
    await keys();
    server.enqueue({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    const failed = await run(['-p', 'hi', '--output-format', 'json']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ subtype: 'error_during_execution', is_error: true, result: expect.stringContaining('rejected the API key (HTTP 401)') });
    server.enqueue({ toolCalls: [{ name: 'list_files', input: {} }] });
    const capped = await run(['-p', 'loop', '--max-rounds', '1', '--output-format', 'json']);
    expect(JSON.parse(capped.stdout)).toMatchObject({ subtype: 'error_max_turns', result: expect.stringContaining('--resume continues') });
    const config = await run(['-p', 'hi', '--model', 'nosuch', '--output-format', 'json']);
    expect(config.code).toBe(2);
    expect(JSON.parse(config.stdout)).toEqual({ type: 'result', subtype: 'error_during_execution', is_error: true, result: expect.stringContaining('No model named "nosuch"') });
  });

  it('refuses in default mode what would ask, telling the model how the user can allow it', async () => {
    await keys();
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'x.txt', content: 'x' } }] }, { text: 'Could not write.' });
    const r = await run(['-p', 'write x']);
    expect(r.code).toBe(0);
    const [result] = lastToolResults();
    expect(result!.is_error).toBe(true);
    expect(JSON.stringify(result!.content)).toContain('--mode auto');
    await expect(readFile(join(work, 'x.txt'), 'utf8')).rejects.toThrow();
  });

  it('runs commands and writes in auto mode, in the -C workspace', async () => {
    await keys();
    const ws = join(work, 'ws');
    await mkdir(ws);
    server.enqueue(
      { toolCalls: [{ name: 'bash', input: { command: 'echo hello > made.txt && pwd' } }] },
      { text: 'Made it.' },
    );
    const r = await run(['-p', 'make a file', '--mode', 'auto', '-C', ws]);
    expect(r.code).toBe(0);
    expect(await readFile(join(ws, 'made.txt'), 'utf8')).toBe('hello\n');
    expect(JSON.stringify(lastToolResults()[0]!.content)).toContain(ws);
  });

  it('returns structured output valid against --output-schema', async () => {
    await keys();
    const schema = join(work, 'schema.json');
    await writeFile(schema, JSON.stringify({ type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] }));
    server.enqueue({ toolCalls: [{ name: 'submit_result', input: { count: 3 } }] });
    const r = await run(['-p', 'count', '--output-schema', schema, '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', structured_output: { count: 3 }, result: '{"count":3}' });
  });

  it('reads the message from stdin when none is given', async () => {
    await keys();
    server.enqueue({ text: 'Got it.' });
    const r = await run(['-p'], { input: 'from stdin\n' });
    expect(r.stdout).toBe('Got it.\n');
    expect(JSON.stringify(server.requests[0]!.body)).toContain('from stdin');
  });
});

describe('the trace log', () => {
  it('records the run, its tool calls, permission decisions and usage, in a 0600 file; FEIYU_NO_LOG turns it off', async () => {
    await keys('anthropic', { price: { input: 3, output: 15 } });
    server.enqueue({ toolCalls: [{ id: 'toolu_t', name: 'list_files', input: {} }], usage: { input: 100, output: 10 } }, { text: 'done', usage: { input: 120, output: 5 } });
    await run(['-p', 'trace me'], { env: { FEIYU_NO_LOG: '' } });
    const logs = join(home, 'state', 'feiyu', 'logs');
    const [file] = await readdir(logs);
    expect((await stat(join(logs, file!))).mode & 0o777).toBe(0o600);
    const lines = (await readFile(join(logs, file!), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const runId = lines[0]!.run_id;
    expect(lines[0]).toMatchObject({ type: 'run_start', root: work, model: 'fake-anthropic' });
    expect(lines.every((l) => l.run_id === runId && typeof l.ts === 'string')).toBe(true);
    expect(lines.map((l) => l.type)).toEqual(expect.arrayContaining(['turn_start', 'tool_call', 'permission', 'tool_result', 'usage', 'turn_end']));
    expect(lines.find((l) => l.type === 'tool_call')).toMatchObject({ name: 'list_files', input: {} });
    expect(lines.find((l) => l.type === 'permission')).toMatchObject({ decision: 'allow', code: 'read' });
    expect(lines.filter((l) => l.type === 'usage').map((l) => l.cost)).toEqual([(100 * 3 + 10 * 15) / 1e6, (120 * 3 + 5 * 15) / 1e6]);

    server.enqueue({ text: 'quiet' });
    await rm(logs, { recursive: true });
    await run(['-p', 'no trace']);
    expect(existsSync(logs)).toBe(false);
  });
});

describe('configuration and usage errors exit 2', () => {
  it('reports an unknown price as null, not as free', async () => {
    await keys();
    server.enqueue({ text: 'ok' });
    expect(JSON.parse((await run(['-p', 'hi', '--output-format', 'json'])).stdout)).toMatchObject({ total_cost_usd: null });
  });

  it('explains a missing model configuration', async () => {
    const r = await run(['-p', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('No model is configured');
  });

  it('names a broken keys.json', async () => {
    await mkdir(join(home, 'config', 'feiyu'), { recursive: true });
    await writeFile(join(home, 'config', 'feiyu', 'keys.json'), '{ "models": [ ');
    const r = await run(['-p', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('keys.json');
  });

  it('refuses an unknown option and a bad mode, in Chinese too', async () => {
    expect(await run(['--bogus'])).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown option --bogus') });
    const zh = await run(['--mode', 'yolo', '--lang', 'zh']);
    expect(zh.code).toBe(2);
    expect(zh.stderr).toContain('--mode 必须是 default, auto, plan, readonly 之一');
  });

  it('prints help and version', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--output-format');
    const version = await run(['-v']);
    expect(version.stdout.trim()).toBe(JSON.parse(await readFile(join(import.meta.dirname, '..', 'package.json'), 'utf8')).version);
  });
});

describe('interactive mode with piped stdin', () => {
  it('answers each line in turn, then leaves at the end of input', async () => {
    await keys();
    server.enqueue({ toolCalls: [{ name: 'list_files', input: {} }] }, { text: 'Nothing here.' }, { text: 'Second answer.' });
    const r = await run([], { input: 'what files?\nand now?\n', env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('● list_files');
    expect(r.stdout).toContain('Nothing here.');
    expect(r.stdout).toContain('Second answer.');
    expect(r.stdout.indexOf('Nothing here.')).toBeLessThan(r.stdout.indexOf('Second answer.'));
    expect(r.stdout).not.toMatch(/\x1b\[/);
    expect(server.requests).toHaveLength(3);
  });

  it('speaks Chinese when asked', async () => {
    await keys();
    server.enqueue({ text: '好的。' });
    const r = await run(['--lang', 'zh'], { input: '你好\n' });
    expect(r.stdout).toContain('工作区');
    expect(r.stdout).toContain('好的。');
    expect(r.stdout).toContain('再见。');
  });
});
