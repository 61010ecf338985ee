// The project conventions file: the first of FEIYU.md, AGENTS.md or CLAUDE.md in the workspace,
// cut to a size a request can carry, and its `verify:` line. Reads files only; the system prompt
// (core/prompt.ts) decides where the text goes.

import { join } from 'node:path';
import { FileReadError, readRegularFile } from '../util/readfile.js';

const CONVENTION_FILES = ['FEIYU.md', 'AGENTS.md', 'CLAUDE.md'] as const;

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
