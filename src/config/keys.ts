// The configured models: where feiyu's config and state live (XDG), reading and validating
// keys.json (DESIGN.md §4) with the built-in table's defaults, the environment fallback, and
// writing keys.json safely (0600, atomic). Bad configuration throws a Problem at start-up;
// this module never talks to a provider.

import { chmodSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isObject, writePrivateJson } from '../util/jsonfile.js';
import { CONFIG_FILE_MAX, readRegularFile } from '../util/readfile.js';
import { lookupModel } from '../providers/models.js';
import { Problem, type MessageKey } from '../i18n/index.js';
import type { ModelConfig, WireFormat } from '../types/providers.js';

type Env = NodeJS.ProcessEnv;

/** One entry of keys.json as written: the built-in table fills what is left out. */
export type KeysEntry = Omit<ModelConfig, 'contextWindow' | 'maxOutputTokens'> &
  Partial<Pick<ModelConfig, 'contextWindow' | 'maxOutputTokens'>>;
/** keys.json as a whole. */
export type KeysFile = { default?: string; models: KeysEntry[] };
/**
 * The models ready to use; `defaultName` is '' when none is configured. `exposed`: keys.json held
 * keys others could read (its old mode), and whether it was made 0600.
 */
export type LoadedModels = { models: ModelConfig[]; defaultName: string; exposed?: { file: string; mode: string; fixed: boolean } };

export const DEFAULT_MODELS: Record<WireFormat, string> = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-4.1' };
/** For models the table does not know: modest limits that real servers accept. */
const FALLBACK_LIMITS = { contextWindow: 128_000, maxOutputTokens: 8192 };

const home = (env: Env) => env.HOME || homedir();
export const configDir = (env: Env = process.env) => join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'feiyu');
export const stateDir = (env: Env = process.env) => join(env.XDG_STATE_HOME || join(home(env), '.local', 'state'), 'feiyu');
export const keysPath = (env: Env = process.env) => join(configDir(env), 'keys.json');

/**
 * The configured models: keys.json when it exists, else the environment; `models` may be empty.
 * Throws a Problem for a broken file, a FileReadError for one that is not a regular file or is
 * huge. A keys.json holding keys that others may read is made 0600 (and says so).
 */
export function loadModels(env: Env = process.env): LoadedModels {
  const file = keysPath(env);
  const text = readRegularFile(file, CONFIG_FILE_MAX);
  if (text === undefined) return fromEnv(env);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const detail = (e as Error).message;
    throw new Problem('cfg.keys_json', { file, detail });
  }
  const loaded = modelsOf(data, file);
  const exposed = loaded.models.some((m) => m.apiKey) ? makePrivate(file) : undefined;
  return exposed ? { ...loaded, exposed } : loaded;
}

/**
 * Checks keys.json's content (`data`, from `file` or a caller's object) and fills each model's
 * limits and price from the built-in table. Throws a Problem naming what is wrong.
 */
export function modelsOf(data: unknown, file: string): LoadedModels {
  const keys = checkKeysFile(file, data);
  const models = keys.models.map(withDefaults);
  const names = models.map((m) => m.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) {
    throw new Problem('cfg.keys_duplicate', { file, name: duplicate });
  }
  const defaultName = keys.default ?? names[0] ?? '';
  if (models.length > 0 && !names.includes(defaultName)) {
    const params = { file, name: defaultName, names: names.join(', ') };
    throw new Problem('cfg.keys_default', params);
  }
  return { models, defaultName };
}

/** Makes a file that holds keys 0600 when group or others may read it; what it was, or undefined when it was private. */
function makePrivate(file: string): LoadedModels['exposed'] {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  let fixed = true;
  try {
    chmodSync(file, 0o600);
  } catch {
    fixed = false;
  }
  return { file, mode: mode.toString(8).padStart(4, '0'), fixed };
}

function fromEnv(env: Env): LoadedModels {
  const provider: WireFormat | undefined = env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : undefined;
  if (!provider) return { models: [], defaultName: '' };
  const prefix = provider === 'anthropic' ? 'ANTHROPIC' : 'OPENAI';
  const entry: KeysEntry = {
    name: 'default',
    provider,
    model: env.FEIYU_MODEL || DEFAULT_MODELS[provider],
    apiKeyEnv: `${prefix}_API_KEY`,
  };
  const baseURL = env[`${prefix}_BASE_URL`];
  if (baseURL) entry.baseURL = baseURL;
  return { models: [withDefaults(entry)], defaultName: 'default' };
}

function withDefaults(entry: KeysEntry): ModelConfig {
  const known = lookupModel(entry.model);
  const filled: ModelConfig = {
    ...entry,
    contextWindow: entry.contextWindow ?? known?.contextWindow ?? FALLBACK_LIMITS.contextWindow,
    maxOutputTokens: entry.maxOutputTokens ?? known?.maxOutputTokens ?? FALLBACK_LIMITS.maxOutputTokens,
  };
  if (entry.vision === undefined) filled.vision = known?.vision ?? false;
  if (entry.price === undefined && known) filled.price = known.price;
  return filled;
}

// What each optional field must hold; `name`, `provider` and `model` are checked first.
const FIELD_TYPES: Record<string, 'string' | 'number' | 'tokens' | 'boolean' | 'price'> = {
  baseURL: 'string',
  apiKey: 'string',
  apiKeyEnv: 'string',
  vision: 'boolean',
  contextWindow: 'tokens',
  maxOutputTokens: 'tokens',
  thinkingBudget: 'number',
  price: 'price',
};

function checkKeysFile(file: string, data: unknown): KeysFile {
  const fail = (field: string | Problem, expected: MessageKey): never => {
    throw new Problem('cfg.keys_field', { file, field, expected: new Problem(expected) });
  };
  if (!isObject(data)) return fail(new Problem('cfg.whole_file'), 'expect.json_object');
  if (data.default !== undefined && typeof data.default !== 'string') fail('"default"', 'expect.string');
  if (!Array.isArray(data.models)) return fail('"models"', 'expect.list');
  data.models.forEach((m: unknown, i: number) => {
    const at = `models[${i}]`;
    if (!isObject(m)) return fail(at, 'expect.object');
    for (const key of ['name', 'model']) {
      if (typeof m[key] !== 'string' || m[key] === '') fail(`${at}.${key}`, 'expect.nonempty_string');
    }
    if (m.provider !== 'anthropic' && m.provider !== 'openai') fail(`${at}.provider`, 'expect.provider');
    for (const [key, type] of Object.entries(FIELD_TYPES)) {
      const value = m[key];
      if (value === undefined) continue;
      if (type === 'price') {
        const ok = isObject(value) && ['input', 'output', 'cacheRead', 'cacheWrite'].every((k) => value[k] === undefined || isCount(value[k]));
        if (!ok || !isCount(value.input) || !isCount(value.output)) fail(`${at}.price`, 'expect.price');
      } else if (type === 'tokens') {
        // 0 would be sent as is and every request refused (or answered with nothing).
        if (!(Number.isInteger(value) && value >= 1)) fail(`${at}.${key}`, 'expect.tokens');
      } else if (type === 'number' ? !isCount(value) : typeof value !== type) {
        fail(`${at}.${key}`, type === 'number' ? 'expect.count' : type === 'boolean' ? 'expect.boolean' : 'expect.string');
      }
    }
  });
  return data as KeysFile;
}

const isCount = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * Writes keys.json with mode 0600 in a 0700 folder. Contract: atomic (a temporary file renamed
 * over the old one), so a crash never leaves half a file, and the result is 0600 whatever the
 * old file's mode was.
 */
export function saveKeys(file: string, data: KeysFile): void {
  writePrivateJson(file, data);
}

/** The model called `name` (default: the configured default). Throws a Problem naming the choices. */
export function selectModel(loaded: LoadedModels, name?: string): ModelConfig {
  const names = loaded.models.map((m) => m.name).join(', ');
  if (loaded.models.length === 0) {
    throw new Problem('cfg.no_models');
  }
  const wanted = name ?? loaded.defaultName;
  // By name, else by the provider's model id (claude -p scripts pass --model claude-sonnet-4-5).
  const found = loaded.models.find((m) => m.name === wanted) ?? loaded.models.find((m) => m.model === wanted);
  if (!found) throw new Problem('cfg.model_unknown', { name: wanted, names });
  return found;
}
