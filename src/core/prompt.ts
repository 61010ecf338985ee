// The system prompt and the project conventions file (FEIYU.md, AGENTS.md or CLAUDE.md).
// Contract: the prompt is byte-for-byte stable for a session — no clock, no changing state —
// so provider prompt caches hit on every request.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const CONVENTION_FILES = ['FEIYU.md', 'AGENTS.md', 'CLAUDE.md'] as const;

/** Past this the conventions file is cut: it is paid on every request. */
const MAX_CONVENTIONS = 20_000;

export type Conventions = { file: string; text: string; verify?: string };

/** The first conventions file found in the workspace, or undefined. */
export async function loadConventions(root: string): Promise<Conventions | undefined> {
  for (const file of CONVENTION_FILES) {
    let text: string;
    try {
      text = await readFile(join(root, file), 'utf8');
    } catch {
      continue;
    }
    if (text.length > MAX_CONVENTIONS) text = text.slice(0, MAX_CONVENTIONS) + '\n[… conventions file cut here …]';
    const verify = /^verify:\s*(.+?)\s*$/m.exec(text)?.[1];
    return { file, text, verify };
  }
  return undefined;
}

const BASE = `You are feiyu, a coding agent working in the user's project through tools. The workspace root is {root}; file paths are relative to it.

How to work:
- Look before you change: search and read the relevant code first. Read a file before writing or editing it; edit_file needs the exact current text.
- Make the smallest change that does the job, in the project's existing style. Prefer edit_file over rewriting a whole file.
- After changing code, run the project's tests or build when there are any, and fix what you broke.
- Batch independent reads in one reply; they run in parallel.
- A tool error tells you what went wrong: adjust and retry, do not repeat the same call.
- If a tool call is refused, do not try to get around the refusal; explain what you need to the user.
- Never invent file contents, command output or results. Say plainly when something failed or is unfinished.
- Answer in the language the user writes in. Be brief: lead with the result, then what changed and anything the user must do. Refer to code as path:line.`;

/** The system prompt for a session in `root`, with the conventions file appended when there is one. */
export function systemPrompt(root: string, conventions?: Conventions, extra: string[] = []): string {
  const parts = [BASE.replace('{root}', root), ...extra];
  if (conventions) parts.push(`# Project conventions (from ${conventions.file})\n\n${conventions.text.trim()}`);
  return parts.join('\n\n');
}
