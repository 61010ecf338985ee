// The tools of one conversation in tiers: hot tools declared with their schema in every request,
// cold tools one line each in the system prompt until the model loads them (load_tools), and the
// dispatcher (use_tool) through which loaded tools are called, so the declared list — the start
// of every request, and of its prompt cache — never changes. Resolves a call to the tool it
// means. Must not run tools, decide permissions or change a byte the model was already sent.

import { estimateTokens } from '../util/tokens.js';
import { describeCall } from '../util/calls.js';
import { isObject } from '../util/jsonfile.js';
import { specOf, type CallDescription, type Tool, type ToolOutput, type ToolTiers } from '../types/tools.js';
import type { Message, ToolCallBlock } from '../types/conversation.js';
import type { ToolSpec } from '../types/providers.js';
import { blockHead, coldLine, inHistory, loadTool, LOAD_TOOLS, MAX_LOAD, namesIn, parseObject, schemaBlock, useTool, USE_TOOL } from './coldtools.js';

export type Tier = 'hot' | 'cold' | 'loaded';

/**
 * One tool as /context shows it: its tier, whether the budget demoted it, and what it costs in
 * estimated tokens: its schema, and its line in the system prompt (0 when it has none).
 */
export type ToolRow = { name: string; tier: Tier; demoted: boolean; schemaTokens: number; briefTokens: number };

type Frozen = { declared: ToolSpec[]; section: string };

/** `*` at the end of a pattern matches any rest of the name. */
const matches = (patterns: readonly string[] | undefined, name: string): boolean =>
  !!patterns?.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : p === name));

const schemaTokens = (tool: Tool): number => estimateTokens(JSON.stringify(specOf(tool)));

/**
 * Contract: without tiers (deferral off, sub-agents) every tool is declared and nothing is
 * resolved or taught. With them, what declared() and section() return is fixed by the first
 * request (freeze) until unfreeze(); tools added later are announced in the conversation instead.
 */
export class ToolTable {
  private readonly all = new Map<string, Tool>();
  /** Cold tools whose schema the model has (in the conversation, or declared with loadInto 'tools'), in load order. */
  private readonly loadedNames = new Set<string>();
  private readonly demoted = new Set<string>();
  private frozen: Frozen | null = null;
  private notes: string[] = [];
  /** Loaded schemas may have left the history (compaction, resume): look before the next request. */
  private recheck = false;
  /** Told of every change of the loaded set. */
  onLoaded?: (names: string[]) => void;

  constructor(
    tools: Tool[],
    private readonly tiers: ToolTiers | null,
    /** Always declared, whatever the settings say (submit_result). */
    private readonly pinned: readonly string[] = [],
  ) {
    for (const tool of tools) this.all.set(tool.name, tool);
    if (tiers) for (const tool of [loadTool(this), useTool(this)]) this.all.set(tool.name, tool);
  }

  get deferring(): boolean {
    return this.tiers !== null;
  }

  private get inline(): boolean {
    return this.tiers?.loadInto !== 'tools';
  }

  get(name: string): Tool | undefined {
    return this.all.get(name);
  }

  /** Every tool the model may call by name (for an unknown tool's error). */
  keys(): string[] {
    return [...this.all.keys()];
  }

  get loaded(): string[] {
    return [...this.loadedNames];
  }

  /**
   * Offers more tools (an optional module's: the code index, MCP servers): cold unless the
   * settings' tools.hot names them; a tool of a name already offered is replaced. Before the first
   * request they join the tiers; after it, the next request announces them (a line each, or a hot
   * one's definition). Without tiers the declared list is simply made again.
   */
  add(tools: Tool[]): void {
    const fresh = tools.filter((t) => !this.all.has(t.name));
    for (const tool of tools) this.all.set(tool.name, tool);
    if (!this.tiers && fresh.length) this.frozen = null;
    if (!this.frozen || !this.tiers || !fresh.length) return;
    const hot = fresh.filter((t) => this.prefersHot(t.name));
    const cold = fresh.filter((t) => !this.prefersHot(t.name));
    if (cold.length) this.notes.push(`New cold tools:\n${cold.map(coldLine).join('\n')}`);
    if (hot.length) this.notes.push(`New tools:\n${this.load(hot)}`);
  }

  /**
   * Withdraws tools (their server stopped): calls of them fail as unknown from now on, and the
   * next request says so when the model was told of them.
   */
  remove(names: string[]): void {
    const gone = names.filter((n) => this.all.has(n) && n !== LOAD_TOOLS && n !== USE_TOOL);
    if (!gone.length) return;
    for (const name of gone) this.all.delete(name);
    if (gone.some((n) => this.loadedNames.has(n))) this.setLoaded(this.loaded.filter((n) => !gone.includes(n)));
    if (!this.tiers) this.frozen = null;
    else if (this.frozen) this.notes.push(`Tools withdrawn (no longer available): ${gone.join(', ')}.`);
  }

  /** The tools this request declares. */
  declared(): ToolSpec[] {
    const frozen = this.freeze();
    if (this.inline) return frozen.declared;
    return [...frozen.declared, ...this.loaded.map((name) => specOf(this.all.get(name)!))];
  }

  /** The system prompt's list of cold tools; '' when there are none. */
  section(): string {
    return this.freeze().section;
  }

  /** A new conversation: the tiers are decided again at its first request, nothing is loaded. */
  unfreeze(): void {
    this.frozen = null;
    this.notes = [];
    this.recheck = false;
    this.setLoaded([]);
  }

  /** Loaded tools of a resumed session; their schemas are given again if the history lacks them. */
  restore(names: readonly string[]): void {
    this.setLoaded(names.filter((n) => this.tierOf(n) !== 'hot'));
    this.recheck = true;
  }

  /** The history was rewritten (compaction): loaded schemas it lost are given again. */
  historyRewritten(): void {
    this.recheck = true;
  }

  /**
   * What the next request must add at the end of the conversation, or undefined: tools that
   * arrived late, and loaded schemas the history no longer holds.
   */
  takeNote(messages: readonly Message[]): string | undefined {
    if (this.recheck && this.inline) {
      const missing = this.loaded.filter((name) => this.all.has(name) && !inHistory(messages, blockHead(name)));
      if (missing.length) this.notes.push(`Loaded tools:\n${this.blocks(missing)}`);
    }
    this.recheck = false;
    const note = this.notes.join('\n\n');
    this.notes = [];
    return note || undefined;
  }

  /** A dispatcher's call as the call it stands for; any other call as it is. */
  resolve(call: ToolCallBlock): ToolCallBlock {
    if (call.name !== USE_TOOL || !this.tiers) return call;
    const { name } = call.input;
    let args = call.input.args ?? {};
    if (typeof args === 'string') args = parseObject(args) ?? args;
    if (typeof name !== 'string' || name === USE_TOOL || name === LOAD_TOOLS || !this.all.has(name) || !isObject(args)) return call;
    return { ...call, name, input: args };
  }

  /** What a call (a dispatcher's too) is about, as its tool describes it. */
  describe(wire: ToolCallBlock): CallDescription | undefined {
    const call = this.resolve(wire);
    return describeCall(this.all.get(call.name), call.input);
  }

  /**
   * A call of an undeclared tool by its own name, as the dispatcher's call: the history then names
   * only declared tools (some servers reject a history naming others). Any other call as it is.
   */
  asDeclared(call: ToolCallBlock): ToolCallBlock {
    if (!this.tiers || !this.inline || call.invalidJson !== undefined || !this.all.has(call.name) || this.isDeclared(call.name)) return call;
    return { ...call, name: USE_TOOL, input: { name: call.name, args: call.input } };
  }

  /**
   * The reply to a call with invalid arguments, when it is a cold tool the model never loaded:
   * its schema, once (the tool counts as loaded from then on). Undefined: the plain error.
   */
  teach(call: ToolCallBlock, problem: string): ToolOutput | undefined {
    if (call.name === LOAD_TOOLS && this.tiers) return this.teachLoad(call.input.names, problem);
    const tool = this.all.get(call.name);
    if (!tool || this.tierOf(call.name) !== 'cold') return undefined;
    const how = this.inline ? `Call it again through ${USE_TOOL}.` : `It is declared from now on: call ${call.name} again.`;
    const definition = this.inline ? `Its definition:\n${this.blocks([call.name])}` : '';
    this.setLoaded([...this.loaded, call.name]);
    const output = [`${call.name} is a cold tool you had not loaded, so this call did not run (${problem}).`, definition, how].filter(Boolean).join('\n');
    return { output, summary: { key: 'taught' } };
  }

  tierOf(name: string): Tier {
    if (!this.tiers || this.pinned.includes(name) || name === LOAD_TOOLS || name === USE_TOOL) return 'hot';
    if (this.loadedNames.has(name)) return 'loaded';
    const frozen = this.frozen;
    if (frozen) return frozen.declared.some((s) => s.name === name) ? 'hot' : 'cold';
    return this.prefersHot(name) && !this.demoted.has(name) ? 'hot' : 'cold';
  }

  /** Every tool with its tier and costs, in table order (/context, the benchmark). */
  rows(): ToolRow[] {
    const { section } = this.freeze();
    const listed = [...this.all.values()].filter((t) => (t.name !== LOAD_TOOLS && t.name !== USE_TOOL) || this.isDeclared(t.name));
    return listed.map((tool) => ({
      name: tool.name,
      tier: this.tierOf(tool.name),
      demoted: this.demoted.has(tool.name),
      schemaTokens: schemaTokens(tool),
      briefTokens: section.includes(`\n${coldLine(tool)}`) ? estimateTokens(coldLine(tool) + '\n') : 0,
    }));
  }

  /** load_tools: the schemas of these cold tools; they count as loaded from now on. */
  loadNamed(names: string[]): ToolOutput {
    const unique = [...new Set(names)];
    if (!unique.length) return { output: `Name 1 to ${MAX_LOAD} cold tools: ${this.coldNames().join(', ') || 'none'}.`, isError: true };
    const unknown = unique.filter((n) => !this.all.has(n) || n === LOAD_TOOLS || n === USE_TOOL);
    const declared = unique.filter((n) => !unknown.includes(n) && this.isDeclared(n));
    const wanted = unique.filter((n) => !unknown.includes(n) && !declared.includes(n)).map((n) => this.all.get(n)!);
    const parts: string[] = [];
    if (wanted.length) parts.push(this.load(wanted));
    if (declared.length) parts.push(`Declared already, call directly: ${declared.join(', ')}.`);
    if (unknown.length) parts.push(`No such tools: ${unknown.join(', ')}. Cold tools: ${this.coldNames().join(', ') || 'none'}.`);
    const output = parts.join('\n\n');
    return wanted.length ? { output, summary: { key: 'tools_loaded', n: wanted.length } } : { output, isError: unknown.length > 0 };
  }

  /**
   * The definitions of these tools for a note in the conversation (a mode's tools), '' for those
   * declared. With loadInto 'tools' they stay undeclared (no change of the tools array): a call by
   * name runs anyway.
   */
  present(names: string[]): string {
    const tools = names.filter((n) => this.all.has(n) && !this.isDeclared(n)).map((n) => this.all.get(n)!);
    if (!tools.length) return '';
    if (this.inline) return this.load(tools);
    return `${this.blocks(tools.map((t) => t.name))}\nCall ${tools.length > 1 ? 'them' : 'it'} directly.`;
  }

  /**
   * load_tools with names it cannot take as they are: a list in a string is taken, more than
   * MAX_LOAD names load the first MAX_LOAD and name the rest, anything else is told the shape.
   */
  private teachLoad(names: unknown, problem: string): ToolOutput {
    const list = typeof names === 'string' ? namesIn(names) : names;
    if (Array.isArray(list) && list.length && list.every((n) => typeof n === 'string')) {
      if (list.length <= MAX_LOAD) return this.loadNamed(list);
      const done = this.loadNamed(list.slice(0, MAX_LOAD));
      const rest = `Not loaded, ${MAX_LOAD} names per call: ${list.slice(MAX_LOAD).join(', ')}. Call ${LOAD_TOOLS} again for them.`;
      return { ...done, output: `${done.output}\n\n${rest}` };
    }
    const cold = this.coldNames().join(', ') || 'none';
    return { output: `${LOAD_TOOLS} takes {"names": ["…"]}, 1 to ${MAX_LOAD} names of cold tools (${problem}). Cold tools: ${cold}.`, isError: true };
  }

  /** Marks tools loaded and says how to call them (their schemas, when they live in the conversation). */
  private load(tools: Tool[]): string {
    this.setLoaded([...this.loaded, ...tools.map((t) => t.name)]);
    if (!this.inline) return `Declared from now on: ${tools.map((t) => t.name).join(', ')}; call them directly.`;
    return `${this.blocks(tools.map((t) => t.name))}\nCall them through ${USE_TOOL}: {"name": "…", "args": {…}}.`;
  }

  private blocks(names: string[]): string {
    return names.map((name) => schemaBlock(this.all.get(name)!)).join('\n');
  }

  private setLoaded(names: readonly string[]): void {
    const before = this.loaded.join();
    this.loadedNames.clear();
    for (const name of names) this.loadedNames.add(name);
    if (this.loaded.join() !== before) this.onLoaded?.(this.loaded);
  }

  private isDeclared(name: string): boolean {
    return this.declared().some((s) => s.name === name);
  }

  private coldNames(): string[] {
    return [...this.all.keys()].filter((n) => this.tierOf(n) === 'cold');
  }

  private prefersHot(name: string): boolean {
    if (!this.tiers || this.pinned.includes(name)) return true;
    return matches(this.tiers.hot, name) && !matches(this.tiers.cold, name);
  }

  /** Decides the tiers once: the preferred hot tools, the largest demoted while the budget is exceeded. */
  private freeze(): Frozen {
    if (this.frozen) return this.frozen;
    const tools = [...this.all.values()].filter((t) => t.name !== LOAD_TOOLS && t.name !== USE_TOOL);
    if (!this.tiers) return (this.frozen = { declared: tools.map(specOf), section: '' });
    const hot = tools.filter((t) => this.prefersHot(t.name));
    const dispatch = [LOAD_TOOLS, ...(this.inline ? [USE_TOOL] : [])].map((n) => this.all.get(n)!);
    const budget = this.tiers.budgetTokens ?? Infinity;
    const cost = (list: Tool[]) => list.reduce((sum, t) => sum + schemaTokens(t), 0) + (list.length < tools.length ? dispatch.reduce((s, t) => s + schemaTokens(t), 0) : 0);
    this.demoted.clear();
    for (let kept = hot; cost(kept) > budget; ) {
      const largest = kept.filter((t) => !this.pinned.includes(t.name)).sort((a, b) => schemaTokens(b) - schemaTokens(a))[0];
      if (!largest) break;
      this.demoted.add(largest.name);
      kept = kept.filter((t) => t !== largest);
    }
    const declared = hot.filter((t) => !this.demoted.has(t.name));
    const cold = tools.filter((t) => !declared.includes(t));
    if (!cold.length) return (this.frozen = { declared: declared.map(specOf), section: '' });
    const how = this.inline ? `${LOAD_TOOLS} gives their parameters, ${USE_TOOL} calls them` : `${LOAD_TOOLS} declares them`;
    const section = `Cold tools (${how}):\n${cold.map(coldLine).join('\n')}`;
    return (this.frozen = { declared: [...declared, ...dispatch].map(specOf), section });
  }
}

