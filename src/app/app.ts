// The running application: configuration loaded and checked once, then the agent wired to its
// tools, its permission policy, the sandbox, the session file and the trace. The REPL and
// headless mode drive an App; cli.ts only parses arguments and picks one of them.

import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sweepTemps } from '../util/paths.js';
import { version } from '../util/version.js';
import { Agent } from '../core/agent.js';
import type { CliArgs } from './args.js';
import { filterEnv } from '../safety/envfilter.js';
import { createHookRunner } from '../hooks/runner.js';
import { t, type MessageKey } from '../i18n/index.js';
import { JobManager } from '../tools/jobs.js';
import { ConfigError as KeysError, configDir, loadModels, selectModel, stateDir, type LoadedModels } from '../config/keys.js';
import { loadMemory, MEMORY_CAP } from '../tools/memory.js';
import { fileNotice, hookNotice, type Notice } from './notices.js';
import { FileReadError } from '../util/readfile.js';
import { createPolicy, type AskAnswer, type AskRequest } from '../safety/policy.js';
import type { PlanVerdict } from '../tools/plan.js';
import { loadConventions, systemPrompt, type Conventions } from '../core/prompt.js';
import { createProvider } from '../providers/stream.js';
import { makeWrapCommand, probeSandbox } from '../safety/sandbox.js';
import { containCommand, probeContainment } from '../safety/contain.js';
import { recordGroupsIn, reapOrphanGroups } from '../util/groups.js';
import { loadSession, SessionError, SessionWriter, type WriterEvents } from '../session/store.js';
import { findLastSession, findSession, restoreFiles } from '../session/list.js';
import { loadSettings } from '../config/settings.js';
import { TodoList, TodoReminder } from '../tools/todo.js';
import { buildTools, promptExtras } from './toolset.js';
import { openTrace, pruneLogs, type Trace } from '../session/trace.js';
import { effectiveSettings, projectTrustState, trustProject } from '../config/trust.js';
import type { AgentEvent, JsonSchema, ModelConfig, PermissionMode, SandboxLevel, ToolContext } from '../types.js';

/** A problem with the configuration or the command line, already in the user's words: exit 2. */
export class ConfigError extends Error {}

/** The session asked for is open in another feiyu process; it can be continued as a copy (a fork). */
export class SessionBusyError extends ConfigError {
  constructor(
    readonly id: string,
    readonly pid: number,
  ) {
    super(t('session.busy', { id, pid }));
  }
}

export type { Notice } from './notices.js';

export type AppOptions = {
  env: NodeJS.ProcessEnv;
  /** Interactive: start even with no model configured, so /key add can add one. */
  allowNoModel?: boolean;
  /** Asks the user whether to trust the project (interactive only); absent = do not ask. */
  askTrust?: (whatWouldRun: string[]) => Promise<boolean>;
  outputSchema?: JsonSchema;
};

export { version };

export type App = Awaited<ReturnType<typeof createApp>>;

/** The stand-in model of a REPL started with nothing configured; app.send refuses to use it. */
const UNCONFIGURED: ModelConfig = { name: '—', provider: 'anthropic', model: '/key add', contextWindow: 200_000, maxOutputTokens: 4096 };

function configError(err: unknown): ConfigError {
  if (err instanceof FileReadError) return new ConfigError(t(fileNotice(err).key, fileNotice(err).params));
  if (err instanceof KeysError) return new ConfigError(t(`cfg.${err.code}` as MessageKey, err.params));
  if (err instanceof SessionError) return new ConfigError(t(`session.${err.code}` as MessageKey, err.params));
  return new ConfigError(err instanceof Error ? err.message : String(err));
}

function attempt<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw configError(err);
  }
}

export async function createApp(args: CliArgs, opts: AppOptions) {
  const { env } = opts;
  // The sandbox probe is a process of its own: start it first, so it runs while config loads.
  const probing = args.sandbox === 'off' ? Promise.resolve(undefined) : probeSandbox();
  // Commands run unsandboxed are still contained when bwrap works (it does when the sandbox does).
  const containing = probing.then((p) => p?.ok || (p === undefined && probeContainment()));
  const root = await realpath(args.cwd ?? process.cwd()).catch((err: Error) => {
    throw new ConfigError(err.message);
  });
  const config = configDir(env);
  const state = stateDir(env);
  const settings = attempt(() => loadSettings(root, env));
  const models: LoadedModels = attempt(() => loadModels(env));
  if (!models.models.length && !opts.allowNoModel) throw new ConfigError(t('cli.no_model', { file: `${config}/keys.json` }));
  // With nothing configured the REPL still starts, on a stand-in that sends nothing, until /key add.
  let configured = models.models.length > 0;
  let model: ModelConfig = configured ? attempt(() => selectModel(models, args.model)) : UNCONFIGURED;

  // Temporary files a killed feiyu left mid-write are removed: here, and where a resumed session worked.
  const [loadedConventions, probe, containable] = await Promise.all([loadConventions(root), probing, containing, sweepTemps(root)]);
  const conventions = loadedConventions.conventions;
  const notices: Notice[] = configured ? [] : [{ key: 'cli.no_model_repl' }];
  notices.push(...loadedConventions.unreadable.map(fileNotice));
  if (models.exposed) notices.push({ key: models.exposed.fixed ? 'keys.mode_fixed' : 'keys.mode_open', params: { file: models.exposed.file, mode: models.exposed.mode } });

  // Trust: a project's own hooks, verify: and allow rules wait for the user's yes.
  const trust = attempt(() => projectTrustState(root, config, { settings: settings.project, verify: conventions?.verify ? [conventions.verify] : [] }));
  let trusted = trust.trusted;
  if (!trusted && (args.trust || (await opts.askTrust?.(trust.whatWouldRun)))) {
    trustProject(root, config, trust.hash);
    trusted = true;
  }
  if (!trusted) notices.push({ key: 'trust.ignored' });
  const effective = effectiveSettings(settings, trusted);

  let mode: PermissionMode = args.mode ?? effective.merged.mode ?? 'default';
  /** Where exit_plan returns to: the mode before plan mode. */
  let modeBeforePlan: PermissionMode = mode === 'plan' ? 'default' : mode;
  const changeMode = (m: PermissionMode) => {
    if (m === 'plan' && mode !== 'plan') modeBeforePlan = mode;
    mode = m;
    session.saveState({ mode });
    if (mode === 'auto' && sandbox === 'off') notify(unsandboxedWarning());
  };
  const unsandboxedWarning = (): Notice => ({ key: 'sandbox.auto_unsandboxed', params: { why: sandboxOff ? t(sandboxOff.key, sandboxOff.params) : '--sandbox off' } });
  let sandbox: SandboxLevel = args.sandbox ?? effective.merged.sandbox ?? 'workspace';
  let sandboxOff: Notice | undefined;
  if (probe && !probe.ok) {
    sandboxOff = { key: `sandbox.${probe.reasonCode}` as MessageKey, params: { detail: probe.detail } };
    sandbox = 'off';
  }

  if (mode === 'auto' && sandbox === 'off') notices.push(unsandboxedWarning());
  const childEnv = filterEnv(env);
  const wrap = (level: SandboxLevel) => makeWrapCommand(level, { root, home: env.HOME, configDir: config }) ?? (containable ? containCommand : undefined);
  // Without containment, the process groups of commands are recorded, and what a killed feiyu left is stopped here.
  if (!containable) recordGroupsIn(state);
  const reaped = reapOrphanGroups(state);
  if (reaped) notices.push({ key: 'jobs.reaped', params: { n: reaped } });
  const ctx: ToolContext = { root, signal: new AbortController().signal, files: new Map(), shellCwd: root, env: childEnv, wrapCommand: wrap(sandbox) };

  const asker: { ask?: (req: AskRequest, signal: AbortSignal) => Promise<AskAnswer> } = {};
  const policy = attempt(() =>
    createPolicy({
      getMode: () => mode,
      setMode: changeMode,
      root,
      home: env.HOME ?? '',
      configDir: config,
      rules: { allow: effective.allow, deny: effective.deny },
      getShellCwd: () => ctx.shellCwd,
      path: childEnv.PATH,
      ask: args.print ? undefined : (req, signal) => (asker.ask ? asker.ask(req, signal) : Promise.resolve({ answer: 'no' as const })),
    }),
  );

  const listeners = new Set<(n: Notice) => void>();
  // Until the interface listens (during start-up), notices wait with the start-up ones.
  const notify = (n: Notice) => (listeners.size ? listeners.forEach((l) => l(n)) : notices.push(n));
  const jobs = new JobManager();
  jobs.attach(ctx);
  const todo = new TodoList((items) => session.saveState({ todo: items }));
  const reminder = new TodoReminder(todo);
  const memory = loadMemory(state, root);
  if (memory.dropped) notices.push({ key: 'memory.dropped', params: { n: memory.dropped, cap: MEMORY_CAP } });
  const planner: { approve?: (plan: string, signal: AbortSignal) => Promise<PlanVerdict> } = {};
  const hooks = attempt(() =>
    createHookRunner({
      hooks: effective.hooks,
      verify: trusted && conventions?.verify ? [conventions.verify, ...effective.verify] : effective.verify,
      root,
      sessionId: () => session.id,
      env,
      onNotice: (n) => notify(hookNotice(n)),
    }),
  );
  const tools = buildTools({
    allowPrivate: effective.merged.webFetch?.allowPrivate ?? [],
    policy,
    jobs,
    todo,
    stateDir: state,
    plan: {
      approvePlan: args.print ? undefined : (plan, signal) => planner.approve?.(plan, signal) ?? Promise.resolve({ approved: false }),
      restoreMode: () => changeMode(modeBeforePlan),
      inPlanMode: () => mode === 'plan',
    },
  });
  const extra = opts.outputSchema ? ['When the task is done, call submit_result with the final answer; do not answer in plain text.'] : [];
  const buildSystem = (c: Conventions | undefined, notes: string) => systemPrompt(root, c, promptExtras(notes, extra));
  const agent = new Agent({
    provider: createProvider(model),
    tools,
    system: buildSystem(conventions, memory.text),
    ctx,
    maxRounds: args.maxRounds,
    beforeToolCall: async (call, tool, signal) => (await hooks.preToolUse(call, signal)) ?? policy(call, tool, signal),
    afterToolCall: (call, _tool, result, signal) => hooks.postToolUse(call, result, signal),
    onStop: async (text, signal) => {
      const open = todo.open().length;
      const back = reminder.check();
      if (back) {
        notify({ key: 'todo.reminded', params: { n: open } });
        return back;
      }
      const reason = await hooks.stop(text, signal);
      if (reason) notify({ key: 'hook.sent_back', params: { reason } });
      return reason;
    },
    todo: () => (todo.items.length ? todo.render() : undefined),
    outputSchema: opts.outputSchema,
  });
  ctx.provider = () => agent.provider;

  // Consumers of the event stream: the session file and the trace.
  const writeEvents = (kind: 'session' | 'trace'): WriterEvents => ({
    onError: (err) => notify({ key: `${kind}.write_failed`, params: { msg: err.message, file: kind === 'session' ? session.file : '' } }),
    onRecovered: () => notify({ key: `${kind}.write_recovered` }),
  });
  let session = SessionWriter.create(state, root, model.name, writeEvents('session'));
  const noLog = env.FEIYU_NO_LOG === '1';
  if (!noLog) pruneLogs(state);
  const trace: Trace | null = openTrace({ stateDir: state, root, env, model: model.name, version: version(), mode, ...writeEvents('trace') });
  agent.on((event: AgentEvent) => {
    if (event.type === 'turn_start') {
      reminder.resetForTurn();
      hooks.resetForTurn();
    }
    trace?.write(event);
    session.onEvent(event);
    if (event.type === 'usage' || event.type === 'turn_end') session.saveState({ model: model.name, mode, totals: agent.totals, files: ctx.files });
  });

  const app = {
    root,
    env,
    args,
    configDir: config,
    stateDir: state,
    models,
    settings,
    conventions: conventions as Conventions | undefined,
    trusted,
    agent,
    ctx,
    trace,
    notices,
    get session() {
      return session;
    },
    get model() {
      return model;
    },
    get mode() {
      return mode;
    },
    get sandbox() {
      return { level: sandbox, off: sandboxOff };
    },
    /** Installs the interactive permission question (the REPL's). */
    setAsker(ask: (req: AskRequest, signal: AbortSignal) => Promise<AskAnswer>) {
      asker.ask = ask;
    },
    onNotice(listener: (n: Notice) => void) {
      listeners.add(listener);
    },
    setMode: changeMode,
    jobs,
    todo,
    /** Installs the interactive plan approval (the REPL's); without it exit_plan is refused. */
    setPlanApprover(approve: (plan: string, signal: AbortSignal) => Promise<PlanVerdict>) {
      planner.approve = approve;
    },
    /**
     * Sends one user message: UserPromptSubmit hooks first (they may block it or add context),
     * then the agent. Returns null when a hook blocked it (the reason went out as a notice).
     */
    async send(text: string, signal: AbortSignal) {
      if (!configured) {
        notify({ key: 'cli.no_model_repl' });
        return null;
      }
      const gate = await hooks.userPromptSubmit(text, signal);
      if (gate.block) {
        notify({ key: 'hook.prompt_blocked', params: { reason: gate.block } });
        return null;
      }
      return agent.send(gate.context ? `${text}\n\n<hook_context>\n${gate.context}\n</hook_context>` : text, signal);
    },
    /** Switches the model for this session; throws ConfigError for an unknown name. */
    setModel(name: string) {
      model = attempt(() => selectModel(models, name));
      configured = true;
      agent.provider = createProvider(model);
      session.saveState({ model: model.name });
    },
    /** Changes the sandbox level; only the start-up probe may have turned it off for good. */
    setSandbox(level: SandboxLevel): boolean {
      if (sandboxOff && level !== 'off') return false;
      sandbox = level;
      (ctx as { wrapCommand?: ToolContext['wrapCommand'] }).wrapCommand = wrap(level);
      return true;
    },
    /**
     * Continues a saved session: `true` for the last one of this directory. With `fork`, as a new
     * session that starts with its history (the original is left as it is). Throws ConfigError,
     * SessionBusyError when another feiyu has the session open.
     */
    async resume(which: true | string, opts: { fork?: boolean } = {}): Promise<Notice[]> {
      const file = which === true ? findLastSession(state, root) : findSession(state, which);
      if (!file) throw new ConfigError(which === true ? t('resume.none') : t('resume.not_found', { id: which }));
      const loaded = attempt(() => loadSession(file));
      const opened = opts.fork ? undefined : SessionWriter.open(file, loaded.state, writeEvents('session'));
      if (opened && 'busy' in opened) throw new SessionBusyError(loaded.header.id, opened.pid);
      session.close();
      const out: Notice[] = [];
      agent.reset(loaded.messages, loaded.state.totals ?? {});
      const saved = loaded.state.model ?? loaded.header.model;
      if (saved && saved !== model.name && models.models.some((m) => m.name === saved) && !args.model) {
        app.setModel(saved);
        out.push({ key: 'resume.model', params: { name: model.name, id: model.model } });
      }
      if (loaded.state.mode && !args.mode && loaded.state.mode !== mode) {
        mode = loaded.state.mode as PermissionMode;
        if (mode === 'auto' && sandbox === 'off') out.push(unsandboxedWarning());
      }
      if (loaded.state.todo) todo.restore(loaded.state.todo);
      ctx.files.clear();
      const records = loaded.state.files ?? {};
      await Promise.all([...new Set(Object.keys(records).map(dirname))].map(sweepTemps));
      const changed = await restoreFiles(records, ctx.files);
      if (loaded.skipped) out.push({ key: 'session.skipped', params: { n: loaded.skipped } });
      if (changed.length) out.push({ key: 'session.files_changed', params: { n: changed.length } });
      if (opened) {
        session = opened;
        return out;
      }
      session = SessionWriter.create(state, root, model.name, writeEvents('session'));
      for (const message of loaded.messages) session.onEvent({ type: 'message', message });
      session.saveState({ model: model.name, mode, todo: todo.items.length ? todo.items : undefined, totals: agent.totals, files: ctx.files });
      out.push({ key: 'resume.forked', params: { from: loaded.header.id, id: session.id } });
      return out;
    },
    /** The tools offered to the model (for /context). */
    tools,
    /** Reads the conventions file and the remembered notes into the system prompt again (/context). */
    async reloadContext(): Promise<{ conventions?: Conventions; memory: string; unreadable: Notice[] }> {
      const { conventions: fresh, unreadable } = await loadConventions(root);
      const notes = loadMemory(state, root).text;
      app.conventions = fresh;
      agent.system = buildSystem(fresh, notes);
      return { conventions: fresh, memory: notes, unreadable: unreadable.map(fileNotice) };
    },
    /** A new conversation (/clear): this session's file deleted; history, totals, todo and read records cleared. */
    newSession() {
      session.delete();
      agent.reset();
      ctx.files.clear();
      todo.restore([]);
      session = SessionWriter.create(state, root, model.name, writeEvents('session'));
    },
    /** Reads keys.json again after /key changed it; the current model stays until /model. */
    reloadModels() {
      const fresh = attempt(() => loadModels(env));
      models.models.splice(0, models.models.length, ...fresh.models);
      models.defaultName = fresh.defaultName;
      // The first model added takes over from the stand-in at once.
      if (!configured && fresh.models.length) app.setModel(fresh.defaultName);
    },
    /** Stops what the session started and closes the files. */
    async close() {
      await jobs.stopAll();
      trace?.close();
      session.close();
    },
  };
  if (args.resume) notices.push(...(await app.resume(args.resume, { fork: args.forkSession })));
  return app;
}
