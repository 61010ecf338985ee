// Fixed tokens per request — the system prompt plus every tool schema — are paid on every
// request. Deterministic, so asserted (the benchmark prints the same figure).
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { systemPrompt } from '../src/prompt.js';
import { coreTools } from '../src/tools.js';

describe('fixed tokens per request', () => {
  it('stays within 1,500 o200k tokens', () => {
    const system = encode(systemPrompt('/home/user/project')).length;
    const tools = encode(JSON.stringify(coreTools().map(({ name, description, parameters }) => ({ name, description, parameters })))).length;
    expect(system + tools).toBeLessThanOrEqual(1500);
    // The prompt itself stays short: the tools carry their own instructions.
    expect(system).toBeLessThanOrEqual(450);
  });

  it('keeps the system prompt byte-for-byte stable', () => {
    expect(systemPrompt('/w')).toBe(systemPrompt('/w'));
    expect(systemPrompt('/w')).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });
});
