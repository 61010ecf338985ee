// Specialist definitions: the three built in (explore, review, test) and those of Markdown files in
// Claude Code's sub-agent format (front matter name, description, tools, model, plus feiyu's
// max_rounds and max_tokens; the body is the system prompt), a file overriding the built-in of
// its name. Parses and merges; grants nothing (derive.ts does) and reads no folder (config/ does).

import { basename } from 'node:path';
import { parseFrontMatter } from '../config/frontmatter.js';
import { feiyuToolName } from '../config/allowedtools.js';
import type { AgentFile, AgentOrigin } from '../config/agentfiles.js';

export type AgentDefinition = {
  name: string;
  description: string;
  /** Tool names asked for, as feiyu names them; undefined: every tool a specialist may have. */
  tools?: string[];
  /** A keys.json name or `inherit`; undefined: the built-in's choice (explore: the side model), else inherit. */
  model?: string;
  maxRounds: number;
  /** Tokens one run may spend (input, output and cache together) before it must conclude. */
  maxTokens: number;
  /** The specialist's own instructions (the body of its file). */
  prompt: string;
  origin: AgentOrigin;
  path?: string;
};

export const DEFAULT_ROUNDS = 15;
export const DEFAULT_TOKENS = 400_000;
export const DEFAULT_AGENT = 'explore';

/** The code index's tools: there only when the index is on, so never reported as unknown. */
export const CODE_INDEX_TOOLS = ['code_search', 'code_outline', 'code_symbol', 'code_refs'];
const READ_TOOLS = ['read_file', 'list_files', 'search', ...CODE_INDEX_TOOLS, 'read_note'];

export const BUILTIN_AGENTS: readonly AgentDefinition[] = [
  {
    name: 'explore',
    description: 'Read-only research: where and how something is done in the code.',
    tools: READ_TOOLS,
    maxRounds: DEFAULT_ROUNDS,
    maxTokens: DEFAULT_TOKENS,
    prompt: 'Investigate the task, reading only what you need; batch independent reads in one reply. Cite every fact with path:line.',
    origin: 'builtin',
  },
  {
    name: 'review',
    description: 'Reviews the working changes for bugs and risks (read-only, git diff/log/show).',
    tools: [...READ_TOOLS, 'git_read'],
    model: 'inherit',
    maxRounds: DEFAULT_ROUNDS,
    maxTokens: DEFAULT_TOKENS,
    prompt:
      'Review the working changes: start with git_read diff (and diff --staged), read the code around each change, and report real problems (bugs, missed cases, broken contracts, security) with path:line, most serious first. Do not restate the diff; say plainly when you find nothing.',
    origin: 'builtin',
  },
  {
    name: 'test',
    description: 'Runs and diagnoses tests; changes no file.',
    tools: [...READ_TOOLS, 'bash'],
    model: 'inherit',
    maxRounds: DEFAULT_ROUNDS,
    maxTokens: DEFAULT_TOKENS,
    prompt:
      'Run the tests the task names (or find how the project runs them), then diagnose each failure down to its cause with path:line. Change no file: you report, the caller fixes. Prefer the narrowest command that shows the problem.',
    origin: 'builtin',
  },
];

const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/i;

type FrontValue = string | string[];

const list = (v: FrontValue | undefined): string[] | undefined => {
  if (v === undefined) return undefined;
  const items = Array.isArray(v) ? v : v.split(',');
  return items.map((s) => s.trim()).filter(Boolean);
};

const positive = (v: FrontValue | undefined, key: string, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${key} must be a positive whole number, not ${JSON.stringify(v)}`);
  return n;
};

/** One file's definition. Throws an Error saying what is wrong with it. */
export function parseDefinition(file: Pick<AgentFile, 'path' | 'text' | 'origin'>): AgentDefinition {
  const { fields, body: text, problem } = parseFrontMatter(file.text);
  // Claude Code leaves out a line it cannot read; a block never closed leaves no definition at all.
  if (problem?.code === 'unclosed') throw new Error('the front matter has no closing ---');
  const body = text.trim();
  const str = (key: string): string | undefined => {
    const v = fields[key];
    if (Array.isArray(v)) throw new Error(`${key} must be text, not a list`);
    return v?.trim() || undefined;
  };
  const name = str('name') ?? basename(file.path, '.md');
  if (!NAME.test(name)) throw new Error(`name ${JSON.stringify(name)}: use letters, digits, - and _ (at most 40)`);
  if (!body) throw new Error('the file has no instructions after its front matter');
  const tools = list(fields.tools);
  return {
    name: name.toLowerCase(),
    description: (str('description') ?? body.split('\n')[0]!).replace(/\\n/g, '\n'),
    ...(tools && { tools: [...new Set(tools.map(feiyuToolName))] }),
    ...(str('model') && { model: str('model') }),
    maxRounds: positive(fields.max_rounds, 'max_rounds', DEFAULT_ROUNDS),
    maxTokens: positive(fields.max_tokens, 'max_tokens', DEFAULT_TOKENS),
    prompt: body,
    origin: file.origin,
    path: file.path,
  };
}

/** The built-ins and the files' definitions by name, a later file winning; plus the files that failed. */
export function mergeDefinitions(files: AgentFile[]): { agents: AgentDefinition[]; broken: { path: string; why: string }[] } {
  const byName = new Map<string, AgentDefinition>(BUILTIN_AGENTS.map((a) => [a.name, a]));
  const broken: { path: string; why: string }[] = [];
  for (const file of files) {
    try {
      const def = parseDefinition(file);
      byName.set(def.name, def);
    } catch (err) {
      broken.push({ path: file.path, why: (err as Error).message });
    }
  }
  return { agents: [...byName.values()], broken };
}

/** A description's first line, at most 100 characters: what the task tool lists. */
export function oneLine(description: string): string {
  const line = description.split('\n')[0]!.split(/(?<=[.!?])\s/)[0]!.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? line.slice(0, 99) + '…' : line;
}
