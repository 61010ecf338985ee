// Sessions: one append-only JSONL file per conversation under <state>/sessions/ — written as each
// message completes and loaded back robustly (torn lines, interrupted tool calls, other versions);
// listing.ts finds them. Never writes image data; a failed write never throws into the caller (it
// is reported once through onError). Knows nothing of the interface: errors carry codes.

import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, closeSync, mkdirSync, openSync, readFileSync, readSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Totals } from '../core/agent.js';
import { imagePlaceholder } from '../core/compact.js';
import { fileVersion } from '../util/paths.js';
import { isObject } from '../util/jsonfile.js';
import { interruptedResult } from '../core/runtool.js';
import type { AgentEvent } from '../types/events.js';
import type { FileVersion } from '../types/tools.js';
import type { Message, ToolCallBlock, UserBlock } from '../types/conversation.js';
import type { PermissionMode } from '../types/permissions.js';

/** The format this version writes and the newest it reads. */
export const SESSION_FORMAT = 1;

export type SessionHeader = { type: 'header'; version: number; id: string; root: string; created: string; model: string };

/** What a session restores besides the conversation. State lines are merged in order: a later field wins. */
export type SessionState = {
  model?: string;
  mode?: PermissionMode;
  /** The todo list, opaque here. */
  todo?: unknown;
  totals?: Totals;
  /** Read-before-write records (realpath → version) as they were; re-check with restoreFiles. */
  files?: Record<string, FileVersion>;
};

export type StateInput = Omit<SessionState, 'files'> & { files?: ReadonlyMap<string, FileVersion> };

export type LoadedSession = {
  header: SessionHeader;
  /** A valid history: same-role pieces merged, every tool call answered. */
  messages: Message[];
  state: SessionState;
  /** Lines that could not be read (a torn last line, garbage). */
  skipped: number;
};

export type SessionErrorCode = 'session_newer' | 'session_invalid' | 'session_unreadable';

/** A session that cannot be loaded. `code` and `params` are for the i18n catalogue; `message` is English. */
export class SessionError extends Error {
  constructor(
    readonly code: SessionErrorCode,
    readonly params: Record<string, string | number>,
    message: string,
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

export const sessionsDir = (stateDir: string) => join(stateDir, 'sessions');

/**
 * Appends one session's lines. The file is created with the first message (header, state saved so
 * far and the message in one write), so a run that never sends anything leaves no file.
 * Contract: each write is whole lines in one append, so a kill loses at most the line in flight.
 */
export class SessionWriter {
  private started: boolean;
  private stopped = false;
  private pending: Record<string, unknown>[] = [];
  /** The JSON last written per state field, so unchanged fields are not written again. */
  private readonly written = new Map<string, string>();
  error: Error | undefined;

  private constructor(
    readonly id: string,
    readonly file: string,
    private readonly header: SessionHeader | null,
    private readonly onError?: (error: Error) => void,
  ) {
    this.started = header === null;
  }

  static create(stateDir: string, root: string, model: string, onError?: (error: Error) => void): SessionWriter {
    const now = new Date();
    const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    const id = `${stamp}-${randomBytes(3).toString('hex')}`;
    const header: SessionHeader = { type: 'header', version: SESSION_FORMAT, id, root, created: now.toISOString(), model };
    return new SessionWriter(id, join(sessionsDir(stateDir), `${id}.jsonl`), header, onError);
  }

  /** For resume: appends to an existing session file (load it first with loadSession). */
  static open(file: string, onError?: (error: Error) => void): SessionWriter {
    chmodSync(file, 0o600);
    // A torn last line has no newline: end it, so the next line is not glued to it.
    const { size } = statSync(file);
    if (size > 0 && readBytes(file, size - 1, 1) !== '\n') appendFileSync(file, '\n');
    return new SessionWriter(basename(file, '.jsonl'), file, null, onError);
  }

  /** Feed every AgentEvent: messages are appended; a compaction starts the history over. */
  onEvent(event: AgentEvent): void {
    if (event.type === 'message') this.write({ type: 'message', message: withoutImages(event.message) });
    // The agent emits the new history as message events right after these events.
    if (event.type === 'compaction') this.write({ type: 'reset', method: event.method, before: event.before, after: event.after });
    if (event.type === 'history_reset') this.write({ type: 'reset', method: event.reason });
  }

  /** Records the fields that changed since the last call (call after usage, turn_end, /mode, /model, todo changes). */
  saveState(state: StateInput): void {
    const line: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(state)) {
      if (value === undefined) continue;
      const plain = value instanceof Map ? Object.fromEntries(value) : value;
      const json = JSON.stringify(plain) ?? 'null';
      if (this.written.get(key) === json) continue;
      this.written.set(key, json);
      line[key] = JSON.parse(json); // a snapshot: the caller's objects change later
    }
    if (Object.keys(line).length > 0) this.write({ type: 'state', ...line });
  }

  /** Deletes the file (/clear); the writer writes nothing more. */
  delete(): void {
    this.stopped = true;
    try {
      unlinkSync(this.file);
    } catch {
      // never written, or already gone
    }
  }

  private write(record: { type: string; [field: string]: unknown }): void {
    if (this.stopped) return;
    if (!this.started && record.type !== 'message') {
      this.pending.push(record);
      return;
    }
    try {
      let records: Record<string, unknown>[] = [record];
      if (!this.started) {
        mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
        records = [this.header as SessionHeader, ...this.pending, record];
      }
      appendFileSync(this.file, records.map((r) => JSON.stringify(r) + '\n').join(''), { mode: 0o600 });
      this.started = true;
      this.pending = [];
    } catch (e) {
      this.stopped = true;
      this.error = e instanceof Error ? e : new Error(String(e));
      this.onError?.(this.error);
    }
  }
}

/** Up to `length` bytes of `file` from `position`, as text. */
export function readBytes(file: string, position: number, length: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const n = readSync(fd, buffer, 0, length, position);
    return buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The message with every image replaced by a text placeholder (sessions never hold image data). */
function withoutImages(message: Message): Message {
  if (message.role === 'assistant') return message;
  const content = message.content.map((b): UserBlock => {
    if (b.type === 'image') return { type: 'text', text: imagePlaceholder(b, 'not saved') };
    if (b.type !== 'tool_result' || !b.images?.length) return b;
    const { images, ...rest } = b;
    return { ...rest, content: [b.content, ...images.map((i) => imagePlaceholder(i, 'not saved'))].join('\n') };
  });
  return { role: 'user', content };
}

// ---------------------------------------------------------------------------------------------
// Loading

/** Reads a session. Throws a SessionError for a file that is not a session or is from a newer format. */
export function loadSession(file: string): LoadedSession {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const detail = (e as Error).message;
    throw new SessionError('session_unreadable', { file, detail }, `cannot read session ${file}: ${detail}`);
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  let skipped = 0;
  const records: Record<string, unknown>[] = [];
  for (const line of lines) {
    const record = parseRecord(line);
    if (record) records.push(record);
    else skipped++;
  }
  const header = records.shift();
  if (!isHeader(header)) throw new SessionError('session_invalid', { file }, `${file} is not a feiyu session`);
  if (header.version > SESSION_FORMAT) {
    const params = { id: header.id, version: header.version, supported: SESSION_FORMAT };
    throw new SessionError('session_newer', params, `session ${header.id} was written by a newer feiyu (format ${header.version}); this version reads format ${SESSION_FORMAT}`);
  }
  let pieces: Message[] = [];
  const state: SessionState = {};
  for (const record of records) {
    if (record.type === 'reset') pieces = [];
    if (record.type === 'state') {
      const { type: _type, ...fields } = record;
      Object.assign(state, fields);
    }
    if (record.type !== 'message') continue;
    const message = validMessage(record.message);
    if (message) pieces.push(message);
    else skipped++;
  }
  return { header, messages: repair(pieces), state, skipped };
}

/** A line of a session file as a record with a `type`, or undefined. */
export function parseRecord(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) && typeof value.type === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function isHeader(v: unknown): v is SessionHeader {
  return (
    isObject(v) && v.type === 'header' && Number.isInteger(v.version) && v.version >= 1 &&
    typeof v.id === 'string' && typeof v.root === 'string' && typeof v.created === 'string' && typeof v.model === 'string'
  );
}

const BLOCK_TYPES = {
  user: ['text', 'image', 'tool_result'],
  assistant: ['text', 'thinking', 'redacted_thinking', 'tool_call'],
} as const;

/** The message with only well-formed blocks, or undefined when nothing usable is left. */
function validMessage(v: unknown): Message | undefined {
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
function repair(pieces: Message[]): Message[] {
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

/** The tool calls of a message (none for a user message). */
export const callsOf = (m: Message): ToolCallBlock[] => (m.role === 'assistant' ? m.content.filter((b): b is ToolCallBlock => b.type === 'tool_call') : []);

/**
 * Puts the saved read-before-write records whose file is unchanged on disk into `files`; a file
 * that changed or is gone is left out, so the model must read it again. Returns the dropped paths.
 */
export async function restoreFiles(saved: Record<string, FileVersion>, files: Map<string, FileVersion>): Promise<string[]> {
  const entries = Object.entries(saved);
  const current = await Promise.all(entries.map(([real]) => fileVersion(real).catch(() => undefined)));
  const dropped: string[] = [];
  // In the saved order: compaction lists the most recent records last.
  entries.forEach(([real, version], i) => {
    const now = current[i];
    const same = now && now.hash === version.hash && now.size === version.size && now.mtimeMs === version.mtimeMs;
    if (same) files.set(real, version);
    else dropped.push(real);
  });
  return dropped;
}
