// What survives every compaction verbatim: the conversation's first request, the latest request,
// and the latest summary; the history's head that carries them, built and read back. The head is
// rebuilt from scratch each time (never wrapped again), so it cannot grow from one compaction to
// the next. Pure functions over messages; no provider, no state.

import { estimateTokens as estimateText } from '../util/tokens.js';
import { relPath } from '../util/paths.js';
import { estimateTokens, imagePlaceholder } from './history.js';
import type { FileVersion } from '../types/tools.js';
import type { Message, UserBlock } from '../types/conversation.js';

export const SUMMARY_PREFACE = 'This is a summary of our earlier conversation, made to save context; the full history is no longer available.\n\n';
export const ACKNOWLEDGEMENT = 'Understood. I have the summary of our earlier conversation and will continue from it.';

const FIRST = 'My first request in this conversation, verbatim:';
const FIRST_ANSWERED = 'My first request in this conversation, verbatim (you answered it before this summary):';
const LATEST = 'My latest request, verbatim:';
const LATEST_ANSWERED = 'My latest request, verbatim (you answered it before this summary):';
const CONTINUE = 'Continue the task from where it stopped.';

/** Each label is a text block of its own; the blocks after it, up to the next label, are its section. */
const LABELS: ReadonlyMap<string, 'task' | 'latest' | 'end'> = new Map([
  [FIRST, 'task'],
  [FIRST_ANSWERED, 'task'],
  [LATEST, 'latest'],
  [LATEST_ANSWERED, 'latest'],
  [CONTINUE, 'end'],
]);
const DROPPED = /^\[\d+ earlier messages were dropped to fit the context window\.\]$/;

export const droppedNote = (n: number): string => `[${n} earlier messages were dropped to fit the context window.]`;

/** The parts of a history that compaction keeps verbatim, and where they are. */
export type Pinned = {
  /** The text of the summary the history starts with, without its preface. */
  summary?: string;
  /** The first request of the conversation; empty when there is none. */
  task: UserBlock[];
  taskIndex: number;
  /** The latest request when it is not the first one; empty otherwise. */
  latest: UserBlock[];
  latestIndex: number;
};

const labelOf = (b: UserBlock) => (b.type === 'text' ? LABELS.get(b.text) : undefined);
/** Blocks a compaction wrote around the requests: the summary and the note on dropped messages. */
const isScaffolding = (b: UserBlock): boolean => b.type === 'text' && (b.text.startsWith(SUMMARY_PREFACE) || DROPPED.test(b.text));

/** Reads the requests and the summary out of a history, compacted or not. */
export function readPinned(messages: Message[]): Pinned {
  const pinned: Pinned = { task: [], taskIndex: -1, latest: [], latestIndex: -1 };
  const found = (blocks: UserBlock[], i: number, kind: 'task' | 'latest') => {
    if (kind === 'task' && pinned.taskIndex < 0) [pinned.task, pinned.taskIndex] = [blocks, i];
    else [pinned.latest, pinned.latestIndex] = [blocks, i];
  };
  messages.forEach((m, i) => {
    if (m.role !== 'user') return;
    for (const b of m.content) if (b.type === 'text' && b.text.startsWith(SUMMARY_PREFACE)) pinned.summary ??= b.text.slice(SUMMARY_PREFACE.length);
    if (!m.content.some((b) => labelOf(b))) {
      const request = m.content.filter((b) => b.type !== 'tool_result' && !isScaffolding(b));
      if (request.length > 0) found(request, i, 'task');
      return;
    }
    const sections = sectionsOf(m.content);
    if (sections.task.length) found(sections.task, i, 'task');
    // A head written before the first request had its own label carried only the latest one.
    if (sections.latest.length) found(sections.latest, i, pinned.taskIndex < 0 ? 'task' : 'latest');
  });
  return pinned;
}

function sectionsOf(content: UserBlock[]): { task: UserBlock[]; latest: UserBlock[] } {
  const out = { task: [] as UserBlock[], latest: [] as UserBlock[] };
  let section: 'task' | 'latest' | 'end' | undefined;
  for (const b of content) {
    const label = labelOf(b);
    if (label) section = label;
    else if (section === 'task' || section === 'latest') out[section].push(b);
  }
  return out;
}

/** How many leading messages a compaction wrote (the head and its acknowledgement). */
export function headLength(messages: Message[]): number {
  const compacted = (m: Message | undefined) => m?.role === 'user' && m.content.some((b) => isScaffolding(b) || labelOf(b));
  if (!compacted(messages[0])) return 0;
  const ack = messages[1]?.role === 'assistant' && messages[1].content.length === 1 && messages[1].content[0]!.type === 'text' && messages[1].content[0]!.text === ACKNOWLEDGEMENT;
  if (!ack) return 1;
  return compacted(messages[2]) ? 3 : 2;
}

export type HeadParts = {
  pinned: Pinned;
  /** The new summary's text (summary), or the previous one kept (drop). */
  summary?: string;
  /** Messages dropped (drop). */
  dropped?: number;
  /** The todo list and the files read, as one text. */
  carried?: string;
  /** Which requests to carry: false leaves out one still in the kept messages (drop). */
  withTask: boolean;
  withLatest: boolean;
  /** A request is being worked on (inside a turn), rather than answered (/compact between turns). */
  inProgress: boolean;
};

/**
 * The blocks of the requests, labelled, for a head: the first request, then the latest when it is
 * another one, then (in progress) the instruction to go on.
 */
function requestBlocks(p: HeadParts): UserBlock[] {
  const { task, latest } = p.pinned;
  const blocks: UserBlock[] = [];
  if (p.withTask && task.length) blocks.push({ type: 'text', text: p.inProgress || latest.length ? FIRST : FIRST_ANSWERED }, ...task);
  if (p.withLatest && latest.length) blocks.push({ type: 'text', text: p.inProgress ? LATEST : LATEST_ANSWERED }, ...latest);
  return blocks;
}

/** The head of a summarised history: the summary, the acknowledgement, the requests and what is carried. */
export function summaryHead(p: HeadParts): Message[] {
  const summary: UserBlock = { type: 'text', text: SUMMARY_PREFACE + (p.summary ?? '') };
  const carried: UserBlock[] = p.carried ? [{ type: 'text', text: p.carried }] : [];
  const ack: Message = { role: 'assistant', content: [{ type: 'text', text: ACKNOWLEDGEMENT }] };
  if (!p.inProgress) return [{ role: 'user', content: [summary, ...carried, ...requestBlocks(p)] }, ack];
  const request = [...carried, ...requestBlocks(p), { type: 'text' as const, text: CONTINUE }];
  return [{ role: 'user', content: [summary] }, ack, { role: 'user', content: request }];
}

/** The user message in front of the kept messages when the oldest were dropped. */
export function dropHead(p: HeadParts): Message {
  const content: UserBlock[] = [{ type: 'text', text: droppedNote(p.dropped ?? 0) }];
  if (p.summary) content.push({ type: 'text', text: SUMMARY_PREFACE + p.summary });
  if (p.carried) content.push({ type: 'text', text: p.carried });
  return { role: 'user', content: [...content, ...requestBlocks(p)] };
}

// ---------------------------------------------------------------------------------------------
// Sizes

/** The requests within `budget` tokens together, each cut in proportion to its size. */
export function fitPinned(p: Pinned, budget: number): Pinned {
  const task = blocksTokens(p.task);
  const latest = blocksTokens(p.latest);
  if (task + latest <= budget) return p;
  const share = budget / (task + latest);
  return { ...p, task: fitBlocks(p.task, task * share), latest: fitBlocks(p.latest, latest * share) };
}

const blocksTokens = (blocks: UserBlock[]): number => (blocks.length ? estimateTokens([{ role: 'user', content: blocks }]) : 0);

/** `blocks` within `budget` tokens: long texts cut in the middle (saying so), images as placeholders. */
export function fitBlocks(blocks: UserBlock[], budget: number): UserBlock[] {
  const total = blocksTokens(blocks);
  if (total <= budget) return blocks;
  const ratio = budget / total;
  return blocks.map((b): UserBlock => {
    if (b.type === 'image') return { type: 'text', text: imagePlaceholder(b, 'left out to fit the context window') };
    if (b.type !== 'text') return b;
    const keep = Math.floor(b.text.length * ratio * 0.95);
    return estimateText(b.text) <= 20 || keep >= b.text.length ? b : { type: 'text', text: cutMiddle(b.text, keep) };
  });
}

/** The head and tail of `text` in about `keep` characters, with what was cut in between. */
function cutMiddle(text: string, keep: number): string {
  const half = Math.max(0, Math.floor((keep - 80) / 2));
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters cut here to fit the context window …]\n${text.slice(text.length - half)}`;
}

/** The todo list and the most recent read records, within `budget` tokens. */
export function carriedText(todo: string | undefined, files: ReadonlyMap<string, FileVersion>, root: string, budget: number): string | undefined {
  const parts: string[] = [];
  if (todo?.trim()) parts.push(`Current todo list:\n${todo.trim()}`);
  const lines: string[] = [];
  let left = budget - estimateText(parts.join(''));
  const records = [...files];
  for (let i = records.length - 1; i >= 0; i--) {
    const [real, v] = records[i]!;
    const line = `- ${relPath(root, real)} (${v.size} bytes, sha256 ${v.hash.slice(0, 12)})`;
    left -= estimateText(line) + 1;
    if (left < 0) {
      lines.unshift(`- … and ${i + 1} older files`);
      break;
    }
    lines.unshift(line);
  }
  if (lines.length > 0) parts.push(`Files read earlier (you may edit them; read one again if you need its content):\n${lines.join('\n')}`);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
