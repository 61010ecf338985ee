// The trace: every AgentEvent of a run appended to <state>/logs/<YYYY-MM-DD>.jsonl (local date)
// with run_id, ts and root, and pruning of old daily files. Streaming deltas are left out (the
// completed messages carry their text). Never throws into the caller: a failed write stops the
// log and is reported once.

import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '../types/events.js';
import { localDate } from '../util/text.js';

export type TraceOptions = {
  stateDir: string;
  /** The workspace root: /cost selects its runs by it. */
  root: string;
  env?: NodeJS.ProcessEnv;
  /** Default: a random UUID. */
  runId?: string;
  model: string;
  /** feiyu's version. */
  version: string;
  /** The permission mode at start. */
  mode: string;
  /** Called once, when a write fails and logging stops. */
  onError?: (error: Error) => void;
  /** For tests: the time of each event. */
  clock?: () => Date;
};

export type Trace = {
  readonly runId: string;
  write(event: AgentEvent): void;
  close(): void;
  /** Set when a write failed; nothing is logged after it. */
  readonly error: Error | undefined;
};

/** Events too many to log one by one: the completed message, tool call and turn_end carry them. */
const UNLOGGED: ReadonlySet<AgentEvent['type']> = new Set(['text_delta', 'thinking_delta', 'toolcall_start', 'toolcall_delta']);

export const logsDir = (stateDir: string) => join(stateDir, 'logs');


/** Opens the run's trace and writes its run_start line; null when FEIYU_NO_LOG is set. */
export function openTrace(opts: TraceOptions): Trace | null {
  const env = opts.env ?? process.env;
  if (env.FEIYU_NO_LOG && env.FEIYU_NO_LOG !== '0') return null;
  const clock = opts.clock ?? (() => new Date());
  const runId = opts.runId ?? randomUUID();
  const dir = logsDir(opts.stateDir);
  let error: Error | undefined;
  let closed = false;
  const append = (record: Record<string, unknown>, at: Date) => {
    if (error || closed) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      appendFileSync(join(dir, `${localDate(at)}.jsonl`), JSON.stringify(record) + '\n', { mode: 0o600 });
    } catch (e) {
      error = e instanceof Error ? e : new Error(String(e));
      opts.onError?.(error);
    }
  };
  const start = clock();
  append({ type: 'run_start', run_id: runId, ts: start.toISOString(), root: opts.root, model: opts.model, version: opts.version, mode: opts.mode }, start);
  return {
    runId,
    get error() {
      return error;
    },
    write(event) {
      const logged = forLog(event);
      if (!logged) return;
      const at = clock();
      append({ ...logged, run_id: runId, ts: at.toISOString(), root: opts.root }, at);
    },
    close() {
      closed = true;
    },
  };
}

/** The event as logged, or null when it is not logged. */
function forLog(event: AgentEvent): Record<string, unknown> | null {
  if (UNLOGGED.has(event.type)) return null;
  // User pieces repeat turn_start and tool_result (and may hold images); assistant messages carry the text.
  if (event.type === 'message') return event.message.role === 'assistant' ? event : null;
  if (event.type === 'tool_result' && event.change) {
    // Whole files before and after each edit would make the log grow by their size: sizes say enough.
    const { path, before, after } = event.change;
    return { ...event, change: { path, beforeBytes: before === null ? null : Buffer.byteLength(before), afterBytes: Buffer.byteLength(after) } };
  }
  // A preview repeats the call's arguments (a whole file for write_file): the input is logged once.
  if (event.type === 'tool_call' && event.preview) {
    const { preview: _, ...call } = event;
    return call;
  }
  if (event.type === 'approval' && event.approval.kind === 'call' && event.approval.request.preview) {
    const { preview: _, ...request } = event.approval.request;
    return { ...event, approval: { ...event.approval, request } };
  }
  return event;
}

/** Deletes daily files older than `days` days. Never throws; returns how many were deleted. */
export function pruneLogs(stateDir: string, days = 30, now = new Date()): number {
  const oldest = new Date(now.getFullYear(), now.getMonth(), now.getDate() - days);
  const cutoff = localDate(oldest);
  let names: string[];
  try {
    names = readdirSync(logsDir(stateDir));
  } catch {
    return 0;
  }
  let deleted = 0;
  for (const name of names) {
    const day = /^(\d{4}-\d{2}-\d{2})\.jsonl$/.exec(name)?.[1];
    if (!day || day >= cutoff) continue;
    try {
      unlinkSync(join(logsDir(stateDir), name));
      deleted++;
    } catch {
      // already gone, or not ours to delete
    }
  }
  return deleted;
}
