// Where specialist definitions live and their raw text: the user's config folder (agents/), then
// the project's .feiyu/agents/ and .claude/agents/ (Claude Code's place, so its files work as
// they are). Reads Markdown files only, each up to a limit; parses nothing (delegate/ does) and
// decides nothing about trust (trust.ts hashes what the project brings).

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where a definition came from, as /agents shows it. */
export type AgentOrigin = 'builtin' | 'user' | 'project' | 'claude';

/** One definition file as read: its place, origin, text and content hash (for trust). */
export type AgentFile = { path: string; origin: Exclude<AgentOrigin, 'builtin'>; text: string; hash: string };

/** A definition is a prompt: anything larger is a mistake, not a specialist. */
const MAX_BYTES = 64 * 1024;

export const agentDirs = (root: string, configDir: string): { dir: string; origin: AgentFile['origin'] }[] => [
  { dir: join(configDir, 'agents'), origin: 'user' },
  { dir: join(root, '.claude', 'agents'), origin: 'claude' },
  { dir: join(root, '.feiyu', 'agents'), origin: 'project' },
];

/**
 * The definition files of these places, in order (a later one of the same name wins), and the
 * files that could not be read with why. A missing folder is no problem.
 */
export function readAgentFiles(dirs: { dir: string; origin: AgentFile['origin'] }[]): { files: AgentFile[]; unreadable: { path: string; why: string }[] } {
  const files: AgentFile[] = [];
  const unreadable: { path: string; why: string }[] = [];
  for (const { dir, origin } of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.md')).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const st = statSync(path);
        if (!st.isFile()) throw new Error('not a regular file');
        if (st.size > MAX_BYTES) throw new Error(`larger than ${MAX_BYTES / 1024} KB`);
        const text = readFileSync(path, 'utf8');
        files.push({ path, origin, text, hash: createHash('sha256').update(text).digest('hex') });
      } catch (err) {
        unreadable.push({ path, why: (err as Error).message });
      }
    }
  }
  return { files, unreadable };
}
