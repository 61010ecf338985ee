// Finding sessions: this workspace's sessions listed for /resume (newest first, named by their
// first request), the last one, or one by its id or a unique prefix. Reads session files only;
// store.ts writes and loads them.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isObject } from '../util/jsonfile.js';
import { callsOf, loadSession, parseRecord, readBytes, sessionsDir, type LoadedSession } from './store.js';
import type { Message } from '../types/conversation.js';

export type SessionInfo = {
  id: string;
  file: string;
  created: string;
  /** ISO time of the last write. */
  updated: string;
  /** The first line of the first user request. */
  firstRequest: string;
  /** Tool rounds: assistant replies that called tools. */
  rounds: number;
  /** null when a price was unknown or no totals were saved. */
  cost: number | null;
};

/** This workspace's sessions that hold at least one message, most recently updated first. */
export function listSessions(stateDir: string, root: string): SessionInfo[] {
  const infos: SessionInfo[] = [];
  for (const name of sessionFiles(stateDir)) {
    const file = join(sessionsDir(stateDir), name);
    // The header alone says whose session it is: only this root's files are read whole.
    if (parseRecord(firstLine(file))?.root !== root) continue;
    let loaded: LoadedSession;
    try {
      loaded = loadSession(file);
    } catch {
      continue;
    }
    const { header, state } = loaded;
    const { firstRequest, rounds } = wholeHistory(file);
    if (firstRequest === undefined) continue;
    infos.push({
      id: header.id,
      file,
      created: header.created,
      updated: statSync(file).mtime.toISOString(),
      firstRequest,
      rounds,
      cost: state.totals && !state.totals.costUnknown ? state.totals.cost : null,
    });
  }
  return infos.sort((a, b) => b.updated.localeCompare(a.updated) || b.id.localeCompare(a.id));
}

/**
 * The first request and the tool rounds of a session over its whole file: a compaction starts
 * the loaded history over at a summary, but the listing names what the user first asked.
 */
function wholeHistory(file: string): { firstRequest?: string; rounds: number } {
  let firstRequest: string | undefined;
  // A compaction writes the kept messages again: a round is counted once, by its first call's id.
  const rounds = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const record = parseRecord(line);
    if (record?.type !== 'message' || !isObject(record.message)) continue;
    const message = record.message as Message;
    if (!Array.isArray(message.content)) continue;
    const first = callsOf(message)[0];
    if (first) rounds.add(first.id);
    const text = message.role === 'user' ? message.content.find((b) => b.type === 'text') : undefined;
    if (firstRequest === undefined && text?.type === 'text' && text.text.trim()) firstRequest = text.text.trim().split('\n')[0]!;
  }
  return { firstRequest, rounds: rounds.size };
}

function sessionFiles(stateDir: string): string[] {
  try {
    return readdirSync(sessionsDir(stateDir)).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
}

function firstLine(file: string): string {
  try {
    return readBytes(file, 0, 8192).split('\n')[0]!;
  } catch {
    return '';
  }
}

/** The file of this workspace's most recently updated session, or null. */
export function findLastSession(stateDir: string, root: string): string | null {
  return listSessions(stateDir, root)[0]?.file ?? null;
}

/** The file of the session with this id (or a unique prefix of it), in any workspace, or null. */
export function findSession(stateDir: string, id: string): string | null {
  const names = sessionFiles(stateDir);
  const exact = names.find((n) => n === `${id}.jsonl`);
  const matches = exact ? [exact] : names.filter((n) => id !== '' && n.startsWith(id));
  return matches.length === 1 ? join(sessionsDir(stateDir), matches[0]!) : null;
}
