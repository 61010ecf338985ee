// The one catalogue of user-facing strings, in English and Simplified Chinese (its two halves are
// en.ts and zh.ts), and the choice of language. Strings meant for the model
// (tool results, refusals) are not here: they stay English.
// Contract: every key exists in both languages (the compiler and a test check it).

import { en } from './en.js';
import { zh } from './zh.js';

export type Lang = 'en' | 'zh';

export type { MessageKey } from './en.js';
import type { MessageKey } from './en.js';

const catalogue: Record<Lang, Record<MessageKey, string>> = { en, zh };

let current: Lang = 'en';

export function setLang(lang: Lang): void {
  current = lang;
}

export function getLang(): Lang {
  return current;
}

/** The string for `key` in the current language, with `{name}` placeholders filled. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  return fill(catalogue[current][key], params);
}

function fill(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A parameter of a Problem: a value, or a problem of its own worded inside it. */
export type ProblemParams = Record<string, string | number | Problem>;

/**
 * A problem for the user found where it is found (keys.json, settings, rules, hooks): a catalogue
 * key and its parameters, worded in the interface language when shown (problemText). `message`
 * is the English text, for logs and tests.
 */
export class Problem extends Error {
  constructor(
    readonly key: MessageKey,
    readonly params: ProblemParams = {},
  ) {
    super(word(key, params, 'en'));
    this.name = 'Problem';
  }
}

/** The problem in the current language. */
export function problemText(problem: Problem): string {
  return word(problem.key, problem.params, current);
}

function word(key: MessageKey, params: ProblemParams, lang: Lang): string {
  const plain = Object.fromEntries(Object.entries(params).map(([name, v]) => [name, v instanceof Problem ? word(v.key, v.params, lang) : v]));
  return fill(catalogue[lang][key], plain);
}

/** Whether `key` is in the catalogue (for keys built from codes another module chose). */
export function hasKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

/** Every key of the catalogue, per language (for the completeness test). */
export function catalogueKeys(): Record<Lang, string[]> {
  return { en: Object.keys(en), zh: Object.keys(zh) };
}

/**
 * The interface language: --lang, else settings, else FEIYU_LANG, else the locale variables
 * (zh* means Chinese), else English.
 */
export function detectLang(flag: string | undefined, setting: string | undefined, env: NodeJS.ProcessEnv): Lang {
  for (const v of [flag, setting, env.FEIYU_LANG]) {
    if (v === 'en' || v === 'zh') return v;
  }
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return locale.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}
