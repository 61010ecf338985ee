// settings.json at user level (config folder) and project level (.feiyu/settings.json), and the
// hooks and permission rules of a project's Claude Code settings (.claude/settings.json and
// settings.local.json): loading and validating them (DESIGN.md §4), and saving the user's file
// (merged, 0600, atomic). Bad settings throw a Problem at start-up naming the file, the field and
// the problem. Must not merge user and project settings or decide what project settings may do:
// trust.ts and the CLI do that.

import { join } from 'node:path';
import { isObject, updatePrivateJson } from '../util/jsonfile.js';
import { Problem } from '../i18n/index.js';
import { configDir } from './keys.js';
import { readConfigText } from './configfile.js';
import { ruleError } from '../safety/rules.js';
import { hooksProblem, mustBe, type Found } from './hooks.js';
import { PERMISSION_MODES, SANDBOX_LEVELS, type PermissionMode, type SandboxLevel } from '../types/permissions.js';
import type { ToolTiers } from '../types/tools.js';
import { mcpJsonFile, mcpServersError, readMcpJson, type McpServerConfig } from './mcpservers.js';

export type Settings = {
  mode?: PermissionMode;
  sandbox?: SandboxLevel;
  /** The workspace level with the host network (off by default: a loopback of its own). */
  sandboxNetwork?: boolean;
  lang?: 'en' | 'zh';
  permissions?: { allow?: string[]; deny?: string[] };
  /** As written (config/hooks.ts reads it): saving the file must not rewrite the user's hooks. */
  hooks?: Record<string, unknown>;
  webFetch?: { allowPrivate?: string[] };
  /** A command run after every successful write, like a `verify:` line in FEIYU.md. */
  verify?: string;
  /** Seconds a model's reply may stay silent before the request is stopped (default 120; 0 = never). */
  streamIdleTimeout?: number;
  /** Which tools are hot beside the built-in hot ones, which cold, the declaration budget. */
  tools?: ToolTiers;
  /** false: every tool declared in every request, as before deferred schemas (for comparison). */
  deferTools?: boolean;
  /** A keys.json name: the cheaper model for the explore specialist, web_fetch questions and compaction summaries. */
  sideModel?: string;
  /** The code index: auto (on in a git repository with at least 200 source files), on, off. */
  codeIndex?: 'auto' | 'on' | 'off';
  /** Attention after a long turn and at a question: auto (OSC 9 where known, else the bell), bell, osc9, off. */
  notify?: NotifySetting;
  /** MCP servers by name, in Claude Code's shape (config/mcpservers.ts). */
  mcpServers?: Record<string, McpServerConfig>;
  /** Seconds one MCP tool call may take before it is cancelled (default 60). */
  mcpToolTimeout?: number;
  /** Seconds an MCP server may take to start and answer (default 30). */
  mcpStartTimeout?: number;
};

export const NOTIFY_SETTINGS = ['auto', 'bell', 'osc9', 'off'] as const;
export type NotifySetting = (typeof NOTIFY_SETTINGS)[number];

/** What feiyu reads of one Claude Code settings file: its hooks and its allow and deny rules. */
export type ClaudeSettings = { file: string; settings: Pick<Settings, 'hooks' | 'permissions'> };

export type LoadedSettings = {
  user: Settings;
  project: Settings;
  userFile: string;
  projectFile: string;
  /** The project's Claude Code settings files that exist, as project settings (they need trust too). */
  claude: ClaudeSettings[];
  /** The project's .mcp.json servers (they need trust too); absent when it has none or is broken. */
  mcpJson?: Record<string, McpServerConfig>;
  /** Why .mcp.json could not be read, for a notice. */
  mcpJsonProblem?: { file: string; error: unknown };
};

export const userSettingsFile = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'settings.json');
export const projectSettingsFile = (root: string): string => join(root, '.feiyu', 'settings.json');
const CLAUDE_FILES = ['settings.json', 'settings.local.json'];

/** Every settings file; a missing file is {}. Contract: throws a Problem naming file, field and problem. */
export function loadSettings(root: string, env: NodeJS.ProcessEnv = process.env): LoadedSettings {
  const userFile = userSettingsFile(env);
  const projectFile = projectSettingsFile(root);
  const claude = CLAUDE_FILES.map((name) => join(root, '.claude', name)).flatMap((file) => {
    const settings = readSettings(file, true);
    return settings.hooks || settings.permissions ? [{ file, settings }] : [];
  });
  // A broken .mcp.json (Claude Code's file) costs its servers, not the session: kept, not thrown.
  let mcpJson: Record<string, McpServerConfig> = {};
  let mcpJsonProblem: LoadedSettings['mcpJsonProblem'];
  try {
    mcpJson = readMcpJson(root);
  } catch (error) {
    mcpJsonProblem = { file: mcpJsonFile(root), error };
  }
  return { user: readSettings(userFile), project: readSettings(projectFile), userFile, projectFile, claude, ...(Object.keys(mcpJson).length && { mcpJson }), ...(mcpJsonProblem && { mcpJsonProblem }) };
}

/**
 * One settings file, validated; {} when it does not exist or is empty. `claude`: a Claude Code
 * settings file, of which only "hooks" and the allow and deny rules are read (the rest is Claude's).
 */
export function readSettings(file: string, claude = false): Settings {
  const text = readConfigText(file);
  if (!text?.trim()) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Problem('settings.json', { file, detail: (err as Error).message });
  }
  return checked(file, claude ? claudePart(data) : data);
}

/**
 * Merges `patch` into the user's settings.json and writes it back (0600, atomic); a key set to
 * undefined is removed. Keys this version does not know are kept. Returns the new settings.
 */
export function saveUserSettings(patch: Settings, env: NodeJS.ProcessEnv = process.env): Settings {
  const file = userSettingsFile(env);
  // Under the file's lock: another feiyu saving its own change at the same moment loses nothing.
  const merged = updatePrivateJson(file, (f) => ({ ...readSettings(f) }) as Record<string, unknown>, (data) => {
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete data[key];
      else data[key] = value;
    }
    checked(file, data);
  });
  return merged as Settings;
}

/** The part of a Claude Code settings file feiyu reads (its "ask" rules and everything else are Claude's). */
function claudePart(data: unknown): unknown {
  if (!isObject(data)) return data;
  const permissions = isObject(data.permissions) ? { allow: data.permissions.allow, deny: data.permissions.deny } : data.permissions;
  return Object.fromEntries(Object.entries({ hooks: data.hooks, permissions }).filter(([, v]) => v !== undefined));
}

function checked(file: string, data: unknown): Settings {
  const found = validate(data);
  if (found) throw new Problem(found.key, { file, ...found.params });
  return data as Settings;
}

const oneOf = (values: readonly string[]): string => values.map((v) => JSON.stringify(v)).join(', ');

/** The first problem with a settings object, or null. Unknown keys are allowed. */
function validate(data: unknown): Found | null {
  if (!isObject(data)) return { key: 'settings.not_object', params: {} };
  const enumField = (field: string, values: readonly string[]): Found | null =>
    data[field] === undefined || values.includes(data[field] as string) ? null : { key: 'settings.one_of', params: { field, values: oneOf(values), value: JSON.stringify(data[field]) } };
  return (
    enumField('mode', PERMISSION_MODES) ??
    enumField('sandbox', SANDBOX_LEVELS) ??
    enumField('lang', ['en', 'zh']) ??
    enumField('codeIndex', ['auto', 'on', 'off']) ??
    enumField('notify', NOTIFY_SETTINGS) ??
    (data.verify === undefined || typeof data.verify === 'string' ? null : mustBe('verify', 'expect.command')) ??
    (data.streamIdleTimeout === undefined || (typeof data.streamIdleTimeout === 'number' && data.streamIdleTimeout >= 0)
      ? null
      : { key: 'settings.type_value', params: { field: 'streamIdleTimeout', expected: new Problem('expect.seconds_or_off'), value: JSON.stringify(data.streamIdleTimeout) } }) ??
    (data.sandboxNetwork === undefined || typeof data.sandboxNetwork === 'boolean' ? null : mustBe('sandboxNetwork', 'expect.boolean')) ??
    validatePermissions(data.permissions) ??
    hooksProblem(data.hooks) ??
    validateObject('webFetch', data.webFetch, (w) => stringList('webFetch.allowPrivate', w.allowPrivate)) ??
    validateTools(data.tools) ??
    (data.deferTools === undefined || typeof data.deferTools === 'boolean' ? null : mustBe('deferTools', 'expect.boolean')) ??
    (data.sideModel === undefined || (typeof data.sideModel === 'string' && data.sideModel.trim()) ? null : mustBe('sideModel', 'agents.expect_model')) ??
    validateMcp(data)
  );
}

function validateMcp(data: Record<string, unknown>): Found | null {
  const servers = mcpServersError(data.mcpServers);
  if (servers) return mustBe(servers.field, servers.expected);
  for (const field of ['mcpToolTimeout', 'mcpStartTimeout']) {
    const v = data[field];
    if (v !== undefined && !(typeof v === 'number' && v > 0)) return mustBe(field, 'expect.seconds');
  }
  return null;
}

const LOAD_INTO = ['conversation', 'tools'];

function validateTools(value: unknown): Found | null {
  return validateObject('tools', value, (t) => {
    const budget = t.budgetTokens;
    if (budget !== undefined && !(typeof budget === 'number' && budget >= 0)) return mustBe('tools.budgetTokens', 'expect.count');
    if (t.loadInto !== undefined && !LOAD_INTO.includes(t.loadInto as string)) {
      return { key: 'settings.one_of', params: { field: 'tools.loadInto', values: oneOf(LOAD_INTO), value: JSON.stringify(t.loadInto) } };
    }
    return stringList('tools.hot', t.hot) ?? stringList('tools.cold', t.cold);
  });
}

function validateObject(name: string, value: unknown, inner: (v: Record<string, unknown>) => Found | null): Found | null {
  if (value === undefined) return null;
  return isObject(value) ? inner(value) : mustBe(name, 'expect.object');
}

function stringList(name: string, value: unknown, each?: (s: string) => Problem | null): Found | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return mustBe(name, 'expect.string_list');
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'string') return mustBe(`${name}[${i}]`, 'expect.string');
    const problem = each?.(item);
    if (problem) return { key: 'settings.rule', params: { field: `${name}[${i}]`, problem } };
  }
  return null;
}

function validatePermissions(value: unknown): Found | null {
  return validateObject('permissions', value, (p) => stringList('permissions.allow', p.allow, ruleError) ?? stringList('permissions.deny', p.deny, ruleError));
}
