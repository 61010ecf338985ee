// The fake server's prompt cache simulation on hand-made request bodies: what each wire format's
// cache would read and write, so the cache figures measured with it mean something.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createPromptCache } from './fake-cache.js';

const CC = { type: 'ephemeral' };
const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(' ');
const tools = [{ name: 'read', description: words(300, 'r'), input_schema: { type: 'object' } }];
const toolsWithMarker = [{ ...tools[0], cache_control: CC }];

function anthropicBody(messages: { role: string; text: string }[], tl: object[] = toolsWithMarker) {
  const wire = messages.map((m, i) => ({ role: m.role, content: [{ type: 'text', text: m.text, ...(i === messages.length - 1 ? { cache_control: CC } : {}) }] }));
  return { model: 'claude', tools: tl, system: [{ type: 'text', text: 'You are a test.', cache_control: CC }], messages: wire };
}

describe('Anthropic prompt cache', () => {
  it('writes the prefix up to the last breakpoint, then reads it back as the conversation grows (breakpoints move)', () => {
    const cache = createPromptCache();
    const first = [{ role: 'user', text: words(200, 'u') }];
    const a = cache.usage('anthropic', anthropicBody(first));
    expect(a.cacheRead).toBe(0);
    expect(a.input).toBe(0);
    const total = a.cacheWrite;
    const second = [...first, { role: 'assistant', text: 'ok' }, { role: 'user', text: words(50, 'v') }];
    const b = cache.usage('anthropic', anthropicBody(second));
    expect(b.cacheRead).toBe(total);
    expect(b.input).toBe(0);
    expect(b.cacheWrite).toBeGreaterThan(0);
  });

  it('reads nothing when the tools change (they come first), and caches no prefix under 1,024 tokens', () => {
    const cache = createPromptCache();
    const messages = [{ role: 'user', text: words(200, 'u') }];
    cache.usage('anthropic', anthropicBody(messages));
    const more = [...toolsWithMarker, { name: 'edit', description: 'edit', input_schema: { type: 'object' } }];
    expect(cache.usage('anthropic', anthropicBody(messages, more)).cacheRead).toBe(0);
    const small = createPromptCache();
    const tiny = { model: 'claude', system: [{ type: 'text', text: 'short', cache_control: CC }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: CC }] }] };
    small.usage('anthropic', tiny);
    expect(small.usage('anthropic', tiny)).toEqual({ input: expect.any(Number), cacheRead: 0, cacheWrite: 0 });
  });
});

describe('OpenAI prompt cache', () => {
  it('reads the longest prefix shared with an earlier request, from 1,024 tokens on, in steps of 128', () => {
    const cache = createPromptCache();
    const system = { role: 'system', content: words(400, 's') };
    const fnTools = [{ type: 'function', function: { name: 'read', description: 'r', parameters: { type: 'object' } } }];
    const first = { model: 'gpt', tools: fnTools, messages: [system, { role: 'user', content: words(400, 'u') }] };
    const prompt = [JSON.stringify(system), JSON.stringify(fnTools[0]), JSON.stringify(first.messages[1])].flatMap((p) => encode(p));
    expect(cache.usage('openai', first)).toEqual({ input: prompt.length, cacheRead: 0, cacheWrite: 0 });
    const second = { ...first, messages: [...first.messages, { role: 'assistant', content: 'ok' }] };
    const b = cache.usage('openai', second);
    expect(b.cacheRead).toBe(Math.floor(prompt.length / 128) * 128);
    expect(b.cacheRead).toBeGreaterThan(1024);
    // Another model shares nothing; a short prompt caches nothing.
    expect(cache.usage('openai', { ...second, model: 'other' }).cacheRead).toBe(0);
    const short = { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] };
    cache.usage('openai', short);
    expect(cache.usage('openai', short).cacheRead).toBe(0);
  });
});
