// The running application: configuration loaded and checked once, then the agent wired to its
// tools, its permission policy, the sandbox, the session file and the trace. The REPL and
// headless mode drive an App; cli.ts only parses arguments and picks one of them.

import { realpath } from 'node:fs/promises';
import { version } from '../util/version.js';
import { Agent } from '../core/agent.js';
import type { CliArgs } from './args.js';
import { filterEnv } from '../safety/envfilter.js';
import { createHookRunner } from '../hooks/runner.js';
import { t, type MessageKey } from '../i18n/index.js';
import { JobManager } from '../tools/jobs.js';
import { ConfigError as KeysError, configDir, loadModels, selectModel, stateDir, type LoadedModels } from '../config/keys.js';
import { loadMemory, MEMORY_CAP } from '../tools/memory.js';
import { hookNotice, type Notice } from './notices.js';
import { createPolicy, type AskAnswer, type AskRequest } from '../safety/policy.js';
import type { PlanVerdict } from '../tools/plan.js';
import { loadConventions, systemPrompt, type Conventions } from '../core/prompt.js';
import { createProvider } from '../providers/stream.js';
import { makeWrapCommand, probeSandbox } from '../safety/sandbox.js';
import { findLastSession, findSession, loadSession, restoreFiles, SessionError, SessionWriter } from '../session/store.js';
import { loadSettings } from '../config/settings.js';
import { TodoList, TodoReminder } from '../tools/todo.js';
import { buildTools, promptExtras } from './toolset.js';
import { linkCodeIndex } from './codeindex.js';
import { openTrace, pruneLogs, type Trace } from '../session/trace.js';
import { effectiveSettings, projectTrustState, trustProject } from '../config/trust.js';
import type { AgentEvent, JsonSchema, ModelConfig, PermissionMode, SandboxLevel, Tool, ToolContext } from '../types.js';

/** A problem with the configuration or the command line, already in the user's words: exit 2. */
export class ConfigError extends Error {}

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

  const [conventions, probe] = await Promise.all([loadConventions(root), probing]);
  const notices: Notice[] = configured ? [] : [{ key: 'cli.no_model_repl' }];

  // Trust: a project's own hooks, verify: and allow rules wait for the user's yes.
  const trust = projectTrustState(root, config, { settings: settings.project, verify: conventions?.verify ? [conventions.verify] : [] });
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
  const wrap = (level: SandboxLevel) => makeWrapCommand(level, { root, home: env.HOME, configDir: config });
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
  const notify = (n: Notice) => listeners.forEach((l) => l(n));
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
  /** The code index's tools, once it has loaded (an optional module). */
  const indexTools: Tool[] = [];
  const tools = buildTools({
    allowPrivate: effective.merged.webFetch?.allowPrivate ?? [],
    policy,
    jobs,
    todo,
    stateDir: state,
    laterReadTools: () => indexTools,
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

  const codeIndexSetting = effective.merged.codeIndex ?? 'auto';
  const codeIndex = linkCodeIndex({
    setting: codeIndexSetting,
    root,
    stateDir: state,
    env,
    addTools: (more) => {
      indexTools.push(...more);
      tools.push(...more);
      agent.addTools(more);
    },
    onEvent: (listener) => agent.on(listener),
    notify: (n) => notify(n),
  });

  // Consumers of the event stream: the session file and the trace.
  const onWriteError = (key: MessageKey) => (err: Error) => notify({ key, params: { msg: err.message, file: session.file } });
  let session = SessionWriter.create(state, root, model.name, onWriteError('session.write_failed'));
  const noLog = env.FEIYU_NO_LOG === '1';
  if (!noLog) pruneLogs(state);
  const trace: Trace | null = openTrace({ stateDir: state, root, env, model: model.name, version: version(), mode, onError: onWriteError('trace.write_failed') });
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
      // The code index decides whether it is on within moments of start-up: its tools are in the first request or never.
      await codeIndex?.settled;
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
    /** Continues a saved session: `true` for the last one of this directory. Throws ConfigError. */
    async resume(which: true | string): Promise<Notice[]> {
      const file = which === true ? findLastSession(state, root) : findSession(state, which);
      if (!file) throw new ConfigError(which === true ? t('resume.none') : t('resume.not_found', { id: which }));
      const loaded = attempt(() => loadSession(file));
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
      const changed = await restoreFiles(loaded.state.files ?? {}, ctx.files);
      if (loaded.skipped) out.push({ key: 'session.skipped', params: { n: loaded.skipped } });
      if (changed.length) out.push({ key: 'session.files_changed', params: { n: changed.length } });
      session = SessionWriter.open(file, onWriteError('session.write_failed'));
      return out;
    },
    /** The tools offered to the model (for /context). */
    tools,
    /** Reads the conventions file and the remembered notes into the system prompt again (/context). */
    async reloadContext(): Promise<{ conventions?: Conventions; memory: string }> {
      const fresh = await loadConventions(root);
      const notes = loadMemory(state, root).text;
      app.conventions = fresh;
      agent.system = buildSystem(fresh, notes);
      return { conventions: fresh, memory: notes };
    },
    /** A new conversation (/clear): this session's file deleted; history, totals, todo and read records cleared. */
    newSession() {
      session.delete();
      agent.reset();
      ctx.files.clear();
      todo.restore([]);
      session = SessionWriter.create(state, root, model.name, onWriteError('session.write_failed'));
    },
    /** Reads keys.json again after /key changed it; the current model stays until /model. */
    reloadModels() {
      const fresh = attempt(() => loadModels(env));
      models.models.splice(0, models.models.length, ...fresh.models);
      models.defaultName = fresh.defaultName;
      // The first model added takes over from the stand-in at once.
      if (!configured && fresh.models.length) app.setModel(fresh.defaultName);
    },
    /** The code index, when the settings and the workspace turn it on (for /index). */
    codeIndex,
    codeIndexSetting,
    /** Stops what the session started and closes the files. */
    async close() {
      await jobs.stopAll();
      await codeIndex?.close();
      trace?.close();
    },
  };
  if (args.resume) notices.push(...(await app.resume(args.resume)));
  return app;
}
