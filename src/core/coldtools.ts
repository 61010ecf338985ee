// How tools that are not declared reach the model: a cold tool's line in the system prompt, a
// loaded tool's definition in the conversation (and finding it there again), and the two tools
// that stand in for the rest, load_tools and use_tool. Words only: tooltable.ts keeps the state.

import { isObject } from '../util/jsonfile.js';
import type { Tool, ToolOutput } from '../types/tools.js';
import type { Message } from '../types/conversation.js';

export const LOAD_TOOLS = 'load_tools';
export const USE_TOOL = 'use_tool';
/** Names one load_tools call takes. */
export const MAX_LOAD = 8;
/** Arguments shown on a cold tool's line. */
const MAX_SHOWN_ARGS = 4;

/** What a cold tool is for, in one line: its brief, or the description's first sentence cut to 100 characters. */
function briefOf(tool: Tool): string {
  if (tool.brief) return tool.brief;
  const line = tool.description.split(/(?<=[.!?])\s/)[0]!.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? line.slice(0, 99) + '…' : line;
}

/** `name(a, b?)`: the arguments a schema takes, required ones first. */
function signatureOf(tool: Tool): string {
  const props = Object.keys((tool.parameters.properties as object | undefined) ?? {});
  const required = new Set((tool.parameters.required as string[] | undefined) ?? []);
  const args = [...props.filter((p) => required.has(p)), ...props.filter((p) => !required.has(p)).map((p) => `${p}?`)];
  const shown = args.length > MAX_SHOWN_ARGS ? [...args.slice(0, MAX_SHOWN_ARGS), '…'] : args;
  return `${tool.name}(${shown.join(', ')})`;
}

export const coldLine = (tool: Tool): string => `- ${signatureOf(tool)}: ${briefOf(tool)}`;

/**
 * A loaded tool's definition as the conversation carries it; found again by its first line.
 * `additionalProperties: false` stays with the validator, which names an unknown argument anyway.
 */
export const blockHead = (name: string) => `<tool name="${name}">`;
export function schemaBlock(tool: Tool): string {
  const { additionalProperties, ...rest } = tool.parameters;
  const parameters = additionalProperties === false ? rest : tool.parameters;
  return `${blockHead(tool.name)}\n${tool.description}\n${JSON.stringify(parameters)}\n</tool>`;
}

export function inHistory(messages: readonly Message[], text: string): boolean {
  for (const m of messages) {
    for (const b of m.content) {
      if ((b.type === 'text' && b.text.includes(text)) || (b.type === 'tool_result' && b.content.includes(text))) return true;
    }
  }
  return false;
}

/** What the two dispatch tools need of the table. */
export type Dispatch = { loadNamed(names: string[]): ToolOutput; get(name: string): Tool | undefined; keys(): string[] };

export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Tool names a model put in one string: a JSON array, or names apart by commas or spaces. */
export function namesIn(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) return value;
  } catch {
    // Not JSON: a plain list.
  }
  return text.split(/[\s,]+/).filter(Boolean);
}

export function loadTool(table: Dispatch): Tool<{ names: string[] }> {
  return {
    name: LOAD_TOOLS,
    description: 'Get the parameters of cold tools.',
    parameters: {
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' }, maxItems: MAX_LOAD } },
      required: ['names'],
    },
    kind: 'meta',
    describe: (a) => ({ title: Array.isArray(a.names) ? a.names.join(', ') : '' }),
    run: async ({ names }) => table.loadNamed(names),
  };
}

/** Reached only when resolve() could not unwrap the call: it says why. */
export function useTool(table: Dispatch): Tool<{ name: string; args: unknown }> {
  return {
    name: USE_TOOL,
    description: 'Call a cold tool.',
    parameters: { type: 'object', properties: { name: { type: 'string' }, args: { type: 'object' } }, required: ['name', 'args'] },
    kind: 'meta',
    describe: (a) => ({ title: typeof a.name === 'string' ? a.name : '' }),
    async run({ name }) {
      if (name === USE_TOOL || name === LOAD_TOOLS || !table.get(name)) return { output: `No tool ${JSON.stringify(name)}. Tools: ${table.keys().join(', ')}.`, isError: true };
      return { output: 'args must be a JSON object of the tool\'s arguments.', isError: true };
    },
  };
}
