// Headless mode (-p): run the message (or each message of a stream-json input) to completion
// without a person, print the result in the chosen format — text, json (claude -p's result),
// stream-json (Claude's message stream, claudestream.ts) or events (feiyu's own AgentEvents) —
// and give the exit code of DESIGN.md §3. A projection of the host API: each message is
// submitted to the one task, every line comes from its event stream, the result from wait().

import type { App } from './app.js';
import type { OutputFormat } from './args.js';
import type { Host } from './host.js';
import { ClaudeStream, initLine } from './claudestream.js';
import type { Subtype } from './runresult.js';
import { claudeMode } from '../hooks/protocol.js';
import { explainError, explainEvent } from '../i18n/explain.js';
import { inert } from '../util/text.js';
import { version } from '../util/version.js';

export const EXIT = { ok: 0, error: 1, usage: 2, maxRounds: 3 } as const;

export type HeadlessOptions = {
  host: Host;
  /** The task the messages go to (host.open: a new session, or the one --resume names). */
  task: string;
  /** The user's messages, run one after the other (one, unless --input-format stream-json). */
  messages: AsyncIterable<string> | Iterable<string>;
  /** Attached to the first message (-i). */
  images?: readonly string[];
  format: OutputFormat;
  /** stream-json: also the model's reply as it streams (stream_event lines). */
  partial?: boolean;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  signal: AbortSignal;
};

const exitOf = (subtype: Subtype): number => (subtype === 'success' ? EXIT.ok : subtype === 'error_max_turns' ? EXIT.maxRounds : EXIT.error);

/** Runs the messages and returns the process exit code: the first failure's, else 0. */
export async function runHeadless(o: HeadlessOptions): Promise<number> {
  const { host, task } = o;
  // What the init line and the stream name: the task's session, model and tools, read only.
  const app = host.app(task);
  const json = (value: unknown) => o.stdout.write(JSON.stringify(value) + '\n');
  const stream =
    o.format === 'stream-json' ? new ClaudeStream({ root: app.root, sessionId: () => app.session.id, model: () => app.model.model, partial: o.partial === true }) : undefined;
  /** The last message's final text (text format), from its turn_end. */
  let answer = '';
  let printing = true;
  void (async () => {
    for await (const event of host.events(task, { from: 'now', follow: true })) {
      if (!printing) return;
      if (event.type === 'turn_end') answer = event.text;
      if (o.format === 'events') json(event);
      for (const line of stream?.on(event) ?? []) json(line);
      const text = event.type === 'error' ? explainError(event.error, app.model) : explainEvent(event, true);
      // The events format carries notices itself; the others say them on stderr.
      if (text && o.format !== 'events') o.stderr.write(inert(text) + '\n');
    }
  })();
  // Without a person to wait for, the first request waits for the MCP servers: their tools are part of the task.
  await app.mcp?.ready();
  const mcpServers = (app.mcp?.servers() ?? []).map((s) => ({ name: s.name, status: s.state === 'ready' ? 'connected' : 'failed' }));
  if (stream) json(initLine({ cwd: app.root, sessionId: app.session.id, tools: app.agent.tools.keys(), mcpServers, model: app.model.model, permissionMode: claudeMode(app.mode, app.acceptEdits), apiKeySource: keySource(app), version: version() }));
  const cancel = () => host.cancel(task);
  o.signal.addEventListener('abort', cancel);
  let code: number = EXIT.ok;
  try {
    let images = o.images ?? [];
    for await (const message of o.messages) {
      if (o.signal.aborted) break;
      answer = '';
      await host.submit({ prompt: message, resume: task, images });
      images = [];
      if (o.signal.aborted) cancel();
      const result = await host.wait(task);
      // Every event of the message is in the task's log by now; the follower prints them within
      // this turn of the event loop (microtasks), before the result line.
      await new Promise((resolve) => setImmediate(resolve));
      if (o.format === 'text') {
        // The model's text may carry escape sequences (from a file it read); a terminal must not act on them.
        if (answer) o.stdout.write(inert(answer.endsWith('\n') ? answer : answer + '\n'));
      } else json(result);
      if (code === EXIT.ok) code = exitOf(result.subtype);
    }
  } finally {
    o.signal.removeEventListener('abort', cancel);
    printing = false;
  }
  return code;
}

/** Where the model's key comes from, as stream-json's init line says it. */
function keySource(app: App): string {
  const model = app.model;
  return model.apiKeyEnv ?? (model.apiKey ? 'keys.json' : 'none');
}

/** The JSON result line of a run that could not start (bad configuration). */
export function startFailure(error: string): string {
  const record = { type: 'result', subtype: 'error_during_execution' satisfies Subtype, is_error: true, result: error };
  return JSON.stringify(record) + '\n';
}
