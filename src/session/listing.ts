// Finding sessions to resume: this workspace's sessions newest first, each read once and in one
// streaming pass (a header check first, so other workspaces' files are not read at all), the last
// one, or one by its id or a unique prefix. Reads session files only; store.ts writes and loads them.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { forEachLine } from '../util/lines.js';
import { callsOf } from './repair.js';
import { isHeader, parseRecord, SESSION_FORMAT, sessionsDir, type SessionHeader } from './store.js';
import { isObject } from '../util/jsonfile.js';
import type { Message } from '../types/conversation.js';

/** This workspace's sessions that hold at least one message, most recently updated first; at most `limit`. */
export function listSessions(stateDir: string, root: string, limit = Infinity): SessionInfo[] {
  const infos: SessionInfo[] = [];
  for (const candidate of candidates(stateDir, root)) {
    if (infos.length >= limit) break;
    const info = scan(candidate.file, candidate.header, candidate.updated);
    if (info) infos.push(info);
  }
  return infos;
}

/** The file of this workspace's most recently updated session, or null. */
export function findLastSession(stateDir: string, root: string): string | null {
  return listSessions(stateDir, root, 1)[0]?.file ?? null;
}

/** The file of the session with this id (or a unique prefix of it), in any workspace, or null. */
export function findSession(stateDir: string, id: string): string | null {
  const names = sessionFiles(stateDir);
  const exact = names.find((n) => n === `${id}.jsonl`);
  const matches = exact ? [exact] : names.filter((n) => id !== '' && n.startsWith(id));
  return matches.length === 1 ? join(sessionsDir(stateDir), matches[0]!) : null;
}

export type SessionInfo = {
  id: string;
  file: string;
  created: string;
  /** ISO time of the last write. */
  updated: string;
  /** The first line of the first user request. */
  firstRequest: string;
  /** The name given with /rename. */
  name?: string;
  /** Tool rounds: assistant replies that called tools. */
  rounds: number;
  /** null when a price was unknown or no totals were saved. */
  cost: number | null;
};

type Candidate = { file: string; header: SessionHeader; updated: string };

/** This root's session files that this version can read, newest first, by their header alone. */
function candidates(stateDir: string, root: string): Candidate[] {
  const out: Candidate[] = [];
  for (const name of sessionFiles(stateDir)) {
    const file = join(sessionsDir(stateDir), name);
    const header = headerOf(file);
    if (header?.root !== root || header.version > SESSION_FORMAT) continue;
    const st = statSync(file, { throwIfNoEntry: false });
    if (st) out.push({ file, header, updated: st.mtime.toISOString() });
  }
  return out.sort((a, b) => b.updated.localeCompare(a.updated) || b.header.id.localeCompare(a.header.id));
}

function headerOf(file: string): SessionHeader | undefined {
  let header: SessionHeader | undefined;
  try {
    forEachLine(file, (line) => {
      const record = parseRecord(line);
      if (record && isHeader(record)) header = record;
      return false;
    });
  } catch {
    // unreadable: not listed
  }
  return header;
}

/** What one session file holds, to say what was resumed; null when unreadable or empty. */
export function sessionInfo(file: string): SessionInfo | null {
  const header = headerOf(file);
  const st = statSync(file, { throwIfNoEntry: false });
  if (!header || !st) return null;
  return scan(file, header, st.mtime.toISOString()) ?? null;
}

/**
 * One pass over a session file: its first request and tool rounds over the whole file (a
 * compaction starts the loaded history over at a summary, but the listing names what the user
 * first asked) and its saved cost. Undefined when it holds no request.
 */
function scan(file: string, header: SessionHeader, updated: string): SessionInfo | undefined {
  let firstRequest: string | undefined;
  let cost: number | null = null;
  let name: string | undefined;
  // A compaction writes the kept messages again: a round is counted once, by its first call's id.
  const rounds = new Set<string>();
  try {
    forEachLine(file, (line) => {
      const record = parseRecord(line);
      if (record?.type === 'state' && isObject(record.totals)) cost = record.totals.costUnknown || typeof record.totals.cost !== 'number' ? null : record.totals.cost;
      if (record?.type === 'state' && typeof record.name === 'string') name = record.name;
      if (record?.type !== 'message' || !isObject(record.message) || !Array.isArray(record.message.content)) return;
      const message = record.message as Message;
      const first = callsOf(message)[0];
      if (first) rounds.add(first.id);
      const text = message.role === 'user' ? message.content.find((b) => b.type === 'text') : undefined;
      if (firstRequest === undefined && text?.type === 'text' && text.text.trim()) firstRequest = text.text.trim().split('\n')[0]!;
    });
  } catch {
    return undefined;
  }
  if (firstRequest === undefined) return undefined;
  return { id: header.id, file, created: header.created, updated, firstRequest, rounds: rounds.size, cost, ...(name && { name }) };
}

function sessionFiles(stateDir: string): string[] {
  try {
    return readdirSync(sessionsDir(stateDir)).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
}
