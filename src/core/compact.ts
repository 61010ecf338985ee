// Keeps the conversation inside the model's context window: estimates its size, cuts old tool
// results to stubs, and when that is not enough replaces the history by a model-written summary
// (or, when the summary fails, drops the oldest rounds). Pure history transformations plus one
// provider request; it never touches the agent's state, the interface or the disk.

import { estimateTokens as estimateText } from '../util/tokens.js';
import { relPath } from '../util/paths.js';
import { oneShot, type OneShotResult } from '../util/oneshot.js';
import type { AgentEvent } from '../types/events.js';
import type { FileVersion } from '../types/tools.js';
import type { ImageBlock, Message, ToolCallBlock, ToolResultBlock, UserBlock } from '../types/conversation.js';
import type { Provider, Usage } from '../types/providers.js';

/** Compact before a request would pass this share of the context window… */
export const COMPACT_AT = 0.75;
/** …and stop after the cheap step when it brings the context under this share. */
export const TARGET = 0.6;
/** Tool results of this many latest rounds are never elided. */
export const KEEP_ROUNDS = 3;
/** Histories shorter than this (estimated tokens) are not summarised. */
const MIN_SUMMARIZED = 1500;

/** A rough image cost: Anthropic bills a ~1.1 megapixel image at about 1,600 tokens. */
const IMAGE_TOKENS = 1600;
/** Short error results say what went wrong in a few words: worth keeping whole. */
const SHORT_ERROR_CHARS = 500;
/** Results this small cost about what their stub would. */
const ELIDE_MIN_TOKENS = 60;

export type CompactionEvent = Extract<AgentEvent, { type: 'compaction' }>;

export type CompactOptions = {
  provider: Provider;
  messages: Message[];
  contextWindow: number;
  /** The context size now: the last request's reported input tokens (input + cacheRead + cacheWrite) plus the estimate of what was added since. */
  contextTokens: number;
  /** From /compact [focus]. */
  focus?: string;
  /** The rendered todo list, carried over verbatim. */
  todo?: string;
  /** Read-before-write records: their paths are listed so the model knows what it has read. */
  files: ReadonlyMap<string, FileVersion>;
  root: string;
  signal?: AbortSignal;
  /** /compact: summarise even when the cheap step would be enough. */
  force?: boolean;
  /** Receives the summary request's retry events, so the interface can show the wait. */
  emit?: (event: AgentEvent) => void;
  /** What a call was about (its tool's describe() title), for stubs and the summary's transcript. */
  titleOf?: TitleOf;
};

/** A call's title as its tool describes it, or undefined. */
export type TitleOf = (call: ToolCallBlock) => string | undefined;

export type CompactResult = {
  messages: Message[];
  event: CompactionEvent;
  /** The summary request's usage, for the caller's totals and usage event. */
  usage?: Usage;
  usageEstimated?: boolean;
};

// ---------------------------------------------------------------------------------------------
// Estimates

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

/** True when the next request would pass 75% of the window. */
export function needsCompaction(lastInputTokens: number, addedSinceTokens: number, contextWindow: number): boolean {
  return lastInputTokens + addedSinceTokens >= contextWindow * COMPACT_AT;
}

/** Placeholder text for an image that is not sent or saved: `[image: shot.png, 123 KB, not saved]`. */
export function imagePlaceholder(image: ImageBlock, note?: string): string {
  const bytes = image.bytes ?? Math.floor((image.data.length * 3) / 4);
  const parts = [image.path ?? image.mediaType, `${Math.max(1, Math.round(bytes / 1024))} KB`];
  if (note) parts.push(note);
  return `[image: ${parts.join(', ')}]`;
}

// ---------------------------------------------------------------------------------------------
// The cheap step

/**
 * Cuts tool results outside the last `keepRounds` assistant rounds to stubs such as
 * `[read_file src/a.ts: 240 lines, elided]`. Short error results stay whole. Returns new message
 * objects where something changed; the input is not modified.
 */
export function elideOldToolResults(messages: Message[], keepRounds = KEEP_ROUNDS, titleOf?: TitleOf): { messages: Message[]; elided: number } {
  let rounds = 0;
  let keepFrom = messages.length;
  for (let i = messages.length - 1; i >= 0 && rounds < keepRounds; i--) {
    if (messages[i]!.role === 'assistant') rounds++, (keepFrom = i);
  }
  if (rounds < keepRounds) return { messages, elided: 0 };
  let elided = 0;
  const out = messages.map((m, i): Message => {
    if (i >= keepFrom || m.role !== 'user' || i === 0) return m;
    const prev = messages[i - 1]!;
    let changed = false;
    const content = m.content.map((b): UserBlock => {
      if (b.type !== 'tool_result' || !worthEliding(b)) return b;
      changed = true;
      elided++;
      return { type: 'tool_result', callId: b.callId, content: stubFor(b, findCall(prev, b.callId), titleOf), ...(b.isError ? { isError: true } : {}) };
    });
    return changed ? { role: 'user', content } : m;
  });
  return { messages: out, elided };
}

function worthEliding(b: ToolResultBlock): boolean {
  if (b.images?.length) return true;
  if (b.isError && b.content.length < SHORT_ERROR_CHARS) return false;
  return estimateText(b.content) > ELIDE_MIN_TOKENS;
}

function findCall(m: Message, id: string): ToolCallBlock | undefined {
  return m.role === 'assistant' ? m.content.find((b): b is ToolCallBlock => b.type === 'tool_call' && b.id === id) : undefined;
}

function stubFor(b: ToolResultBlock, call: ToolCallBlock | undefined, titleOf: TitleOf | undefined): string {
  const what = call ? callName(call, titleOf) : 'tool result';
  const lines = b.content.split('\n').length;
  const notes = [`${lines} lines`, ...(b.images?.length ? [`${b.images.length} images`] : []), ...(b.isError ? ['failed'] : [])];
  return `[${what}: ${notes.join(', ')}, elided]`;
}

/** The tool's name and what the call was about, on one line. */
function callName(call: ToolCallBlock, titleOf: TitleOf | undefined): string {
  const line = (titleOf?.(call) ?? '').replace(/\s+/g, ' ').trim();
  return [call.name, line.length > 80 ? line.slice(0, 79) + '…' : line].filter(Boolean).join(' ');
}

// ---------------------------------------------------------------------------------------------
// The summary

/** The summary's output limit; its request is budgeted so that input plus this fits the window. */
const SUMMARY_MAX_TOKENS = 8192;
/** Per-block limits when rendering the history for the summary, so one huge result cannot crowd out the rest. */
const RESULT_CHARS = 2000;
const CALL_CHARS = 400;
/** Files listed after a compaction: the most recent records. */
const MAX_FILES = 100;

const SUMMARY_SYSTEM = 'You summarise the conversation of a coding assistant with its user, so the work can continue in a fresh context. You have no tools. Answer with the summary only.';

const SUMMARY_INSTRUCTIONS = `Summarise the conversation above so that the assistant can continue the work from your summary alone. Use these sections:
Goal: what the user wants, in their own terms.
Decisions: what was decided, and why.
Files: the files read, created or changed, and why.
Tried and failed: what did not work, with the exact error where it matters.
Open items: what is not done yet; questions still open.
Next step: the exact next action.
Keep names, paths, commands, numbers and error messages exact. Be concise.`;

const SUMMARY_PREFACE = 'This is a summary of our earlier conversation, made to save context; the full history is no longer available.\n\n';
const ACKNOWLEDGEMENT = 'Understood. I have the summary of our earlier conversation and will continue from it.';

/**
 * One request, without tools, that summarises `messages`. The history is rendered as text, newest
 * first into the budget, so the request fits the window whatever the history's size; the oldest
 * part is cut. Never throws (the provider does not).
 */
export async function summarize(
  provider: Provider,
  messages: Message[],
  opts: { contextWindow: number; focus?: string; signal?: AbortSignal; emit?: (event: AgentEvent) => void; titleOf?: TitleOf },
): Promise<OneShotResult> {
  const maxTokens = Math.min(provider.config.maxOutputTokens, SUMMARY_MAX_TOKENS, Math.floor(opts.contextWindow / 8));
  const focus = opts.focus?.trim() ? `\nPay particular attention to: ${opts.focus.trim()}` : '';
  const instructions = SUMMARY_INSTRUCTIONS + focus;
  const budget = Math.floor(opts.contextWindow * TARGET) - maxTokens - estimateText(SUMMARY_SYSTEM + instructions);
  const text = `<conversation>\n${renderHistory(messages, budget, opts.titleOf)}\n</conversation>\n\n${instructions}`;
  return oneShot(provider, { system: SUMMARY_SYSTEM, text, maxTokens, signal: opts.signal, onRetry: opts.emit });
}

/** The history as text, newest messages first into `budget` tokens; what does not fit is cut from the oldest end. */
function renderHistory(messages: Message[], budget: number, titleOf: TitleOf | undefined): string {
  const parts: string[] = [];
  let left = budget;
  for (let i = messages.length - 1; i >= 0; i--) {
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
    parts.unshift(`[${i + 1} earlier messages are not shown]`);
    break;
  }
  return parts.join('\n\n');
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
        const call = prev ? findCall(prev, b.callId) : undefined;
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

// ---------------------------------------------------------------------------------------------
// Compaction

/**
 * Brings the history under the window: the cheap step first (stop there when it gets under 60%,
 * unless `force`); else one summary request, and when that fails, the oldest rounds dropped.
 * Returns null when there is nothing to do. Contract: at most one summary request per call; the
 * result is a valid history (starts with a user message, every tool call answered); when the
 * summary request is aborted the history is only elided (nothing the user said is thrown away).
 */
export async function compactHistory(o: CompactOptions): Promise<CompactResult | null> {
  const { messages, contextWindow } = o;
  if (messages.length < 2) return null;
  const overhead = Math.max(0, o.contextTokens - estimateTokens(messages));
  const size = (ms: Message[]) => overhead + estimateTokens(ms);
  const before = size(messages);
  const cheap = elideOldToolResults(messages, KEEP_ROUNDS, o.titleOf);
  const event = (method: CompactionEvent['method'], result: Message[], extra: Partial<CompactionEvent> = {}): CompactionEvent => ({
    type: 'compaction',
    before,
    after: size(result),
    method,
    elided: cheap.elided,
    removed: 0,
    ...extra,
  });
  if (!o.force && size(cheap.messages) <= contextWindow * TARGET) {
    return cheap.elided > 0 ? { messages: cheap.messages, event: event('elide', cheap.messages) } : null;
  }
  // A summary of a short history is no shorter than the history: nothing to gain, only cost.
  if (estimateTokens(cheap.messages) < MIN_SUMMARIZED) {
    return cheap.elided > 0 ? { messages: cheap.messages, event: event('elide', cheap.messages) } : null;
  }
  const summary = await summarize(o.provider, messages, o);
  const billed = { usage: summary.usage, usageEstimated: summary.usageEstimated };
  if (summary.stopReason === 'aborted') {
    return { messages: cheap.messages, event: event('elide', cheap.messages, { error: 'aborted' }), ...billed };
  }
  const request = latestRequest(messages);
  // Between turns (/compact) the latest request was answered already: context, not a task.
  const inProgress = messages.at(-1)!.role === 'user';
  const label = inProgress ? LATEST_REQUEST : ANSWERED_REQUEST;
  const requestBlocks: UserBlock[] = request ? [{ type: 'text', text: label }, ...request.blocks] : [];
  const failure = summary.stopReason === 'error' ? (summary.error?.message ?? 'the summary request failed') : summary.text ? undefined : 'the summary was empty';
  if (failure) {
    const lost = { index: request?.index ?? -1, blocks: requestBlocks };
    const dropped = dropOldest(cheap.messages, lost, carried(o, inProgress), contextWindow * TARGET - overhead);
    const result = dropped?.messages ?? cheap.messages;
    return { messages: result, event: event('drop', result, { removed: dropped?.removed ?? 0, error: failure }), ...billed };
  }
  const summaryBlock: UserBlock = { type: 'text', text: SUMMARY_PREFACE + summary.text };
  const ack: Message = { role: 'assistant', content: [{ type: 'text', text: ACKNOWLEDGEMENT }] };
  const result: Message[] = inProgress
    ? [{ role: 'user', content: [summaryBlock] }, ack, { role: 'user', content: [...requestBlocks, ...carried(o, true)] }]
    : [{ role: 'user', content: [summaryBlock, ...requestBlocks, ...carried(o, false)] }, ack];
  return { messages: result, event: event('summary', result, { removed: messages.length, elided: 0 }), ...billed };
}

const LATEST_REQUEST = 'My latest request, verbatim:';
const ANSWERED_REQUEST = 'My latest request, verbatim (you answered it before this summary):';

/** The last user content that is not tool results: the request being worked on. */
function latestRequest(messages: Message[]): { index: number; blocks: UserBlock[] } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const blocks = m.content.filter((b) => b.type !== 'tool_result');
    if (blocks.length > 0) return { index: i, blocks };
  }
  return undefined;
}

/** What the model needs besides the history to carry on: the todo list, the files it has read, and what to do now. */
function carried(o: CompactOptions, inProgress: boolean): UserBlock[] {
  const parts: string[] = [];
  if (o.todo?.trim()) parts.push(`Current todo list:\n${o.todo.trim()}`);
  const files = [...o.files].slice(-MAX_FILES);
  if (files.length > 0) {
    const list = files.map(([real, v]) => `- ${relPath(o.root, real)} (${v.size} bytes, sha256 ${v.hash.slice(0, 12)})`);
    parts.push(`Files read earlier (you may edit them; read one again if you need its content):\n${list.join('\n')}`);
  }
  if (inProgress) parts.push('Continue the task from where it stopped.');
  return parts.length > 0 ? [{ type: 'text', text: parts.join('\n\n') }] : [];
}

/**
 * Keeps the newest messages that fit `budget` tokens, cut just before an assistant message (so no
 * tool call loses its result), behind a user message saying what was dropped and carrying the
 * (labelled) latest request when it was among the dropped. Undefined when there is no earlier round to drop.
 */
function dropOldest(
  messages: Message[],
  request: { index: number; blocks: UserBlock[] },
  extra: UserBlock[],
  budget: number,
): { messages: Message[]; removed: number } | undefined {
  let best: { messages: Message[]; removed: number } | undefined;
  let tail = 0;
  for (let j = messages.length - 1; j >= 1; j--) {
    tail += estimateTokens([messages[j]!]);
    if (messages[j]!.role !== 'assistant') continue;
    const lost = request.index < j ? request.blocks : [];
    const head: Message = { role: 'user', content: [{ type: 'text', text: `[${j} earlier messages were dropped to fit the context window.]` }, ...lost, ...extra] };
    if (best && estimateTokens([head]) + tail > budget) break;
    best = { messages: [head, ...messages.slice(j)], removed: j };
  }
  return best;
}
