// Measures and names the pieces of a history: token estimates, image placeholders, the call a
// tool result answers and what that call was about (its tool's title for it). Pure functions shared by compaction and the
// summary; nothing here changes a history.

import { estimateTokens as estimateText } from '../util/tokens.js';
import type { ImageBlock, Message, ToolCallBlock } from '../types/conversation.js';

/** A copy of the history to go back to: the last message's content is copied too, since a new user text joins it. */
export function copyHistory(messages: readonly Message[]): Message[] {
  const last = messages.at(-1);
  return last ? [...messages.slice(0, -1), { ...last, content: [...last.content] } as Message] : [];
}

/** A rough image cost: Anthropic bills a ~1.1 megapixel image at about 1,600 tokens. */
export const IMAGE_TOKENS = 1600;

/** Tokens of a text or a history: about 4 ASCII characters a token, images at a flat rate. */
export function estimateTokens(input: readonly Message[] | string): number {
  if (typeof input === 'string') return estimateText(input);
  let tokens = 0;
  for (const message of input) {
    tokens += 4; // role and framing
    for (const b of message.content) tokens += blockTokens(b);
  }
  return tokens;
}

function blockTokens(b: Message['content'][number]): number {
  switch (b.type) {
    case 'text':
      return estimateText(b.text);
    case 'thinking':
      return estimateText(b.thinking);
    case 'redacted_thinking':
      return estimateText(b.data);
    case 'image':
      return IMAGE_TOKENS;
    case 'tool_call':
      return 10 + estimateText(b.name + (b.invalidJson ?? JSON.stringify(b.input)));
    case 'tool_result':
      return 10 + estimateText(b.content) + (b.images?.length ?? 0) * IMAGE_TOKENS;
  }
}

/** Placeholder text for an image that is not sent or saved: `[image: shot.png, 123 KB, not saved]`. */
export function imagePlaceholder(image: ImageBlock, note?: string): string {
  const bytes = image.bytes ?? Math.floor((image.data.length * 3) / 4);
  const parts = [image.path ?? image.mediaType, `${Math.max(1, Math.round(bytes / 1024))} KB`];
  if (note) parts.push(note);
  return `[image: ${parts.join(', ')}]`;
}

/** The call in assistant message `m` that result `id` answers. */
export function findCall(m: Message | undefined, id: string): ToolCallBlock | undefined {
  return m?.role === 'assistant' ? m.content.find((b): b is ToolCallBlock => b.type === 'tool_call' && b.id === id) : undefined;
}

/** A call's title as its tool describes it, or undefined. */
export type TitleOf = (call: ToolCallBlock) => string | undefined;

/** The tool's name and what the call was about, on one line. */
export function callName(call: ToolCallBlock, titleOf: TitleOf | undefined): string {
  const line = (titleOf?.(call) ?? '').replace(/\s+/g, ' ').trim();
  return [call.name, line.length > 80 ? line.slice(0, 79) + '…' : line].filter(Boolean).join(' ');
}
