// The app in-process over a fake model server, checking what its wiring promises: the loop's
// events and the app's own (hook failures, notices) are one stream that the trace records;
// questions are events answered by id; every mode change goes through setMode, resume included.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AgentEvent } from '../src/types/events.js';
import { createApp } from '../src/app/app.js';
import { parseArgs } from '../src/app/args.js';
import { logsDir } from '../src/session/trace.js';
import { appPlace, useFakeServer } from './fixtures.js';

const server = await useFakeServer();

const place = (settings: object = {}) => appPlace(server, settings);

/** Every line the trace wrote, all days together. */
function traced(stateDir: string): Record<string, unknown>[] {
  const dir = logsDir(stateDir);
  return readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l)));
}

describe('one event stream', () => {
  it('a PreToolUse hook that cannot run reaches the trace, and the call it blocked is refused', async () => {
    const p = await place({ hooks: { PreToolUse: [{ matcher: 'bash', command: 'no-such-hook-program' }] } });
    const app = await createApp(parseArgs(['-p', 'go', '-C', p.work, '--sandbox', 'off']), { env: p.env });
    const seen: string[] = [];
    app.on((e) => seen.push(e.type));
    server.enqueue({ toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'echo hi' } }] }, { text: 'Could not run it.' });
    expect(await app.send('go', new AbortController().signal)).toEqual({ stopReason: 'end', text: 'Could not run it.', rounds: 1 });
    await app.close();

    const failed = { type: 'hook_failed', event: 'PreToolUse', command: 'no-such-hook-program', failure: { kind: 'exit', code: 127 }, stderr: expect.stringContaining('no-such-hook-program: command not found'), blocked: true };
    expect(seen).toContain('hook_failed');
    const lines = traced(p.state);
    const hook = lines.findIndex((l) => l.type === 'hook_failed');
    expect(lines[hook]).toEqual({ ...failed, run_id: expect.any(String), ts: expect.any(String), root: p.work });
    expect(lines[hook - 1]).toMatchObject({ type: 'tool_call', id: 'b1' });
    expect(lines[hook + 1]).toMatchObject({ type: 'permission', id: 'b1', decision: 'deny' });
    expect(server.violations).toEqual([]);
  });
});

describe('questions are events answered by id', () => {
  it('a call that asks waits for answer(); "always" saves its rule and allows it', async () => {
    const p = await place();
    const app = await createApp(parseArgs(['-C', p.work, '--sandbox', 'off']), { env: p.env });
    onTestFinished(() => app.close());
    const events: AgentEvent[] = [];
    app.on((e) => {
      events.push(e);
      if (e.type === 'approval') app.answer(e.id, { answer: 'always' });
    });
    server.enqueue({ toolCalls: [{ id: 'n1', name: 'bash', input: { command: 'touch made.txt' } }] }, { text: 'Done.' });
    await app.send('make a file', new AbortController().signal);
    const asked = events.find((e) => e.type === 'approval');
    expect(asked).toMatchObject({ type: 'approval', id: 'approval-1', approval: { kind: 'call', callId: 'n1', request: { tool: 'bash', display: 'touch made.txt', suggestedRules: ['bash(touch made.txt *)'] } } });
    expect(events.find((e) => e.type === 'permission')).toMatchObject({ id: 'n1', decision: 'allow', code: 'user_always' });
    const approvals = JSON.parse(readFileSync(join(p.env.XDG_CONFIG_HOME, 'feiyu', 'approvals.json'), 'utf8'));
    expect(approvals).toEqual({ version: 1, projects: { [p.work]: { allow: ['bash(touch made.txt *)'] } } });
    expect(app.answer('approval-1', { answer: 'yes' })).toBe(false);
  });
});

describe('one writer per state variable', () => {
  it('the effort set with /effort comes back with --resume, and so does putting it back to the default', async () => {
    const p = await place();
    const first = await createApp(parseArgs(['-C', p.work, '--sandbox', 'off']), { env: p.env });
    first.setEffort('high');
    server.enqueue({ text: 'Thinking hard.' });
    await first.send('think', new AbortController().signal);
    await first.close();
    const again = await createApp(parseArgs(['-C', p.work, '--sandbox', 'off']), { env: p.env });
    onTestFinished(() => again.close());
    expect(again.effort).toBeUndefined();
    await again.resume(first.session.id);
    expect(again.effort).toBe('high');
    again.setEffort(undefined);
    const third = await createApp(parseArgs(['-C', p.work, '--sandbox', 'off']), { env: p.env });
    onTestFinished(() => third.close());
    await again.close();
    await third.resume(first.session.id);
    expect(third.effort).toBeUndefined();
  });

  it('resume switches the mode through setMode: a plan approved afterwards restores the mode before it', async () => {
    const p = await place();
    const first = await createApp(parseArgs(['-C', p.work, '--sandbox', 'off', '--mode', 'plan']), { env: p.env });
    server.enqueue({ text: 'Planning.' });
    await first.send('plan it', new AbortController().signal);
    await first.close();

    const app = await createApp(parseArgs(['-C', p.work, '--sandbox', 'off']), { env: p.env });
    onTestFinished(() => app.close());
    app.setMode('auto');
    await app.resume(first.session.id);
    expect(app.mode).toBe('plan');
    app.on((e) => e.type === 'approval' && e.approval.kind === 'plan' && app.answer(e.id, { approved: true }));
    server.enqueue({ toolCalls: [{ name: 'exit_plan', input: { plan: '1. Do it' } }] }, { text: 'Doing it.' });
    expect(await app.send('go on', new AbortController().signal)).toMatchObject({ stopReason: 'end', text: 'Doing it.' });
    expect(app.mode).toBe('auto');
    expect(server.violations).toEqual([]);
  });
});
