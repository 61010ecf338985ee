// Permission rules `tool(pattern)` (DESIGN.md §4), in feiyu's spelling (bash(npm test *),
// edit_file(src/**)) or Claude Code's (Bash(npm test:*), Edit(./src/**), WebFetch(domain:x.com),
// mcp__server__tool): parsing and validating them, matching one against a call's target, and
// proposing the rule an "always" answer saves. Must not decide a call: policy.ts combines rules
// with modes and the command analysis.

import { isAbsolute, relative, sep } from 'node:path';
import { Problem } from '../i18n/index.js';
import { ruleToolsOf } from '../util/claudenames.js';

/**
 * bash(npm test) matches that command exactly; bash(git commit *) the words, then anything (or
 * nothing); `*` inside a word is a wildcard within it. edit_file(src/**) is a glob on the
 * workspace-relative path (absolute or ~/ patterns match absolute paths). web_fetch(docs.python.org)
 * is a host (*.python.org its subdomains). A bare tool name matches every call of that tool.
 * A rule in Claude's spelling is kept as `text` and read into the same terms: `tools` are the
 * feiyu tools it covers, `pattern` is in feiyu's syntax, and `under` (Claude's gitignore-style
 * paths) also matches everything inside a folder the pattern matches.
 */
export type Rule = { text: string; tools: readonly string[]; pattern: string | null; under?: true };

/** What a call is about, for matching. */
export type RuleTarget =
  | { kind: 'command'; argv: (string | null)[] }
  | { kind: 'path'; abs: string }
  | { kind: 'host'; host: string }
  | { kind: 'text'; text: string };

const RULE = /^([A-Za-z_][\w-]*|mcp__[\w*-]+)(?:\((.+)\))?$/s;
const FEIYU_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * MCP tools (`mcp__<server>__<tool>`, Claude Code's names) are matched by name alone: the server
 * (`mcp__github`), a `*` wildcard in the name (`mcp__github__*`, `mcp__github__get_*`) or one tool.
 * Their only pattern is `(read)`: an allow rule with it marks the tools read-only, which plan and
 * readonly modes then allow (a server's own readOnlyHint never does).
 */
export const READ_MARK = 'read';

/** Why `text` is not a valid rule, or null. */
export function ruleError(text: string): Problem | null {
  const m = RULE.exec(text.trim());
  if (!m) return new Problem('rule.syntax', { rule: text });
  if (m[2] !== undefined && !m[2].trim()) return new Problem('rule.empty', { rule: text });
  if (m[1]!.startsWith('mcp__') && m[2] !== undefined && m[2].trim() !== READ_MARK) return new Problem('rule.mcp_pattern', { rule: text });
  const rule = readRule(text.trim(), m[1]!, m[2]?.trim() ?? null);
  if (rule.tools.includes('bash') && rule.pattern !== null && splitWords(rule.pattern) === null) return new Problem('rule.quote', { rule: text });
  return null;
}

/** Parses a rule already checked with ruleError (throws its Problem otherwise). */
export function parseRule(text: string): Rule {
  const problem = ruleError(text);
  if (problem) throw problem;
  const m = RULE.exec(text.trim())!;
  return readRule(text.trim(), m[1]!, m[2]?.trim() ?? null);
}

/** Claude's tools whose rules name paths. */
const PATH_RULES = new Set(['Read', 'Edit', 'MultiEdit', 'Write', 'Glob', 'Grep']);

/** A rule in either spelling, in feiyu's terms. */
function readRule(text: string, name: string, pattern: string | null): Rule {
  const claudeTools = FEIYU_NAME.test(name) ? null : ruleToolsOf(name);
  // A name in neither table (a future tool) covers the tool of that name, and nothing else.
  if (!claudeTools) return { text, tools: [name], pattern };
  if (pattern === null || pattern === '*') return { text, tools: claudeTools, pattern: null };
  // Bash(npm test:*) is Claude's older spelling of Bash(npm test *).
  if (name === 'Bash') return { text, tools: claudeTools, pattern: pattern.endsWith(':*') ? `${pattern.slice(0, -2).trimEnd()} *` : pattern };
  if (name === 'WebFetch') return { text, tools: claudeTools, pattern: pattern.startsWith('domain:') ? pattern.slice(7) : pattern };
  if (PATH_RULES.has(name)) return { text, tools: claudeTools, pattern: claudePath(pattern), under: true };
  return { text, tools: claudeTools, pattern };
}

/**
 * A path pattern of Claude's (gitignore's rules): //x is the absolute /x, ~/x in the home, /x and
 * ./x relative to the project, and a pattern without a slash matches a name at any depth.
 */
function claudePath(p: string): string {
  if (p.startsWith('//')) return p.slice(1);
  if (p === '~' || p.startsWith('~/')) return p;
  const folder = p.endsWith('/') && p.length > 1;
  let rel = p.startsWith('/') ? p.slice(1) : p.startsWith('./') ? p.slice(2) : p;
  if (folder) rel = rel.slice(0, -1);
  if (!rel) return '**';
  const anchored = p.startsWith('/') || p.startsWith('./') || rel.includes('/');
  return anchored ? rel : `**/${rel}`;
}

/** Whether the rule covers calls of `tool`: by name, or (MCP tools) by server or wildcard. */
export function coversTool(rule: Rule, tool: string): boolean {
  return rule.tools.some((t) => t === tool || (t.startsWith('mcp__') && tool.startsWith('mcp__') && coversMcp(t, tool)));
}

/** `mcp__server` covers every tool of that server; a `*` in the name matches anything there. */
const coversMcp = (name: string, tool: string): boolean =>
  name.includes('*') ? wordRegex(name).test(tool) : !name.slice(5).includes('__') && tool.startsWith(`${name}__`);

/**
 * Whether the rule covers this target. `unknownMatches` decides what a word known only at run
 * time does: deny rules treat it as matching (it could be anything), allow rules as not.
 */
export function ruleMatches(rule: Rule, tool: string, target: RuleTarget, ctx: { root: string; home: string }, unknownMatches = false): boolean {
  if (!coversTool(rule, tool)) return false;
  if (rule.pattern === null || tool.startsWith('mcp__')) return true;
  switch (target.kind) {
    case 'command':
      return matchWords(splitWords(rule.pattern) ?? [], target.argv, unknownMatches);
    case 'path': {
      const pattern = rule.pattern.startsWith('~/') ? ctx.home + rule.pattern.slice(1) : rule.pattern;
      const glob = globRegex(pattern);
      if (isAbsolute(pattern)) return candidates(target.abs, rule.under).some((p) => glob.test(p));
      const rel = relative(ctx.root, target.abs).split(sep).join('/');
      return !rel.startsWith('..') && !isAbsolute(rel) && candidates(rel || '.', rule.under).some((p) => glob.test(p));
    }
    case 'host': {
      const host = target.host.toLowerCase();
      const p = rule.pattern.toLowerCase();
      return p.startsWith('*.') ? host.endsWith(p.slice(1)) : host === p;
    }
    case 'text':
      return wordRegex(rule.pattern).test(target.text);
  }
}

/** The allow rule that marks this MCP tool read-only (`mcp__github__get_*(read)`), if any. */
export const readMarkOf = (allow: readonly Rule[], tool: string): Rule | undefined => (tool.startsWith('mcp__') ? allow.find((r) => r.pattern === READ_MARK && coversTool(r, tool)) : undefined);

/** The path, and with `under` every folder above it (a rule on a folder covers what is inside). */
function candidates(path: string, under: boolean | undefined): string[] {
  if (!under) return [path];
  const parts = path.split('/');
  return parts.map((_, i) => parts.slice(0, parts.length - i).join('/')).filter((p) => p !== '');
}

function matchWords(pattern: string[], argv: (string | null)[], unknownMatches: boolean): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '*' && i === pattern.length - 1) return true;
    if (i >= argv.length) return false;
    const word = argv[i];
    if (word === null ? !unknownMatches : !wordRegex(pattern[i]!).test(word)) return false;
  }
  return pattern.length === argv.length;
}

/** Splits a bash rule's pattern into words: whitespace separates, '…' and "…" quote. Null on an open quote. */
function splitWords(pattern: string): string[] | null {
  const words: string[] = [];
  let cur: string | null = null;
  for (const [t] of pattern.matchAll(/'[^']*'|"[^"]*"|['"]|\s+|[^\s'"]+/g)) {
    if (t === "'" || t === '"') return null;
    if (/^\s/.test(t)) {
      if (cur !== null) words.push(cur);
      cur = null;
    } else cur = (cur ?? '') + (/^['"]/.test(t) ? t.slice(1, -1) : t);
  }
  if (cur !== null) words.push(cur);
  return words;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `*` matches anything within a word (or a text argument). */
function wordRegex(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map(escapeRe).join('.*')}$`, 's');
}

/** Path globs: ** crosses folders, * and ? stay within one. */
function globRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, 's');
}

/** Quotes a word for a rule when it needs it. */
const quoteWord = (w: string): string => (/[\s'"]/.test(w) ? (w.includes('"') ? `'${w}'` : `"${w}"`) : w);

/**
 * The rule an "always" answer saves for one command: the program and its words up to the first
 * that is not an option (npm test, python -m pytest, tail -n 25), then a wildcard for the rest;
 * with no such word, the command as it is (never the bare program for every use). Null when a
 * word is known only at run time. Contract: the rule matches the command it was made for.
 */
export function suggestCommandRule(tool: string, argv: (string | null)[]): string | null {
  if (!argv[0] || argv.includes(null)) return null;
  const words = argv as string[];
  const sub = words.findIndex((w, i) => i > 0 && !w.startsWith('-'));
  const text = sub < 0 ? `${tool}(${words.map(quoteWord).join(' ')})` : `${tool}(${words.slice(0, sub + 1).map(quoteWord).join(' ')} *)`;
  if (ruleError(text)) return null;
  return ruleMatches(parseRule(text), tool, { kind: 'command', argv: words }, { root: '/', home: '/' }) ? text : null;
}

/** For a path tool: the file's folder and everything below it, or the file itself at the root. */
export function suggestPathRule(tool: string, abs: string, root: string): string {
  const rel = relative(root, abs).split(sep).join('/');
  const outside = rel.startsWith('..') || isAbsolute(rel);
  const shown = outside ? abs : rel;
  const slash = shown.lastIndexOf('/');
  return `${tool}(${slash > 0 ? `${shown.slice(0, slash)}/**` : shown})`;
}
