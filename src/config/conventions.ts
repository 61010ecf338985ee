// The project conventions file: the first of FEIYU.md, AGENTS.md or CLAUDE.md in the workspace,
// cut to a size a request can carry, and its `verify:` line. Reads files only; the system prompt
// (core/prompt.ts) decides where the text goes.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const CONVENTION_FILES = ['FEIYU.md', 'AGENTS.md', 'CLAUDE.md'] as const;

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
