// The running application: the configuration (config.ts) and the state (state.ts) wired to the
// agent, its tools, the permission step, hooks, the session file and the trace, behind the App
// interface that the REPL and headless mode drive. One event stream carries the loop's events
// and the app's own; a question for the user is an event answered by id (App.answer).

import { version } from '../util/version.js';
import { Agent, type Totals, type TurnResult } from '../core/agent.js';
import type { CliArgs } from './args.js';
import { claudeMode } from '../hooks/protocol.js';
import { wireHooks } from './hookwiring.js';
import { t } from '../i18n/index.js';
import { JobManager } from '../tools/jobs.js';
import { loadModels, selectModel, type LoadedModels } from '../config/keys.js';
import { loadMemory } from '../tools/memory.js';
import { Emitter } from '../util/emitter.js';
import { ApprovalDesk, approvalStep } from './approval.js';
import { attempt, ConfigError, fileNotice, loadConfig, SessionBusyError, type AppConfig, type ConfigOptions } from './config.js';
import { loadConventions, type Conventions } from '../config/conventions.js';
import { systemPrompt } from '../core/prompt.js';
import { createProvider } from '../providers/stream.js';
import { createGitFacts } from './gitfacts.js';
import { loadSession, restoreFiles, SessionWriter, type WriterEvents } from '../session/store.js';
import { findLastSession, findSession } from '../session/listing.js';
import { TodoList, TodoReminder } from '../tools/todo.js';
import { buildTools } from './toolset.js';
import { Specialists } from './specialists.js';
import { sessionLauncher } from './launchers.js';
import { linkCodeIndex, type CodeIndexLink, type CodeIndexSetting } from './codeindex.js';
import { openTrace, pruneLogs } from '../session/trace.js';
import { AppState } from './state.js';
import { ModeNotes } from './modenotes.js';
import type { ToolTable } from '../core/tooltable.js';
import type { AgentEvent, NoticeCode, NoticeEvent } from '../types/events.js';
import type { AskAnswer, PermissionMode, PlanVerdict, SandboxLevel } from '../types/permissions.js';
import type { FileVersion, Tool, ToolSession } from '../types/tools.js';
import type { Message } from '../types/conversation.js';
import type { ModelConfig, Provider } from '../types/providers.js';
import { recordGroupsIn, reapOrphanGroups } from '../util/groups.js';
import { sweepTemps } from '../util/paths.js';
import { dirname } from 'node:path';
import { loadLanguage } from '../util/treesitter.js';

export { version };

/** What the interface reads of the loop, and /compact. */
export type LoopView = {
  readonly totals: Readonly<Totals>;
  readonly messages: readonly Message[];
  /** The system prompt as sent now, the list of cold tools included. */
  prompt(): string;
  /** The tools in tiers: hot, cold and loaded, with their costs. */
  readonly tools: Pick<ToolTable, 'rows' | 'declared' | 'loaded' | 'deferring' | 'keys'>;
  compact: Agent['compact'];
};

/**
 * A running feiyu session, whatever drives it. Contract: every change of mode, model and sandbox
 * goes through its setters; questions for the user arrive as `approval` events and are answered
 * with answer(); nothing else reaches into the loop.
 */
export interface App {
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stateDir: string;
  /** What to show before the first prompt, in order. Later notices come on the event stream. */
  readonly notices: readonly NoticeEvent[];
  /** The conventions file as loaded at start-up. */
  readonly conventions: Conventions | undefined;
  readonly agent: LoopView;
  readonly todo: TodoList;
  readonly jobs: JobManager;
  /** Read-before-write records: /undo takes back what it restores. */
  readonly files: Map<string, FileVersion>;
  readonly session: { readonly id: string };
  readonly mode: PermissionMode;
  /** --permission-mode acceptEdits: edits in the workspace are allowed (Claude's name for the mode then). */
  readonly acceptEdits: boolean;
  readonly model: ModelConfig;
  readonly models: LoadedModels;
  readonly sandbox: { level: SandboxLevel; off?: { reason: string; detail: string } };
  /** The specialists (/agents), their models and what each spent this session (/cost). */
  readonly specialists: Pick<Specialists, 'agents' | 'spend' | 'modelOf' | 'notes'>;
  /** Subscribes to the one event stream (the loop's and the app's); returns the unsubscribe function. */
  on(listener: (event: AgentEvent) => void): () => void;
  /**
   * Sends one user message: UserPromptSubmit hooks first (they may block it or add context),
   * then the agent. Null when it could not be sent (no model, a hook blocked it: a notice says why).
   */
  send(text: string, signal: AbortSignal): Promise<TurnResult | null>;
  /** Answers the `approval` event `id`; false when nothing waits under that id. */
  answer(id: string, answer: AskAnswer | PlanVerdict): boolean;
  setMode(mode: PermissionMode): void;
  /** Switches the model for this session; throws ConfigError for an unknown name. */
  setModel(name: string): void;
  /** Changes the sandbox level; false when the start-up probe turned it off for good. */
  setSandbox(level: SandboxLevel): boolean;
  /**
   * Continues a saved session: `true` for the last one of this directory. With `fork`, as a new
   * session that starts with its history (the original is left as it is). Throws ConfigError,
   * SessionBusyError when another feiyu has the session open.
   */
  resume(which: true | string, opts?: { fork?: boolean }): Promise<void>;
  /** Reads the conventions file and the remembered notes into the system prompt again (/context); `unreadable`: candidates passed over. */
  reloadContext(): Promise<{ conventions?: Conventions; memory: string; unreadable: NoticeEvent[] }>;
  /** A new conversation (/clear): this session's file deleted; history, totals, todo and read records cleared. */
  newSession(): void;
  /** Reads keys.json again after /key changed it; the current model stays until setModel. */
  reloadModels(): void;
  /** The code index, when the settings and the workspace turn it on (for /index); null when off. */
  readonly codeIndex: CodeIndexLink | null;
  readonly codeIndexSetting: CodeIndexSetting;
  /** Stops what the session started and closes the files. */
  close(): Promise<void>;
}

export async function createApp(args: CliArgs, opts: ConfigOptions): Promise<App> {
  return wire(await loadConfig(args, opts));
}

const SCHEMA_PROMPT = 'When the task is done, call submit_result with the final answer; do not answer in plain text.';

async function wire(config: AppConfig): Promise<App> {
  const { root, stateDir } = config;
  // Notices raised while starting wait in `notices`: the interface subscribes once the app exists.
  const events = new Emitter<AgentEvent>();
  const notices = [...config.notices];
  let starting = true;
  const notify = (code: NoticeCode, params?: NoticeEvent['params']) => {
    const notice: NoticeEvent = params ? { type: 'notice', code, params } : { type: 'notice', code };
    if (starting) notices.push(notice);
    else events.emit(notice);
  };
  const warnIfUnsandboxed = () => {
    if (state.mode !== 'auto' || state.sandbox !== 'off') return;
    const off = state.sandboxOff;
    notify('auto_unsandboxed', off ? { why: off.reason, detail: off.detail } : { why: 'flag' });
  };
  const state = new AppState({ mode: config.mode, model: config.model, models: config.models, sandbox: config.sandbox }, config.sandboxOff, (what) => {
    if (what === 'mode') {
      session.saveState({ mode: state.mode });
      modeNotes.update(state.mode);
      warnIfUnsandboxed();
    }
    if (what === 'model') {
      agent.provider = createProvider(state.model, config.providerOptions);
      session.saveState({ model: state.model.name });
    }
  });
  warnIfUnsandboxed();

  const jobs = new JobManager();
  // Without the sandbox, commands are still contained when bwrap works (the `off` launcher); when
  // it does not, their process groups are recorded, and what a killed feiyu left is stopped here.
  if (!config.sandboxContain) recordGroupsIn(stateDir);
  const reaped = reapOrphanGroups(stateDir);
  if (reaped) notify('groups_reaped', { n: reaped });
  // The level in force when the command runs: /sandbox changes it between calls.
  const wrapCommand = sessionLauncher(config, () => state.sandbox);
  const ctx: ToolSession = { root, files: new Map(), shell: { cwd: root }, env: config.childEnv, provider: () => agent.provider, wrapCommand, jobs };
  const desk = config.interactive ? new ApprovalDesk((event) => events.emit(event)) : undefined;
  const decide = approvalStep({
    policyInput: () => ({ mode: state.mode, rules: config.rules, root, home: config.home, configDir: config.configDir, cwd: ctx.shell.cwd, path: config.childEnv.PATH }),
    desk,
    approvalsFile: config.approvalsFile,
    setMode: (mode) => state.setMode(mode),
    // git runs as a read-only command would, under the level in force when it asks.
    facts: createGitFacts(wrapCommand, config.childEnv),
  });
  const todo = new TodoList((items) => session.saveState({ todo: items }));
  const reminder = new TodoReminder(todo);
  const hooks = attempt(() =>
    wireHooks({
      hooks: config.hooks,
      verify: config.verify,
      root,
      session: () => ({ id: session.id, file: session.file }),
      mode: () => claudeMode(state.mode, config.acceptEdits),
      env: config.env,
      emit: (event) => events.emit(event),
      decide,
      interactive: config.interactive,
    }),
  );
  const { agents, sideModel, providerOptions } = config;
  const specialists = new Specialists({ agents, sideModel, providerOptions, main: (): Provider => agent.provider, models: () => state.models, sessionFile: () => session.file });
  /** The code index's tools, once it has loaded (an optional module). */
  const indexTools: Tool[] = [];
  const tools = buildTools({
    allowPrivate: config.allowPrivate,
    sideProvider: () => specialists.sideProvider(),
    // A specialist's calls pass the same hooks and permission step as the main agent's.
    delegate: specialists.taskOptions({ mode: () => state.mode, gate: (name) => ({ before: hooks.decisionFor(name), after: hooks.afterToolCall }), onStop: hooks.subagentStop, report: (event) => events.emit(event) }),
    jobs,
    todo,
    stateDir,
    laterTools: () => indexTools,
    plan: {
      approvePlan: desk && (async (plan, signal) => (await desk.ask({ kind: 'plan', plan }, signal)) ?? { approved: false }),
      restoreMode: () => {
        modeNotes.approved();
        state.leavePlanMode();
      },
      inPlanMode: () => state.mode === 'plan',
    },
  });
  for (const notice of specialists.problems([...tools.map((t) => t.name), 'git_read'])) notify(notice.code, notice.params);
  const buildSystem = (c: Conventions | undefined, notes: string) => {
    const prompt = systemPrompt(root, c, [...(notes ? [notes] : []), ...(config.outputSchema ? [SCHEMA_PROMPT] : [])], config.systemPrompt);
    return config.appendSystemPrompt ? `${prompt}\n\n${config.appendSystemPrompt}` : prompt;
  };
  const agent = new Agent({
    provider: createProvider(state.model, config.providerOptions),
    tools,
    system: buildSystem(config.conventions, config.memory),
    ctx,
    maxRounds: config.maxRounds,
    beforeToolCall: hooks.beforeToolCall,
    afterToolCall: hooks.afterToolCall,
    beforeCompact: (trigger, focus, signal) => hooks.runner.preCompact(trigger, focus, signal),
    onStop: async (text, signal) => {
      const open = todo.open().length;
      const back = reminder.check();
      if (back) {
        notify('todo_reminded', { n: open });
        return back;
      }
      const hook = await hooks.stop(text, signal);
      if (hook) notify('stop_hook_sent_back', { reason: hook.reason });
      return hook?.message ?? null;
    },
    todo: () => (todo.items.length ? todo.render() : undefined),
    outputSchema: config.outputSchema,
    deferral: config.deferral,
    summaryProvider: (): Provider | undefined => specialists.sideProvider(),
  });
  agent.on((event) => events.emit(event));
  const modeNotes = new ModeNotes(agent);
  modeNotes.update(state.mode);
  const codeIndex = linkCodeIndex({
    setting: config.codeIndex,
    root,
    stateDir,
    env: config.env,
    addTools: (more) => {
      indexTools.push(...more);
      agent.tools.add(more);
    },
    onEvent: (listener) => agent.on(listener),
    notify,
    announce: config.interactive,
  });

  // Consumers of the event stream: the session file and the trace.
  const writeEvents = (kind: 'session' | 'trace'): WriterEvents => ({
    onError: (err) => notify(`${kind}_write_failed`, { msg: err.message, file: kind === 'session' ? session.file : '' }),
    onRecovered: () => notify(`${kind}_write_recovered`),
  });
  const newWriter = () => SessionWriter.create(stateDir, root, state.model.name, writeEvents('session'));
  let session = newWriter();
  /** The one writer of `session`: a resumed or a new conversation. */
  const useSession = (next: SessionWriter, saved?: unknown, from?: string) => {
    if (next !== session) session.close();
    session = next;
    specialists.follow(saved, from);
  };
  if (config.env.FEIYU_NO_LOG !== '1') pruneLogs(stateDir);
  const trace = openTrace({ stateDir, root, env: config.env, model: state.model.name, version: version(), mode: state.mode, ...writeEvents('trace') });
  events.on((event) => {
    if (event.type === 'turn_start') reminder.resetForTurn();
    hooks.onEvent(event);
    // The bash grammar (tens of ms to load) loads while the model is still writing the command.
    if (event.type === 'toolcall_start' && event.name === 'bash') loadLanguage('bash').catch(() => {});
    trace?.write(event);
    session.onEvent(event);
    if (event.type === 'tools_loaded') session.saveState({ tools: event.names });
    specialists.onEvent(event, { save: (spend) => session.saveState({ specialists: spend }), note: (text) => agent.note(text) });
    if (event.type === 'usage' || event.type === 'turn_end') session.saveState({ model: state.model.name, mode: state.mode, totals: agent.totals, files: ctx.files });
  });

  const app: App = {
    root,
    env: config.env,
    stateDir,
    notices,
    conventions: config.conventions,
    agent,
    todo,
    jobs,
    files: ctx.files,
    get session() {
      return session;
    },
    get mode() {
      return state.mode;
    },
    acceptEdits: config.acceptEdits,
    get model() {
      return state.model;
    },
    get models() {
      return state.models;
    },
    get sandbox() {
      return { level: state.sandbox, off: state.sandboxOff };
    },
    specialists,
    on: (listener) => events.on(listener),
    async send(text, signal) {
      if (!state.configured) {
        notify('no_model');
        return null;
      }
      // The code index decides whether it is on within moments of its start: its tools are in the first request or never.
      codeIndex?.start();
      await codeIndex?.settled;
      const gate = await hooks.prompt(text, signal);
      if ('block' in gate) {
        notify('prompt_blocked', { reason: gate.block });
        return null;
      }
      return agent.send(gate.text, signal);
    },
    answer: (id, answer) => desk?.answer(id, answer) ?? false,
    setMode: (mode) => state.setMode(mode),
    setModel: (name) => state.setModel(attempt(() => selectModel(state.models, name))),
    setSandbox: (level) => state.setSandbox(level),
    async resume(which, opts = {}) {
      const file = which === true ? findLastSession(stateDir, root) : findSession(stateDir, which);
      if (!file) throw new ConfigError(which === true ? t('resume.none') : t('resume.not_found', { id: which }));
      const loaded = attempt(() => loadSession(file));
      // The resumed file first: the model and mode restored below are saved to it, not to the old one.
      // A fork is a new file that starts with the history (the original stays as it is).
      const opened = opts.fork ? newWriter() : SessionWriter.open(file, loaded.state, writeEvents('session'));
      if ('busy' in opened) throw new SessionBusyError(loaded.header.id, opened.pid);
      useSession(opened, loaded.state.specialists, opts.fork ? file : undefined);
      if (opts.fork) {
        for (const message of loaded.messages) opened.onEvent({ type: 'message', message });
        notify('resume_forked', { from: loaded.header.id, id: opened.id });
      }
      agent.reset(loaded.messages, loaded.state.totals ?? {});
      const tools = loaded.state.tools;
      agent.tools.restore(Array.isArray(tools) ? tools.filter((n): n is string => typeof n === 'string') : []);
      modeNotes.forget();
      const saved = loaded.state.model ?? loaded.header.model;
      if (saved && saved !== state.model.name && state.models.models.some((m) => m.name === saved) && !config.pinned.model) {
        app.setModel(saved);
        notify('resume_model', { name: state.model.name, id: state.model.model });
      }
      if (loaded.state.mode && !config.pinned.mode && loaded.state.mode !== state.mode) state.setMode(loaded.state.mode);
      modeNotes.update(state.mode);
      if (loaded.state.todo) todo.restore(loaded.state.todo);
      ctx.files.clear();
      // Temporary files a killed feiyu left where the session worked are removed.
      const records = loaded.state.files ?? {};
      await Promise.all([...new Set(Object.keys(records).map(dirname))].map(sweepTemps));
      const changed = await restoreFiles(records, ctx.files);
      if (opts.fork) session.saveState({ model: state.model.name, mode: state.mode, todo: todo.items.length ? todo.items : undefined, totals: agent.totals, files: ctx.files });
      if (loaded.skipped) notify('session_skipped', { n: loaded.skipped });
      if (changed.length) notify('files_changed', { n: changed.length });
    },
    async reloadContext() {
      const { conventions: fresh, unreadable } = await loadConventions(root);
      const notes = loadMemory(stateDir, root).text;
      agent.system = buildSystem(fresh, notes);
      return { conventions: fresh, memory: notes, unreadable: unreadable.map(fileNotice) };
    },
    newSession() {
      hooks.cleared();
      session.delete();
      specialists.notes.delete();
      agent.reset();
      modeNotes.forget();
      modeNotes.update(state.mode);
      ctx.files.clear();
      todo.restore([]);
      useSession(newWriter());
    },
    reloadModels() {
      const fresh = attempt(() => loadModels(config.env));
      state.setModels(fresh);
      // The first model added takes over from the stand-in at once.
      if (!state.configured && fresh.models.length) app.setModel(fresh.defaultName);
    },
    codeIndex,
    codeIndexSetting: config.codeIndex,
    async close() {
      await hooks.close();
      await jobs.stopAll();
      await codeIndex?.close();
      trace?.close();
      session.close();
    },
  };
  if (config.resume) await app.resume(config.resume, { fork: config.forkSession });
  starting = false;
  hooks.start(config.resume !== undefined);
  return app;
}
