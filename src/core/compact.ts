// Keeps the conversation inside the model's context window: cuts old tool results to stubs, and
// when that is not enough replaces the history by a model-written summary (or, when the summary
// fails, drops the oldest rounds), the first and latest requests kept verbatim (pinned.ts).
// Pure history transformations plus one provider request; it never touches the agent's state,
// the interface or the disk.

import { estimateTokens as estimateText } from '../util/tokens.js';
import { callName, estimateTokens, findCall, type TitleOf } from './history.js';
import { carriedText, dropHead, fitBlocks, fitPinned, readPinned, summaryHead, type HeadParts } from './pinned.js';
import { summarize, summaryMaxTokens } from './summary.js';
import type { AgentEvent } from '../types/events.js';
import type { FileVersion } from '../types/tools.js';
import type { Message, ToolCallBlock, ToolResultBlock, UserBlock } from '../types/conversation.js';
import type { Provider, Usage } from '../types/providers.js';

export { estimateTokens, imagePlaceholder, type TitleOf } from './history.js';

/** Compact before a request would pass this share of the context window… */
const COMPACT_AT = 0.75;
/** …and stop after the cheap step when it brings the context under this share. */
export const TARGET = 0.6;
/** Tool results of this many latest rounds are never elided. */
export const KEEP_ROUNDS = 3;
/** Histories shorter than this (estimated tokens) are not summarised. */
const MIN_SUMMARIZED = 1500;

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

export type CompactResult = {
  messages: Message[];
  event: CompactionEvent;
  /** The summary request's usage, for the caller's totals and usage event. */
  usage?: Usage;
  usageEstimated?: boolean;
};

// ---------------------------------------------------------------------------------------------
// Estimates

/** True when the next request (`contextTokens`, estimated) would pass 75% of the window. */
export function needsCompaction(contextTokens: number, contextWindow: number): boolean {
  return contextTokens >= contextWindow * COMPACT_AT;
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

function stubFor(b: ToolResultBlock, call: ToolCallBlock | undefined, titleOf: TitleOf | undefined): string {
  const what = call ? callName(call, titleOf) : 'tool result';
  const lines = b.content.split('\n').length;
  const notes = [`${lines} lines`, ...(b.images?.length ? [`${b.images.length} images`] : []), ...(b.isError ? ['failed'] : [])];
  return `[${what}: ${notes.join(', ')}, elided]`;
}

// ---------------------------------------------------------------------------------------------
// Compaction

/** The share of the window the first and latest requests may take in a compacted history… */
const PINNED_SHARE = 0.25;
/** …and the todo list with the files read. */
const CARRIED_SHARE = 0.05;

/**
 * Brings the history under the window: the cheap step first (stop there when it gets under 60%,
 * unless `force`); else one summary request, and when that fails, the oldest rounds dropped.
 * Returns null when there is nothing to do. Contract: at most one summary request per call; the
 * result is a valid history (starts with a user message, every tool call answered) that starts
 * with the first request and holds the latest one verbatim (cut only when they alone would crowd
 * the window) and at most one summary; when the summary request is aborted the history is only
 * elided (nothing the user said is thrown away).
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
  const pinned = readPinned(messages);
  const parts: HeadParts = {
    pinned: fitPinned(pinned, contextWindow * PINNED_SHARE),
    carried: carriedText(o.todo, o.files, o.root, contextWindow * CARRIED_SHARE),
    // Between turns (/compact) the latest request was answered already: context, not a task.
    inProgress: messages.at(-1)!.role === 'user',
    withTask: true,
    withLatest: true,
  };
  const failure = summary.stopReason === 'error' ? (summary.error?.message ?? 'the summary request failed') : summary.text ? undefined : 'the summary was empty';
  if (failure) {
    const budget = contextWindow * TARGET - overhead;
    const dropped = dropOldest(cheap.messages, { ...parts, summary: pinned.summary }, budget);
    let result = dropped?.messages ?? cheap.messages;
    // Cut further rather than send a request the window cannot hold: every tool result to a stub.
    if (estimateTokens(result) > budget) result = elideOldToolResults(result, 0, o.titleOf).messages;
    return { messages: result, event: event('drop', result, { removed: dropped?.removed ?? 0, error: failure }), ...billed };
  }
  // A server that ignores the output limit must not make the summary crowd out the work.
  const [text] = fitBlocks([{ type: 'text', text: summary.text }], summaryMaxTokens(o.provider, contextWindow));
  const result = summaryHead({ ...parts, summary: (text as Extract<UserBlock, { type: 'text' }>).text });
  return { messages: result, event: event('summary', result, { removed: messages.length, elided: 0 }), ...billed };
}

/**
 * Keeps the newest messages that fit `budget` tokens, cut just before an assistant message (so no
 * tool call loses its result), behind a user message saying what was dropped and carrying the
 * earlier summary and the requests that were among the dropped. Undefined when there is no
 * earlier round to drop.
 */
function dropOldest(messages: Message[], parts: HeadParts, budget: number): { messages: Message[]; removed: number } | undefined {
  let best: { messages: Message[]; removed: number } | undefined;
  let tail = 0;
  for (let j = messages.length - 1; j >= 1; j--) {
    tail += estimateTokens([messages[j]!]);
    if (messages[j]!.role !== 'assistant') continue;
    const head = dropHead({ ...parts, dropped: j, withTask: parts.pinned.taskIndex < j, withLatest: parts.pinned.latestIndex < j });
    if (best && estimateTokens([head]) + tail > budget) break;
    best = { messages: [head, ...messages.slice(j)], removed: j };
  }
  return best;
}
