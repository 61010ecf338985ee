// Permission rules `tool(pattern)` (DESIGN.md §4): parsing and validating them, matching one
// against a call's target, and proposing the rule an "always" answer saves. Must not decide a
// call: policy.ts combines rules with modes and the command analysis.

import { isAbsolute, relative, sep } from 'node:path';
import { Problem } from '../i18n/index.js';

/**
 * bash(npm test) matches that command exactly; bash(git commit *) the words, then anything (or
 * nothing); `*` inside a word is a wildcard within it. edit_file(src/**) is a glob on the
 * workspace-relative path (absolute or ~/ patterns match absolute paths). web_fetch(docs.python.org)
 * is a host (*.python.org its subdomains). A bare tool name matches every call of that tool.
 */
export type Rule = { text: string; tool: string; pattern: string | null };

/** What a call is about, for matching. */
export type RuleTarget =
  | { kind: 'command'; argv: (string | null)[] }
  | { kind: 'path'; abs: string }
  | { kind: 'host'; host: string }
  | { kind: 'text'; text: string };

const RULE = /^([a-z_][a-z0-9_]*|mcp__[\w*-]+)(?:\((.+)\))?$/s;

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
  if (m[1] === 'bash' && m[2] !== undefined && splitWords(m[2]) === null) return new Problem('rule.quote', { rule: text });
  return null;
}

/** Parses a rule already checked with ruleError (throws its Problem otherwise). */
export function parseRule(text: string): Rule {
  const problem = ruleError(text);
  if (problem) throw problem;
  const m = RULE.exec(text.trim())!;
  return { text: text.trim(), tool: m[1]!, pattern: m[2]?.trim() ?? null };
}

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
      if (isAbsolute(pattern)) return globRegex(pattern).test(target.abs);
      const rel = relative(ctx.root, target.abs).split(sep).join('/');
      return !rel.startsWith('..') && !isAbsolute(rel) && globRegex(pattern).test(rel || '.');
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

/** Whether the rule names this tool: exactly, or (MCP tools) by server or wildcard. */
export function coversTool(rule: Rule, tool: string): boolean {
  if (rule.tool === tool) return true;
  if (!rule.tool.startsWith('mcp__') || !tool.startsWith('mcp__')) return false;
  if (!rule.tool.includes('*') && !rule.tool.slice(5).includes('__')) return tool.startsWith(`${rule.tool}__`);
  return wordRegex(rule.tool).test(tool);
}

/** The allow rule that marks this MCP tool read-only (`mcp__github__get_*(read)`), if any. */
export const readMarkOf = (allow: readonly Rule[], tool: string): Rule | undefined => (tool.startsWith('mcp__') ? allow.find((r) => r.pattern === READ_MARK && coversTool(r, tool)) : undefined);

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
 * The rule an "always" answer saves for one command: the program and its subcommand (the first
 * word that is not an option) with a wildcard for the rest; never the literal command, never the
 * bare program. Null when there is no subcommand or a word is known only at run time.
 */
export function suggestCommandRule(tool: string, argv: (string | null)[]): string | null {
  const program = argv[0];
  const sub = argv.slice(1).find((w) => w === null || !w.startsWith('-'));
  if (!program || sub === undefined || sub === null || argv.includes(null)) return null;
  return `${tool}(${quoteWord(program)} ${quoteWord(sub)} *)`;
}

/** For a path tool: the file's folder and everything below it, or the file itself at the root. */
export function suggestPathRule(tool: string, abs: string, root: string): string {
  const rel = relative(root, abs).split(sep).join('/');
  const outside = rel.startsWith('..') || isAbsolute(rel);
  const shown = outside ? abs : rel;
  const slash = shown.lastIndexOf('/');
  return `${tool}(${slash > 0 ? `${shown.slice(0, slash)}/**` : shown})`;
}
