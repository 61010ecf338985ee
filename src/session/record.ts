// Where a conversation is kept: the SessionStore a host is given. Two stores: the JSONL files of
// the CLI (store.ts writes them, listing.ts finds them) and memory (nothing written anywhere, the
// default for library use). A store records events and state and finds saved sessions; it never
// decides what to record (the app feeds it) and never prints.

import { findLastSession, findSession, sessionInfo, type SessionInfo } from './listing.js';
import { loadSession, newSessionId, SessionWriter, type LoadedSession, type SessionBusy, type StateInput, type WriterEvents } from './store.js';
import type { AgentEvent } from '../types/events.js';

/** One session's record, as the app writes it. SessionWriter is the JSONL one. */
export interface SessionRecord {
  readonly id: string;
  /** The file it is written to; '' when it is kept in memory. */
  readonly file: string;
  /** Every AgentEvent of the session, in order. */
  onEvent(event: AgentEvent): void;
  /** The state fields that changed (model, mode, todo, totals, read records). */
  saveState(state: StateInput): void;
  /** Forgets the session (/clear). */
  delete(): void;
  /** Lets the session go: another process may continue it. */
  close(): void;
}

/** A saved session found to continue: its history and state, what the listing says of it, and how to append to it. */
export type FoundSession = { loaded: LoadedSession; info?: SessionInfo | null; open(events: WriterEvents): SessionRecord | SessionBusy };

/**
 * Where sessions are kept. Contract: `create` writes nothing until the first message; `find`
 * throws a SessionError for a session it cannot read and returns null when there is none.
 */
export interface SessionStore {
  /** 'files': sessions are files, and the app may keep its other state files (trace, approvals). */
  readonly kind: 'files' | 'memory';
  create(root: string, model: string, events: WriterEvents): SessionRecord;
  /** `true`: the last session of `root`; a string: the session with that id (or a unique prefix). */
  find(which: true | string, root: string): FoundSession | null;
}

/** The CLI's store: one JSONL file per session under `<stateDir>/sessions/`. */
export function jsonlStore(stateDir: string): SessionStore {
  return {
    kind: 'files',
    create: (root, model, events) => SessionWriter.create(stateDir, root, model, events),
    find(which, root) {
      const file = which === true ? findLastSession(stateDir, root) : findSession(stateDir, which);
      if (!file) return null;
      const loaded = loadSession(file);
      return { loaded, info: sessionInfo(file), open: (events) => SessionWriter.open(file, loaded.state, events) };
    },
  };
}

/**
 * Sessions kept in this process only: nothing is written; a session ends with its host. Nothing
 * can be found to resume (a host continues its own tasks without the store).
 */
export function memoryStore(): SessionStore {
  return { kind: 'memory', create: () => new MemoryRecord(newSessionId()), find: () => null };
}

class MemoryRecord implements SessionRecord {
  readonly file = '';
  constructor(readonly id: string) {}
  onEvent(): void {}
  saveState(): void {}
  delete(): void {}
  close(): void {}
}
