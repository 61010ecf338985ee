// The "hooks" of a settings file (DESIGN.md §4): Claude Code's form, {"PreToolUse": [{"matcher":
// "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 60}]}]}, and feiyu's older flat
// form, [{"matcher": "bash", "command": "…"}], checked and read into one list per event. An event
// feiyu does not know and a hook type it cannot run are reported, never refused. Must not compile
// matchers or run anything: hooks/runner.ts does.

import type { MessageKey, ProblemParams } from '../i18n/index.js';
import { Problem } from '../i18n/index.js';
import { isObject } from '../util/jsonfile.js';
import { HOOK_EVENTS, type HookEvent } from '../types/events.js';

/** One command hook. `matcher`: tool names or a regular expression over them, as Claude Code reads it (hooks/runner.ts), or over the event's own field; `flat`: written in feiyu's older form. */
export type HookSpec = { matcher?: string; command: string; timeout?: number; flat?: true };

export type HookTable = Partial<Record<HookEvent, HookSpec[]>>;

/** What a settings file holds that feiyu cannot use: an event it does not know, or a hook `type` it cannot run. */
export type HookSkipped = { event: string; type?: string };

/** What is wrong with a settings value: a catalogue key and its parameters (the file is added by the caller). */
export type Found = { key: MessageKey; params: ProblemParams };

export const mustBe = (field: string, expected: MessageKey): Found => ({ key: 'settings.type', params: { field, expected: new Problem(expected) } });

const isEvent = (name: string): name is HookEvent => (HOOK_EVENTS as readonly string[]).includes(name);

/** The first problem with a "hooks" value, or null. Unknown events and hook types are not problems. */
export function hooksProblem(value: unknown): Found | null {
  if (value === undefined) return null;
  if (!isObject(value)) return mustBe('hooks', 'expect.object');
  for (const [event, list] of Object.entries(value)) {
    if (!isEvent(event)) continue;
    if (!Array.isArray(list)) return mustBe(`hooks.${event}`, 'expect.hook_list');
    for (const [i, entry] of list.entries()) {
      const found = entryProblem(`hooks.${event}[${i}]`, entry);
      if (found) return found;
    }
  }
  return null;
}

function entryProblem(at: string, entry: unknown): Found | null {
  if (!isObject(entry) || (entry.hooks === undefined && entry.command === undefined)) return mustBe(at, 'expect.hook');
  if (entry.matcher !== undefined && (typeof entry.matcher !== 'string' || !validMatcher(entry.matcher))) return mustBe(`${at}.matcher`, 'expect.regex');
  if (entry.hooks === undefined) return commandProblem(at, entry);
  if (!Array.isArray(entry.hooks)) return mustBe(`${at}.hooks`, 'expect.hook_list');
  for (const [j, hook] of entry.hooks.entries()) {
    if (!isObject(hook)) return mustBe(`${at}.hooks[${j}]`, 'expect.hook');
    if ((hook.type ?? 'command') !== 'command') continue;
    const found = commandProblem(`${at}.hooks[${j}]`, hook);
    if (found) return found;
  }
  return null;
}

function commandProblem(at: string, hook: Record<string, unknown>): Found | null {
  if (typeof hook.command !== 'string' || !hook.command.trim()) return mustBe(`${at}.command`, 'expect.nonempty_string');
  if (hook.timeout !== undefined && !(typeof hook.timeout === 'number' && hook.timeout > 0)) return mustBe(`${at}.timeout`, 'expect.seconds');
  return null;
}

/** "" and "*" match everything, as in Claude Code; anything else must be a regular expression. */
function validMatcher(source: string): boolean {
  if (source.trim() === '' || source.trim() === '*') return true;
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** The hooks of a "hooks" value already checked with hooksProblem, per event in order, and what was passed over. */
export function readHooks(value: unknown): { table: HookTable; skipped: HookSkipped[] } {
  const table: HookTable = {};
  const skipped: HookSkipped[] = [];
  if (!isObject(value)) return { table, skipped };
  for (const [event, list] of Object.entries(value)) {
    if (!isEvent(event)) {
      skipped.push({ event });
      continue;
    }
    const specs: HookSpec[] = [];
    for (const entry of list as Record<string, unknown>[]) {
      const matcher = typeof entry.matcher === 'string' ? { matcher: entry.matcher } : {};
      if (entry.hooks === undefined) {
        specs.push({ ...matcher, ...commandOf(entry), flat: true });
        continue;
      }
      for (const hook of entry.hooks as Record<string, unknown>[]) {
        const type = hook.type ?? 'command';
        if (type === 'command') specs.push({ ...matcher, ...commandOf(hook) });
        else skipped.push({ event, type: String(type) });
      }
    }
    table[event] = specs;
  }
  return { table, skipped };
}

const commandOf = (hook: Record<string, unknown>): HookSpec => ({ command: hook.command as string, ...(typeof hook.timeout === 'number' && { timeout: hook.timeout }) });

/** The tables of several files, one after the other per event. */
export function joinHooks(tables: HookTable[]): HookTable {
  const joined: HookTable = {};
  for (const event of HOOK_EVENTS) {
    const specs = tables.flatMap((t) => t[event] ?? []);
    if (specs.length) joined[event] = specs;
  }
  return joined;
}
