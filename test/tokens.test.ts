// Fixed tokens per request — the system prompt plus every tool schema — are paid on every
// request. Deterministic, so asserted (the benchmark prints the same figure).
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { fixedRequest } from '../src/app/toolset.js';
import { systemPrompt } from '../src/core/prompt.js';

describe('fixed tokens per request', () => {
  it('stays within 1,500 o200k tokens with every tool a session offers', () => {
    const { system, tools } = fixedRequest('/home/user/project');
    const total = encode(system).length + encode(JSON.stringify(tools)).length;
    expect(total).toBeLessThanOrEqual(1500);
    // The prompt itself stays short: the tools carry their own instructions.
    expect(encode(system).length).toBeLessThanOrEqual(450);
  });

  it('keeps the system prompt byte-for-byte stable', () => {
    expect(systemPrompt('/w')).toBe(systemPrompt('/w'));
    expect(systemPrompt('/w')).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });
});
