// Project trust: what a project's own files would make feiyu run or allow (hooks, verify:
// commands, allow rules, looser mode or sandbox), whether the user trusted exactly that, and
// remembering it in trusted.json by path and hash, so any change asks again. Must not ask the
// user or run anything: the REPL asks, hooks/runner.ts runs.

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readProjectsFile, updatePrivateJson } from '../util/jsonfile.js';
import type { LoadedSettings, Settings } from './settings.js';
import { HOOK_EVENTS } from '../types/events.js';

/**
 * What a project brings: its .feiyu/settings.json, the verify: lines of its conventions file and
 * its specialist definitions (path and content hash: a changed prompt asks again).
 */
export type ProjectFiles = { settings: Settings; verify: string[]; agents?: { path: string; hash: string }[] };

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
function gatedProjectSettings(project: ProjectFiles): Record<string, unknown> {
  const s = project.settings;
  const gated: Record<string, unknown> = {};
  if (s.hooks && Object.values(s.hooks).some((list) => list?.length)) gated.hooks = s.hooks;
  const verify = [...project.verify, ...(s.verify ? [s.verify] : [])];
  if (verify.length) gated.verify = verify;
  if (s.permissions?.allow?.length) gated.allow = s.permissions.allow;
  if (s.mode === 'auto' || s.mode === 'default') gated.mode = s.mode;
  if (s.sandbox === 'off' || s.sandbox === 'workspace') gated.sandbox = s.sandbox;
  if (s.sandboxNetwork === true) gated.sandboxNetwork = true;
  if (s.webFetch?.allowPrivate?.length) gated.webFetchAllowPrivate = s.webFetch.allowPrivate;
  if (project.agents?.length) gated.agents = project.agents.map((a) => `${a.path} ${a.hash}`);
  return gated;
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

export function projectTrustState(root: string, configDir: string, project: ProjectFiles): TrustState {
  const gated = gatedProjectSettings(project);
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

function listGated(gated: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const hooks = (gated.hooks ?? {}) as Settings['hooks'] & object;
  for (const [event, list] of Object.entries(hooks)) {
    for (const h of list ?? []) lines.push(`hooks.${event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command}`);
  }
  for (const v of (gated.verify as string[] | undefined) ?? []) lines.push(`verify: ${v}`);
  for (const a of (gated.allow as string[] | undefined) ?? []) lines.push(`permissions.allow: ${a}`);
  if (gated.mode) lines.push(`mode: ${gated.mode as string}`);
  if (gated.sandbox) lines.push(`sandbox: ${gated.sandbox as string}`);
  if (gated.sandboxNetwork) lines.push('sandboxNetwork: true');
  for (const h of (gated.webFetchAllowPrivate as string[] | undefined) ?? []) lines.push(`webFetch.allowPrivate: ${h}`);
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

/** Project settings that apply now: all of them once trusted, only the tightening ones before.
 *  Lists add up (rules, hooks per event, verify commands); single values take the project's. */
export function effectiveSettings(settings: LoadedSettings, trusted: boolean) {
  const { user } = settings;
  const project = trusted ? settings.project : untrustedProjectSettings(settings.project);
  const hooks: NonNullable<Settings['hooks']> = {};
  for (const event of HOOK_EVENTS) hooks[event] = [...(user.hooks?.[event] ?? []), ...(project.hooks?.[event] ?? [])];
  return {
    merged: { ...user, ...project },
    allow: [...(user.permissions?.allow ?? []), ...(project.permissions?.allow ?? [])],
    deny: [...(user.permissions?.deny ?? []), ...(project.permissions?.deny ?? [])],
    hooks,
    verify: [user.verify, project.verify].filter((v): v is string => !!v),
  };
}
