// settings.json at user level (config folder) and project level (.feiyu/settings.json): loading
// and validating them (DESIGN.md §4), and saving the user's file (merged, 0600, atomic). Bad
// settings throw at start-up naming the file, the field and the problem. Must not merge user and
// project settings or decide what project settings may do: trust.ts and the CLI do that.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateJson } from '../util/jsonfile.js';
import { configDir } from './keys.js';
import { ruleError } from '../safety/rules.js';
import { PERMISSION_MODES, SANDBOX_LEVELS, type PermissionMode, type SandboxLevel } from '../types.js';

export type HookEvent = 'PreToolUse' | 'PostToolUse' | 'UserPromptSubmit' | 'Stop';
export const HOOK_EVENTS: readonly HookEvent[] = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'];
/** One hook: `matcher` is a regular expression over tool names (PreToolUse, PostToolUse). */
export type HookSpec = { matcher?: string; command: string; timeout?: number };

export type Settings = {
  mode?: PermissionMode;
  sandbox?: SandboxLevel;
  lang?: 'en' | 'zh';
  permissions?: { allow?: string[]; deny?: string[] };
  hooks?: Partial<Record<HookEvent, HookSpec[]>>;
  webFetch?: { allowPrivate?: string[] };
  /** A command run after every successful write, like a `verify:` line in FEIYU.md. */
  verify?: string;
  /** The code index: auto (on in a git repository with at least 200 source files), on, off. */
  codeIndex?: 'auto' | 'on' | 'off';
};

export type LoadedSettings = { user: Settings; project: Settings; userFile: string; projectFile: string };

export const userSettingsFile = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'settings.json');
export const projectSettingsFile = (root: string): string => join(root, '.feiyu', 'settings.json');

/** Both settings files; a missing file is {}. Contract: throws an Error naming file, field and problem. */
export function loadSettings(root: string, env: NodeJS.ProcessEnv = process.env): LoadedSettings {
  const userFile = userSettingsFile(env);
  const projectFile = projectSettingsFile(root);
  return { user: readSettings(userFile), project: readSettings(projectFile), userFile, projectFile };
}

/** One settings file, validated; {} when it does not exist or is empty. */
export function readSettings(file: string): Settings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${file}: cannot read it: ${(err as Error).message}`);
  }
  if (!text.trim()) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  const problem = validate(data);
  if (problem) throw new Error(`${file}: ${problem}`);
  return data as Settings;
}

/**
 * Merges `patch` into the user's settings.json and writes it back (0600, atomic); a key set to
 * undefined is removed. Keys this version does not know are kept. Returns the new settings.
 */
export function saveUserSettings(patch: Settings, env: NodeJS.ProcessEnv = process.env): Settings {
  const file = userSettingsFile(env);
  const merged: Record<string, unknown> = { ...readSettings(file) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  const problem = validate(merged);
  if (problem) throw new Error(`${file}: ${problem}`);
  writePrivateJson(file, merged);
  return merged as Settings;
}


const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const oneOf = (values: readonly string[]): string => values.map((v) => JSON.stringify(v)).join(', ');

/** The first problem with a settings object, as "field: problem", or null. Unknown keys are allowed. */
function validate(data: unknown): string | null {
  if (!isObject(data)) return 'the file must hold a JSON object';
  const enumField = (key: string, values: readonly string[]): string | null =>
    data[key] === undefined || values.includes(data[key] as string) ? null : `"${key}" must be one of ${oneOf(values)}, not ${JSON.stringify(data[key])}`;
  return (
    enumField('mode', PERMISSION_MODES) ??
    enumField('sandbox', SANDBOX_LEVELS) ??
    enumField('lang', ['en', 'zh']) ??
    enumField('codeIndex', ['auto', 'on', 'off']) ??
    (data.verify === undefined || typeof data.verify === 'string' ? null : '"verify" must be a string (a command)') ??
    validatePermissions(data.permissions) ??
    validateHooks(data.hooks) ??
    validateObject('webFetch', data.webFetch, (w) => stringList('webFetch.allowPrivate', w.allowPrivate))
  );
}

function validateObject(name: string, value: unknown, inner: (v: Record<string, unknown>) => string | null): string | null {
  if (value === undefined) return null;
  return isObject(value) ? inner(value) : `"${name}" must be an object`;
}

function stringList(name: string, value: unknown, each?: (s: string) => string | null): string | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return `"${name}" must be a list of strings`;
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'string') return `"${name}[${i}]" must be a string`;
    const problem = each?.(item);
    if (problem) return `"${name}[${i}]": ${problem}`;
  }
  return null;
}

function validatePermissions(value: unknown): string | null {
  return validateObject('permissions', value, (p) => stringList('permissions.allow', p.allow, ruleError) ?? stringList('permissions.deny', p.deny, ruleError));
}

function validateHooks(value: unknown): string | null {
  return validateObject('hooks', value, (hooks) => {
    for (const [event, list] of Object.entries(hooks)) {
      if (!HOOK_EVENTS.includes(event as HookEvent)) return `"hooks.${event}" is not a hook event; use one of ${oneOf(HOOK_EVENTS)}`;
      if (!Array.isArray(list)) return `"hooks.${event}" must be a list of hooks`;
      for (const [i, hook] of list.entries()) {
        const at = `hooks.${event}[${i}]`;
        if (!isObject(hook)) return `"${at}" must be an object with a "command"`;
        if (typeof hook.command !== 'string' || !hook.command.trim()) return `"${at}.command" must be a non-empty string`;
        if (hook.matcher !== undefined && (typeof hook.matcher !== 'string' || !validRegex(hook.matcher))) return `"${at}.matcher" must be a valid regular expression`;
        if (hook.timeout !== undefined && !(typeof hook.timeout === 'number' && hook.timeout > 0)) return `"${at}.timeout" must be a positive number of seconds`;
      }
    }
    return null;
  });
}

function validRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
