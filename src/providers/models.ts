// The built-in table of known models (context window, output limit, vision, list price) and the
// cost of a usage record. Owns no I/O and no configuration: keys.ts fills configs from it.
// Prices are USD per million tokens, public list prices as of late 2025; a keys.json `price` wins.

import type { ModelConfig, Price, Usage } from '../types/providers.js';

/** What the built-in table knows about a model family. */
export type KnownModel = { contextWindow: number; maxOutputTokens: number; vision: boolean; price: Price };

const K = 1000;
const M = 1_000_000;

// OpenAI-compatible servers bill no cache writes, so their cacheWrite is 0; Anthropic's is
// 1.25 × input for the 5-minute cache, which is the one feiyu uses.
const TABLE: Record<string, KnownModel> = {
  // Anthropic
  'claude-opus-4-5': { contextWindow: 200 * K, maxOutputTokens: 64 * K, vision: true, price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } },
  'claude-opus-4-1': { contextWindow: 200 * K, maxOutputTokens: 32 * K, vision: true, price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } },
  'claude-opus-4': { contextWindow: 200 * K, maxOutputTokens: 32 * K, vision: true, price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } },
  'claude-sonnet-4-5': { contextWindow: 200 * K, maxOutputTokens: 64 * K, vision: true, price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  'claude-sonnet-4': { contextWindow: 200 * K, maxOutputTokens: 64 * K, vision: true, price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  'claude-3-7-sonnet': { contextWindow: 200 * K, maxOutputTokens: 64 * K, vision: true, price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  'claude-haiku-4-5': { contextWindow: 200 * K, maxOutputTokens: 64 * K, vision: true, price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } },
  'claude-3-5-haiku': { contextWindow: 200 * K, maxOutputTokens: 8192, vision: true, price: { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 } },
  // OpenAI
  'gpt-5': { contextWindow: 400 * K, maxOutputTokens: 128 * K, vision: true, price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 } },
  'gpt-5-mini': { contextWindow: 400 * K, maxOutputTokens: 128 * K, vision: true, price: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 } },
  'gpt-5-nano': { contextWindow: 400 * K, maxOutputTokens: 128 * K, vision: true, price: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 } },
  'gpt-4.1': { contextWindow: 1047576, maxOutputTokens: 32768, vision: true, price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 } },
  'gpt-4.1-mini': { contextWindow: 1047576, maxOutputTokens: 32768, vision: true, price: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 } },
  'gpt-4.1-nano': { contextWindow: 1047576, maxOutputTokens: 32768, vision: true, price: { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0 } },
  'gpt-4o': { contextWindow: 128 * K, maxOutputTokens: 16384, vision: true, price: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 } },
  'gpt-4o-mini': { contextWindow: 128 * K, maxOutputTokens: 16384, vision: true, price: { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 } },
  'gpt-5-pro': { contextWindow: 400 * K, maxOutputTokens: 272 * K, vision: true, price: { input: 15, output: 120, cacheWrite: 0 } },
  'o3': { contextWindow: 200 * K, maxOutputTokens: 100 * K, vision: true, price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 } },
  'o3-mini': { contextWindow: 200 * K, maxOutputTokens: 100 * K, vision: false, price: { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 0 } },
  'o3-pro': { contextWindow: 200 * K, maxOutputTokens: 100 * K, vision: true, price: { input: 20, output: 80, cacheWrite: 0 } },
  'o4-mini': { contextWindow: 200 * K, maxOutputTokens: 100 * K, vision: true, price: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 } },
  // DeepSeek (V3.2 prices; both names serve the same model)
  'deepseek-chat': { contextWindow: 128 * K, maxOutputTokens: 8 * K, vision: false, price: { input: 0.28, output: 0.42, cacheRead: 0.028, cacheWrite: 0 } },
  'deepseek-reasoner': { contextWindow: 128 * K, maxOutputTokens: 64 * K, vision: false, price: { input: 0.28, output: 0.42, cacheRead: 0.028, cacheWrite: 0 } },
  // Moonshot / Kimi
  'kimi-k2': { contextWindow: 256 * K, maxOutputTokens: 32 * K, vision: false, price: { input: 0.6, output: 2.5, cacheRead: 0.15, cacheWrite: 0 } },
  'kimi-k2-0711': { contextWindow: 128 * K, maxOutputTokens: 32 * K, vision: false, price: { input: 0.6, output: 2.5, cacheRead: 0.15, cacheWrite: 0 } },
  'kimi-k2-turbo': { contextWindow: 256 * K, maxOutputTokens: 32 * K, vision: false, price: { input: 1.15, output: 8, cacheRead: 0.15, cacheWrite: 0 } },
  'kimi-k2-thinking-turbo': { contextWindow: 256 * K, maxOutputTokens: 32 * K, vision: false, price: { input: 1.15, output: 8, cacheRead: 0.15, cacheWrite: 0 } },
  'moonshot-v1-128k': { contextWindow: 128 * K, maxOutputTokens: 8 * K, vision: false, price: { input: 2, output: 5, cacheWrite: 0 } },
  // Qwen (Model Studio international, lowest context tier)
  'qwen-max': { contextWindow: 32 * K, maxOutputTokens: 8 * K, vision: false, price: { input: 1.6, output: 6.4, cacheRead: 0.32, cacheWrite: 0 } },
  'qwen-plus': { contextWindow: 131072, maxOutputTokens: 16384, vision: false, price: { input: 0.4, output: 1.2, cacheRead: 0.08, cacheWrite: 0 } },
  'qwen-turbo': { contextWindow: 131072, maxOutputTokens: 16384, vision: false, price: { input: 0.05, output: 0.2, cacheRead: 0.01, cacheWrite: 0 } },
  'qwen3-coder-plus': { contextWindow: 1 * M, maxOutputTokens: 64 * K, vision: false, price: { input: 1, output: 5, cacheRead: 0.2, cacheWrite: 0 } },
  // Zhipu GLM
  'glm-4.6': { contextWindow: 200 * K, maxOutputTokens: 128 * K, vision: false, price: { input: 0.6, output: 2.2, cacheRead: 0.11, cacheWrite: 0 } },
  'glm-4.5': { contextWindow: 128 * K, maxOutputTokens: 96 * K, vision: false, price: { input: 0.6, output: 2.2, cacheRead: 0.11, cacheWrite: 0 } },
  'glm-4.5-air': { contextWindow: 128 * K, maxOutputTokens: 96 * K, vision: false, price: { input: 0.2, output: 1.1, cacheRead: 0.03, cacheWrite: 0 } },
};

/**
 * The table entry for a model id: the exact id, else the longest known prefix that ends at a
 * separator, so dated and suffixed ids (claude-sonnet-4-5-20250929, kimi-k2-0905-preview) find
 * their family while a different model (glm-4.5v) does not borrow a neighbour's entry.
 * A router's vendor prefix ("deepseek/deepseek-chat") is ignored.
 */
export function lookupModel(id: string): KnownModel | undefined {
  const key = id.trim().toLowerCase().replace(/^.*\//, '');
  if (Object.hasOwn(TABLE, key)) return TABLE[key];
  let best: string | undefined;
  for (const known of Object.keys(TABLE)) {
    const fits = key.startsWith(known) && SEPARATORS.includes(key[known.length]!);
    if (fits && (!best || known.length > best.length)) best = known;
  }
  return best ? TABLE[best] : undefined;
}

const SEPARATORS = ['-', '.', '@', ':', '_'];

/** USD for one usage record; null when the price is unknown (the interface shows "?"). */
export function costOf(usage: Usage, price?: Price): number | null {
  if (!price) return null;
  const cacheRead = price.cacheRead ?? price.input * 0.1;
  const cacheWrite = price.cacheWrite ?? price.input * 1.25;
  return (
    (usage.input * price.input + usage.output * price.output + usage.cacheRead * cacheRead + usage.cacheWrite * cacheWrite) / M
  );
}

/** The API key for a model: `apiKey` itself, else the variable `apiKeyEnv` names. */
export function resolveApiKey(config: ModelConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return config.apiKey || (config.apiKeyEnv ? env[config.apiKeyEnv] : undefined) || undefined;
}
