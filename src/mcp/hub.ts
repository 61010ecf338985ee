// The MCP servers of one session: started in the background, their tools offered to the table as
// they come and withdrawn when a server fails (reported once per failure), their prompts as slash
// commands, /mcp's view of them, and all of them stopped at exit. The optional module's entry:
// only app/ imports it, and only when servers are configured.

import type { Tool } from '../types/tools.js';
import type { McpServerSpec } from '../config/mcpservers.js';
import { McpConnection, type McpFailure, type ServerState, type ServerTimeouts } from './server.js';
import { toFeiyuTool, briefOf } from './tools.js';

export type { McpFailure, ServerState } from './server.js';

export type HubOptions = {
  specs: McpServerSpec[];
  /** feiyu's own environment (`${VAR}` expansion) and the filtered one servers start with. */
  env: NodeJS.ProcessEnv;
  childEnv: NodeJS.ProcessEnv;
  root: string;
  version: string;
  timeouts: ServerTimeouts;
  /** Tools to offer (new or changed) and names to withdraw. */
  onTools(added: Tool[], removed: string[]): void;
  /** A server failed, crashed or hangs: once per failure. */
  onFailure(server: string, failure: McpFailure): void;
};

/** One server as /mcp shows it. */
export type ServerView = {
  name: string;
  state: ServerState;
  transport: 'stdio' | 'http' | 'sse';
  source: McpServerSpec['source'];
  failure?: McpFailure;
  info?: string;
  tools: { name: string; brief: string; readOnlyHint: boolean }[];
  resources: { uri: string; name: string }[];
  prompts: string[];
};

/** A server's prompt as a slash command `/<server>:<prompt>`. */
export type PromptCommand = { command: string; server: string; prompt: string; description: string; args: { name: string; required: boolean }[] };

export class McpHub {
  private readonly conns: McpConnection[];
  private readonly offered = new Map<string, string[]>();
  private started = false;

  constructor(private readonly o: HubOptions) {
    const place = { env: o.env, childEnv: o.childEnv, root: o.root, version: o.version };
    this.conns = o.specs.map((spec) => {
      const conn: McpConnection = new McpConnection(spec, place, o.timeouts, (what) => this.changed(conn, what));
      return conn;
    });
  }

  /** Starts every server (once); returns at once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const conn of this.conns) void conn.start();
  }

  /** Starts the servers if not yet started; resolves once every one has started or failed (headless waits for it before the first request). */
  async ready(): Promise<void> {
    this.start();
    await Promise.all(this.conns.map((c) => (c.state === 'starting' ? c.start() : undefined)));
  }

  private changed(conn: McpConnection, what: 'state' | 'tools' | 'prompts' | 'resources'): void {
    if (what === 'state' && conn.state === 'failed' && conn.failure) this.o.onFailure(conn.name, conn.failure);
    if (what !== 'state' && what !== 'tools') return;
    const tools = conn.state === 'ready' ? conn.tools.map((t) => toFeiyuTool(conn, t)) : [];
    const names = tools.map((t) => t.name);
    const removed = (this.offered.get(conn.name) ?? []).filter((n) => !names.includes(n));
    this.offered.set(conn.name, names);
    if (tools.length || removed.length) this.o.onTools(tools, removed);
  }

  servers(): ServerView[] {
    return this.conns.map((c) => ({
      name: c.name,
      state: c.state,
      transport: c.transportKind,
      source: c.spec.source,
      ...(c.failure && { failure: c.failure }),
      ...(c.serverInfo && { info: `${c.serverInfo.name} ${c.serverInfo.version}` }),
      tools: c.tools.map((t) => ({ name: toFeiyuTool(c, t).name, brief: briefOf(t.description ?? t.title, t.name), readOnlyHint: t.annotations?.readOnlyHint === true })),
      resources: c.resources.map((r) => ({ uri: r.uri, name: r.name })),
      prompts: c.prompts.map((p) => p.name),
    }));
  }

  prompts(): PromptCommand[] {
    return this.conns.flatMap((c) =>
      c.prompts.map((p) => ({
        command: `/${c.name}:${p.name}`,
        server: c.name,
        prompt: p.name,
        description: briefOf(p.description ?? p.title, p.name),
        args: (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true })),
      })),
    );
  }

  /**
   * The text a prompt gives, for the next user message. Words of `argText` fill its arguments in
   * order, the last taking the rest. Throws when the server fails or refuses.
   */
  async runPrompt(p: PromptCommand, argText: string): Promise<string> {
    const conn = this.conns.find((c) => c.name === p.server);
    if (!conn) throw new Error(`no MCP server ${p.server}`);
    const words = argText.trim() ? argText.trim().split(/\s+/) : [];
    const args: Record<string, string> = {};
    p.args.forEach((a, i) => {
      const value = i === p.args.length - 1 ? words.slice(i).join(' ') : words[i];
      if (value) args[a.name] = value;
    });
    const result = await conn.getPrompt(p.prompt, args);
    return result.messages
      .map((m) => {
        const c = m.content;
        if (c.type === 'text') return c.text;
        if (c.type === 'resource' && 'text' in c.resource) return `[resource ${c.resource.uri}]\n${String(c.resource.text)}`;
        if (c.type === 'resource_link') return `[resource link] ${c.name}: ${c.uri}`;
        return `[${c.type} from the prompt: not shown]`;
      })
      .join('\n\n');
  }

  /** Stops a server and starts it again; false when there is no server of that name. */
  async restart(name: string): Promise<boolean> {
    const conn = this.conns.find((c) => c.name === name);
    if (!conn) return false;
    await conn.stop();
    await conn.start();
    return true;
  }

  /** Stops every server; resolves once their processes are gone. */
  async stop(): Promise<void> {
    await Promise.all(this.conns.map((c) => c.stop()));
  }
}
