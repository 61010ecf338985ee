// A loaded history made whole: messages with only well-formed blocks, same-role pieces merged,
// every tool call answered once ([interrupted] when the process died mid-tool). Pure: takes
// parsed records, reads and writes nothing.

import { interruptedResult } from '../core/runtool.js';
import { isObject } from '../util/jsonfile.js';
import type { Message, ToolCallBlock, UserBlock } from '../types/conversation.js';

const BLOCK_TYPES = {
  user: ['text', 'image', 'tool_result'],
  assistant: ['text', 'thinking', 'redacted_thinking', 'tool_call'],
} as const;

/** The message with only well-formed blocks, or undefined when nothing usable is left. */
export function validMessage(v: unknown): Message | undefined {
  if (!isObject(v) || (v.role !== 'user' && v.role !== 'assistant') || !Array.isArray(v.content)) return undefined;
  const allowed: readonly string[] = BLOCK_TYPES[v.role as Message['role']];
  const content = v.content.filter((b: unknown) => isObject(b) && allowed.includes(b.type) && wellFormed(b));
  return content.length > 0 ? ({ role: v.role, content } as Message) : undefined;
}

function wellFormed(b: Record<string, any>): boolean {
  if (b.type === 'text') return typeof b.text === 'string';
  if (b.type === 'tool_call') return typeof b.id === 'string' && typeof b.name === 'string' && isObject(b.input);
  if (b.type === 'tool_result') return typeof b.callId === 'string' && typeof b.content === 'string';
  return true;
}

/**
 * Makes the pieces a history a provider accepts: consecutive same-role pieces merged (the agent
 * emits merged user content piece by piece), starting with a user message, each tool call answered
 * by exactly one result placed first in the next user message ([interrupted] when the process was
 * killed mid-tool), results answering nothing dropped.
 */
export function repair(pieces: Message[]): Message[] {
  const merged: Message[] = [];
  for (const m of pieces) pushMerged(merged, m);
  const out: Message[] = [];
  const push = (m: Message) => pushMerged(out, m);
  const answer = (calls: ToolCallBlock[], content: UserBlock[]): UserBlock[] => {
    const results = calls.map((call) => content.find((b) => b.type === 'tool_result' && b.callId === call.id) ?? interruptedResult(call));
    return [...results, ...content.filter((b) => b.type !== 'tool_result')];
  };
  for (const m of merged) {
    if (m.role === 'assistant') {
      if (out.length > 0) push(m);
      continue;
    }
    const prev = out.at(-1);
    const calls = prev?.role === 'assistant' ? callsOf(prev) : [];
    const content = answer(calls, m.content);
    if (content.length > 0) push({ role: 'user', content });
  }
  const last = out.at(-1);
  if (last?.role === 'assistant' && callsOf(last).length > 0) push({ role: 'user', content: answer(callsOf(last), []) });
  return out;
}

/** Appends `m`, merged into the last message when that has the same role (copies, never aliases `m`). */
function pushMerged(out: Message[], m: Message): void {
  const last = out.at(-1);
  if (last && last.role === m.role) (last.content as unknown[]).push(...m.content);
  else out.push({ role: m.role, content: [...m.content] } as Message);
}

export const callsOf = (m: Message): ToolCallBlock[] => (m.role === 'assistant' ? m.content.filter((b): b is ToolCallBlock => b.type === 'tool_call') : []);
