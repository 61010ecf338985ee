// `feiyu --acp`: the Agent Client Protocol over stdio, for editors (Zed, JetBrains, …). A
// projection of the host API: an ACP session is a task (its id the session id, kept in the CLI's
// session files), a prompt is a message whose events stream back as session/update, questions
// go to the editor as session/request_permission, session/cancel cancels, modes are the four
// permission modes. Writes nothing to stdout but the protocol (updates.ts words the payloads).

import { Readable, Writable } from 'node:stream';
import type * as Acp from '@agentclientprotocol/sdk';
import { openHost, type Host } from '../app/host.js';
import { ConfigError, type ConfigOptions } from '../app/config.js';
import type { CliArgs } from '../app/args.js';
import { explainError } from '../i18n/explain.js';
import { PERMISSION_MODES, type PermissionMode } from '../types/permissions.js';
import { answerOf, historyUpdates, modesOf, permissionRequest, promptText, stopReasonOf, updatesOf } from './updates.js';

export type AcpOptions = {
  /** The command line's settings for every session (mode, sandbox, model, --trust); each session's workspace is its own. */
  args: CliArgs;
  /** Without `start`: each workspace's settings are read for it. */
  config: Omit<ConfigOptions, 'start'>;
  version: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
};

/** Serves one editor until it closes the connection; then stops what the sessions started. */
export async function serveAcp(o: AcpOptions): Promise<void> {
  const acp = await import('@agentclientprotocol/sdk');
  // One host per workspace the editor opens sessions in: configuration is loaded once for each.
  const hosts = new Map<string, Promise<Host>>();
  const sessions = new Map<string, Host>();
  const hostFor = (cwd: string): Promise<Host> => {
    let host = hosts.get(cwd);
    if (!host) {
      // An editor's prompt waits for the MCP servers' tools, as headless mode does.
      host = openHost({ ...o.args, cwd }, o.config, { waitForMcp: true });
      hosts.set(cwd, host);
      // A workspace that failed to open may be tried again (after the user fixed its settings).
      host.catch(() => hosts.delete(cwd));
    }
    return host;
  };
  const sessionHost = (id: string): Host => {
    const host = sessions.get(id);
    if (!host) throw acp.RequestError.resourceNotFound(id);
    return host;
  };
  /** Bad configuration reaches the editor as an error it shows, in the user's words. */
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ConfigError) throw acp.RequestError.invalidParams(undefined, err.message);
      throw err;
    }
  };

  const agent = acp
    .agent({ name: 'feiyu' })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: true } },
      agentInfo: { name: 'feiyu', title: 'feiyu', version: o.version },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, ({ params }) =>
      guarded(async () => {
        const host = await hostFor(params.cwd);
        const sessionId = await host.open();
        sessions.set(sessionId, host);
        return { sessionId, modes: modesOf(host.status(sessionId).mode) };
      }),
    )
    .onRequest(acp.methods.agent.session.load, ({ params, client }) =>
      guarded(async () => {
        const host = await hostFor(params.cwd);
        const sessionId = await host.open({ resume: params.sessionId });
        sessions.set(sessionId, host);
        for (const update of historyUpdates(host.history(sessionId), host.root)) await client.notify(acp.methods.client.session.update, { sessionId, update });
        return { modes: modesOf(host.status(sessionId).mode) };
      }),
    )
    .onRequest(acp.methods.agent.session.setMode, ({ params, client }) => {
      const host = sessionHost(params.sessionId);
      if (!(PERMISSION_MODES as readonly string[]).includes(params.modeId)) throw acp.RequestError.invalidParams(undefined, `unknown mode ${params.modeId}`);
      host.app(params.sessionId).setMode(params.modeId as PermissionMode);
      void client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'current_mode_update', currentModeId: params.modeId } });
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => guarded(() => prompt(acp, sessionHost(params.sessionId), params, client)))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel(params.sessionId);
    });

  const stream = acp.ndJsonStream(Writable.toWeb(o.output as Writable) as WritableStream<Uint8Array>, Readable.toWeb(o.input as Readable) as ReadableStream<Uint8Array>);
  const connection = agent.connect(stream);
  // An editor stopping feiyu: the sessions are closed as when it closes the connection (jobs stopped, session files let go).
  const stop = () => connection.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await connection.closed;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  const opened = await Promise.allSettled(hosts.values());
  await Promise.all(opened.map((h) => (h.status === 'fulfilled' ? h.value.close() : undefined)));
}

/** One prompt turn: the message sent, its events streamed to the editor, its questions put to it. */
async function prompt(acp: typeof Acp, host: Host, params: Acp.PromptRequest, client: Acp.AgentContext): Promise<Acp.PromptResponse> {
  const sessionId = params.sessionId;
  const send = (update: Acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update });
  await host.submit({ prompt: promptText(params.prompt), resume: sessionId });
  let mode = host.status(sessionId).mode;
  let refused = false;
  let ended: Acp.StopReason | undefined;
  for await (const event of host.events(sessionId, { from: 'message' })) {
    if (event.type === 'approval') {
      // Nothing else happens in the turn until it is answered; a cancel answers it "cancelled".
      const outcome = await client.request(acp.methods.client.session.requestPermission, permissionRequest(sessionId, event.approval, event.id)).then(
        (response) => response.outcome,
        (): Acp.RequestPermissionOutcome => ({ outcome: 'cancelled' }),
      );
      host.answer(sessionId, event.id, answerOf(event.approval, outcome));
      continue;
    }
    if (event.type === 'history_reset') refused = true;
    if (event.type === 'turn_end') ended = stopReasonOf(event.stopReason, refused);
    if (event.type === 'error') await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: explainError(event.error, host.app(sessionId).model) } });
    for (const update of updatesOf(event, host.root)) await send(update);
    const now = host.status(sessionId).mode;
    if (now !== mode) await send({ sessionUpdate: 'current_mode_update', currentModeId: (mode = now) });
  }
  const result = await host.wait(sessionId);
  if (ended) return { stopReason: ended };
  // The turn failed (the provider, or it could not be sent): the editor shows the error.
  throw acp.RequestError.internalError(undefined, result.result);
}
