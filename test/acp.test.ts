// `feiyu --acp` driven by the ACP SDK's own client (client() → ClientApp) over the built CLI's
// stdio, against the fake model server: sessions and their modes, prompts whose answer and tool
// calls stream back as session/update, questions answered by the editor, cancellation, a mode
// set by the editor, and a saved session loaded again in a new process.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv } from './cli-harness.js';
import { useCliFixture } from './fixtures.js';
import { currentTest } from './scope.js';

const f = await useCliFixture('feiyu-acp', {});

type Editor = {
  child: ReturnType<typeof spawn>;
  /** Its exit code once it has exited. */
  exited: Promise<number | null>;
  updates: acp.SessionUpdate[];
  asked: acp.RequestPermissionRequest[];
  /** How the editor answers the next question (default: allow once). */
  answers: acp.RequestPermissionOutcome[];
  run<T>(op: (ctx: acp.ClientContext) => Promise<T>): Promise<T>;
};

/** An editor: the SDK's client connected to a `feiyu --acp` it started (killed when the test ends). */
function editor(args: string[] = []): Editor {
  const child = spawn(process.execPath, [CLI, '--acp', '--sandbox', 'off', ...args], { cwd: f.work, env: cliEnv(f.home, currentTest().env), stdio: ['pipe', 'pipe', 'inherit'] });
  const e: Editor = {
    child,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    updates: [],
    asked: [],
    answers: [],
    run: (op) => {
      const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
      // Done, the editor closes feiyu's stdin, as an editor closing the agent does.
      return client
        .connectWith(stream, async (ctx) => {
          await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
          return op(ctx);
        })
        .finally(() => child.stdin.end());
    },
  };
  const client = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void e.updates.push(params.update))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      e.asked.push(params);
      return { outcome: e.answers.shift() ?? { outcome: 'selected', optionId: 'yes' } };
    });
  return e;
}

const newSession = (ctx: acp.ClientContext) => ctx.request(acp.methods.agent.session.new, { cwd: f.work, mcpServers: [] });
const prompt = (ctx: acp.ClientContext, sessionId: string, text: string) => ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
const answerText = (updates: acp.SessionUpdate[]) => updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
const toolUpdates = (updates: acp.SessionUpdate[]) => updates.filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');

describe('feiyu --acp', () => {
  it('opens a session with the four modes and streams a prompt turn: tool calls, their results, the answer', async () => {
    writeFileSync(join(f.work, 'notes.txt'), 'one\ntwo\n');
    f.server.enqueue({ toolCalls: [{ id: 'r1', name: 'read_file', input: { path: 'notes.txt' } }] }, { text: 'It has two lines.' });
    const e = editor();
    const { session, reply } = await e.run(async (ctx) => {
      const session = await newSession(ctx);
      return { session, reply: await prompt(ctx, session.sessionId, 'what is in notes.txt?') };
    });
    expect(session.sessionId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(session.modes).toEqual({
      currentModeId: 'default',
      availableModes: [
        { id: 'default', name: 'Ask', description: expect.any(String) },
        { id: 'auto', name: 'Auto', description: expect.any(String) },
        { id: 'plan', name: 'Plan', description: expect.any(String) },
        { id: 'readonly', name: 'Read-only', description: expect.any(String) },
      ],
    });
    expect(reply).toEqual({ stopReason: 'end_turn' });
    expect(toolUpdates(e.updates)).toEqual([
      { sessionUpdate: 'tool_call', toolCallId: 'r1', title: expect.any(String), kind: 'read', rawInput: { path: 'notes.txt' }, locations: [{ path: join(f.work, 'notes.txt') }], status: 'pending' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'r1', status: 'in_progress' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'r1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: expect.stringContaining('two') } }], rawOutput: expect.any(Object) },
    ]);
    expect(answerText(e.updates)).toBe('It has two lines.');
    expect(e.asked).toEqual([]);
  });

  it('puts questions to the editor: allowed, the file is written and shown as a diff; rejected, nothing is written', async () => {
    f.server.enqueue(
      { toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'yes.txt', content: 'made\n' } }] },
      { text: 'Written.' },
      { toolCalls: [{ id: 'w2', name: 'write_file', input: { path: 'no.txt', content: 'x\n' } }] },
      { text: 'Not written.' },
    );
    const e = editor();
    e.answers.push({ outcome: 'selected', optionId: 'yes' }, { outcome: 'selected', optionId: 'no' });
    const replies = await e.run(async (ctx) => {
      const { sessionId } = await newSession(ctx);
      return [await prompt(ctx, sessionId, 'write yes.txt'), await prompt(ctx, sessionId, 'write no.txt')];
    });
    expect(replies).toEqual([{ stopReason: 'end_turn' }, { stopReason: 'end_turn' }]);
    expect(e.asked.map((q) => [q.toolCall.toolCallId, q.options.map((o) => [o.optionId, o.kind])])).toEqual([
      ['w1', [['yes', 'allow_once'], ['always', 'allow_always'], ['no', 'reject_once']]],
      ['w2', [['yes', 'allow_once'], ['always', 'allow_always'], ['no', 'reject_once']]],
    ]);
    expect(readFileSync(join(f.work, 'yes.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(join(f.work, 'no.txt'))).toBe(false);
    const results = toolUpdates(e.updates).filter((u) => u.sessionUpdate === 'tool_call_update' && u.content);
    expect(results[0]).toMatchObject({ toolCallId: 'w1', status: 'completed', content: [{ type: 'diff', path: join(f.work, 'yes.txt'), oldText: null, newText: 'made\n' }] });
    expect(toolUpdates(e.updates).find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'w2')).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'w2', status: 'failed' });
  });

  it('cancels a turn mid-stream when the editor sends session/cancel', async () => {
    f.server.enqueue({ text: 'This goes on', hang: true });
    const e = editor();
    const reply = await e.run(async (ctx) => {
      const { sessionId } = await newSession(ctx);
      const turn = prompt(ctx, sessionId, 'talk');
      while (!answerText(e.updates)) await new Promise((r) => setTimeout(r, 20));
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      return turn;
    });
    expect(reply).toEqual({ stopReason: 'cancelled' });
  });

  it('takes the mode from the editor: in readonly a write is refused without a question', async () => {
    f.server.enqueue({ toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'x.txt', content: 'x' } }] }, { text: 'Refused.' });
    const e = editor();
    await e.run(async (ctx) => {
      const { sessionId } = await newSession(ctx);
      await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'readonly' });
      await expect(ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'yolo' })).rejects.toThrow(/unknown mode yolo/);
      await prompt(ctx, sessionId, 'write x.txt');
    });
    expect(e.updates).toContainEqual({ sessionUpdate: 'current_mode_update', currentModeId: 'readonly' });
    expect(e.asked).toEqual([]);
    expect(existsSync(join(f.work, 'x.txt'))).toBe(false);
  });

  it('loads a saved session in a new process: the conversation is replayed, then continued', async () => {
    f.server.enqueue({ text: 'The answer is 4.' });
    const first = editor();
    const sessionId = await first.run(async (ctx) => {
      const { sessionId } = await newSession(ctx);
      await prompt(ctx, sessionId, 'what is 2+2?');
      return sessionId;
    });
    // The first feiyu lets the session go when the editor closes the connection, and exits.
    expect(await first.exited).toBe(0);
    f.server.enqueue({ text: 'Eight.' });
    const second = editor();
    const reply = await second.run(async (ctx) => {
      await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: f.work, mcpServers: [] });
      return prompt(ctx, sessionId, 'and doubled?');
    });
    expect(reply).toEqual({ stopReason: 'end_turn' });
    expect(second.updates.slice(0, 2)).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'what is 2+2?' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The answer is 4.' } },
    ]);
    expect(f.server.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('stopped by the editor (SIGTERM), it lets its sessions go and exits', async () => {
    f.server.enqueue({ text: 'Hi.' });
    const e = editor();
    const sessions = join(f.home, 'state', 'feiyu', 'sessions');
    // Stopped while the editor still holds the connection open: the editor sees it close.
    let sessionId = '';
    let before: string[] = [];
    const run = e.run(async (ctx) => {
      sessionId = (await newSession(ctx)).sessionId;
      await prompt(ctx, sessionId, 'hi');
      before = readdirSync(sessions).sort();
      e.child.kill('SIGTERM');
      await e.exited;
    });
    await expect(run).rejects.toThrow(/connection closed/);
    expect({ before, code: await e.exited }).toEqual({ before: [`${sessionId}.jsonl`, `${sessionId}.lock`], code: 0 });
    expect(readdirSync(sessions)).toEqual([`${sessionId}.jsonl`]);
  });
});
