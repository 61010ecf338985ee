// /init: which conventions file to write (FEIYU.md, or AGENTS.md when the project already keeps
// one or the user names it) and the request that has the model look at the project and write it.
// Reads only whether the files exist; the model writes through its tools, under the usual
// permission questions. The request is for the model, so it is English and not in the catalogue.

import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type InitFile = 'FEIYU.md' | 'AGENTS.md';

export type InitRequest = { file: InitFile; exists: boolean; prompt: string };

/** Lines past which a conventions file costs more on every request than it saves. */
const MAX_LINES = 60;

/**
 * The file /init writes: the one named (`feiyu`, `agents`, with or without `.md`), else FEIYU.md
 * unless only AGENTS.md exists (other agents read it too). Null for an argument naming neither.
 */
export function initFile(root: string, arg: string): InitFile | null {
  const named = arg.trim().toLowerCase().replace(/\.md$/, '');
  if (named === 'feiyu') return 'FEIYU.md';
  if (named === 'agents') return 'AGENTS.md';
  if (named) return null;
  return !existsSync(join(root, 'FEIYU.md')) && existsSync(join(root, 'AGENTS.md')) ? 'AGENTS.md' : 'FEIYU.md';
}

export function initRequest(root: string, file: InitFile): InitRequest {
  const exists = existsSync(join(root, file));
  const others = ['FEIYU.md', 'AGENTS.md', 'CLAUDE.md', '.cursorrules', '.github/copilot-instructions.md'].filter((f) => f !== file && existsSync(join(root, f)));
  const prompt = [
    `Look at this project and ${exists ? `improve its ${file}` : `write ${file} at the workspace root`}: the conventions file that is added to your instructions on every request in this project.`,
    '',
    'First look, without changing anything: the README, the manifest and build files (package.json, pyproject.toml, Cargo.toml, go.mod, Makefile and the like), the CI configuration, the layout of the sources and tests, and a few representative source files.' +
      (others.length ? ` Read ${others.join(', ')} too and carry over what is still true.` : '') +
      (exists ? ` Read the present ${file} first and keep what is still true.` : ''),
    '',
    `Then write ${file} with the file tools. Keep it under ${MAX_LINES} lines: every line is paid for on every request. Only what you saw in the files, nothing generic or invented:`,
    '- ## Project: languages and versions, the layout, how to build, run, run all the tests and run one test file.',
    '- ## Style: the conventions visible in the code that a newcomer would get wrong.',
    '- ## Do not: generated files, vendored code and anything else not to edit by hand.',
    'If one command checks a change quickly and reliably (the tests or a type check, under a minute), put it alone on a line `verify: <command>` after the title: it runs after every write. Leave it out when there is none.',
    '',
    'End with one or two sentences saying what you wrote.',
  ].join('\n');
  return { file, exists, prompt };
}
