// /key: the models in keys.json — list, add (a wizard that tests the endpoint with one small real
// request before saving), remove, and choose the default. keys.json is written through saveKeys
// (0600, atomic); the app reloads its model list afterwards.

import { copyFileSync, readFileSync } from 'node:fs';
import { ConfigError } from '../../app/config.js';
import type { Session } from './session-type.js';
import { confirm } from '../confirm.js';
import { t } from '../../i18n/index.js';
import { DEFAULT_MODELS, keysPath, saveKeys, type KeysEntry, type KeysFile } from '../../config/keys.js';
import { lookupModel } from '../../providers/models.js';
import { createProvider } from '../../providers/stream.js';
import { oneShot } from '../../util/oneshot.js';
import type { ModelConfig, WireFormat } from '../../types/providers.js';
import { color } from '../render.js';
import { explainError } from '../../i18n/explain.js';
import { table } from '../width.js';

const DEFAULT_URLS: Record<WireFormat, string> = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com/v1' };
const DEFAULT_ENV: Record<WireFormat, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** keys.json as written (no defaults filled in); empty when there is none yet, or when it is broken. */
function readKeys(file: string): KeysFile & { broken?: true } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { models: [] };
  }
  try {
    const data = JSON.parse(text) as KeysFile;
    if (Array.isArray(data?.models)) return data;
  } catch {
    // broken: said at start-up; kept aside before it is written again
  }
  return { models: [], broken: true };
}

function save(s: Session, file: string, data: KeysFile & { broken?: true }): void {
  if (data.broken) {
    const backup = `${file}.broken`;
    copyFileSync(file, backup);
    s.ui.warn(t('keys.broken_kept', { backup }));
  }
  const { broken: _, ...keys } = data;
  saveKeys(file, keys);
  try {
    s.app.reloadModels();
  } catch (err) {
    s.ui.fail(err instanceof ConfigError ? err.message : String(err));
  }
}

export async function keyCommand(arg: string, s: Session): Promise<void> {
  const [sub = 'list', name] = arg.split(/\s+/).filter(Boolean);
  const file = keysPath(s.app.env);
  const data = readKeys(file);
  switch (sub) {
    case 'list':
      return list(s, data, file);
    case 'add':
      return add(s, data, file);
    case 'remove':
    case 'default': {
      const entry = data.models.find((m) => m.name === name);
      if (!entry) return s.ui.fail(t('keys.no_such', { name: name ?? '', names: data.models.map((m) => m.name).join(', ') }));
      if (sub === 'default') {
        save(s, file, { ...data, default: entry.name });
        return s.ui.line(t('keys.default_set', { name: entry.name }));
      }
      if (!(await confirm(s, t('keys.remove_confirm', { name: entry.name })))) return;
      const models = data.models.filter((m) => m !== entry);
      const fallback = data.default === entry.name ? models[0]?.name : data.default;
      save(s, file, fallback ? { default: fallback, models } : { models });
      s.ui.line(t('keys.removed', { name: entry.name }));
      if (entry.name === s.app.model.name) s.ui.warn(t('keys.still_in_use'));
      return;
    }
    default:
      s.ui.fail(t('keys.usage'));
  }
}

function keySource(m: KeysEntry): string {
  if (m.apiKeyEnv) return t('keys.from_env', { name: m.apiKeyEnv });
  if (m.apiKey) return t('keys.in_file', { tail: m.apiKey.slice(-4) });
  return t('keys.no_key');
}

function list(s: Session, data: KeysFile & { broken?: true }, file: string): void {
  const { ui, app } = s;
  if (data.broken) return ui.fail(t('keys.broken_list', { file }));
  if (!data.models.length) {
    ui.note(t('keys.none', { file }));
    for (const m of app.models.models) ui.line(`  ${m.name}  ${t('keys.env_model', { provider: m.provider, id: m.model })}`);
    return;
  }
  const def = data.default ?? data.models[0]!.name;
  const rows: [string, string][] = data.models.map((m) => [
    `${m.name === app.model.name ? '*' : ' '} ${m.name}${m.name === def ? ` (${t('keys.default')})` : ''}`,
    `${m.provider} ${m.model}  ${m.baseURL ?? DEFAULT_URLS[m.provider]}  ${keySource(m)}`,
  ]);
  for (const line of table(rows, ui.columns())) ui.line(line);
  ui.note(t('keys.hint'));
}

/** Asks until the answer is acceptable; `check` returns the value or undefined. Undefined on cancel. */
async function ask<T>(s: Session, prompt: string, fallback: string, check: (answer: string) => T | undefined, secret = false): Promise<T | undefined> {
  for (;;) {
    const answer = await s.input.question(`  ${prompt}${fallback ? ` [${fallback}]` : ''} › `, secret);
    if (answer === undefined) return undefined;
    const value = check(answer.trim() || fallback);
    if (value !== undefined) return value;
    s.ui.fail(`  ${t('keys.invalid')}`);
  }
}

async function add(s: Session, data: KeysFile, file: string): Promise<void> {
  const { ui } = s;
  ui.line(t('keys.add_title'));
  const provider = await ask(s, t('keys.ask_format'), 'anthropic', (a) => (a === 'anthropic' || a === 'openai' ? (a as WireFormat) : undefined));
  if (!provider) return;
  const baseURL = await ask(s, t('keys.ask_url'), DEFAULT_URLS[provider], (a) => (URL.canParse(a) ? a.replace(/\/+$/, '') : undefined));
  if (!baseURL) return;
  const model = await ask(s, t('keys.ask_model'), DEFAULT_MODELS[provider], (a) => a || undefined);
  if (!model) return;
  const key = await ask(s, t('keys.ask_key'), DEFAULT_ENV[provider], (a) => a || undefined, true);
  if (!key) return;
  ui.note(`  ${ENV_NAME.test(key) ? t('keys.from_env', { name: key }) : t('keys.in_file', { tail: key.slice(-4) })}`);
  const known = lookupModel(model);
  const vision = await ask(s, t('keys.ask_vision'), known?.vision ? 'y' : 'n', (a) => (/^[yn]/i.test(a) ? /^y/i.test(a) : undefined));
  if (vision === undefined) return;
  const contextWindow = await ask(s, t('keys.ask_context'), String(known?.contextWindow ?? 128_000), (a) => {
    const n = Math.round(Number(a.replace(/k$/i, '')) * (/k$/i.test(a) ? 1000 : 1));
    return Number.isFinite(n) && n >= 1000 ? n : undefined;
  });
  if (!contextWindow) return;
  const taken = new Set(data.models.map((m) => m.name));
  const name = await ask(s, t('keys.ask_name'), taken.has(model) ? '' : model, (a) => (a && !taken.has(a) ? a : undefined));
  if (!name) return;

  const entry: KeysEntry = { name, provider, model, ...(baseURL === DEFAULT_URLS[provider] ? {} : { baseURL }), ...(ENV_NAME.test(key) ? { apiKeyEnv: key } : { apiKey: key }), vision, contextWindow };
  if (entry.apiKeyEnv && !s.app.env[entry.apiKeyEnv]) ui.warn(t('keys.env_unset', { name: entry.apiKeyEnv }));
  const config: ModelConfig = { ...entry, contextWindow, maxOutputTokens: known?.maxOutputTokens ?? 8192, ...(known ? { price: known.price } : {}) };
  ui.line(t('keys.testing', { id: model, url: baseURL }));
  const error = await s.busy((signal) => testEndpoint(config, signal));
  if (error === 'aborted') return ui.warn(t('keys.not_saved'));
  if (error) {
    ui.fail(explainError(error, config));
    if (!(await confirm(s, t('keys.save_anyway')))) return ui.warn(t('keys.not_saved'));
  } else {
    ui.line(ui.paint(color.green, t('keys.test_ok')));
  }
  save(s, file, { ...data, models: [...data.models, entry] });
  ui.line(t('keys.saved', { name, file }));
}

/** One small real request; its error, 'aborted', or null when the endpoint answered. */
async function testEndpoint(config: ModelConfig, signal: AbortSignal) {
  const reply = await oneShot(createProvider(config, { retry: { maxAttempts: 1 } }), { system: 'Reply with one word.', text: 'ping', maxTokens: 16, signal });
  if (reply.stopReason === 'aborted') return 'aborted' as const;
  return reply.stopReason === 'error' ? (reply.error ?? { kind: 'other' as const, message: t('keys.no_answer') }) : null;
}
