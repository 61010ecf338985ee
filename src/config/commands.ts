// Custom slash commands from Markdown, in Claude Code's format: `*.md` files in the project's
// .feiyu/commands and .claude/commands and the user's commands folders become `/name` (a file in
// a subfolder `/folder:name`), with front matter description, argument-hint, allowed-tools and
// model. Reads and parses the files; expanding and running a command is app/commands.ts's.

import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fieldText, parseFrontMatter, type BrokenFrontMatter, type FrontMatterProblem } from './frontmatter.js';
import { shellSpans } from './mdrefs.js';
import { readInstructionFile, realOf, type Unreadable } from './conventions/walk.js';
import { shownPath, type ConventionPlaces } from './conventions.js';
import { inside } from '../util/paths.js';

export type CommandSource = 'project' | 'user';

export type CustomCommand = {
  /** Without the slash: `review`, `frontend:component`. */
  name: string;
  source: CommandSource;
  /** The commands folder it came from, as shown. */
  from: string;
  file: string;
  description: string;
  argumentHint?: string;
  /** allowed-tools as written (Claude's or feiyu's rule spelling). */
  allowedTools: string[];
  model?: string;
  body: string;
  /** The `!` commands of its body, in order: what trust is asked about. */
  shell: string[];
};

export type CommandProblem = { file: string; code: 'outside' | 'bad_name' | 'duplicate' };

export type LoadedCommands = {
  commands: CustomCommand[];
  problems: CommandProblem[];
  /** Commands loaded although their front matter is broken (as Claude Code does: what it cannot read it leaves out). */
  broken: BrokenFrontMatter[];
  unreadable: Unreadable[];
};

/** A command name: segments of letters, digits, `_`, `.` and `-`, joined by `:`. */
export const COMMAND_NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]*(?::[\p{L}\p{N}_][\p{L}\p{N}_.-]*)*$/u;

/** Folders below a commands folder that are looked into, and files read at most. */
const MAX_DEPTH = 3;
const MAX_FILES = 500;

/** Where commands are looked for, the project's first (a project's command wins over the user's of the same name). */
export function commandFolders(places: ConventionPlaces): { dir: string; source: CommandSource }[] {
  const { workspace, configDir, home } = places;
  return [
    { dir: join(workspace, '.feiyu', 'commands'), source: 'project' },
    { dir: join(workspace, '.claude', 'commands'), source: 'project' },
    { dir: join(configDir, 'commands'), source: 'user' },
    ...(home ? [{ dir: join(home, '.claude', 'commands'), source: 'user' as const }] : []),
  ];
}

export function loadCommands(places: ConventionPlaces): LoadedCommands {
  const out: LoadedCommands = { commands: [], problems: [], broken: [], unreadable: [] };
  const names = new Set<string>();
  let budget = MAX_FILES;
  for (const { dir, source } of commandFolders(places)) {
    for (const file of markdownFiles(dir, MAX_DEPTH)) {
      if (budget-- <= 0) return out;
      const shown = shownPath(places, file);
      const real = realOf(file);
      // A project's command file must stay in the project: a link out could send any file to the model.
      if (!real || (source === 'project' && !inside(places.workspace, real))) {
        out.problems.push({ file: shown, code: 'outside' });
        continue;
      }
      const name = relative(dir, file).slice(0, -3).split(sep).join(':');
      if (!COMMAND_NAME.test(name)) {
        out.problems.push({ file: shown, code: 'bad_name' });
        continue;
      }
      if (names.has(name)) {
        out.problems.push({ file: shown, code: 'duplicate' });
        continue;
      }
      const text = readInstructionFile(real, out.unreadable);
      if (text === undefined) continue;
      names.add(name);
      const { command, problem } = parseCommand(name, text, { source, from: shownPath(places, dir), file: shown });
      out.commands.push(command);
      if (problem) out.broken.push({ file: shown, line: problem.line, why: problem.code });
    }
  }
  return out;
}

/** The command a file holds, and what is wrong with its front matter when something is. */
export function parseCommand(name: string, text: string, where: Pick<CustomCommand, 'source' | 'from' | 'file'>): { command: CustomCommand; problem?: FrontMatterProblem } {
  const { fields, raw, body, problem } = parseFrontMatter(text);
  const command: CustomCommand = {
    name,
    ...where,
    description: fieldText(fields, 'description') ?? firstLine(body),
    allowedTools: splitTools(fields['allowed-tools']),
    body,
    shell: shellSpans(body).map((s) => s.command),
  };
  const hint = raw['argument-hint'] && unquoted(raw['argument-hint']);
  if (hint) command.argumentHint = hint;
  const model = fieldText(fields, 'model');
  if (model && model !== 'inherit') command.model = model;
  return problem ? { command, problem } : { command };
}

/** A line that starts with a slash command: its name (without the slash) and what follows; null for a message. */
export function parseSlash(line: string): { name: string; arg?: string } | null {
  const m = /^\/([\p{L}\p{N}_][\p{L}\p{N}_.:-]*)(?:\s+([\s\S]*))?$/u.exec(line.trim());
  if (!m) return null;
  return m[2] === undefined ? { name: m[1]! } : { name: m[1]!, arg: m[2].trim() };
}

/**
 * The command `typed` names (without the slash): exactly, else, for a name without a folder, the
 * one command of that name in any folder (Claude Code calls `frontend/component.md` `/component`).
 */
export function findCustom(commands: readonly CustomCommand[], typed: string): CustomCommand | undefined {
  const exact = commands.find((c) => c.name === typed);
  if (exact || typed.includes(':')) return exact;
  const bare = commands.filter((c) => c.name.endsWith(`:${typed}`));
  return bare.length === 1 ? bare[0] : undefined;
}

/** allowed-tools: a YAML list, or one string of entries separated by commas or spaces outside parentheses. */
function splitTools(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const items: string[] = [];
  for (const entry of Array.isArray(value) ? value : [value]) {
    let depth = 0;
    let current = '';
    for (const ch of entry) {
      if (ch === '(') depth++;
      if (ch === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
        if (current.trim()) items.push(current.trim());
        current = '';
      } else current += ch;
    }
    if (current.trim()) items.push(current.trim());
  }
  return items;
}

/** A hint written in quotes ("[file]") is shown without them. */
const unquoted = (text: string): string => (/^(["']).*\1$/.test(text) ? text.slice(1, -1) : text);

/** The first line of text (a `---` of front matter never closed is none). */
function firstLine(body: string): string {
  const line = body.split('\n').find((l) => l.trim() && l.trim() !== '---') ?? '';
  const text = line.replace(/^#+\s*/, '').trim();
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}

/** The `*.md` files under `dir`, `depth` folders down, sorted; none when `dir` is missing. */
function markdownFiles(dir: string, depth: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    let folder: boolean;
    try {
      folder = statSync(path).isDirectory();
    } catch {
      continue;
    }
    if (folder && depth > 0) files.push(...markdownFiles(path, depth - 1));
    else if (!folder && name.endsWith('.md')) files.push(path);
  }
  return files;
}
