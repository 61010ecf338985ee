// Background jobs: commands bash starts with `background: true` that outlive the call. Each runs in
// its own process group; its output waits in a bounded buffer the model reads piece by piece (the
// `job` tool); every job is stopped when feiyu exits. Must not decide whether a command may run:
// the bash call that starts a job has been through the permission check.

import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { ANSI, KILL_GRACE_MS, placeOf, shellQuote, signalGroup, spawnInGroup } from '../util/process.js';
import { countNewlines } from '../util/cap.js';
import { toolError, type BackgroundJobs, type SandboxProfile, type Tool, type ToolContext, type ToolOutput } from '../types/tools.js';

/** Unread output bytes kept per job; past this the oldest go, and the next read says how many lines. */
export const JOB_BUFFER_BYTES = 1 << 20;
/** bash waits this long for a new job's first lines. */
const FIRST_LINES_MS = 200;
/** After SIGKILL, how long stop() waits for the exit to be recorded. */
const REAP_MS = 1000;
/** Each running job holds a buffer and processes: a model starting jobs in a loop is stopped here. */
const MAX_RUNNING = 10;

export type JobState =
  | { kind: 'running' }
  | { kind: 'exited'; code: number }
  | { kind: 'killed'; signal: string }
  | { kind: 'failed'; message: string };

/**
 * A job as /jobs and the job tool list it. `unread`: output the model has not read yet;
 * `lingering`: the command ended but processes it started still hold its output.
 */
export type JobInfo = { id: number; pid: number; command: string; state: JobState; startedAt: number; unread: boolean; lingering: boolean };

/** The job's state in a few words, for the model. */
function describeJob(job: JobInfo): string {
  const s = job.state;
  const what =
    s.kind === 'running' ? 'running'
    : s.kind === 'exited' ? `exited with code ${s.code}`
    : s.kind === 'killed' ? `killed by ${s.signal}`
    : `could not start: ${s.message}`;
  return `job ${job.id} ${what}${job.lingering ? '; processes it started still hold its output' : ''}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

class Job {
  state: JobState = { kind: 'running' };
  /** The leader exited and every pipe closed (no child holds the output any more). */
  readonly closed: Promise<void>;
  private finished = false;
  /** The group is known to be empty: never signal it again (its pid may be reused). */
  private gone = false;
  /** Output the model has not read yet, oldest first; once read it is let go. */
  private chunks: Buffer[] = [];
  private held = 0;
  private dropped = { bytes: 0, lines: 0 };
  private decoder = new StringDecoder('utf8');
  readonly pid: number;
  readonly startedAt = Date.now();

  constructor(
    readonly id: number,
    readonly command: string,
    ctx: ToolContext,
    profile: SandboxProfile,
  ) {
    const child = spawnInGroup(`exec 2>&1; eval ${shellQuote(command)}`, placeOf(ctx, profile), 2);
    this.pid = child.pid ?? 0;
    child.stdout?.on('data', (chunk: Buffer) => this.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.push(chunk));
    child.on('exit', (code, signal) => {
      this.state = signal ? { kind: 'killed', signal } : { kind: 'exited', code: code ?? 0 };
    });
    this.closed = new Promise((resolve) => {
      child.on('error', (err) => {
        if (this.state.kind === 'running') this.state = { kind: 'failed', message: err.message };
        this.finished = this.gone = true;
        resolve();
      });
      child.on('close', () => {
        this.finished = true;
        if (!this.signal(0)) this.gone = true;
        resolve();
      });
    });
  }

  /** Signals the whole group; false when there is none. Contract: never signals pid 0 (our own group). */
  signal(signal: NodeJS.Signals | 0): boolean {
    if (this.gone || this.pid <= 0) return false;
    if (signalGroup(this.pid, signal)) return true;
    this.gone = true;
    return false;
  }

  unread(): boolean {
    return this.held > 0 || this.dropped.bytes > 0;
  }

  /** What the model has not read yet, and what of it was dropped; marks it read. */
  take(): { text: string; dropped: { bytes: number; lines: number } } {
    const dropped = this.dropped;
    // The decoder may hold the first bytes of a character that was dropped.
    if (dropped.bytes) this.decoder = new StringDecoder('utf8');
    this.dropped = { bytes: 0, lines: 0 };
    let text = this.decoder.write(Buffer.concat(this.chunks));
    this.chunks = [];
    this.held = 0;
    if (this.finished) text += this.decoder.end();
    return { text: text.replace(ANSI, ''), dropped };
  }

  info(): JobInfo {
    const lingering = this.state.kind !== 'running' && !this.finished;
    return { id: this.id, pid: this.pid, command: this.command, state: this.state, startedAt: this.startedAt, unread: this.unread(), lingering };
  }

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held <= JOB_BUFFER_BYTES) return;
    let endedLine = true;
    while (this.held > JOB_BUFFER_BYTES && this.chunks.length > 1) {
      const old = this.chunks.shift()!;
      this.drop(old);
      endedLine = old[old.length - 1] === 0x0a;
    }
    if (endedLine) return;
    // What is kept would start in the middle of a line: let the rest of that line go too.
    const first = this.chunks[0]!;
    const nl = first.indexOf(0x0a);
    if (nl < 0) return;
    this.drop(first.subarray(0, nl + 1));
    if (nl + 1 < first.length) this.chunks[0] = first.subarray(nl + 1);
    else this.chunks.shift();
  }

  private drop(piece: Buffer): void {
    this.held -= piece.length;
    this.dropped.bytes += piece.length;
    this.dropped.lines += countNewlines(piece.toString('latin1'));
  }
}

/** The background jobs of one session; tools reach it as the context's `jobs`. */
export class JobManager implements BackgroundJobs {
  private readonly jobs = new Map<number, Job>();
  private lastId = 0;

  /** Starts `command` in the shell cwd of `ctx`, with its environment and sandbox (`profile`, default: may write). */
  start(command: string, ctx: ToolContext, profile: SandboxProfile = 'write'): JobInfo {
    const job = new Job(++this.lastId, command, ctx, profile);
    this.jobs.set(job.id, job);
    return job.info();
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map((j) => j.info());
  }

  /**
   * What job `id` printed since the last call, then its state on the last line; undefined for an
   * unknown id. Contract: output dropped unread from the buffer is announced, never silently skipped.
   */
  output(id: number): string | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const { text, dropped } = job.take();
    const lines: string[] = [];
    if (dropped.bytes) {
      const what = dropped.lines ? `${dropped.lines.toLocaleString('en-US')} lines` : `${dropped.bytes.toLocaleString('en-US')} bytes`;
      lines.push(`[… ${what} dropped …]`);
    }
    lines.push(text.replace(/\n$/, '') || '(no new output)', `[${describeJob(job.info())}]`);
    return lines.join('\n');
  }

  /** SIGTERM to the job's whole group, SIGKILL after a grace period; false for an unknown id. */
  async stop(id: number): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job) return false;
    await stopJobs([job]);
    return true;
  }

  /** Stops every job (on exit, Ctrl+C, SIGTERM, SIGHUP). */
  stopAll(): Promise<void> {
    return stopJobs([...this.jobs.values()]);
  }

  /** SIGKILL to every job at once, synchronously: for process.on('exit'), where nothing can wait. */
  killNow(): void {
    for (const job of this.jobs.values()) job.signal('SIGKILL');
  }

  /** bash `background: true`: starts the job, waits briefly for its first lines, and reports them. */
  async startForModel(command: string, ctx: ToolContext, profile: SandboxProfile): Promise<ToolOutput> {
    const running = [...this.jobs.values()].filter((j) => j.state.kind === 'running').length;
    if (running >= MAX_RUNNING) return toolError(`${running} jobs are running already; stop one with the job tool first`);
    const { id } = this.start(command, ctx, profile);
    const job = this.jobs.get(id)!;
    await Promise.race([job.closed, sleep(FIRST_LINES_MS)]);
    const output = `Started job ${id} in the background; use the job tool to read its output or stop it.\n${this.output(id)}`;
    const failed = job.state.kind === 'failed' || job.state.kind === 'killed' || (job.state.kind === 'exited' && job.state.code !== 0);
    if (failed) return { output, isError: true };
    // The interface says it runs, not that it is done; one that already ended says how.
    return { output, isError: false, summary: job.state.kind === 'running' ? { key: 'job', id } : { key: 'exit', code: 0, secs: 0 } };
  }
}

async function stopJobs(jobs: Job[]): Promise<void> {
  const live = jobs.filter((j) => j.signal('SIGTERM'));
  if (!live.length) return;
  const closed = Promise.all(live.map((j) => j.closed));
  await Promise.race([closed, sleep(KILL_GRACE_MS)]);
  // Unconditionally: a child that ignores SIGTERM and holds no pipe would otherwise outlive its job.
  for (const job of live) job.signal('SIGKILL');
  await Promise.race([closed, sleep(REAP_MS)]);
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Stops the jobs when the process ends: a synchronous SIGKILL on 'exit' (whatever calls
 * process.exit), and on each of `signals` a graceful stopAll, then exit with 128 + the signal
 * number; a second signal exits at once. Returns a function that removes the handlers.
 */
export function installExitHandlers(manager: JobManager, signals: readonly NodeJS.Signals[] = SIGNALS): () => void {
  let stopping = false;
  const onExit = () => manager.killNow();
  const onSignal = (signal: NodeJS.Signals) => {
    const code = 128 + (constants.signals[signal] ?? 0);
    if (stopping) process.exit(code);
    stopping = true;
    void manager.stopAll().finally(() => process.exit(code));
  };
  process.on('exit', onExit);
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    process.off('exit', onExit);
    for (const signal of signals) process.off(signal, onSignal);
  };
}

type JobArgs = { action: 'output' | 'stop' | 'list'; id?: number };

/** The `job` tool over `manager`. */
export function jobTool(manager: JobManager): Tool<JobArgs> {
  return {
    name: 'job',
    brief: 'output, stop or list background jobs',
    description:
      'Background jobs (bash with background: true). output: what a job printed since you last looked, and its state; stop: end it and its child processes; list: all jobs.',
    parameters: {
      type: 'object',
      properties: { action: { enum: ['output', 'stop', 'list'] }, id: { type: 'integer' } },
      required: ['action'],
      additionalProperties: false,
    },
    kind: 'meta',
    describe: (a) => ({ title: a.id === undefined ? a.action : `${a.action} ${a.id}` }),
    async run(args) {
      if (args.action === 'list') {
        const jobs = manager.list();
        if (!jobs.length) return { output: 'no background jobs' };
        return { output: jobs.map((j) => `${describeJob(j)}${j.unread ? ' (new output)' : ''}: ${j.command}`).join('\n') };
      }
      if (args.id === undefined) return toolError(`${args.action} needs the job id; list shows the jobs`);
      const missing = toolError(`no job ${args.id}; list shows the jobs`);
      if (args.action === 'stop' && !(await manager.stop(args.id))) return missing;
      const output = manager.output(args.id);
      return output === undefined ? missing : { output };
    },
  };
}
