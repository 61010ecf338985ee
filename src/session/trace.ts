// The trace: every AgentEvent of a run appended to <state>/logs/<YYYY-MM-DD>.jsonl (local date)
// with run_id, ts and root, and pruning of old daily files. Streaming deltas are left out (the
// completed messages carry their text). Never throws into the caller: a failed write is reported
// once and the lines wait for the next write (up to a limit); a torn line is ended first.

import { randomUUID } from 'node:crypto';
import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { LineFile } from '../util/linefile.js';
import { localDate } from '../util/text.js';
import type { AgentEvent } from '../types/events.js';

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
  /** Called when a write fails (once until one succeeds again)… */
  onError?: (error: Error) => void;
  /** …and when one does. */
  onRecovered?: () => void;
  /** For tests: the time of each event. */
  clock?: () => Date;
};

export type Trace = {
  readonly runId: string;
  write(event: AgentEvent): void;
  close(): void;
};

/** Lines kept for the retry while the disk is full; older ones are given up. */
const MAX_PENDING = 2000;

/** Events too many to log one by one: the completed message, tool call and turn_end carry them. */
const UNLOGGED: ReadonlySet<AgentEvent['type']> = new Set(['text_delta', 'thinking_delta', 'toolcall_start', 'toolcall_delta', 'tool_progress']);

export const logsDir = (stateDir: string) => join(stateDir, 'logs');

/** Opens the run's trace and writes its run_start line; null when FEIYU_NO_LOG is set. */
export function openTrace(opts: TraceOptions): Trace | null {
  const env = opts.env ?? process.env;
  if (env.FEIYU_NO_LOG && env.FEIYU_NO_LOG !== '0') return null;
  const clock = opts.clock ?? (() => new Date());
  const runId = opts.runId ?? randomUUID();
  const dir = logsDir(opts.stateDir);
  let closed = false;
  let file: LineFile | undefined;
  const append = (record: Record<string, unknown>, at: Date) => {
    if (closed) return;
    const path = join(dir, `${localDate(at)}.jsonl`);
    // Other processes write the same daily file: a torn tail is ended, never cut back.
    if (file?.file !== path) file = new LineFile(path, { maxPending: MAX_PENDING, onError: opts.onError, onRecovered: opts.onRecovered });
    file.append([JSON.stringify(record)]);
  };
  const start = clock();
  append({ type: 'run_start', run_id: runId, ts: start.toISOString(), root: opts.root, model: opts.model, version: opts.version, mode: opts.mode }, start);
  return {
    runId,
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
  // A preview repeats the call's arguments (a whole file for write_file): the input is logged once.
  if (event.type === 'tool_call' && event.preview) {
    const { preview: _, ...call } = event;
    return call;
  }
  if (event.type === 'approval' && event.approval.kind === 'call' && event.approval.request.preview) {
    const { preview: _, ...request } = event.approval.request;
    return { ...event, approval: { ...event.approval, request } };
  }
  if (event.type === 'tool_result' && event.change) {
    // Whole files before and after each edit would make the log grow by their size: sizes say enough.
    const { path, before, after } = event.change;
    return { ...event, change: { path, beforeBytes: before === null ? null : Buffer.byteLength(before), afterBytes: Buffer.byteLength(after) } };
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
