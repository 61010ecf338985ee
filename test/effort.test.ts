// Reasoning effort on the wire: what each level puts in the request of each kind of model, sent
// through the real SDKs to the fake server (Anthropic's thinking budget, OpenAI's
// reasoning_effort, DeepSeek's and GLM's thinking switch, Qwen's enable_thinking), and nothing
// for a model that has none or when no effort is set. Then /effort in the REPL, end to end.
import { describe, expect, it } from 'vitest';
import { createProvider } from '../src/providers/stream.js';
import type { Effort, ModelConfig, Provider, WireFormat } from '../src/types/providers.js';
import { fakeModel, writeFakeKeys } from './fake-server.js';
import { useCliFixture } from './fixtures.js';
import { join } from 'node:path';

const cli = await useCliFixture('feiyu-effort', false);
const { server, home } = cli;

/** The request body sent for one message to `model` (a wire format and model id) at `effort`. */
async function sent(format: WireFormat, model: string, effort: Effort | undefined, overrides: Partial<ModelConfig> = {}) {
  server.enqueue({ text: 'ok' });
  const provider: Provider = createProvider(fakeModel(server, format, { model, effort, ...overrides }), { retry: { baseDelayMs: 5 } });
  for await (const e of provider.stream({ system: 'test', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [] })) void e;
  return server.requests.at(-1)!.body as Record<string, unknown>;
}

/** The fields of a request body that carry effort, and the output limit beside them. */
const ANTHROPIC_FIELDS = ['max_tokens', 'thinking'];
const OPENAI_FIELDS = ['max_tokens', 'max_completion_tokens', 'reasoning_effort', 'thinking', 'enable_thinking', 'thinking_budget'];
const pick = (body: Record<string, unknown>, fields: string[]) => Object.fromEntries(fields.filter((f) => f in body).map((f) => [f, body[f]]));

describe('Anthropic: the thinking budget', () => {
  const budget = async (effort: Effort | undefined, overrides: Partial<ModelConfig> = {}) =>
    pick(await sent('anthropic', 'claude-sonnet-4-5', effort, { maxOutputTokens: 64_000, ...overrides }), ANTHROPIC_FIELDS);

  it('sends a budget per level, with room for the answer in max_tokens', async () => {
    expect(await budget('low')).toEqual({ max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 4000 } });
    expect(await budget('medium')).toEqual({ max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 12_000 } });
    expect(await budget('high')).toEqual({ max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 32_000 } });
  });

  it('keeps the budget under the model\'s output limit', async () => {
    expect(await budget('high', { maxOutputTokens: 20_000 })).toEqual({ max_tokens: 20_000, thinking: { type: 'enabled', budget_tokens: 15_904 } });
  });

  it('without an effort, keys.json\'s thinkingBudget or no thinking', async () => {
    expect(await budget(undefined)).toEqual({ max_tokens: 64_000 });
    expect(await budget(undefined, { thinkingBudget: 2000 })).toEqual({ max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 2000 } });
  });

  it('sends nothing to a Claude model without extended thinking', async () => {
    expect(pick(await sent('anthropic', 'claude-3-5-haiku-latest', 'high', { maxOutputTokens: 8192 }), ANTHROPIC_FIELDS)).toEqual({ max_tokens: 8192 });
  });
});

describe('OpenAI-compatible servers', () => {
  const fields = async (model: string, effort: Effort | undefined) => pick(await sent('openai', model, effort), OPENAI_FIELDS);

  it('OpenAI reasoning models: reasoning_effort as the level', async () => {
    expect(await fields('o3-mini', 'low')).toEqual({ max_completion_tokens: 4096, reasoning_effort: 'low' });
    expect(await fields('gpt-5', 'high')).toEqual({ max_completion_tokens: 4096, reasoning_effort: 'high' });
    expect(await fields('openai/o4-mini', 'medium')).toEqual({ max_tokens: 4096, reasoning_effort: 'medium' });
  });

  it('DeepSeek and GLM: the thinking switch, high asking for high effort', async () => {
    expect(await fields('deepseek-chat', 'low')).toEqual({ max_tokens: 4096, thinking: { type: 'disabled' } });
    expect(await fields('deepseek-chat', 'medium')).toEqual({ max_tokens: 4096, thinking: { type: 'enabled' } });
    expect(await fields('deepseek-v3.2', 'high')).toEqual({ max_tokens: 4096, thinking: { type: 'enabled' }, reasoning_effort: 'high' });
    expect(await fields('glm-4.6', 'medium')).toEqual({ max_tokens: 4096, thinking: { type: 'enabled' } });
  });

  it('Qwen: enable_thinking with a budget', async () => {
    expect(await fields('qwen3-coder-plus', 'low')).toEqual({ max_tokens: 4096, enable_thinking: false });
    expect(await fields('qwen-plus', 'high')).toEqual({ max_tokens: 4096, enable_thinking: true, thinking_budget: 32_000 });
  });

  it('nothing for a model without reasoning effort, or when none is set', async () => {
    expect(await fields('gpt-4o', 'high')).toEqual({ max_tokens: 4096 });
    expect(await fields('o1-mini', 'high')).toEqual({ max_completion_tokens: 4096 });
    expect(await fields('gpt-5-chat-latest', 'high')).toEqual({ max_completion_tokens: 4096 });
    expect(await fields('o3', undefined)).toEqual({ max_completion_tokens: 4096 });
    expect(await fields('deepseek-chat', undefined)).toEqual({ max_tokens: 4096 });
  });
});

describe('/effort in the REPL', () => {
  const keys = (format: WireFormat, model: string) => writeFakeKeys(join(home, 'config'), server, format, { model, maxOutputTokens: 64_000 });

  it('sets the effort for the next requests, shows it on the status line, and default turns it off', async () => {
    keys('anthropic', 'claude-opus-4-1');
    server.enqueue({ text: 'Thought about it.' }, { text: 'Plain answer.' });
    const r = await cli.run([], { input: ['/effort high', 'think', '/effort default', 'again'].map((l) => `${l}\n`).join('') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Reasoning effort: high. It applies from the next request.\n');
    expect(r.stdout).toMatch(/Thought about it\.\n[^\n]*context \d+% · effort high\n/);
    expect(r.stdout).toContain('Reasoning effort: default. It applies from the next request.\n');
    expect(r.stdout).toMatch(/Plain answer\.\n[^\n]*context \d+%\n/);
    expect(server.requests.map((q) => pick(q.body, ANTHROPIC_FIELDS))).toEqual([{ max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 32_000 } }, { max_tokens: 64_000 }]);
  });

  it('on a model without effort: says so, in Chinese too, and sends nothing', async () => {
    keys('openai', 'gpt-4o');
    server.enqueue({ text: 'ok' });
    const r = await cli.run([], { input: '/effort\n/effort medium\nhi\n', env: { FEIYU_LANG: 'zh' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('推理强度：默认\n');
    expect(r.stdout).toContain('模型 fake-openai（gpt-4o）没有可设置的推理强度');
    expect(r.stdout).toContain('推理强度：medium。从下一次请求起生效。\n');
    expect(pick(server.requests[0]!.body, OPENAI_FIELDS)).toEqual({ max_tokens: 64_000 });
  });

  it('refuses an unknown level and keeps the one set', async () => {
    keys('openai', 'o3');
    server.enqueue({ text: 'ok' });
    const r = await cli.run([], { input: '/effort low\n/effort extreme\nhi\n' });
    expect(r.stdout).toContain('Unknown effort "extreme". Choose one of low, medium, high, default.');
    expect(pick(server.requests[0]!.body, OPENAI_FIELDS)).toEqual({ max_completion_tokens: 64_000, reasoning_effort: 'low' });
  });
});
