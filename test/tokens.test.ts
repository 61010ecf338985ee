// Fixed tokens per request — the system prompt (with its list of cold tools) plus the declared
// tool schemas — are paid on every request. Deterministic, so asserted (the benchmark prints the
// same figures, per tool).
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { fixedRequest, HOT_TOOLS } from '../src/app/toolset.js';
import { systemPrompt } from '../src/core/prompt.js';
import { codeTools } from '../src/codeindex/tools.js';

const tokens = ({ system, tools }: { system: string; tools: unknown[] }) => encode(system).length + encode(JSON.stringify(tools)).length;

describe('fixed tokens per request', () => {
  it('stays within 1,100 o200k tokens with every built-in tool available', () => {
    const fixed = fixedRequest('/home/user/project');
    expect(tokens(fixed)).toBeLessThanOrEqual(1100);
    expect(fixed.tools.map((t) => t.name)).toEqual([...HOT_TOOLS, 'load_tools', 'use_tool']);
    expect(fixed.rows.filter((r) => r.tier === 'cold').map((r) => r.name)).toEqual(['job', 'todo', 'exit_plan', 'remember', 'web_fetch', 'read_note', 'task']);
    // The base prompt itself stays short: the tools carry their own instructions.
    expect(encode(systemPrompt('/home/user/project')).length).toBeLessThanOrEqual(250);
  });

  it("stays within it with the code index's four tools too, each one cold line", () => {
    const index = codeTools(() => {
      throw new Error('no call runs here');
    });
    const fixed = fixedRequest('/home/user/project', {}, index);
    expect(tokens(fixed)).toBeLessThanOrEqual(1100);
    expect(fixed.tools.map((t) => t.name)).toEqual([...HOT_TOOLS, 'load_tools', 'use_tool']);
    expect(fixed.system.split('\n').filter((l) => l.startsWith('- code_'))).toEqual([
      '- code_search(query, limit?): definitions matching words or identifiers, ranked',
      '- code_outline(path): signatures of a file or folder, with lines',
      '- code_refs(symbol, direction, depth?): callers or callees of a function',
      "- code_symbol(name): a symbol's full source",
    ]);
    expect(fixed.rows.filter((r) => r.name.startsWith('code_')).map((r) => [r.name, r.tier])).toEqual(index.map((t) => [t.name, 'cold']));
  });

  it('costs more with deferral off, every schema declared', () => {
    const off = fixedRequest('/home/user/project', { deferTools: false });
    expect(off.tools).toHaveLength(13);
    expect(tokens(off)).toBeGreaterThan(tokens(fixedRequest('/home/user/project')) + 250);
    expect(tokens(off)).toBeLessThanOrEqual(1500);
  });

  it('keeps the system prompt byte-for-byte stable', () => {
    expect(systemPrompt('/w')).toBe(systemPrompt('/w'));
    expect(systemPrompt('/w')).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(fixedRequest('/w').system).toBe(fixedRequest('/w').system);
  });
});
