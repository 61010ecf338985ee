// The built CLI against recorded server endings: a refusal fails the headless run (JSON result
// and exit code) with words that say what happened, and settings.json's streamIdleTimeout stops
// a stalled stream with words that say so.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { anthropicSse, messageEnd, messageStart, textBlock } from './wire-fixtures.js';

const { server, home, run } = await useCliFixture('feiyu-e2e-provider', {});
const start = messageStart('claude-sonnet-4-5', { input_tokens: 50, output_tokens: 1 });

describe('feiyu -p against recorded endings', () => {
  it('fails the run on a refusal: is_error, exit 1, and the explanation', async () => {
    const explanation = 'This request was declined because it could enable cyber harm.';
    server.enqueue({
      raw: anthropicSse(start, ...textBlock(0, 'Sure, here'), ...messageEnd('refusal', { stop_details: { type: 'refusal', category: 'cyber', explanation }, usage: { output_tokens: 3 } })),
    });
    const r = await run(['-p', 'do it', '--output-format', 'json']);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true, stop_reason: null });
    expect(result.result).toContain(`refused to continue (${explanation.slice(0, -1)})`);
    expect(result.result).toContain('taken out of the conversation');
    expect(server.requests).toHaveLength(1);
  });

  it('stops a stalled stream after settings.json streamIdleTimeout and says why', async () => {
    await mkdir(join(home, 'config', 'feiyu'), { recursive: true });
    await writeFile(join(home, 'config', 'feiyu', 'settings.json'), JSON.stringify({ streamIdleTimeout: 1 }));
    server.enqueue({ raw: anthropicSse(start, ...textBlock(0, 'Half an ', true)), hang: true });
    const started = Date.now();
    const r = await run(['-p', 'talk']);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The server for "fake-anthropic" sent nothing for 1 s, so the request was stopped.');
    expect(server.requests).toHaveLength(1);
  });
});
