// The running application: the configuration (config.ts) and the state (state.ts) wired to the
// agent, its tools, the permission step, hooks, the session file and the trace, behind the App
// interface (apptype.ts) that the REPL and headless mode drive. One event stream carries the
// loop's events and the app's own; a question for the user is an event answered by id (App.answer).

import { version } from '../util/version.js';
import { Agent } from '../core/agent.js';
import type { CliArgs } from './args.js';
import { claudeMode } from '../hooks/protocol.js';
import { wireHooks } from './hookwiring.js';
import { t } from '../i18n/index.js';
import { JobManager } from '../tools/jobs.js';
import { loadModels, selectModel } from '../config/keys.js';
import { loadMemory } from '../tools/memory.js';
import { Emitter } from '../util/emitter.js';
import { ApprovalDesk, approvalStep } from './approval.js';
import { attempt, ConfigError, loadConfig, SessionBusyError, type AppConfig, type ConfigOptions } from './config.js';
import type { MarkdownContext } from './context.js';
import { ProjectMarkdown } from './markdown.js';
import type { App } from './apptype.js';
import { systemPrompt } from '../core/prompt.js';
import { createProvider } from '../providers/stream.js';
import type { Effort, ModelConfig, Provider } from '../types/providers.js';
import { EFFORTS } from '../providers/effort.js';
import { createLauncher } from '../safety/sandboxhost.js';
import { realPath } from '../safety/bash/expand.js';
import { createGitFacts } from './gitfacts.js';
import { attach } from './attach.js';
import { runUserCommand } from './usershell.js';
import { restoreFiles, type WriterEvents } from '../session/store.js';
import type { SessionRecord } from '../session/record.js';
import { TodoList, TodoReminder } from '../tools/todo.js';
import { buildTools } from './toolset.js';
import { Specialists } from './specialists.js';
import { linkCodeIndex } from './codeindex.js';
import { openTrace, pruneLogs } from '../session/trace.js';
import { AppState } from './state.js';
import { checkpointFirst, SessionRewind } from './rewind.js';
import { ModeNotes } from './modenotes.js';
import { linkMcp } from './mcp.js';
import type { AgentEvent, NoticeCode, NoticeEvent } from '../types/events.js';
import type { SandboxLevel } from '../types/permissions.js';
import type { Tool, ToolSession, WrapCommand } from '../types/tools.js';
import { recordGroupsIn, reapOrphanGroups } from '../util/groups.js';
import { sweepTemps } from '../util/paths.js';
import { dirname, join } from 'node:path';
import { loadLanguage } from '../util/treesitter.js';

export { version };

export type { App, LoopView } from './apptype.js';

export async function createApp(args: CliArgs, opts: ConfigOptions): Promise<App> {
  return wireApp(await loadConfig(args, opts));
}

const SCHEMA_PROMPT = 'When the task is done, call submit_result with the final answer; do not answer in plain text.';

/** The app for one session over a loaded configuration (a host wires one per task). */
export async function wireApp(config: AppConfig): Promise<App> {
  const { root, stateDir } = config;
  // A store kept in memory means no files in the state folder at all.
  const stateFiles = config.store.kind === 'files';
  const makeProvider = (model: ModelConfig) => (config.provider && model.name === config.provider.config.name ? config.provider : createProvider(model, config.providerOptions));
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
    if (what === 'model' || what === 'effort') agent.provider = makeProvider(state.model);
    if (what === 'model' || what === 'effort') session.saveState({ model: state.model.name, effort: state.effort ?? null });
  });
  warnIfUnsandboxed();
  if (config.interactive && state.mode === 'auto') notify('auto_mode');
  // Started in / or the home folder: everything below is the workspace. Auto mode asks before the first change.
  const broadRoot = root === '/' || root === realPath(config.home);
  let firstChangeAllowed = !broadRoot;
  if (broadRoot) notify('broad_root', { root });

  const jobs = new JobManager();
  // Without the sandbox, commands are still contained when bwrap works (the `off` launcher); when
  // it does not, their process groups are recorded, and what a killed feiyu left is stopped here.
  if (stateFiles) {
    if (!config.sandboxContain) recordGroupsIn(stateDir);
    const reaped = reapOrphanGroups(stateDir);
    if (reaped) notify('groups_reaped', { n: reaped });
  }
  // One launcher per level, made when first used: each keeps its secret listing's cache and
  // counts the placeholders its commands hold.
  const launchers = new Map<SandboxLevel, WrapCommand>();
  const launcher = (level: SandboxLevel): WrapCommand => {
    let made = launchers.get(level);
    if (!made) {
      const { home, configDir, sandboxFeatures: features, sandboxNetwork: network, sandboxContain: contain } = config;
      made = createLauncher({ level, root, home, configDir, stateDir, runtimeDir: config.env.XDG_RUNTIME_DIR, network, features, contain });
      launchers.set(level, made);
    }
    return made;
  };
  // The level in force when the command runs: /sandbox changes it between calls.
  const wrapCommand: WrapCommand = (req) => launcher(state.sandbox)(req);
  const project = new ProjectMarkdown(config, (code, params) => notify(code, params));
  const { readRoots, folders } = project;
  const ctx: ToolSession = { root, files: new Map(), shell: { cwd: root }, env: config.childEnv, provider: () => agent.provider, wrapCommand, jobs, readRoots };
  const desk = config.interactive ? new ApprovalDesk((event) => events.emit(event)) : undefined;
  const decide = approvalStep({
    policyInput: () => ({ mode: state.mode, rules: project.rules(config.rules), root, home: config.home, configDir: config.configDir, cwd: ctx.shell.cwd, path: config.childEnv.PATH, readRoots, confirmFirstChange: !firstChangeAllowed }),
    desk,
    approved: () => (firstChangeAllowed = true),
    approvalsFile: stateFiles ? config.approvalsFile : undefined,
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
  const offered = (list: Tool[]) => (config.tools ? list.filter((tool) => config.tools!(tool.name)) : list);
  const tools = offered(buildTools({
    allowPrivate: config.allowPrivate,
    sideProvider: () => specialists.sideProvider(),
    // A specialist's calls pass the same hooks and permission step as the main agent's.
    delegate: specialists.taskOptions({ mode: () => state.mode, gate: (name) => ({ before: hooks.decisionFor(name), after: hooks.afterToolCall }), onStop: hooks.subagentStop, report: (event) => events.emit(event) }),
    jobs,
    todo,
    notesDir: stateFiles ? stateDir : undefined,
    laterTools: () => indexTools,
    plan: {
      approvePlan: desk && (async (plan, signal) => (await desk.ask({ kind: 'plan', plan }, signal)) ?? { approved: false }),
      restoreMode: () => {
        modeNotes.approved();
        state.leavePlanMode();
      },
      inPlanMode: () => state.mode === 'plan',
    },
  }));
  for (const notice of specialists.problems([...tools.map((t) => t.name), 'git_read'])) notify(notice.code, notice.params);
  const buildSystem = (m: MarkdownContext, notes: string) => {
    const prompt = systemPrompt(root, m.conventions.conventions.files, [...(notes ? [notes] : []), ...(config.outputSchema ? [SCHEMA_PROMPT] : [])], m.skills.skills, config.systemPrompt);
    return config.appendSystemPrompt ? `${prompt}\n\n${config.appendSystemPrompt}` : prompt;
  };
  const agent = new Agent({
    provider: makeProvider(state.model),
    tools,
    system: buildSystem(project.markdown, config.memory),
    ctx,
    maxRounds: config.maxRounds,
    beforeToolCall: checkpointFirst(hooks.beforeToolCall, () => rewind),
    afterToolCall: async (call, tool, result, signal) => folders.amend(call, tool, await hooks.afterToolCall(call, tool, result, signal)),
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
  const mcp = await linkMcp(config, agent.tools, version(), notify);
  const modeNotes = new ModeNotes(agent);
  modeNotes.update(state.mode);
  const codeIndex = linkCodeIndex({
    setting: config.codeIndex,
    root,
    stateDir,
    env: config.env,
    addTools: (all) => {
      const more = offered(all);
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
  const newWriter = () => config.store.create(root, state.model.name, writeEvents('session'));
  let session = newWriter();
  // Checkpoints are a shadow repository in the state folder: none for a session kept in memory.
  const rewind: SessionRewind | undefined = config.interactive && stateFiles ? new SessionRewind({ root, stateDir, env: config.childEnv, agent, files: ctx.files, notify }) : undefined;
  rewind?.useSession(session.id);
  /** The one writer of `session`: a resumed or a new conversation. */
  const useSession = (next: SessionRecord, saved?: unknown, from?: string) => {
    if (next !== session) session.close();
    session = next;
    rewind?.useSession(next.id);
    specialists.follow(saved, from);
  };
  if (stateFiles && config.env.FEIYU_NO_LOG !== '1') pruneLogs(stateDir);
  const trace = !stateFiles ? null : openTrace({ stateDir, root, env: config.env, model: state.model.name, version: version(), mode: state.mode, ...writeEvents('trace') });
  events.on((event) => {
    if (event.type === 'turn_start') reminder.resetForTurn();
    hooks.onEvent(event);
    // The messages that carried a subfolder's instructions may be gone: the next call there adds them again.
    if (event.type === 'compaction' || event.type === 'history_reset') folders.forget();
    // The bash grammar (tens of ms to load) loads while the model is still writing the command.
    if (event.type === 'toolcall_start' && event.name === 'bash') loadLanguage('bash').catch(() => {});
    trace?.write(event);
    session.onEvent(event);
    rewind?.observe(event);
    if (event.type === 'tools_loaded') session.saveState({ tools: event.names });
    specialists.onEvent(event, { save: (spend) => session.saveState({ specialists: spend }), note: (text) => agent.note(text) });
    if (event.type === 'usage' || event.type === 'turn_end') session.saveState({ model: state.model.name, mode: state.mode, totals: agent.totals, files: ctx.files });
  });

  const app: App = {
    root,
    env: config.env,
    stateDir,
    notices,
    get markdown() {
      return project.markdown;
    },
    agent,
    todo,
    jobs,
    mcp,
    files: ctx.files,
    rewind,
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
    get effort() {
      return state.effort;
    },
    setEffort: (effort) => state.setEffort(effort),
    get sandbox() {
      return { level: state.sandbox, off: state.sandboxOff };
    },
    specialists,
    on: (listener) => events.on(listener),
    async send(text, signal, o = {}) {
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
      // @paths are read from what the user typed; a hook's added context is not theirs to attach.
      const attached = await attach(text, o.images ?? [], { ctx: { ...ctx, signal }, model: state.model, configDir: config.configDir, home: config.home });
      for (const notice of attached.notices) events.emit(notice);
      return agent.send(gate.text, signal, attached.blocks);
    },
    runCommand(command, args, signal, notes = []) {
      const bash = tools.find((tool) => tool.name === 'bash')!;
      return project.runCommand(command, args, notes, { state, agent, decideBash: (call, sig) => decide(call, bash, sig), wrapCommand, send: app.send }, signal);
    },
    runShell: (command, signal, onOutput) => runUserCommand(command, { cwd: ctx.shell.cwd, env: config.childEnv }, signal, onOutput),
    answer: (id, answer) => desk?.answer(id, answer) ?? false,
    setMode: (mode) => state.setMode(mode),
    setModel: (name) => state.setModel(attempt(() => selectModel(state.models, name))),
    setSandbox: (level) => state.setSandbox(level),
    async resume(which, opts = {}) {
      const found = attempt(() => config.store.find(which, root));
      if (!found) throw new ConfigError(which === true ? t('resume.none') : t('resume.not_found', { id: which }));
      const { loaded, info } = found;
      // The resumed file first: the model and mode restored below are saved to it, not to the old one.
      // A fork is a new file that starts with the history (the original stays as it is).
      const opened = opts.fork ? newWriter() : found.open(writeEvents('session'));
      if ('busy' in opened) throw new SessionBusyError(loaded.header.id, opened.pid);
      // A fork's notes start as the original's, which lie beside it (sessions of one store share a folder).
      useSession(opened, loaded.state.specialists, opts.fork && opened.file ? join(dirname(opened.file), `${loaded.header.id}.jsonl`) : undefined);
      if (opts.fork) {
        for (const message of loaded.messages) opened.onEvent({ type: 'message', message });
        notify('resume_forked', { from: loaded.header.id, id: opened.id });
        rewind?.forkedFrom(loaded.header.id);
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
      if (EFFORTS.includes(loaded.state.effort as Effort) && !config.pinned.model) state.setEffort(loaded.state.effort as Effort);
      if (info) notify('resumed', { id: info.id, request: info.firstRequest, rounds: info.rounds, updated: Date.parse(info.updated) });
      // The saved mode comes back, said aloud; auto with the same warning as starting in it.
      if (loaded.state.mode && !config.pinned.mode && loaded.state.mode !== state.mode) {
        state.setMode(loaded.state.mode);
        notify('resume_mode', { mode: state.mode });
        if (state.mode === 'auto') notify('auto_mode');
      }
      modeNotes.update(state.mode);
      if (loaded.state.todo) todo.restore(loaded.state.todo);
      ctx.files.clear();
      folders.forget();
      // Temporary files a killed feiyu left where the session worked are removed.
      const records = loaded.state.files ?? {};
      await Promise.all([...new Set(Object.keys(records).map(dirname))].map(sweepTemps));
      const changed = await restoreFiles(records, ctx.files);
      if (opts.fork) session.saveState({ model: state.model.name, mode: state.mode, todo: todo.items.length ? todo.items : undefined, totals: agent.totals, files: ctx.files });
      if (loaded.skipped) notify('session_skipped', { n: loaded.skipped });
      if (changed.length) notify('files_changed', { n: changed.length });
    },
    reloadCommands: () => project.reloadCommands(),
    async reloadContext() {
      const markdown = await project.reload();
      const notes = loadMemory(stateDir, root).text;
      agent.system = buildSystem(markdown, notes);
      return { markdown, memory: notes };
    },
    newSession() {
      hooks.cleared();
      agent.reset();
      modeNotes.forget();
      modeNotes.update(state.mode);
      ctx.files.clear();
      folders.forget();
      todo.restore([]);
      useSession(newWriter());
    },
    rename: (name) => session.saveState({ name }),
    reloadModels() {
      const fresh = attempt(() => loadModels(config.env));
      state.setModels(fresh);
      // The first model added takes over from the stand-in at once; the current one, edited in keys.json, is used as it now reads.
      if (!state.configured && fresh.models.length) return app.setModel(fresh.defaultName);
      const edited = fresh.models.find((m) => m.name === state.model.name);
      if (edited && JSON.stringify(edited) !== JSON.stringify({ ...state.model, effort: undefined })) app.setModel(edited.name);
    },
    codeIndex,
    codeIndexSetting: config.codeIndex,
    notify: config.notify,
    async close() {
      await rewind?.idle();
      await hooks.close();
      await Promise.all([jobs.stopAll(), mcp?.stop()]);
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
