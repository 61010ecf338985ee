// Project trust: what a project's own files would make feiyu run or allow (hooks, verify:
// commands, allow rules, looser mode or sandbox; its .feiyu/settings.json and the hooks and rules
// of its .claude/settings.json; its slash commands' `!` lines and allowed-tools), whether the user
// trusted exactly that, and remembering it in trusted.json by path and hash, so any change asks
// again. Must not ask the user or run anything: the REPL asks, hooks/runner.ts runs.

import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';
import { readProjectsFile, updatePrivateJson } from '../util/jsonfile.js';
import type { ClaudeSettings, LoadedSettings, Settings } from './settings.js';
import { joinHooks, readHooks, type HookSkipped, type HookTable } from './hooks.js';
import { serverLine, type McpServerConfig } from './mcpservers.js';

/** A project slash command's parts that need trust: the `!` lines it runs and the tools it allows. */
export type GatedCommand = { name: string; shell: string[]; allowedTools: string[] };

/**
 * What a project brings: its .feiyu/settings.json, the verify: lines of its instruction files, its
 * Claude Code settings, its slash commands, the MCP servers of its .mcp.json (those of its
 * settings are in `settings`) and its specialist definitions (path and content hash: a changed
 * prompt asks again).
 */
export type ProjectFiles = {
  settings: Settings;
  verify: string[];
  claude?: ClaudeSettings[];
  commands?: GatedCommand[];
  mcpJson?: Record<string, McpServerConfig>;
  agents?: { path: string; hash: string }[];
};

export type TrustState = {
  /** True when trusted earlier with this same content, or when there is nothing to trust. */
  trusted: boolean;
  /** Hash of what needs trust; pass it to trustProject. */
  hash: string;
  /** What would run or be allowed, one item a line, in settings notation. */
  whatWouldRun: string[];
};

type TrustedFile = { version: 1; projects: Record<string, { hash: string; trustedAt: string }> };

export const trustedFile = (configDir: string): string => join(configDir, 'trusted.json');

/**
 * The parts of project settings that need trust: everything that runs a command or loosens
 * safety. Deny rules apply without it; so do mode and sandbox when they only tighten (plan,
 * readonly, strict). A project's `lang` is never read: the interface language is the user's.
 */
function gatedProjectSettings(root: string, project: ProjectFiles): Record<string, unknown> {
  const s = project.settings;
  const gated: Record<string, unknown> = {};
  if (hasHooks(s)) gated.hooks = s.hooks;
  // Claude Code's files are named in the question: the user may not know feiyu reads them.
  const claude = (project.claude ?? []).filter((c) => hasHooks(c.settings) || c.settings.permissions?.allow?.length);
  if (claude.length) gated.claude = claude.map((c) => ({ file: relative(root, c.file), hooks: hasHooks(c.settings) ? c.settings.hooks : undefined, allow: c.settings.permissions?.allow }));
  const verify = [...project.verify, ...(s.verify ? [s.verify] : [])];
  if (verify.length) gated.verify = verify;
  if (s.permissions?.allow?.length) gated.allow = s.permissions.allow;
  if (s.mode === 'auto' || s.mode === 'default') gated.mode = s.mode;
  if (s.sandbox === 'off' || s.sandbox === 'workspace') gated.sandbox = s.sandbox;
  if (s.sandboxNetwork === true) gated.sandboxNetwork = true;
  if (s.webFetch?.allowPrivate?.length) gated.webFetchAllowPrivate = s.webFetch.allowPrivate;
  const servers = projectServers(project);
  if (Object.keys(servers).length) gated.mcpServers = servers;
  const commands = (project.commands ?? []).filter((c) => c.shell.length || c.allowedTools.length);
  if (commands.length) gated.commands = commands.map(({ name, shell, allowedTools }) => ({ name, shell, allowedTools }));
  if (project.agents?.length) gated.agents = project.agents.map((a) => `${a.path} ${a.hash}`);
  return gated;
}

/** A project's MCP servers: its .mcp.json's, then its settings' (which win on a name in both). */
export function projectServers(project: ProjectFiles): Record<string, McpServerConfig> {
  return { ...project.mcpJson, ...project.settings.mcpServers };
}

/** The project settings that apply while the project is not trusted. */
export function untrustedProjectSettings(settings: Settings): Settings {
  const out: Settings = {};
  if (settings.permissions?.deny?.length) out.permissions = { deny: settings.permissions.deny };
  if (settings.mode === 'plan' || settings.mode === 'readonly') out.mode = settings.mode;
  if (settings.sandbox === 'strict') out.sandbox = settings.sandbox;
  if (settings.sandboxNetwork === false) out.sandboxNetwork = false;
  return out;
}

const hasHooks = (s: Settings): boolean => Object.values(readHooks(s.hooks).table).some((list) => list?.length);

export function projectTrustState(root: string, configDir: string, project: ProjectFiles): TrustState {
  const gated = gatedProjectSettings(root, project);
  const whatWouldRun = listGated(gated);
  const hash = createHash('sha256').update(canonical(gated)).digest('hex');
  if (!whatWouldRun.length) return { trusted: true, hash, whatWouldRun };
  const entry = readTrusted(configDir).projects[root];
  return { trusted: entry?.hash === hash, hash, whatWouldRun };
}

/** Remembers that the user trusts this project with the content `hash` describes. */
export function trustProject(root: string, configDir: string, hash: string): void {
  updatePrivateJson(trustedFile(configDir), readProjectsFile<TrustedFile['projects'][string]>, (data) => {
    data.projects[root] = { hash, trustedAt: new Date().toISOString() };
  });
}

function readTrusted(configDir: string): TrustedFile {
  return readProjectsFile<TrustedFile['projects'][string]>(trustedFile(configDir));
}

/** One line per hook, in settings notation, after `prefix`. */
function hookLines(prefix: string, hooks: unknown): string[] {
  return Object.entries(readHooks(hooks).table).flatMap(([event, list]) => (list ?? []).map((h) => `${prefix}hooks.${event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command}`));
}

function listGated(gated: Record<string, unknown>): string[] {
  const lines = hookLines('', gated.hooks);
  for (const v of (gated.verify as string[] | undefined) ?? []) lines.push(`verify: ${v}`);
  for (const a of (gated.allow as string[] | undefined) ?? []) lines.push(`permissions.allow: ${a}`);
  for (const c of (gated.claude as { file: string; hooks?: unknown; allow?: string[] }[] | undefined) ?? []) {
    lines.push(...hookLines(`${c.file}: `, c.hooks), ...(c.allow ?? []).map((a) => `${c.file}: permissions.allow: ${a}`));
  }
  if (gated.mode) lines.push(`mode: ${gated.mode as string}`);
  if (gated.sandbox) lines.push(`sandbox: ${gated.sandbox as string}`);
  if (gated.sandboxNetwork) lines.push('sandboxNetwork: true');
  for (const h of (gated.webFetchAllowPrivate as string[] | undefined) ?? []) lines.push(`webFetch.allowPrivate: ${h}`);
  for (const [name, server] of Object.entries((gated.mcpServers ?? {}) as Record<string, McpServerConfig>)) lines.push(serverLine(name, server));
  for (const c of (gated.commands as GatedCommand[] | undefined) ?? []) {
    for (const line of c.shell) lines.push(`/${c.name}: !\`${line}\``);
    if (c.allowedTools.length) lines.push(`/${c.name} allowed-tools: ${c.allowedTools.join(', ')}`);
  }
  for (const a of (gated.agents as string[] | undefined) ?? []) lines.push(`agent: ${a.slice(0, a.lastIndexOf(' '))}`);
  return lines;
}

/** JSON with sorted keys, so the hash does not depend on key order in the file. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Project settings that apply now: all of them once trusted, only the tightening ones before (a
 * Claude Code file's deny rules apply at once, its hooks and allow rules once trusted). Lists add
 * up (rules, hooks per event, verify commands); single values take the project's. `skipped`: what
 * the hooks that apply hold that feiyu cannot run, with the file it is in.
 */
export function effectiveSettings(settings: LoadedSettings, trusted: boolean) {
  const { user } = settings;
  const project = trusted ? settings.project : untrustedProjectSettings(settings.project);
  const claude = settings.claude.map((c) => (trusted ? c : { file: c.file, settings: { permissions: { deny: c.settings.permissions?.deny } } }));
  const files: { file: string; settings: Settings }[] = [{ file: settings.userFile, settings: user }, { file: settings.projectFile, settings: project }, ...claude];
  const read = files.map((f) => ({ file: f.file, ...readHooks(f.settings.hooks) }));
  const rules = (kind: 'allow' | 'deny') => files.flatMap((f) => f.settings.permissions?.[kind] ?? []);
  return {
    merged: { ...user, ...project },
    allow: rules('allow'),
    deny: rules('deny'),
    hooks: joinHooks(read.map((r) => r.table)) as HookTable,
    skipped: read.flatMap((r) => r.skipped.map((s): HookSkipped & { file: string } => ({ ...s, file: r.file }))),
    verify: [user.verify, project.verify].filter((v): v is string => !!v),
  };
}
