// Headless mode (-p): run the message (or each message of a stream-json input) to completion
// without a person, print the result in the chosen format — text, json (claude -p's result),
// stream-json (Claude's message stream, claudestream.ts) or events (feiyu's own AgentEvents) —
// and give the exit code of DESIGN.md §3. Every line comes from the app's one event stream.

import type { TurnResult } from '../core/agent.js';
import type { App } from './app.js';
import type { OutputFormat } from './args.js';
import { ClaudeStream, initLine } from './claudestream.js';
import { RunTally, type Subtype } from './runresult.js';
import { claudeMode } from '../hooks/protocol.js';
import { t } from '../i18n/index.js';
import type { AgentEvent } from '../types/events.js';
import { explainError, explainEvent } from '../i18n/explain.js';
import { inert } from '../util/text.js';
import { version } from '../util/version.js';
import { findCustom, parseSlash } from '../config/commands.js';

export const EXIT = { ok: 0, error: 1, usage: 2, maxRounds: 3 } as const;

export type HeadlessOptions = {
  app: App;
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
  const { app } = o;
  const json = (value: unknown) => o.stdout.write(JSON.stringify(value) + '\n');
  const tally = new RunTally(app.root, (name) => app.models.models.find((m) => m.name === name));
  const stream =
    o.format === 'stream-json' ? new ClaudeStream({ root: app.root, sessionId: () => app.session.id, model: () => app.model.model, partial: o.partial === true }) : undefined;
  const off = app.on((event: AgentEvent) => {
    tally.on(event);
    if (o.format === 'events') json(event);
    for (const line of stream?.on(event) ?? []) json(line);
    const text = event.type === 'error' ? explainError(event.error, app.model) : explainEvent(event, true);
    if (!text) return;
    tally.said(text);
    // The events format carries notices itself; the others say them on stderr.
    if (o.format !== 'events') o.stderr.write(inert(text) + '\n');
  });
  // Without a person to wait for, the first request waits for the MCP servers: their tools are part of the task.
  await app.mcp?.ready();
  const mcpServers = (app.mcp?.servers() ?? []).map((s) => ({ name: s.name, status: s.state === 'ready' ? 'connected' : 'failed' }));
  if (stream) json(initLine({ cwd: app.root, sessionId: app.session.id, tools: app.agent.tools.keys(), mcpServers, model: app.model.model, permissionMode: claudeMode(app.mode, app.acceptEdits), apiKeySource: keySource(app), version: version() }));
  let code: number = EXIT.ok;
  try {
    let images = o.images ?? [];
    for await (const message of o.messages) {
      if (o.signal.aborted) break;
      const turn: TurnResult | null = await sendOne(app, message, o.signal, images);
      images = [];
      const result = tally.result(turn, app.session.id, t('headless.failed'));
      if (o.format === 'text') {
        // The model's text may carry escape sequences (from a file it read); a terminal must not act on them.
        if (turn?.text) o.stdout.write(inert(turn.text.endsWith('\n') ? turn.text : turn.text + '\n'));
      } else json(result);
      if (code === EXIT.ok) code = exitOf(result.subtype);
    }
  } finally {
    off();
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

/** One message: `feiyu -p "/review 42"` runs a custom command, as claude -p does; anything else is sent as it is. */
function sendOne(app: App, message: string, signal: AbortSignal, images: readonly string[]): Promise<TurnResult | null> {
  const slash = parseSlash(message);
  const custom = slash && findCustom(app.markdown.commands.commands, slash.name);
  return custom ? app.runCommand(custom, slash.arg ?? '', signal) : app.send(message, signal, { images });
}
