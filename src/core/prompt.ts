// The system prompt and the project conventions file (FEIYU.md, AGENTS.md or CLAUDE.md).
// Contract: the prompt is byte-for-byte stable for a session — no clock, no changing state —
// so provider prompt caches hit on every request.

import { join } from 'node:path';
import { FileReadError, readRegularFile } from '../util/readfile.js';

export const CONVENTION_FILES = ['FEIYU.md', 'AGENTS.md', 'CLAUDE.md'] as const;

/** Past this the conventions file is cut: it is paid on every request. */
const MAX_CONVENTIONS = 20_000;
/** Past this a conventions file is not read at all (a log or a dump named FEIYU.md by mistake). */
const MAX_CONVENTIONS_BYTES = 1 << 20;

export type Conventions = { file: string; text: string; verify?: string };

/** The conventions file found, and the candidates that could not be read (a FIFO, a device, a huge file). */
export type LoadedConventions = { conventions?: Conventions; unreadable: FileReadError[] };

/** The first conventions file found in the workspace, and the ones passed over that cannot be read. */
export async function loadConventions(root: string): Promise<LoadedConventions> {
  const unreadable: FileReadError[] = [];
  for (const file of CONVENTION_FILES) {
    let text: string | undefined;
    try {
      text = readRegularFile(join(root, file), MAX_CONVENTIONS_BYTES);
    } catch (err) {
      if (err instanceof FileReadError) unreadable.push(err);
      continue;
    }
    if (text === undefined) continue;
    if (text.length > MAX_CONVENTIONS) text = text.slice(0, MAX_CONVENTIONS) + '\n[… conventions file cut here …]';
    const verify = /^verify:\s*(.+?)\s*$/m.exec(text)?.[1];
    return { conventions: { file, text, verify }, unreadable };
  }
  return { unreadable };
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
