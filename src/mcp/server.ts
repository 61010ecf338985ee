// One MCP server's connection: starting it (stdio, streamable HTTP, or SSE where a server still
// needs it) within a time limit, its tools, prompts and resources as lists it keeps current
// (list_changed), calls with a timeout and cancellation, and noticing that it failed, crashed or
// hangs. Loads the SDK when it starts. Must not turn tools into feiyu tools (tools.ts) or print.

import { resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, GetPromptResult, Prompt, Resource, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { expandServer, isStdio, type McpServerConfig, type McpServerSpec } from '../config/mcpservers.js';
import { Problem } from '../i18n/index.js';
import { GroupStdioTransport } from './stdio.js';

export type ServerState = 'starting' | 'ready' | 'failed' | 'stopped';

/**
 * Why a server is not usable: it never started (`spawn`, `config`), did not answer in time
 * (`start_timeout`), ended (`exit`, `signal`, `closed`), stopped answering (`hung`) or refused to
 * talk (`error`). `detail` is the exit code, the signal, the seconds or the message.
 */
export type McpFailure = { code: 'spawn' | 'config' | 'start_timeout' | 'exit' | 'signal' | 'closed' | 'hung' | 'error'; detail: string; stderr?: string };

export type ServerTimeouts = { startMs: number; callMs: number };

/** What the connection tells its owner: its state changed, or one of its lists did. */
export type ServerListener = (what: 'state' | 'tools' | 'prompts' | 'resources') => void;

/** How long a ping may take when a call timed out (at most the call's own limit), to tell a slow tool from a hung server. */
const PING_MS = 5000;
const secs = (ms: number): string => String(Math.round(ms / 100) / 10);

const message = (err: unknown): string => (err instanceof Problem ? err.message : err instanceof Error ? err.message : String(err));

export class McpConnection {
  state: ServerState = 'stopped';
  failure?: McpFailure;
  tools: McpTool[] = [];
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  /** The server's name and version as it introduced itself. */
  serverInfo?: { name: string; version: string };
  private client?: Client;
  private transport?: Transport;
  private stopping = false;
  private starting?: Promise<void>;
  private generation = 0;

  constructor(
    readonly spec: McpServerSpec,
    private readonly place: { env: NodeJS.ProcessEnv; childEnv: NodeJS.ProcessEnv; root: string; version: string },
    private readonly timeouts: ServerTimeouts,
    private readonly listener: ServerListener,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get transportKind(): 'stdio' | 'http' | 'sse' {
    const c = this.spec.config;
    return isStdio(c) ? 'stdio' : c.type === 'sse' ? 'sse' : 'http';
  }

  /** Starts the server and lists what it offers; never throws (a failure is its state). */
  start(): Promise<void> {
    if (this.starting) return this.starting;
    const starting: Promise<void> = this.connect().finally(() => {
      if (this.starting === starting) this.starting = undefined;
    });
    this.starting = starting;
    return starting;
  }

  private async connect(): Promise<void> {
    // A stop, a failure or a newer start ends this attempt: every step after an await checks.
    const gen = ++this.generation;
    const current = () => gen === this.generation;
    this.stopping = false;
    this.failure = undefined;
    this.setState('starting');
    let config: McpServerConfig;
    try {
      config = expandServer(this.spec.config, this.place.env);
    } catch (err) {
      return this.markFailed({ code: 'config', detail: message(err) });
    }
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    if (!current()) return;
    const client = new Client(
      { name: 'feiyu', version: this.place.version },
      {
        listChanged: {
          tools: { onChanged: (err, tools) => this.listed('tools', err, tools) },
          prompts: { onChanged: (err, prompts) => this.listed('prompts', err, prompts) },
          resources: { onChanged: (err, resources) => this.listed('resources', err, resources) },
        },
      },
    );
    this.client = client;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.timeouts.startMs)));
    try {
      const outcome = await Promise.race([this.open(client, config, current).then(() => 'ok' as const), timedOut]);
      if (outcome === 'timeout' && current()) await this.markFailed({ code: 'start_timeout', detail: secs(this.timeouts.startMs) });
    } catch (err) {
      if (current()) await this.markFailed(this.endingFailure() ?? { code: 'error', detail: message(err) });
    } finally {
      clearTimeout(timer);
    }
    if (!current()) return;
    this.serverInfo = client.getServerVersion();
    client.onclose = () => this.client === client && this.closed();
    this.setState('ready');
  }

  /** Connects `client` over the configured transport and reads the three lists, while the attempt is `current`. */
  private async open(client: Client, config: McpServerConfig, current: () => boolean): Promise<void> {
    const transport = await this.transportFor(config);
    if (!current()) return;
    this.transport = transport;
    await client.connect(transport);
    if (!current()) return void (await transport.close().catch(() => {}));
    const caps = client.getServerCapabilities() ?? {};
    const [tools, prompts, resources] = await Promise.all([
      caps.tools ? client.listTools().then((r) => r.tools) : [],
      caps.prompts ? client.listPrompts().then((r) => r.prompts) : [],
      caps.resources ? client.listResources().then((r) => r.resources).catch(() => []) : [],
    ]);
    if (current()) Object.assign(this, { tools, prompts, resources });
  }

  private async transportFor(config: McpServerConfig): Promise<Transport> {
    if (isStdio(config)) {
      const env = { ...this.place.childEnv, ...config.env };
      const cwd = resolve(this.place.root, config.cwd ?? '.');
      return new GroupStdioTransport({ command: config.command, args: config.args ?? [], env, cwd });
    }
    const url = new URL(config.url);
    const requestInit = config.headers ? { headers: config.headers } : undefined;
    if (config.type === 'sse') {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return new SSEClientTransport(url, { requestInit });
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(url, { requestInit });
  }

  private listed(what: 'tools' | 'prompts' | 'resources', err: Error | null, items: unknown[] | null): void {
    if (err || !items || this.state !== 'ready') return;
    (this as Record<typeof what, unknown[]>)[what] = items;
    this.listener(what);
  }

  /** The process's ending as a failure (exit code or signal, its last stderr), if it ended. */
  private endingFailure(): McpFailure | undefined {
    const t = this.transport;
    if (!(t instanceof GroupStdioTransport) || !t.ending) return undefined;
    const stderr = t.stderr ? { stderr: t.stderr } : {};
    if ('spawnError' in t.ending) return { code: 'spawn', detail: t.ending.spawnError, ...stderr };
    if (t.ending.signal) return { code: 'signal', detail: t.ending.signal, ...stderr };
    return { code: 'exit', detail: String(t.ending.code), ...stderr };
  }

  /** The transport closed: a crash unless feiyu stopped it. */
  private closed(): void {
    if (this.stopping || this.state !== 'ready') return;
    void this.markFailed(this.endingFailure() ?? { code: 'closed', detail: '' });
  }

  private async markFailed(failure: McpFailure): Promise<void> {
    this.generation++;
    this.failure = failure;
    this.tools = [];
    this.prompts = [];
    this.resources = [];
    this.setState('failed');
    await this.shut();
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.listener('state');
  }

  private async shut(): Promise<void> {
    this.stopping = true;
    const client = this.client;
    this.client = undefined;
    try {
      await client?.close();
    } catch {
      // Closing a broken connection fails the same way it broke.
    }
    await this.transport?.close().catch(() => {});
  }

  /**
   * Calls a tool; the signal's abort and the time limit cancel the request (the SDK sends
   * notifications/cancelled). After a timeout, a ping that gets no answer marks the server hung.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.state !== 'ready') throw new Error(`the MCP server ${this.name} is not running`);
    try {
      return (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: this.timeouts.callMs })) as CallToolResult;
    } catch (err) {
      if (!signal.aborted && isTimeout(err)) void this.checkAlive();
      throw err;
    }
  }

  private async checkAlive(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      await client.ping({ timeout: Math.min(PING_MS, this.timeouts.callMs) });
    } catch {
      if (this.client === client && this.state === 'ready') await this.markFailed({ code: 'hung', detail: secs(Math.min(PING_MS, this.timeouts.callMs)) });
    }
  }

  async getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    if (!this.client || this.state !== 'ready') throw new Error(`the MCP server ${this.name} is not running`);
    return this.client.getPrompt({ name, arguments: args }, { timeout: this.timeouts.callMs });
  }

  /** Stops the server (its whole process group for stdio); resolves once it is gone. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.tools = [];
    this.prompts = [];
    this.resources = [];
    // Stopped first: a start still under way sees it and gives up; the next start is a new one.
    this.generation++;
    this.starting = undefined;
    if (this.state !== 'failed') this.setState('stopped');
    await this.shut();
  }
}

/** The SDK's timeout error (McpError RequestTimeout, -32001). */
export const isTimeout = (err: unknown): boolean => (err as { code?: unknown })?.code === -32001;
