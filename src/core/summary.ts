// The summary request of a compaction: one request without tools that turns a history into a
// summary the work can continue from. The earlier summary and the requests are rendered first,
// whole, so a summary always builds on the one before; the rest newest first into the budget.
// Never throws (the provider does not); knows nothing of the agent's state.

import { estimateTokens as estimateText } from '../util/tokens.js';
import { callName, findCall, imagePlaceholder, type TitleOf } from './history.js';
import { headLength, readPinned } from './pinned.js';
import { oneShot, type OneShotResult } from '../util/oneshot.js';
import type { AgentEvent } from '../types/events.js';
import type { Message, UserBlock } from '../types/conversation.js';
import type { Provider } from '../types/providers.js';

/** The summary's output limit; its request is budgeted so that input plus this fits the window. */
const SUMMARY_MAX_TOKENS = 8192;
/** The share of the window the summary request may fill, output included. */
const REQUEST_SHARE = 0.6;
/** Per-block limits when rendering the history for the summary, so one huge result cannot crowd out the rest. */
const RESULT_CHARS = 2000;
const CALL_CHARS = 400;

const SUMMARY_SYSTEM = 'You summarise the conversation of a coding assistant with its user, so the work can continue in a fresh context. You have no tools. Answer with the summary only.';

const SUMMARY_INSTRUCTIONS = `Summarise the conversation above so that the assistant can continue the work from your summary alone. Use these sections:
Goal: what the user wants, in their own terms.
Decisions: what was decided, and why.
Files: the files read, created or changed, and why.
Tried and failed: what did not work, with the exact error where it matters.
Open items: what is not done yet; questions still open.
Next step: the exact next action.
Keep names, paths, commands, numbers and error messages exact. Be concise.`;

/** The output limit of a summary request for this window: the summary's size in the next history. */
export const summaryMaxTokens = (provider: Provider, contextWindow: number): number =>
  Math.min(provider.config.maxOutputTokens, SUMMARY_MAX_TOKENS, Math.floor(contextWindow / 8));

/**
 * One request, without tools, that summarises `messages`, within the window whatever the
 * history's size: the earlier summary and the requests first, then the newest messages that fit.
 */
export async function summarize(
  provider: Provider,
  messages: Message[],
  opts: { contextWindow: number; focus?: string; signal?: AbortSignal; emit?: (event: AgentEvent) => void; titleOf?: TitleOf },
): Promise<OneShotResult> {
  const maxTokens = summaryMaxTokens(provider, opts.contextWindow);
  const focus = opts.focus?.trim() ? `\nPay particular attention to: ${opts.focus.trim()}` : '';
  const instructions = SUMMARY_INSTRUCTIONS + focus;
  const budget = Math.floor(opts.contextWindow * REQUEST_SHARE) - maxTokens - estimateText(SUMMARY_SYSTEM + instructions);
  const text = `<conversation>\n${renderHistory(messages, budget, opts.titleOf)}\n</conversation>\n\n${instructions}`;
  return oneShot(provider, { system: SUMMARY_SYSTEM, text, maxTokens, signal: opts.signal, onRetry: opts.emit });
}

/**
 * The history as text: the earlier summary and the requests first (within half the budget), then
 * the other messages newest first into what is left; what does not fit is cut from the oldest end.
 */
function renderHistory(messages: Message[], budget: number, titleOf: TitleOf | undefined): string {
  const pinned = readPinned(messages);
  let head = headLength(messages);
  if (head === 0 && pinned.taskIndex === 0) head = 1;
  const first: string[] = [];
  if (pinned.summary) first.push(`EARLIER SUMMARY:\n${pinned.summary}`);
  if (pinned.task.length) first.push(`USER (first request): ${blocksText(pinned.task)}`);
  if (pinned.latest.length && pinned.latestIndex < head) first.push(`USER (latest request): ${blocksText(pinned.latest)}`);
  const all = first.join('\n\n');
  // Characters for half the budget, at this text's own characters per token (CJK is about one).
  const pinnedText = clip(all, Math.floor(((budget / 2) * all.length) / Math.max(1, estimateText(all))));
  const parts: string[] = [];
  let left = budget - estimateText(pinnedText) - 2;
  for (let i = messages.length - 1; i >= head; i--) {
    const part = renderMessage(messages[i]!, messages[i - 1], titleOf);
    const cost = estimateText(part) + 2;
    if (cost <= left) {
      parts.unshift(part);
      left -= cost;
      continue;
    }
    // Keep the end of the message that does not fit whole, when there is room for a useful piece.
    if (left > 100) {
      let piece = part.slice(part.length - left * 4);
      while (estimateText(piece) > left) piece = piece.slice(Math.ceil(piece.length / 4));
      parts.unshift(`[…cut…]${piece}`);
    }
    parts.unshift(`[${i + 1 - head} earlier messages are not shown]`);
    break;
  }
  return [pinnedText, ...parts].filter(Boolean).join('\n\n');
}

function blocksText(blocks: UserBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : b.type === 'image' ? imagePlaceholder(b) : b.content)).join('\n');
}

function renderMessage(m: Message, prev: Message | undefined, titleOf: TitleOf | undefined): string {
  const lines = m.content.map((b) => {
    switch (b.type) {
      case 'text':
        return `${m.role === 'user' ? 'USER' : 'ASSISTANT'}: ${b.text}`;
      case 'image':
        return `USER: ${imagePlaceholder(b)}`;
      case 'tool_call':
        return `CALL ${b.name} ${clip(b.invalidJson ?? JSON.stringify(b.input), CALL_CHARS)}`;
      case 'tool_result': {
        const call = findCall(prev, b.callId);
        const what = call ? callName(call, titleOf) : 'a tool';
        const images = (b.images ?? []).map((img) => '\n' + imagePlaceholder(img)).join('');
        return `RESULT of ${what}${b.isError ? ' (error)' : ''}:\n${clip(b.content, RESULT_CHARS)}${images}`;
      }
      default:
        return ''; // thinking: the reasoning behind the visible text, not needed to continue
    }
  });
  return lines.filter(Boolean).join('\n');
}

/** Head and tail of a long text, with what was cut in between. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[…${text.length - 2 * half} characters cut…]\n${text.slice(-half)}`;
}
