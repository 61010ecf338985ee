// The agent as a library: a host owns tasks in one workspace, each a session wired by app.ts,
// started by submit and followed through status, a replayable event stream, its history and its
// result (the object of headless JSON); approvals are answered by id. The configuration is loaded
// once per host. Prints nothing and reads no terminal: the CLI, headless mode and ACP drive it.

import { wireApp, type App } from './app.js';
import { attempt, ConfigError, loadConfig, type AppConfig, type ConfigOptions } from './config.js';
import type { CliArgs } from './args.js';
import { RunTally, type RunResult } from './runresult.js';
import { explainError, explainEvent } from '../i18n/explain.js';
import { selectModel } from '../config/keys.js';
import { findCustom, parseSlash } from '../config/commands.js';
import { t } from '../i18n/index.js';
import type { AgentEvent } from '../types/events.js';
import type { Message } from '../types/conversation.js';
import type { JsonSchema, Usage } from '../types/providers.js';
import type { Approval, AskAnswer, PermissionMode, PlanVerdict } from '../types/permissions.js';

/** `idle`: opened and no message sent yet; after a message, how the last one ended. */
/** The result of a task's message: the object `feiyu -p --output-format json` prints. */
export type TaskResult = RunResult;

export type TaskState = 'idle' | 'running' | 'waiting_for_approval' | 'done' | 'failed' | 'cancelled';

export type TaskStatus = {
  id: string;
  state: TaskState;
  /** The permission mode now (an answer "auto" or an approved plan changes it). */
  mode: PermissionMode;
  /** Tool rounds over all of the task's messages. */
  rounds: number;
  /** Tokens of the session (a resumed session's earlier ones included). */
  usage: Usage;
  /** USD; null when a model's price is unknown. */
  cost: number | null;
  /** The questions waiting for answer(), by id. */
  pending: { id: string; approval: Approval }[];
};

/** How a task starts: a new session, or a saved one continued. */
export type TaskOptions = {
  /** For a new task: the permission mode, the model (a configured name), the round limit and structured output. */
  mode?: PermissionMode;
  model?: string;
  maxRounds?: number;
  outputSchema?: JsonSchema;
  /**
   * Continue a task: one of this host's (its id), or a saved session of the store (an id, or
   * `true` for the last one of this workspace). The task id stays the session's id.
   */
  resume?: true | string;
  /** With a saved session: continue in a new session that starts with its history. */
  fork?: boolean;
};

/**
 * A message. A prompt `/name args` naming one of the custom commands (.feiyu/commands, Claude
 * Code's .claude/commands) runs that command — its ! lines, @files, allowed-tools and model — as
 * `claude -p "/name"` does; anything else is sent as it is.
 */
export type SubmitOptions = TaskOptions & {
  prompt: string;
  /** Image files (or other files) attached to the message, as `-i` attaches them (not to a custom command). */
  images?: readonly string[];
  /** Notes for the model after the message (what the user ran with !command, an /undo). */
  context?: readonly string[];
};

export type EventsOptions = {
  /** 'start' (default): from the task's first event; 'message': from the first of its latest message; 'now': what comes next. */
  from?: 'start' | 'message' | 'now';
  /** Go on past the end of the running message, through later ones, until the host closes. */
  follow?: boolean;
};

/**
 * A host of tasks. Contract: a task id is its session id; events(id) replays from the task's
 * first event; wait(id) resolves with the last message's result, never rejects for a failed run.
 */
export interface Host {
  readonly root: string;
  /** Sends a message: to a new task, or with `resume` to a task to continue. Resolves with the task id once it runs. */
  submit(o: SubmitOptions): Promise<string>;
  /** Opens a task without a message (an editor's new session); submit with `resume: id` sends to it. */
  open(o?: TaskOptions): Promise<string>;
  status(id: string): TaskStatus;
  events(id: string, o?: EventsOptions): AsyncIterableIterator<AgentEvent>;
  history(id: string): Message[];
  wait(id: string): Promise<TaskResult>;
  cancel(id: string): boolean;
  answer(id: string, approvalId: string, decision: AskAnswer | PlanVerdict): boolean;
  /** The session's app, for an interface that drives more than messages (the REPL's commands). */
  app(id: string): App;
  close(): Promise<void>;
}

type Task = {
  app: App;
  /** The events kept for replay; `log[0]` is the task's event number `base`. */
  log: AgentEvent[];
  base: number;
  /** Where each open events() iterator is (event numbers): nothing they have not read is let go. */
  readers: Set<{ next: number }>;
  wake: Set<() => void>;
  state: TaskState;
  rounds: number;
  pending: Map<string, Approval>;
  /** Counts usage, turns and refusals over the task's life, for each message's result. */
  tally: RunTally;
  /** The event number where the latest message's events start. */
  messageStart: number;
  run?: { controller: AbortController; done: Promise<TaskResult> };
  result?: TaskResult;
  closed: boolean;
};

/** How a host runs its tasks' messages. */
export type HostRun = {
  /** Each message waits for the MCP servers (started then, if not yet): a caller with no prompt to show first (a program, an editor). */
  waitForMcp?: boolean;
  /**
   * 'start' (default): events(id) replays from the task's first event. 'message': only from the
   * latest message's, so a long session (the REPL: its history is in the session file) keeps no
   * event of earlier messages once every reader has passed them.
   */
  replay?: 'start' | 'message';
};

/** A host over command-line arguments and the files (the CLI), or a library caller's overrides. */
export async function openHost(args: CliArgs, opts: ConfigOptions, run: HostRun = {}): Promise<Host> {
  return hostOver(await loadConfig(args, opts), run);
}

function hostOver(config: AppConfig, run: HostRun): Host {
  const tasks = new Map<string, Task>();
  let closing = false;
  // A task keeps the id it started with; an interface that starts its conversation over (/clear)
  // or switches to another (/resume) reaches it by its session's id too.
  const find = (id: string): Task | undefined => tasks.get(id) ?? [...tasks.values()].find((each) => each.app.session.id === id);
  const task = (id: string): Task => {
    const found = find(id);
    if (!found) throw new ConfigError(t('host.no_task', { id }));
    return found;
  };
  const push = (task: Task, event: AgentEvent) => {
    task.log.push(event);
    wakeAll(task);
  };

  async function open(o: TaskOptions): Promise<Task> {
    if (closing) throw new ConfigError(t('host.closed'));
    const live = typeof o.resume === 'string' ? find(o.resume) : undefined;
    if (live) {
      if (live.run) throw new ConfigError(t('host.busy', { id: o.resume as string }));
      if (o.mode) live.app.setMode(o.mode);
      if (o.model) live.app.setModel(o.model);
      return live;
    }
    const app = await wireApp({
      ...config,
      mode: o.mode ?? config.mode,
      model: o.model === undefined ? config.model : attempt(() => selectModel(config.models, o.model)),
      pinned: { mode: config.pinned.mode || o.mode !== undefined, model: config.pinned.model || o.model !== undefined },
      maxRounds: o.maxRounds ?? config.maxRounds,
      outputSchema: o.outputSchema ?? config.outputSchema,
      resume: o.resume,
      forkSession: o.fork === true,
    });
    const tally = new RunTally(app.root, (name) => app.models.models.find((m) => m.name === name));
    const created: Task = { app, log: [...app.notices], base: 0, readers: new Set(), wake: new Set(), state: 'idle', rounds: 0, pending: new Map(), tally, messageStart: 0, closed: false };
    app.on((event) => {
      tally.on(event);
      // What the user is told (a failed run's result text) is counted whether or not anyone prints it.
      const said = event.type === 'error' ? explainError(event.error, app.model) : explainEvent(event, true);
      if (said) tally.said(said);
      if (event.type === 'approval') {
        created.pending.set(event.id, event.approval);
        created.state = 'waiting_for_approval';
      }
      if (event.type === 'turn_end') created.rounds += event.rounds;
      push(created, event);
    });
    tasks.set(app.session.id, created);
    return created;
  }

  function start(task: Task, o: SubmitOptions): void {
    const controller = new AbortController();
    task.state = 'running';
    task.pending.clear();
    task.messageStart = task.base + task.log.length;
    if (run.replay === 'message') letGo(task);
    const done = (async () => {
      let turn: Awaited<ReturnType<App['send']>> = null;
      try {
        if (run.waitForMcp) await task.app.mcp?.ready();
        turn = await send(task.app, o, controller.signal);
      } catch (err) {
        task.tally.said(err instanceof Error ? err.message : String(err));
      }
      const result = task.tally.result(turn, task.app.session.id, t('headless.failed'));
      task.state = turn?.stopReason === 'end' ? 'done' : turn?.stopReason === 'aborted' ? 'cancelled' : 'failed';
      task.pending.clear();
      task.result = result;
      task.run = undefined;
      wakeAll(task);
      return result;
    })();
    task.run = { controller, done };
  }

  const host: Host = {
    root: config.root,
    async submit(o) {
      const target = await open(o);
      start(target, o);
      return target.app.session.id;
    },
    open: async (o = {}) => (await open(o)).app.session.id,
    status(id) {
      const { app, state, rounds, pending } = task(id);
      const { input, output, cacheRead, cacheWrite, cost, costUnknown } = app.agent.totals;
      const usage = { input, output, cacheRead, cacheWrite };
      return { id, state, mode: app.mode, rounds, usage, cost: costUnknown ? null : cost, pending: [...pending].map(([key, approval]) => ({ id: key, approval })) };
    },
    events(id, o = {}) {
      const found = task(id);
      const from = o.from === 'message' ? found.messageStart : o.from === 'now' ? found.base + found.log.length : 0;
      // Counted from now, not from the first read: what comes before that read is kept for it.
      const reader = { next: Math.max(from, found.base) };
      found.readers.add(reader);
      return follow(found, reader, o.follow === true);
    },
    history: (id) => structuredClone(task(id).app.agent.messages) as Message[],
    async wait(id) {
      const found = task(id);
      if (!found.run && !found.result) throw new ConfigError(t('host.no_message', { id }));
      return found.run ? found.run.done : found.result!;
    },
    cancel(id) {
      const { run } = task(id);
      if (!run || run.controller.signal.aborted) return false;
      run.controller.abort();
      return true;
    },
    answer(id, approvalId, decision) {
      const found = task(id);
      if (!found.app.answer(approvalId, decision)) return false;
      found.pending.delete(approvalId);
      if (!found.pending.size && found.run) found.state = 'running';
      return true;
    },
    app: (id) => task(id).app,
    async close() {
      closing = true;
      for (const each of tasks.values()) each.run?.controller.abort();
      await Promise.all([...tasks.values()].map(async (each) => {
        await each.run?.done;
        await each.app.close();
        each.closed = true;
        wakeAll(each);
      }));
    },
  };
  return host;
}

/** One message to the app: a custom command run as one, anything else sent with its images. */
function send(app: App, o: SubmitOptions, signal: AbortSignal): ReturnType<App['send']> {
  const context = [...(o.context ?? [])];
  const slash = parseSlash(o.prompt);
  const custom = slash && findCustom(app.markdown.commands.commands, slash.name);
  if (custom) return app.runCommand(custom, slash.arg ?? '', signal, context);
  return app.send([o.prompt, ...context].join('\n\n'), signal, { images: o.images ?? [] });
}

function wakeAll(task: Task): void {
  const waiting = [...task.wake];
  task.wake.clear();
  for (const wake of waiting) wake();
}

/**
 * The task's events from the reader's position; ends with the running message (or, following,
 * with the host). Until the iterator ends, what the reader has not read is kept.
 */
async function* follow(task: Task, reader: { next: number }, keepGoing: boolean): AsyncIterableIterator<AgentEvent> {
  try {
    for (;;) {
      while (reader.next < task.base + task.log.length) yield task.log[reader.next++ - task.base]!;
      if (task.closed || (!keepGoing && !task.run)) return;
      await new Promise<void>((resolve) => task.wake.add(resolve));
    }
  } finally {
    task.readers.delete(reader);
  }
}

/** Lets go of the events before the latest message that every reader has passed. */
function letGo(task: Task): void {
  const keepFrom = Math.min(task.messageStart, ...[...task.readers].map((r) => r.next));
  if (keepFrom <= task.base) return;
  task.log.splice(0, keepFrom - task.base);
  task.base = keepFrom;
}
