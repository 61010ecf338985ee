// Configuration: what start-up reads and checks once, the language included — the workspace,
// both settings files, the models, the instruction files, skills, custom commands and notes,
// project trust, rules and saved
// approvals, the output schema, the sandbox probe — into plain objects the wiring uses. Bad
// configuration throws a ConfigError in the user's words (exit 2); nothing here keeps state.
// Files that are not regular or are huge are named (FileReadError → a notice or a ConfigError).

import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { CliArgs } from './args.js';
import { configDir, keysPath, loadModels, selectModel, stateDir, type LoadedModels } from '../config/keys.js';
import { loadSettings, type LoadedSettings, type NotifySetting } from '../config/settings.js';
import type { HookTable } from '../config/hooks.js';
import { effectiveSettings, projectTrustState, trustProject, type ProjectFiles } from '../config/trust.js';
import { contextNotices, fileNotice, loadMarkdownContext, type MarkdownContext } from './context.js';
import { readMcpConfigArg, type McpServerConfig, type McpServerSpec, type McpSource } from '../config/mcpservers.js';
import { detectLang, Problem, problemText, t, type Lang, type MessageKey } from '../i18n/index.js';
import { noticeText } from '../i18n/explain.js';
import { approvalsFile, loadApprovals } from '../safety/approvals.js';
import { filterEnv } from '../safety/envfilter.js';
import type { ProviderOptions } from '../providers/stream.js';
import { jsonlStore, type SessionStore } from '../session/record.js';
import { parseRule, type Rule } from '../safety/rules.js';
import type { SandboxFeatures } from '../safety/sandbox.js';
import { probeSandbox } from '../safety/sandboxprobe.js';
import { FileReadError } from '../util/readfile.js';
import { sweepTemps } from '../util/paths.js';
import { SessionError } from '../session/store.js';
import { loadMemory, MEMORY_CAP } from '../tools/memory.js';
import type { NoticeEvent } from '../types/events.js';
import type { JsonSchema, ModelConfig, Provider } from '../types/providers.js';
import type { PermissionMode, SandboxLevel } from '../types/permissions.js';
import type { ToolTiers } from '../types/tools.js';
import { deferralOf } from './toolset.js';
import { definitionsOf, findDefinitions, sideModelOf } from './specialists.js';
import type { AgentDefinition } from '../delegate/definitions.js';

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

export { fileNotice };

/** A coded error from the configuration or a session file, in the user's words. */
export function configError(err: unknown): ConfigError {
  if (err instanceof ConfigError) return err;
  if (err instanceof FileReadError) return new ConfigError(noticeText(fileNotice(err)));
  if (err instanceof Problem) return new ConfigError(problemText(err));
  if (err instanceof SessionError) return new ConfigError(t(`session.${err.code}` as MessageKey, err.params));
  return new ConfigError(err instanceof Error ? err.message : String(err));
}

/** Runs `fn`, turning what it throws into a ConfigError. */
export function attempt<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw configError(err);
  }
}

/**
 * What start-up reads before anything can print: the workspace, both settings files and the
 * interface language (--lang, else the user's settings, else the environment). Never throws: a
 * problem waits in `problem` until the app is created, so --help still works.
 */
export type Start = { lang: Lang; root?: string; settings?: LoadedSettings; problem?: ConfigError };

export function readStart(args: CliArgs, env: NodeJS.ProcessEnv): Start {
  let root: string | undefined;
  let settings: LoadedSettings | undefined;
  let problem: ConfigError | undefined;
  try {
    root = realpathSync(args.cwd ?? process.cwd());
    settings = loadSettings(root, env);
  } catch (err) {
    problem = configError(err);
  }
  return { lang: detectLang(args.lang, settings?.user.lang, env), root, settings, problem };
}

export type ConfigOptions = {
  env: NodeJS.ProcessEnv;
  /** From readStart, when the caller read it already; else read here. */
  start?: Start;
  /** Interactive: start even with no model configured, so /key add can add one. */
  allowNoModel?: boolean;
  /** Asks the user whether to trust the project (interactive only); absent = do not ask. */
  askTrust?: (whatWouldRun: string[]) => Promise<boolean>;
  /** What a host's caller decides instead of the files and the command line. */
  overrides?: ConfigOverrides;
};

/** The library's options that have no command-line flag (createHost). */
export type ConfigOverrides = {
  /** The models instead of keys.json. */
  models?: LoadedModels;
  /** A provider object: its model is the one used (createProvider is not asked for it). */
  provider?: Provider;
  /** Instead of the settings' hooks. */
  hooks?: AppConfig['hooks'];
  /** Trust in the project's own hooks, verify: and rules, decided by the caller: never asked, never remembered. */
  trust?: boolean;
  /** Where sessions are kept (default: the JSONL files of the state folder). */
  store?: SessionStore;
  /** Which tools the model is offered (default all); names as the model sees them. */
  tools?: (name: string) => boolean;
  /** Questions are put as `approval` events (true) or refused as in headless mode (false). */
  ask?: boolean;
  outputSchema?: JsonSchema;
  /** More permission rules for this run, as settings spell them. */
  allow?: string[];
  deny?: string[];
};

/** The whole configuration, checked. Values that change while the app runs start from here. */
export type AppConfig = {
  root: string;
  /** feiyu's own environment (hooks and verify get it); `childEnv` is what commands get. */
  env: NodeJS.ProcessEnv;
  childEnv: NodeJS.ProcessEnv;
  home: string;
  configDir: string;
  stateDir: string;
  models: LoadedModels;
  /** The model to start with; undefined when none is configured (the REPL waits for /key add). */
  model?: ModelConfig;
  mode: PermissionMode;
  /** --permission-mode acceptEdits: edits in the workspace are allowed (hooks read the mode as acceptEdits). */
  acceptEdits: boolean;
  sandbox: SandboxLevel;
  /** Why the start-up probe turned the sandbox off for good. */
  sandboxOff?: { reason: string; detail: string };
  /** What the kernel allows bwrap (the probe's finding); none when it failed. */
  sandboxFeatures: SandboxFeatures;
  /** The workspace level keeps the host network (settings' sandboxNetwork). */
  sandboxNetwork: boolean;
  /** Instruction files, skills and custom commands, as found at start-up. */
  markdown: MarkdownContext;
  /** The user trusted the project's own commands (or it brings none). */
  trusted: boolean;
  /** The project's settings files as read, to ask again whether it is still trusted after /context. */
  projectSettings: Pick<LoadedSettings, 'project' | 'claude' | 'mcpJson'>;
  /** Commands run without the sandbox can still be kept from outliving feiyu (the probe found containment works). */
  sandboxContain: boolean;
  memory: string;
  /** The user's rules, the trusted project's, this run's (--allowedTools …) and the saved "always" answers, parsed. */
  rules: { allow: Rule[]; deny: Rule[] };
  approvalsFile: string;
  hooks: HookTable;
  /** --system-prompt replaces the base instructions; --append-system-prompt is added at the end. */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  verify: string[];
  allowPrivate: string[];
  /** Hot and cold tools (settings' `tools`); undefined: deferral off (`deferTools: false`). */
  deferral?: ToolTiers;
  /** The code index: auto (on in a git repository with at least 200 source files), on, off. */
  codeIndex: 'auto' | 'on' | 'off';
  /** How the REPL asks for attention (settings' notify). */
  notify: NotifySetting;
  /** How the model's provider is made: settings' `streamIdleTimeout` (seconds) as milliseconds. */
  providerOptions: ProviderOptions;
  /** A person answers questions (the REPL); false: headless, questions are refused. */
  interactive: boolean;
  /** Where sessions are kept; a 'memory' store means no state files at all (trace, approvals, notes, index cache). */
  store: SessionStore;
  /** A caller's provider object, used for its own model. */
  provider?: Provider;
  /** Which tools are offered; absent: all. */
  tools?: (name: string) => boolean;
  /** Set on the command line: a resumed session does not change them. */
  pinned: { model: boolean; mode: boolean };
  maxRounds?: number;
  outputSchema?: JsonSchema;
  resume?: true | string;
  /** With resume: continue in a new session that starts with the old one's history. */
  forkSession: boolean;
  /** The specialists: built-ins, the user's definition files, the project's once trusted. */
  agents: AgentDefinition[];
  /** settings' sideModel, when keys.json has it. */
  sideModel?: ModelConfig;
  /** What the interface says before the first prompt. */
  notices: NoticeEvent[];
  /** MCP servers to start (the project's only once trusted) and their time limits. */
  mcp: { servers: McpServerSpec[]; timeouts: { startMs: number; callMs: number } };
};

/** Seconds an MCP tool call and a server's start may take unless the settings say otherwise. */
const MCP_CALL_SECS = 60;
const MCP_START_SECS = 30;

export async function loadConfig(args: CliArgs, o: ConfigOptions): Promise<AppConfig> {
  const { env } = o;
  // The sandbox probe is a process of its own: start it first, so it runs while config loads. It
  // runs with --sandbox off too: /sandbox may turn it on later, and then needs what it found; and
  // it says whether commands run without the sandbox can still be contained.
  const probing = probeSandbox();
  const start = o.start ?? readStart(args, env);
  if (start.problem || !start.root || !start.settings) throw start.problem ?? new ConfigError('no workspace');
  const { root, settings } = start;
  const config = configDir(env);
  const state = stateDir(env);
  const over = o.overrides ?? {};
  // A broken keys.json stops a headless run; the REPL starts without it, so that /key can repair it.
  let keysBroken: string | undefined;
  let models: LoadedModels;
  try {
    models = over.provider ? withProvider(over.models, over.provider) : (over.models ?? attempt(() => loadModels(env)));
  } catch (err) {
    if (!o.allowNoModel) throw err;
    keysBroken = (err as ConfigError).message;
    models = { models: [], defaultName: '' };
  }
  if (!models.models.length && !o.allowNoModel) throw new ConfigError(t('cli.no_model', { file: `${config}/keys.json` }));
  const model = models.models.length ? attempt(() => selectModel(models, args.model)) : undefined;
  const home = env.HOME || homedir();
  const places = { workspace: root, home, configDir: config };
  // Temporary files a killed feiyu left mid-write in the workspace are removed while the rest loads.
  const [markdown, probe, outputSchema] = await Promise.all([
    loadMarkdownContext(places),
    probing,
    args.outputSchema ? loadSchema(args.outputSchema) : over.outputSchema,
    sweepTemps(root),
  ]);
  const notices: NoticeEvent[] = keysBroken ? [{ type: 'notice', code: 'keys_broken', params: { msg: keysBroken, file: keysPath(env) } }] : [];
  if (!model) notices.push({ type: 'notice', code: 'no_model' });
  notices.push(...contextNotices(markdown));
  if (models.exposed) notices.push({ type: 'notice', code: models.exposed.fixed ? 'keys_made_private' : 'keys_exposed', params: { file: models.exposed.file, mode: models.exposed.mode } });

  // A broken .mcp.json (Claude Code's file) costs its servers, not the session.
  if (settings.mcpJsonProblem) notices.push({ type: 'notice', code: 'mcp_config_broken', params: { file: settings.mcpJsonProblem.file, msg: configError(settings.mcpJsonProblem.error).message } });
  const flagServers = (args.mcpConfig ?? []).map((arg) => attempt(() => readMcpConfigArg(arg)));
  // Trust: a project's own hooks, verify:, allow rules, commands' ! lines, MCP servers and specialist definitions wait for the user's yes.
  const definitions = findDefinitions(root, config);
  const trust = attempt(() => projectTrustState(root, config, { ...projectFiles(settings, markdown), agents: definitions.project }));
  let trusted = over.trust ?? trust.trusted;
  if (!trusted && over.trust === undefined && (args.trust || (await o.askTrust?.(trust.whatWouldRun)))) {
    trustProject(root, config, trust.hash);
    trusted = true;
  }
  if (!trusted) notices.push({ type: 'notice', code: 'trust_ignored' });
  const effective = effectiveSettings(settings, trusted);
  const specialists = definitionsOf(definitions, trusted);
  notices.push(...specialists.notices);
  const side = sideModelOf(effective.merged.sideModel, models);
  if (side.notice) notices.push(side.notice);
  const conventionsVerify = markdown.conventions.conventions.verify;
  for (const { file, event, type } of effective.skipped) {
    notices.push(type ? { type: 'notice', code: 'hook_type_unsupported', params: { file, event, type } } : { type: 'notice', code: 'hook_event_unknown', params: { file, event } });
  }
  // acceptEdits: what Claude Code accepts without asking, file edits inside the workspace.
  const runAllow = [...(args.allow ?? []), ...(args.acceptEdits ? ['edit_file(**)', 'write_file(**)'] : [])];
  const approvals = approvalsFile(config);
  const store = over.store ?? jsonlStore(state);
  const memory = loadMemory(state, root);
  if (memory.dropped) notices.push({ type: 'notice', code: 'memory_dropped', params: { n: memory.dropped, cap: MEMORY_CAP } });
  const idleTimeout = effective.merged.streamIdleTimeout;
  const sandboxOff = probe.ok ? undefined : { reason: probe.reasonCode, detail: probe.detail };
  const chosen = args.sandbox ?? effective.merged.sandbox;
  // Only the default degrades: a level asked for by name that cannot be had is an error.
  if (sandboxOff && chosen && chosen !== 'off') throw new ConfigError(t('sandbox.unavailable', { level: chosen, detail: sandboxOff.detail }));
  const sandbox = sandboxOff ? 'off' : (chosen ?? 'workspace');
  if (sandbox === 'off') notices.push({ type: 'notice', code: 'read_unenforced', params: sandboxOff ? { why: sandboxOff.reason, detail: sandboxOff.detail } : { why: 'flag' } });
  return {
    root,
    env,
    childEnv: filterEnv(env),
    home,
    configDir: config,
    stateDir: state,
    models,
    model,
    mode: args.mode ?? effective.merged.mode ?? 'default',
    acceptEdits: args.acceptEdits === true,
    sandbox,
    sandboxOff,
    sandboxFeatures: probe.ok ? probe.features : { userns: false, disableUserns: false },
    sandboxNetwork: effective.merged.sandboxNetwork === true,
    markdown,
    trusted,
    projectSettings: { project: settings.project, claude: settings.claude, mcpJson: settings.mcpJson },
    sandboxContain: probe.contain,
    memory: memory.text,
    rules: attempt(() => ({
      allow: [...effective.allow, ...runAllow, ...(over.allow ?? []), ...loadApprovals(approvals, root)].map(parseRule),
      deny: [...effective.deny, ...(args.deny ?? []), ...(over.deny ?? [])].map(parseRule),
    })),
    approvalsFile: approvals,
    hooks: over.hooks ?? effective.hooks,
    systemPrompt: args.systemPrompt,
    appendSystemPrompt: args.appendSystemPrompt,
    verify: [...conventionsVerify.user, ...(trusted ? conventionsVerify.project : []), ...effective.verify],
    allowPrivate: effective.merged.webFetch?.allowPrivate ?? [],
    // A project's tool tiers cost only tokens: they apply before trust.
    deferral: deferralOf(settings.user, settings.project),
    // The index keeps a cache in the state folder: a store in memory writes no state files.
    codeIndex: effective.merged.codeIndex ?? (store.kind === 'memory' ? 'off' : 'auto'),
    notify: effective.merged.notify ?? 'auto',
    providerOptions: idleTimeout === undefined ? {} : { idleTimeoutMs: idleTimeout * 1000 },
    interactive: over.ask ?? !args.print,
    store,
    provider: over.provider,
    tools: over.tools,
    pinned: { model: args.model !== undefined, mode: args.mode !== undefined },
    maxRounds: args.maxRounds,
    outputSchema,
    resume: args.resume,
    forkSession: args.forkSession === true,
    agents: specialists.agents,
    sideModel: side.model,
    notices,
    mcp: {
      servers: mcpServerSpecs(args.strictMcpConfig ? [] : [['user', settings.user.mcpServers], ...(trusted ? ([['mcp.json', settings.mcpJson], ['project', settings.project.mcpServers]] as const) : [])], flagServers),
      timeouts: { callMs: (effective.merged.mcpToolTimeout ?? MCP_CALL_SECS) * 1000, startMs: (effective.merged.mcpStartTimeout ?? MCP_START_SECS) * 1000 },
    },
  };
}

/** The models with the provider object's model first, the default. */
function withProvider(models: LoadedModels | undefined, provider: Provider): LoadedModels {
  const others = (models?.models ?? []).filter((m) => m.name !== provider.config.name);
  return { models: [provider.config, ...others], defaultName: provider.config.name };
}

/** The servers by name, a later place winning a name given twice: the user's, the project's, then --mcp-config's. */
function mcpServerSpecs(levels: (readonly [McpSource, Record<string, McpServerConfig> | undefined])[], flags: Record<string, McpServerConfig>[]): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const [source, servers] of [...levels, ...flags.map((f) => ['flag', f] as const)]) {
    for (const [name, config] of Object.entries(servers ?? {})) byName.set(name, { name, source, config });
  }
  return [...byName.values()];
}

/** What the project's files would make feiyu run or allow: settings (its own and Claude Code's), verify: lines, commands' ! lines and allowed-tools, .mcp.json's servers. */
export function projectFiles(settings: Pick<LoadedSettings, 'project' | 'claude' | 'mcpJson'>, markdown: MarkdownContext): ProjectFiles {
  const commands = markdown.commands.commands.filter((c) => c.source === 'project').map((c) => ({ name: c.name, shell: c.shell, allowedTools: c.allowedTools }));
  return { settings: settings.project, verify: markdown.conventions.conventions.verify.project, claude: settings.claude, commands, mcpJson: settings.mcpJson };
}

async function loadSchema(file: string): Promise<JsonSchema> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as JsonSchema;
  } catch (err) {
    throw new ConfigError(t('cli.schema_unreadable', { file, msg: (err as Error).message }));
  }
}
