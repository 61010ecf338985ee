// The tool table alone: tiers, the budget, the cold list, load_tools, use_tool, the teaching reply,
// late tools and loaded schemas given again after the history lost them. Pure: no server.
import { describe, expect, it } from 'vitest';
import { ToolTable } from '../src/core/tooltable.js';
import { coldLine, LOAD_TOOLS, USE_TOOL } from '../src/core/coldtools.js';
import type { Message, ToolCallBlock } from '../src/types/conversation.js';
import type { Tool, ToolTiers } from '../src/types/tools.js';

function tool(name: string, props: Record<string, unknown> = { x: { type: 'string' } }, required = Object.keys(props), extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `The ${name} tool. It does ${name} things.`,
    parameters: { type: 'object', properties: props, required, additionalProperties: false },
    kind: 'read',
    run: async () => ({ output: `${name} ran` }),
    ...extra,
  };
}

const big = tool('big', Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${i}`, { type: 'string', description: 'a long description of this field' }])), []);
const tools = () => [tool('read'), tool('edit'), tool('fetch', { url: { type: 'string' }, question: { type: 'string' } }, ['url'], { brief: 'fetch a page' }), tool('plan'), big];
const tiers: ToolTiers = { hot: ['read', 'edit', 'big'] };
const call = (name: string, input: Record<string, unknown>): ToolCallBlock => ({ type: 'tool_call', id: 'c1', name, input });
const names = (t: ToolTable) => t.declared().map((s) => s.name);

describe('ToolTable', () => {
  it('declares the hot tools and the two dispatch tools, and lists the cold ones one line each', () => {
    const table = new ToolTable(tools(), tiers);
    expect(names(table)).toEqual(['read', 'edit', 'big', LOAD_TOOLS, USE_TOOL]);
    expect(table.section()).toBe(
      'Cold tools (load_tools gives their parameters, use_tool calls them):\n- fetch(url, question?): fetch a page\n- plan(x): The plan tool.',
    );
    expect(table.rows().map((r) => [r.name, r.tier, r.demoted, r.briefTokens > 0])).toEqual([
      ['read', 'hot', false, false], ['edit', 'hot', false, false], ['fetch', 'cold', false, true], ['plan', 'cold', false, true],
      ['big', 'hot', false, false], [LOAD_TOOLS, 'hot', false, false], [USE_TOOL, 'hot', false, false],
    ]);
  });

  it('declares everything and lists nothing with deferral off', () => {
    const table = new ToolTable(tools(), null);
    expect(names(table)).toEqual(['read', 'edit', 'fetch', 'plan', 'big']);
    expect(table.section()).toBe('');
    expect(table.get(LOAD_TOOLS)).toBeUndefined();
    expect(table.resolve(call(USE_TOOL, { name: 'fetch', args: { url: 'u' } })).name).toBe(USE_TOOL);
  });

  it('demotes the largest hot tools while the declared schemas pass the budget; cold wins over hot', () => {
    const table = new ToolTable(tools(), { ...tiers, cold: ['edit'], budgetTokens: 250 });
    expect(names(table)).toEqual(['read', LOAD_TOOLS, USE_TOOL]);
    expect(table.rows().filter((r) => r.tier === 'cold').map((r) => [r.name, r.demoted])).toEqual([['edit', false], ['fetch', false], ['plan', false], ['big', true]]);
    expect(table.section()).toContain(coldLine(big));
    // Pinned tools stay whatever the budget.
    const pinned = new ToolTable(tools(), { ...tiers, budgetTokens: 0 }, ['big']);
    expect(names(pinned)).toEqual(['big', LOAD_TOOLS, USE_TOOL]);
  });

  it('matches names ending in * as prefixes', () => {
    const table = new ToolTable([tool('mcp__gh__issue'), tool('mcp__gh__pr'), tool('mcp__db__q')], { hot: ['mcp__gh__*'], cold: ['mcp__gh__pr'] });
    expect(names(table)).toEqual(['mcp__gh__issue', LOAD_TOOLS, USE_TOOL]);
  });

  it('loads cold tools into the conversation: their definitions, how to call them, never a change of the declared list', () => {
    const table = new ToolTable(tools(), tiers);
    const loaded: string[][] = [];
    table.onLoaded = (n) => loaded.push(n);
    const before = table.declared();
    const out = table.loadNamed(['fetch', 'read', 'nope', 'fetch']);
    expect(out).toEqual({
      output: [
        '<tool name="fetch">\nThe fetch tool. It does fetch things.\n{"type":"object","properties":{"url":{"type":"string"},"question":{"type":"string"}},"required":["url"]}\n</tool>\nCall them through use_tool: {"name": "…", "args": {…}}.',
        'Declared already, call directly: read.',
        'No such tools: nope. Cold tools: plan.',
      ].join('\n\n'),
      summary: { key: 'tools_loaded', n: 1 },
    });
    expect(loaded).toEqual([['fetch']]);
    expect(table.declared()).toEqual(before);
    expect(table.tierOf('fetch')).toBe('loaded');
    expect(table.loadNamed([])).toEqual({ output: 'Name 1 to 8 cold tools: plan.', isError: true });
  });

  it('loads into the tools array with loadInto tools: appended after the declared ones', () => {
    const table = new ToolTable(tools(), { ...tiers, loadInto: 'tools' });
    expect(names(table)).toEqual(['read', 'edit', 'big', LOAD_TOOLS]);
    expect(table.section()).toMatch(/^Cold tools \(load_tools declares them\):/);
    expect(table.loadNamed(['plan']).output).toBe('Declared from now on: plan; call them directly.');
    expect(names(table)).toEqual(['read', 'edit', 'big', LOAD_TOOLS, 'plan']);
  });

  it('resolves use_tool to the tool it names (arguments given as a JSON string too), and leaves what it cannot resolve', () => {
    const table = new ToolTable(tools(), tiers);
    expect(table.resolve(call(USE_TOOL, { name: 'fetch', args: { url: 'u' } }))).toEqual(call('fetch', { url: 'u' }));
    expect(table.resolve(call(USE_TOOL, { name: 'fetch', args: '{"url":"u"}' }))).toEqual(call('fetch', { url: 'u' }));
    expect(table.resolve(call(USE_TOOL, { name: 'read', args: { x: 'y' } }))).toEqual(call('read', { x: 'y' }));
    for (const input of [{ name: 'nope', args: {} }, { name: USE_TOOL, args: {} }, { name: 'fetch', args: [1] }]) expect(table.resolve(call(USE_TOOL, input))).toEqual(call(USE_TOOL, input));
  });

  it('writes a direct call of an undeclared tool as a use_tool call, so the history names only declared tools', () => {
    const table = new ToolTable(tools(), tiers);
    expect(table.asDeclared(call('fetch', { url: 'u' }))).toEqual(call(USE_TOOL, { name: 'fetch', args: { url: 'u' } }));
    expect(table.asDeclared(call('read', { x: 'y' }))).toEqual(call('read', { x: 'y' }));
    expect(table.asDeclared(call('nope', {}))).toEqual(call('nope', {}));
  });

  it('teaches a cold tool once: the first invalid call gets its definition and did not run; later ones get the plain error', () => {
    const table = new ToolTable(tools(), tiers);
    expect(table.teach(call('fetch', {}), 'invalid arguments: url is required')).toEqual({
      output: [
        'fetch is a cold tool you had not loaded, so this call did not run (invalid arguments: url is required).',
        'Its definition:\n<tool name="fetch">\nThe fetch tool. It does fetch things.\n{"type":"object","properties":{"url":{"type":"string"},"question":{"type":"string"}},"required":["url"]}\n</tool>',
        'Call it again through use_tool.',
      ].join('\n'),
      summary: { key: 'taught' },
    });
    expect(table.loaded).toEqual(['fetch']);
    expect(table.teach(call('fetch', {}), 'invalid arguments: url is required')).toBeUndefined();
    expect(table.teach(call('read', {}), 'invalid arguments: x is required')).toBeUndefined();
  });

  it('announces tools that arrive after the first request at the end of the conversation, the declared list unchanged', () => {
    const table = new ToolTable(tools(), tiers);
    const before = table.declared();
    table.add([tool('late'), tool('read')]);
    const hotLate = new ToolTable(tools(), { hot: [...tiers.hot!, 'late_hot'] });
    hotLate.declared();
    hotLate.add([tool('late_hot')]);
    expect(table.declared()).toEqual(before);
    expect(table.takeNote([])).toBe('New cold tools:\n- late(x): The late tool.');
    expect(table.takeNote([])).toBeUndefined();
    expect(hotLate.takeNote([])).toMatch(/^New tools:\n<tool name="late_hot">/);
    expect(hotLate.tierOf('late_hot')).toBe('loaded');
    // Before the first request a tool simply joins its tier.
    const early = new ToolTable(tools(), tiers);
    early.add([tool('late')]);
    expect(early.section()).toContain('- late(x): The late tool.');
    expect(early.takeNote([])).toBeUndefined();
  });

  it('gives loaded definitions again when the history lost them (compaction, a resumed session)', () => {
    const table = new ToolTable(tools(), tiers);
    const out = table.loadNamed(['fetch', 'plan']).output;
    const history: Message[] = [{ role: 'user', content: [{ type: 'tool_result', callId: 'c1', content: out }] }];
    table.historyRewritten();
    expect(table.takeNote(history)).toBeUndefined();
    table.historyRewritten();
    const note = table.takeNote([{ role: 'user', content: [{ type: 'text', text: 'summary' }] }]);
    expect(note).toBe(`Loaded tools:\n<tool name="fetch">\nThe fetch tool. It does fetch things.\n{"type":"object","properties":{"url":{"type":"string"},"question":{"type":"string"}},"required":["url"]}\n</tool>\n<tool name="plan">\nThe plan tool. It does plan things.\n{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}\n</tool>`);
    const resumed = new ToolTable(tools(), tiers);
    resumed.restore(['plan', 'read', 'mcp__later__tool']);
    expect(resumed.loaded).toEqual(['plan', 'mcp__later__tool']);
    expect(resumed.takeNote([])).toMatch(/^Loaded tools:\n<tool name="plan">[^]*<\/tool>$/);
  });

  it('presents a mode tool inline (loaded) or, with loadInto tools, as text without declaring it', () => {
    const inline = new ToolTable(tools(), tiers);
    expect(inline.present(['plan', 'read'])).toMatch(/^<tool name="plan">[^]*Call them through use_tool/);
    expect(inline.loaded).toEqual(['plan']);
    const declared = new ToolTable(tools(), { ...tiers, loadInto: 'tools' });
    expect(declared.present(['plan'])).toMatch(/^<tool name="plan">[^]*<\/tool>\nCall it directly\.$/);
    expect(declared.loaded).toEqual([]);
    expect(names(declared)).toEqual(['read', 'edit', 'big', LOAD_TOOLS]);
  });
});
