// A conversation written out (/export): Markdown for people to read (requests, answers, each tool
// call by its title with the start of its result) or JSON holding the messages themselves. Image
// data never leaves: a placeholder names each image. Pure: builds text; the caller writes it.

import { withoutImages } from './store.js';
import type { Message, ToolCallBlock } from '../types/conversation.js';

export type TranscriptMeta = { id: string; name?: string; root: string; model: string; exported: Date };

/** Lines of a tool result kept in the Markdown. */
const RESULT_LINES = 40;

/** The messages as written to a file: images replaced by placeholders. */
const withoutImageData = (messages: readonly Message[]): Message[] => messages.map((m) => withoutImages(m, 'not exported'));

export function transcriptJson(messages: readonly Message[], meta: TranscriptMeta): string {
  const { exported, name, ...rest } = meta;
  return JSON.stringify({ version: 1, ...rest, ...(name && { name }), exported: exported.toISOString(), messages: withoutImageData(messages) }, null, 2) + '\n';
}

/** A fence longer than any run of backticks in `text`. */
const fence = (text: string) => '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));

function fenced(text: string): string {
  const f = fence(text);
  return `${f}\n${text.replace(/\n$/, '')}\n${f}`;
}

function result(content: string, isError: boolean | undefined): string {
  const lines = content.split('\n');
  const kept = lines.length > RESULT_LINES ? [...lines.slice(0, RESULT_LINES), `[… ${lines.length - RESULT_LINES} more lines]`] : lines;
  return (isError ? '(error)\n' : '') + fenced(kept.join('\n'));
}

/** `titleOf`: how a call describes itself (its command, its path), for its heading line. */
export function transcriptMarkdown(messages: readonly Message[], meta: TranscriptMeta, titleOf: (call: ToolCallBlock) => string | undefined): string {
  const out = [`# ${meta.name ?? `feiyu session ${meta.id}`}`, '', `- session: ${meta.id}`, `- workspace: ${meta.root}`, `- model: ${meta.model}`, `- exported: ${meta.exported.toISOString()}`];
  let lastRole: Message['role'] | undefined;
  for (const m of withoutImageData(messages)) {
    const texts: string[] = [];
    for (const b of m.content) {
      if (b.type === 'text' && b.text.trim()) texts.push(b.text.trim());
      if (b.type === 'tool_call') texts.push(`**● ${b.name}** ${inlineCode(titleOf(b) ?? JSON.stringify(b.input))}`);
      if (b.type === 'tool_result') texts.push(result(b.content, b.isError));
    }
    if (!texts.length) continue;
    const onlyResults = m.role === 'user' && m.content.every((b) => b.type === 'tool_result');
    // Tool results belong to the assistant's turn that asked for them: no new heading.
    if (!onlyResults && m.role !== lastRole) out.push('', m.role === 'user' ? '## You' : '## feiyu');
    lastRole = onlyResults ? 'assistant' : m.role;
    out.push('', texts.join('\n\n'));
  }
  return out.join('\n') + '\n';
}

function inlineCode(text: string): string {
  const one = text.replace(/\s*\n\s*/g, ' ');
  const ticks = '`'.repeat(Math.max(1, ...[...one.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}${ticks.length > 1 ? ' ' : ''}${one}${ticks.length > 1 ? ' ' : ''}${ticks}`;
}
