// The stdio transport of one MCP server: its process started as the leader of a process group of
// its own (so stopping it stops what it started), JSON-RPC lines over stdin/stdout, the tail of its
// stderr kept for /mcp, and how it ended. Outside the command sandbox: the servers are the user's
// own programs. Must not interpret messages (the SDK's Client does).

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { forgetGroup, noteGroup } from '../util/groups.js';
import { signalGroup } from '../util/process.js';

/** How long a server has to exit once its stdin is closed, then after SIGTERM, before SIGKILL. */
const EXIT_GRACE_MS = 1000;
/** Characters of stderr kept: enough for the error that made a server fail. */
const STDERR_KEPT = 2000;

export type StdioLaunch = { command: string; args: string[]; env: NodeJS.ProcessEnv; cwd: string };
/** How the process ended: its exit code or signal, or why it never started. */
export type StdioEnding = { code: number | null; signal: NodeJS.Signals | null } | { spawnError: string };

/** Groups still running, killed when feiyu exits without stopping them (an uncaught error). */
const live = new Set<number>();
let exitHook = false;
const killLive = () => {
  for (const pid of live) signalGroup(pid, 'SIGKILL');
};

/** The live (not zombie) processes of group `pgid`, from /proc. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command name (which may hold spaces): state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return members;
}

/** Waits (a little) until nothing of group `pgid` runs: a SIGKILL is delivered, not yet done, when kill() returns. */
async function groupGone(pgid: number): Promise<void> {
  for (const deadline = Date.now() + EXIT_GRACE_MS; groupMembers(pgid).length && Date.now() < deadline; ) {
    signalGroup(pgid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private stderrText = '';
  ending?: StdioEnding;

  constructor(private readonly launch: StdioLaunch) {}

  /** The last lines the server wrote to stderr. */
  get stderr(): string {
    return this.stderrText.trim();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const { ReadBuffer } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
    const buffer = new ReadBuffer();
    const { command, args, env, cwd } = this.launch;
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    child.stdin.on('error', (err) => this.onerror?.(err));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = buffer.readMessage();
        } catch (err) {
          // A line that is not JSON-RPC (a server printing to stdout): reported, the rest goes on.
          this.onerror?.(err as Error);
          continue;
        }
        if (!message) break;
        this.onmessage?.(message);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        const pid = child.pid!;
        live.add(pid);
        noteGroup(pid);
        if (!exitHook) process.once('exit', killLive);
        exitHook = true;
        resolve();
      });
      child.once('error', (err) => {
        this.ending = { spawnError: err.message };
        reject(err);
      });
    });
    child.once('exit', (code, signal) => {
      this.ending ??= { code, signal };
      // What the server started in its group goes with it (and lets go of the pipes it may hold).
      signalGroup(child.pid!, 'SIGKILL');
    });
    child.once('close', () => {
      live.delete(child.pid!);
      forgetGroup(child.pid!);
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const { serializeMessage } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.ending) throw new Error('the server is not running');
    if (!stdin.write(serializeMessage(message))) await new Promise((resolve) => stdin.once('drain', resolve));
  }

  /**
   * Closes stdin (the protocol's way to stop), then SIGTERM, then SIGKILL to the whole group;
   * resolves once the server and what it started are gone.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.exited) return;
    const gone = (ms: number) => Promise.race([this.exited!.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (!this.ending) {
      child.stdin?.end();
      if (!(await gone(EXIT_GRACE_MS))) {
        signalGroup(child.pid, 'SIGTERM');
        if (!(await gone(EXIT_GRACE_MS))) signalGroup(child.pid, 'SIGKILL');
        await gone(EXIT_GRACE_MS);
      }
    }
    await groupGone(child.pid);
  }
}
