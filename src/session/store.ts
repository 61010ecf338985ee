// Sessions: one append-only JSONL file per conversation under <state>/sessions/ — written as each
// message completes by the one process that holds its lock, loaded back robustly (torn lines,
// interrupted tool calls, other versions). Never writes image data; a failed write never throws
// into the caller: it is reported once and retried with the next write, nothing missed.
// Knows nothing of the interface: errors carry codes. Finding sessions is listing.ts.

import { randomBytes } from 'node:crypto';
import { chmodSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Totals } from '../core/agent.js';
import { imagePlaceholder } from '../core/compact.js';
import { forEachLine } from '../util/lines.js';
import { isObject } from '../util/jsonfile.js';
import { fileVersion } from '../util/paths.js';
import { LineFile } from '../util/linefile.js';
import { acquireLock, type Held } from '../util/lock.js';
import { repair, validMessage } from './repair.js';
import type { AgentEvent } from '../types/events.js';
import type { FileVersion } from '../types/tools.js';
import type { Message, UserBlock } from '../types/conversation.js';
import type { PermissionMode } from '../types/permissions.js';
import type { Effort } from '../types/providers.js';

/** The format this version writes and the newest it reads. */
export const SESSION_FORMAT = 1;

export type SessionHeader = { type: 'header'; version: number; id: string; root: string; created: string; model: string };

/**
 * What a session restores besides the conversation. State lines are merged in order: a later
 * field wins; the read records come as changes (`filesChanged`, `filesDropped`) folded in order,
 * or, from older versions, as a whole list (`files`).
 */
export type SessionState = {
  /** The name given with /rename. */
  name?: string;
  model?: string;
  mode?: PermissionMode;
  /** The reasoning effort set with /effort; null once put back to the model's default. */
  effort?: Effort | null;
  /** The todo list, opaque here. */
  todo?: unknown;
  totals?: Totals;
  /** Read-before-write records (realpath → version) as they were; re-check with restoreFiles. */
  files?: Record<string, FileVersion>;
  /** The cold tools the model had loaded. */
  tools?: string[];
  /** What each specialist spent in this session, opaque here. */
  specialists?: unknown;
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

export type WriterEvents = {
  /** A write failed: reported once per spell of failures; the next write tries again. */
  onError?: (error: Error) => void;
  /** A write succeeded after failures: everything missed is on disk now. */
  onRecovered?: () => void;
};

/** Another live process has the session open. */
export type SessionBusy = { busy: true; pid: number };

/** A session id: the time it started, then six random hex digits (sortable, unique enough). */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

const lockOf = (file: string) => file.replace(/\.jsonl$/, '.lock');

/**
 * Appends one session's lines. The file is created with the first message (header, state saved so
 * far and the message in one write), so a run that never sends anything leaves no file. The
 * process that writes a session holds its lock (`<id>.lock`) until close().
 * Contract: each write is whole lines in one append, so a kill loses at most the line in flight;
 * a failed write is kept and appended again before the next one.
 */
export class SessionWriter {
  private started: boolean;
  private stopped = false;
  private pending: Record<string, unknown>[] = [];
  /** The JSON last written per state field, so unchanged fields are not written again. */
  private readonly written = new Map<string, string>();
  /** The read records as last written: state lines carry only what changed since. */
  private savedFiles = new Map<string, string>();
  private readonly out: LineFile;
  private lock: Held | undefined;

  private constructor(
    readonly id: string,
    readonly file: string,
    private readonly header: SessionHeader | null,
    events: WriterEvents,
  ) {
    this.started = header === null;
    this.out = new LineFile(file, { exclusive: true, ...events });
  }

  static create(stateDir: string, root: string, model: string, events: WriterEvents = {}): SessionWriter {
    const now = new Date();
    const id = newSessionId(now);
    const header: SessionHeader = { type: 'header', version: SESSION_FORMAT, id, root, created: now.toISOString(), model };
    return new SessionWriter(id, join(sessionsDir(stateDir), `${id}.jsonl`), header, events);
  }

  /**
   * For resume: appends to an existing session file (load it first with loadSession, and pass its
   * state so only changes are written). Returns SessionBusy when another live process has it open.
   */
  static open(file: string, saved: SessionState, events: WriterEvents = {}): SessionWriter | SessionBusy {
    let lock: Held | undefined;
    try {
      const got = acquireLock(lockOf(file));
      if ('heldBy' in got) return { busy: true, pid: got.heldBy };
      lock = got;
      chmodSync(file, 0o600);
    } catch {
      // A read-only folder: the first write reports it, and each later one tries again.
    }
    const writer = new SessionWriter(basename(file, '.jsonl'), file, null, events);
    writer.lock = lock;
    for (const [key, value] of Object.entries(saved)) if (key !== 'files') writer.written.set(key, JSON.stringify(value));
    writer.savedFiles = new Map(Object.entries(saved.files ?? {}).map(([real, v]) => [real, JSON.stringify(v)]));
    return writer;
  }

  /** Feed every AgentEvent: messages are appended; a compaction starts the history over. */
  onEvent(event: AgentEvent): void {
    if (event.type === 'message') this.write({ type: 'message', message: withoutImages(event.message) });
    // The agent emits the new history as message events right after these events.
    if (event.type === 'compaction') this.write({ type: 'reset', method: event.method, before: event.before, after: event.after });
    if (event.type === 'history_reset') this.write({ type: 'reset', method: event.reason });
  }

  /** The session's name (/rename) as last saved. */
  get name(): string | undefined {
    const json = this.written.get('name');
    return json === undefined ? undefined : (JSON.parse(json) as string);
  }

  /** Records the fields that changed since the last call (call after usage, turn_end, /mode, /model, todo changes). */
  saveState(state: StateInput): void {
    const line: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(state)) {
      if (value === undefined) continue;
      if (key === 'files') {
        Object.assign(line, this.filesDelta(value as ReadonlyMap<string, FileVersion>));
        continue;
      }
      const json = JSON.stringify(value) ?? 'null';
      if (this.written.get(key) === json) continue;
      this.written.set(key, json);
      line[key] = JSON.parse(json); // a snapshot: the caller's objects change later
    }
    if (Object.keys(line).length > 0) this.write({ type: 'state', ...line });
  }

  /** The read records added or changed, and those dropped, since the last state line. */
  private filesDelta(files: ReadonlyMap<string, FileVersion>): { filesChanged?: Record<string, FileVersion>; filesDropped?: string[] } {
    const changed: Record<string, FileVersion> = {};
    const now = new Map<string, string>();
    for (const [real, version] of files) {
      const json = JSON.stringify(version);
      now.set(real, json);
      if (this.savedFiles.get(real) !== json) changed[real] = JSON.parse(json);
    }
    const dropped = [...this.savedFiles.keys()].filter((real) => !now.has(real));
    this.savedFiles = now;
    return { ...(Object.keys(changed).length ? { filesChanged: changed } : {}), ...(dropped.length ? { filesDropped: dropped } : {}) };
  }

  /** Deletes the file (/clear); the writer writes nothing more. */
  delete(): void {
    this.close();
    try {
      unlinkSync(this.file);
    } catch {
      // never written, or already gone
    }
  }

  /** Lets the session go: nothing more is written, and another process may open it. */
  close(): void {
    this.stopped = true;
    this.lock?.release();
    this.lock = undefined;
  }

  private write(record: { type: string; [field: string]: unknown }): void {
    if (this.stopped) return;
    if (!this.started && record.type !== 'message') {
      this.pending.push(record);
      return;
    }
    if (this.started) {
      this.out.append([JSON.stringify(record)]);
      return;
    }
    this.started = true;
    const records = [this.header as SessionHeader, ...this.pending, record];
    this.pending = [];
    // Locked once the first append has made the folder (the first session of a fresh state
    // folder was left unlocked when the lock came first); a new id is nobody else's meanwhile.
    this.out.append(records.map((r) => JSON.stringify(r)));
    try {
      const got = acquireLock(lockOf(this.file));
      if ('release' in got) this.lock = got;
    } catch {
      // the folder cannot be written: the append said so, and the next one tries again
    }
  }
}

/** The message with every image replaced by a text placeholder saying `note` (sessions and exports never hold image data). */
export function withoutImages(message: Message, note = 'not saved'): Message {
  if (message.role === 'assistant') return message;
  const content = message.content.map((b): UserBlock => {
    if (b.type === 'image') return { type: 'text', text: imagePlaceholder(b, note) };
    if (b.type !== 'tool_result' || !b.images?.length) return b;
    const { images, ...rest } = b;
    return { ...rest, content: [b.content, ...images.map((i) => imagePlaceholder(i, note))].join('\n') };
  });
  return { role: 'user', content };
}

// ---------------------------------------------------------------------------------------------
// Loading

/** Reads a session. Throws a SessionError for a file that is not a session or is from a newer format. */
export function loadSession(file: string): LoadedSession {
  let pieces: Message[] = [];
  const state: SessionState = {};
  const files = new Map<string, FileVersion>();
  let badMessages = 0;
  const { header, skipped } = walkSession(file, (record) => {
    if (record.type === 'reset') pieces = [];
    if (record.type === 'state') foldState(state, files, record);
    if (record.type !== 'message') return;
    const message = validMessage(record.message);
    if (message) pieces.push(message);
    else badMessages++;
  });
  if (files.size > 0 || state.files) state.files = Object.fromEntries(files);
  return { header, messages: repair(pieces), state, skipped: skipped + badMessages };
}

/**
 * Streams a session file: checks its header (the first readable line), then gives `each` every
 * later record in order. Returns the header and how many lines could not be read.
 */
export function walkSession(file: string, each: (record: Record<string, unknown>) => void): { header: SessionHeader; skipped: number } {
  let header: SessionHeader | undefined;
  let skipped = 0;
  try {
    forEachLine(file, (line) => {
      if (line.trim() === '') return;
      const record = parseRecord(line);
      if (!record) return void skipped++;
      if (header) return each(record);
      if (!isHeader(record)) throw new SessionError('session_invalid', { file }, `${file} is not a feiyu session`);
      if (record.version > SESSION_FORMAT) {
        const params = { id: record.id, version: record.version, supported: SESSION_FORMAT };
        throw new SessionError('session_newer', params, `session ${record.id} was written by a newer feiyu (format ${record.version}); this version reads format ${SESSION_FORMAT}`);
      }
      header = record;
    });
  } catch (e) {
    if (e instanceof SessionError) throw e;
    const detail = (e as Error).message;
    throw new SessionError('session_unreadable', { file, detail }, `cannot read session ${file}: ${detail}`);
  }
  if (!header) throw new SessionError('session_invalid', { file }, `${file} is not a feiyu session`);
  return { header, skipped };
}

/** Merges one state line into `state`; the read records go into `files`, in the order they were last read. */
export function foldState(state: SessionState, files: Map<string, FileVersion>, record: Record<string, unknown>): void {
  const { type: _type, files: whole, filesChanged, filesDropped, ...fields } = record;
  Object.assign(state, fields);
  if (isObject(whole)) {
    files.clear();
    for (const [real, version] of Object.entries(whole)) files.set(real, version as FileVersion);
  }
  if (isObject(filesChanged)) {
    for (const [real, version] of Object.entries(filesChanged)) {
      files.delete(real);
      files.set(real, version as FileVersion);
    }
  }
  if (Array.isArray(filesDropped)) for (const real of filesDropped) files.delete(String(real));
}

export function parseRecord(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) && typeof value.type === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}


export function isHeader(v: unknown): v is SessionHeader {
  return (
    isObject(v) && v.type === 'header' && Number.isInteger(v.version) && v.version >= 1 &&
    typeof v.id === 'string' && typeof v.root === 'string' && typeof v.created === 'string' && typeof v.model === 'string'
  );
}


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
