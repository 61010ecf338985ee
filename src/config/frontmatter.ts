// Markdown front matter as Claude Code's commands and the Agent Skills format write it: a `---`
// block of simple YAML at the very top (scalars, quoted strings, `[a, b]` and `- a` lists, `|` and
// `>` block scalars, plain scalars folded over indented lines). Not a YAML parser: what it does not
// understand (nested maps) it leaves out; it never throws, and says where the block is broken.

export type FrontMatter = {
  fields: Record<string, string | string[]>;
  /** Each key's value as written on its line (`argument-hint: [pr] [title]` is text, not a list). */
  raw: Record<string, string>;
  /** The text after the closing `---` (all of it when there is no front matter, or it is never closed). */
  body: string;
  /** The first thing wrong with the block, when something is: what the interface names. */
  problem?: FrontMatterProblem;
};

/**
 * `unclosed`: the `---` on line 1 has no closing line, so nothing of it is read; `bad_line`: a
 * line that is no `key: value` (left out); `unclosed_quote`: a quoted value with no closing quote
 * (read as written). `line` is 1-based in the file.
 */
export type FrontMatterProblem = { line: number; code: 'unclosed' | 'bad_line' | 'unclosed_quote' };

/** A file whose front matter is broken but which is used, for the interface to name. */
export type BrokenFrontMatter = { file: string; line: number; why: FrontMatterProblem['code'] };

const KEY = /^([A-Za-z0-9_-]+):(?:\s+(.*))?$/;

export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { fields: {}, raw: {}, body: text };
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'));
  if (end < 0) return { fields: {}, raw: {}, body: text, problem: { line: 1, code: 'unclosed' } };
  const fields: Record<string, string | string[]> = {};
  const rawValues: Record<string, string> = {};
  let problem: FrontMatterProblem | undefined;
  let i = 1;
  while (i < end) {
    const line = lines[i]!;
    const match = KEY.exec(line.trimEnd());
    i++;
    if (!match) {
      // A comment or a blank line is no mistake.
      if (!problem && line.trim() && !line.trim().startsWith('#')) problem = { line: i, code: 'bad_line' };
      continue;
    }
    const keyLine = i;
    const [, key, raw = ''] = match;
    // The lines that belong to this key: indented (or blank) until the next key.
    const start = i;
    while (i < end && (/^\s/.test(lines[i]!) || lines[i]!.trim() === '' || lines[i]!.startsWith('- '))) i++;
    // A value quoted and closed on its own line has nothing more: what follows it is a mistake.
    const closed = closedQuote(raw.trim());
    const more = closed ? [] : lines.slice(start, i);
    const stray = closed ? lines.slice(start, i).findIndex((l) => l.trim()) : -1;
    const value = valueOf(raw.trim(), more);
    if (value !== undefined) fields[key!] = value;
    if (raw.trim()) rawValues[key!] = raw.trim();
    if (!problem && stray >= 0) problem = { line: start + stray + 1, code: 'bad_line' };
    if (!problem && /^["']/.test(raw.trim()) && !closedQuote(quoted(raw.trim(), more))) problem = { line: keyLine, code: 'unclosed_quote' };
  }
  const body = lines.slice(end + 1).join('\n');
  return problem ? { fields, raw: rawValues, body, problem } : { fields, raw: rawValues, body };
}

/** A quoted value over its lines, joined. */
const quoted = (raw: string, more: string[]): string => [raw, ...more.map((l) => l.trim())].join(' ').trim();

/** A quoted value without the comment after its closing quote (`"x" # note`). */
function withoutComment(value: string): string {
  const q = value[0]!;
  return new RegExp(`^${q}[\\s\\S]*${q}(?=\\s+#)`).exec(value)?.[0] ?? value;
}

/** A quoted value that ends with its closing quote (a comment after it allowed). */
function closedQuote(value: string): boolean {
  if (!/^["']/.test(value)) return false;
  const bare = withoutComment(value);
  return bare.length >= 2 && bare.endsWith(value[0]!);
}

function valueOf(raw: string, more: string[]): string | string[] | undefined {
  if (/^[|>][+-]?$/.test(raw)) return blockScalar(raw[0] === '|', more);
  if (raw.startsWith('[') && raw.endsWith(']')) return splitFlow(raw.slice(1, -1));
  if (raw === '') {
    const items = more.filter((l) => l.trim().startsWith('- '));
    // A nested map (metadata:) is not ours to read.
    if (!items.length) return undefined;
    return items.map((l) => unquote(l.trim().slice(2).trim()));
  }
  if (raw.startsWith('"') || raw.startsWith("'")) return unquote(withoutComment(quoted(raw, more)));
  // A plain scalar continues, folded, on more indented lines.
  return [stripComment(raw), ...more.map((l) => stripComment(l.trim()))].filter(Boolean).join(' ');
}

function blockScalar(literal: boolean, more: string[]): string {
  const indent = Math.min(...more.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length));
  const body = more.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
  const text = literal ? body.join('\n') : body.join('\n').replace(/([^\n])\n(?=[^\n])/g, '$1 ');
  return text.trim();
}

/** `a, "b, c", d` → three items. */
function splitFlow(inner: string): string[] {
  const items: string[] = [];
  for (const m of inner.matchAll(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,]+/g)) {
    const item = m[0].trim();
    if (item) items.push(unquote(item));
  }
  return items;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(["\\/nt])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}

/** YAML comments start at ` #` in a plain scalar. */
const stripComment = (value: string): string => (value.startsWith('#') ? '' : value.replace(/\s+#.*$/, '')).trim();

/** The field as one string (a list joined by ", "), or undefined. */
export function fieldText(fields: FrontMatter['fields'], key: string): string | undefined {
  const value = fields[key];
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value.join(', ') : value).trim();
  return text || undefined;
}
