// keys.json and the environment fallback, in real temporary folders: file modes, atomic
// replacement, defaults from the built-in table, and the start-up errors for broken files.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, keysPath, loadModels, saveKeys, selectModel, stateDir, type KeysFile } from '../src/config/keys.js';
import { Problem } from '../src/i18n/index.js';
import { resolveApiKey } from '../src/providers/models.js';
import { lookupModel } from '../src/providers/models.js';
import type { ModelConfig } from '../src/types/providers.js';

const tempHome = () => mkdtempSync(join(tmpdir(), 'feiyu-keys-'));
const envFor = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: home, XDG_CONFIG_HOME: join(home, 'cfg'), ...extra });
const mode = (path: string) => statSync(path).mode & 0o777;

function writeKeys(env: NodeJS.ProcessEnv, text: string): string {
  const file = keysPath(env);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function thrown(fn: () => unknown): Problem {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(Problem);
    return e as Problem;
  }
  throw new Error('expected a Problem');
}

describe('places', () => {
  it('follows XDG, with defaults under HOME', () => {
    expect(configDir({ HOME: '/h' })).toBe('/h/.config/feiyu');
    expect(stateDir({ HOME: '/h' })).toBe('/h/.local/state/feiyu');
    expect(configDir({ HOME: '/h', XDG_CONFIG_HOME: '/c' })).toBe('/c/feiyu');
    expect(stateDir({ HOME: '/h', XDG_STATE_HOME: '/s' })).toBe('/s/feiyu');
    expect(keysPath({ HOME: '/h', XDG_CONFIG_HOME: '/c' })).toBe('/c/feiyu/keys.json');
  });
});

describe('saveKeys', () => {
  const data: KeysFile = { default: 'ds', models: [{ name: 'ds', provider: 'openai', model: 'deepseek-chat', baseURL: 'https://api.deepseek.com', apiKey: 'sk-secret' }] };

  it('writes 0600 in a new 0700 folder, and loadModels reads it back filled in', () => {
    const env = envFor(tempHome());
    const file = keysPath(env);
    saveKeys(file, data);
    expect(mode(file)).toBe(0o600);
    expect(mode(configDir(env))).toBe(0o700);
    const known = lookupModel('deepseek-chat')!;
    expect(loadModels(env)).toEqual({
      defaultName: 'ds',
      models: [{ ...data.models[0], contextWindow: known.contextWindow, maxOutputTokens: known.maxOutputTokens, vision: false, price: known.price }],
    });
  });

  it('replaces an existing file atomically and makes it 0600 whatever its mode was', () => {
    const env = envFor(tempHome());
    const file = writeKeys(env, '{"models": []}');
    chmodSync(file, 0o644);
    saveKeys(file, data);
    expect(mode(file)).toBe(0o600);
    expect(loadModels(env).models.map((m) => m.name)).toEqual(['ds']);
    expect(readdirSync(configDir(env))).toEqual(['keys.json']); // no temporary file left behind
  });
});

describe('loadModels', () => {
  it('fills limits, vision and price from the table by model id (prefix for dated ids); given values win', () => {
    const env = envFor(tempHome());
    writeKeys(
      env,
      JSON.stringify({
        default: 'mine',
        models: [
          { name: 'sonnet', provider: 'anthropic', model: 'claude-sonnet-4-5-20250929', apiKeyEnv: 'ANTHROPIC_API_KEY' },
          { name: 'mine', provider: 'openai', model: 'gpt-4o', contextWindow: 1000, maxOutputTokens: 100, vision: false, price: { input: 1, output: 2 } },
          { name: 'local', provider: 'openai', model: 'qwen2.5-coder:7b', baseURL: 'http://localhost:11434/v1' },
        ],
      }),
    );
    const expected: ModelConfig[] = [
      {
        name: 'sonnet',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5-20250929',
        apiKeyEnv: 'ANTHROPIC_API_KEY',
        contextWindow: 200_000,
        maxOutputTokens: 64_000,
        vision: true,
        price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      },
      { name: 'mine', provider: 'openai', model: 'gpt-4o', contextWindow: 1000, maxOutputTokens: 100, vision: false, price: { input: 1, output: 2 } },
      { name: 'local', provider: 'openai', model: 'qwen2.5-coder:7b', baseURL: 'http://localhost:11434/v1', contextWindow: 128_000, maxOutputTokens: 8192, vision: false },
    ];
    expect(loadModels(env)).toEqual({ defaultName: 'mine', models: expected });
  });

  it('defaults to the first model when "default" is absent', () => {
    const env = envFor(tempHome());
    writeKeys(env, JSON.stringify({ models: [{ name: 'a', provider: 'openai', model: 'gpt-4.1' }, { name: 'b', provider: 'openai', model: 'gpt-4.1' }] }));
    expect(loadModels(env).defaultName).toBe('a');
  });

  it('says which file is not valid JSON', () => {
    const env = envFor(tempHome());
    const file = writeKeys(env, '{"models": [');
    const e = thrown(() => loadModels(env));
    expect(e.key).toBe('cfg.keys_json');
    expect(e.params.file).toBe(file);
    expect(e.message).toMatch(new RegExp(`^${file} is not valid JSON: .+`));
  });

  it.each([
    ['[]', 'the file must be a JSON object'],
    ['{}', '"models" must be a list'],
    ['{"models": [{"name": "x", "provider": "gemini", "model": "g"}]}', 'models[0].provider must be "anthropic" or "openai"'],
    ['{"models": [{"name": "", "provider": "openai", "model": "g"}]}', 'models[0].name must be a non-empty string'],
    ['{"models": [{"name": "x", "provider": "openai", "model": "g", "contextWindow": "big"}]}', 'models[0].contextWindow must be a whole number of tokens ≥ 1'],
    ['{"models": [{"name": "x", "provider": "openai", "model": "g", "vision": "yes"}]}', 'models[0].vision must be a boolean'],
    ['{"models": [{"name": "x", "provider": "openai", "model": "g", "price": {"input": 1}}]}', 'models[0].price must be an object with numbers input and output'],
  ])('names the field that is wrong: %s', (text, problem) => {
    const env = envFor(tempHome());
    const file = writeKeys(env, text);
    const e = thrown(() => loadModels(env));
    expect(e.key).toBe('cfg.keys_field');
    expect(e.message).toBe(`${file}: ${problem}`);
  });

  it('refuses duplicate names and a default that is not configured', () => {
    const env = envFor(tempHome());
    const m = { provider: 'openai', model: 'gpt-4.1' };
    writeKeys(env, JSON.stringify({ models: [{ name: 'a', ...m }, { name: 'a', ...m }] }));
    expect(thrown(() => loadModels(env)).key).toBe('cfg.keys_duplicate');
    writeKeys(env, JSON.stringify({ default: 'zz', models: [{ name: 'a', ...m }, { name: 'b', ...m }] }));
    expect(thrown(() => loadModels(env))).toMatchObject({ key: 'cfg.keys_default', params: { name: 'zz', names: 'a, b' } });
  });

  describe('without keys.json', () => {
    it('uses ANTHROPIC_API_KEY with ANTHROPIC_BASE_URL', () => {
      const env = envFor(tempHome(), { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: 'http://proxy', OPENAI_API_KEY: 'sk-oa' });
      const known = lookupModel('claude-sonnet-4-5')!;
      expect(loadModels(env)).toEqual({
        defaultName: 'default',
        models: [
          {
            name: 'default',
            provider: 'anthropic',
            model: 'claude-sonnet-4-5',
            apiKeyEnv: 'ANTHROPIC_API_KEY',
            baseURL: 'http://proxy',
            contextWindow: known.contextWindow,
            maxOutputTokens: known.maxOutputTokens,
            vision: true,
            price: known.price,
          },
        ],
      });
    });

    it('else OPENAI_API_KEY with OPENAI_BASE_URL, and the model FEIYU_MODEL names', () => {
      const env = envFor(tempHome(), { OPENAI_API_KEY: 'sk-oa', OPENAI_BASE_URL: 'https://api.deepseek.com', FEIYU_MODEL: 'deepseek-chat' });
      const [model] = loadModels(env).models;
      expect(model).toMatchObject({ name: 'default', provider: 'openai', model: 'deepseek-chat', apiKeyEnv: 'OPENAI_API_KEY', baseURL: 'https://api.deepseek.com' });
      expect(resolveApiKey(model!, env)).toBe('sk-oa');
    });

    it('has no models when nothing is configured', () => {
      expect(loadModels(envFor(tempHome()))).toEqual({ models: [], defaultName: '' });
    });
  });
});

describe('resolveApiKey and selectModel', () => {
  const base = { provider: 'openai', model: 'm', contextWindow: 1, maxOutputTokens: 1 } as const;

  it('prefers apiKey, else reads the variable apiKeyEnv names', () => {
    expect(resolveApiKey({ ...base, name: 'a', apiKey: 'k1', apiKeyEnv: 'K' }, { K: 'k2' })).toBe('k1');
    expect(resolveApiKey({ ...base, name: 'a', apiKeyEnv: 'K' }, { K: 'k2' })).toBe('k2');
    expect(resolveApiKey({ ...base, name: 'a', apiKeyEnv: 'K' }, {})).toBeUndefined();
  });

  it('picks by name, by model id (as claude --model does) or the default, and lists the names when it cannot', () => {
    const loaded = { defaultName: 'b', models: [{ ...base, name: 'a' }, { ...base, name: 'b' }, { ...base, name: 'sonnet', model: 'claude-sonnet-4-5' }] };
    expect(selectModel(loaded).name).toBe('b');
    expect(selectModel(loaded, 'a').name).toBe('a');
    expect(selectModel(loaded, 'claude-sonnet-4-5').name).toBe('sonnet');
    const e = thrown(() => selectModel(loaded, 'c'));
    expect(e).toMatchObject({ key: 'cfg.model_unknown', params: { name: 'c', names: 'a, b, sonnet' }, message: 'No model named "c"; configured: a, b, sonnet' });
    expect(thrown(() => selectModel({ defaultName: '', models: [] })).key).toBe('cfg.no_models');
  });
});
