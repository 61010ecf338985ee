// A real CLI killed with SIGKILL mid-stream and mid-tool, then resumed: the conversation and the
// totals come back, and the next request is one the provider accepts.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { waitFor } from './scope.js';

const { server, home, start } = await useCliFixture('feiyu-resume', { price: { input: 3, output: 15 } });

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
    const result = JSON.parse(second.stdout) as { usage: { input_tokens: number; output_tokens: number } };
    expect(result.usage).toMatchObject({ input_tokens: 2200, output_tokens: 26 });
    expect(result).toMatchObject({ result: 'Both items are moot now.' });
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
