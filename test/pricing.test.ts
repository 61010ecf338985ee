// The built-in model table and the cost of usage.
import { describe, expect, it } from 'vitest';
import { costOf, lookupModel } from '../src/providers/models.js';

describe('lookupModel', () => {
  it('finds exact ids and the longest known prefix ending at a separator', () => {
    expect(lookupModel('claude-sonnet-4-5')?.price).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(lookupModel('claude-opus-4-5-20251101')?.price.input).toBe(5);
    expect(lookupModel('claude-opus-4-20250514')?.price.input).toBe(15);
    expect(lookupModel('claude-3-5-haiku-latest')?.maxOutputTokens).toBe(8192);
    expect(lookupModel('gpt-4o-mini-2024-07-18')?.price.input).toBe(0.15);
    expect(lookupModel('gpt-4o-2024-08-06')?.price.input).toBe(2.5);
    expect(lookupModel('kimi-k2-0905-preview')?.contextWindow).toBe(256_000);
    expect(lookupModel('o3-mini')?.price.input).toBe(1.1);
  });

  it('ignores case and a router prefix', () => {
    expect(lookupModel('DeepSeek-Chat')).toBe(lookupModel('deepseek-chat'));
    expect(lookupModel('deepseek/deepseek-reasoner')).toBe(lookupModel('deepseek-reasoner'));
  });

  it('does not lend an entry to a different model or an unknown one', () => {
    expect(lookupModel('glm-4.5v')).toBeUndefined();
    expect(lookupModel('gpt-4oo')).toBeUndefined();
    expect(lookupModel('llama3.1:8b')).toBeUndefined();
  });
});

describe('costOf', () => {
  const usage = { input: 1_000_000, output: 200_000, cacheRead: 3_000_000, cacheWrite: 400_000 };

  it('prices input, output, cache reads and cache writes per million tokens', () => {
    const cost = costOf(usage, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(cost).toBeCloseTo(3 + 3 + 0.9 + 1.5, 10);
  });

  it('defaults cache reads to 10% and cache writes to 125% of the input price', () => {
    expect(costOf(usage, { input: 2, output: 10 })).toBeCloseTo(2 + 2 + 0.6 + 1, 10);
  });

  it('is null without a price', () => {
    expect(costOf(usage, undefined)).toBeNull();
    expect(costOf(usage, lookupModel('my-local-model')?.price)).toBeNull();
  });
});
