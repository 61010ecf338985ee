// verify (a `verify:` line or the verify setting) through the hook runner: end to end through a
// real Agent over real HTTP, the model fixing what a failing test reports; only after successful
// writes; a verify past its timeout stopped.
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { createHookRunner } from '../src/hooks/runner.js';
import { createProvider } from '../src/providers/stream.js';
import { coreTools } from '../src/tools/index.js';
import type { AgentEvent } from '../src/types/events.js';
import type { ToolCallBlock } from '../src/types/conversation.js';
import type { ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { currentTest } from './scope.js';

const server = await useFakeServer();

/** A workspace, and a hook runner with only `verify` that records its events. */
async function setup(verify: string, verifyTimeout?: number) {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-verify-')));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const events: AgentEvent[] = [];
  const hooks = createHookRunner({ hooks: {}, verify, verifyTimeout, root, session: () => ({ id: 's1', file: '/s1.jsonl' }), env: { ...process.env, ...currentTest().env }, emit: (e) => events.push(e) });
  return { root, events, hooks };
}

const call = (name: string, input: Record<string, unknown>): ToolCallBlock => ({ type: 'tool_call', id: 'toolu_1', name, input });

describe('verify', () => {
  it('feeds a failing test back into the edit’s result, and passes once the model fixes it', async () => {
    const s = await setup('node test.mjs');
    const hooks = s.hooks;
    await writeFile(join(s.root, 'sum.mjs'), 'export const sum = (a, b) => a - b;\n');
    await writeFile(
      join(s.root, 'test.mjs'),
      `import { sum } from './sum.mjs';\nconst got = sum(2, 3);\nif (got !== 5) { console.error('FAIL: sum(2, 3) = ' + got + ', expected 5'); process.exit(1); }\nconsole.log('ok');\n`,
    );
    const ctx: ToolContext = { root: s.root, signal: new AbortController().signal, files: new Map(), shell: { cwd: s.root }, env: process.env };
    const agent = new Agent({
      provider: createProvider(fakeModel(server, 'anthropic'), { retry: { baseDelayMs: 5 } }),
      tools: coreTools(),
      system: 'test',
      ctx,
      afterToolCall: (c, _tool, result, signal) => hooks.postToolUse(c, result, signal),
    });
    const results: { name: string; output: string; isError: boolean }[] = [];
    agent.on((e: AgentEvent) => e.type === 'tool_result' && results.push({ name: e.name, output: e.output, isError: e.isError }));
    const edit = (from: string, to: string) => ({ name: 'edit_file', input: { path: 'sum.mjs', old_string: from, new_string: to } });
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'sum.mjs' } }, { name: 'bash', input: { command: 'echo hi' } }] },
      { toolCalls: [edit('a - b', 'a * b')] },
      { toolCalls: [edit('a * b', 'a + b')] },
      { text: 'Fixed.' },
    );
    expect(await agent.send('fix sum')).toEqual({ stopReason: 'end', text: 'Fixed.', rounds: 3 });

    expect(results.map((r) => r.output.includes('[verify'))).toEqual([false, false, true, true]);
    const failed = results[2]!;
    expect(failed.isError).toBe(false);
    expect(failed.output).toMatch(/\n\[verify failed: `node test\.mjs` exited with code 1\. The change was written; fix what it reports\.\]\nFAIL: sum\(2, 3\) = 6, expected 5$/);
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain('FAIL: sum(2, 3) = 6, expected 5');
    expect(results[3]).toEqual({ name: 'edit_file', output: expect.stringMatching(/\n\[verify passed: node test\.mjs\]$/), isError: false });
    expect(s.events).toEqual([
      { type: 'verify', command: 'node test.mjs', secs: expect.any(Number), failure: { kind: 'exit', code: 1 } },
      { type: 'verify', command: 'node test.mjs', secs: expect.any(Number) },
    ]);
  });

  it('runs only after successful writes, and stops a verify past its timeout', async () => {
    const { hooks } = await setup('echo started; sleep 30', 0.3);
    const failedWrite = { output: 'old_string not found', isError: true };
    expect(await hooks.postToolUse(call('edit_file', { path: 'a' }), failedWrite)).toBe(failedWrite);
    const written = { output: 'wrote 3 lines to a.txt' };
    expect(await hooks.postToolUse(call('write_file', { path: 'a.txt' }), written)).toEqual({
      output: 'wrote 3 lines to a.txt\n[verify failed: `echo started; sleep 30` timed out after 0.3 s and was stopped. The change was written; fix what it reports.]\nstarted',
    });
  });
});
