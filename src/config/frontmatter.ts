// Markdown front matter as Claude Code's commands and the Agent Skills format write it: a `---`
// block of simple YAML at the very top (scalars, quoted strings, `[a, b]` and `- a` lists, `|` and
// `>` block scalars, plain scalars folded over indented lines). Not a YAML parser: what it does not
// understand (nested maps) it leaves out; it never throws.

export type FrontMatter = {
  fields: Record<string, string | string[]>;
  /** Each key's value as written on its line (`argument-hint: [pr] [title]` is text, not a list). */
  raw: Record<string, string>;
  /** The text after the closing `---` (all of it when there is no front matter). */
  body: string;
};

const KEY = /^([A-Za-z0-9_-]+):(?:\s+(.*))?$/;

export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { fields: {}, raw: {}, body: text };
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'));
  if (end < 0) return { fields: {}, raw: {}, body: text };
  const fields: Record<string, string | string[]> = {};
  const rawValues: Record<string, string> = {};
  let i = 1;
  while (i < end) {
    const match = KEY.exec(lines[i]!.trimEnd());
    i++;
    if (!match) continue;
    const [, key, raw = ''] = match;
    // The lines that belong to this key: indented (or blank) until the next key.
    const start = i;
    while (i < end && (/^\s/.test(lines[i]!) || lines[i]!.trim() === '' || lines[i]!.startsWith('- '))) i++;
    const more = lines.slice(start, i);
    const value = valueOf(raw.trim(), more);
    if (value !== undefined) fields[key!] = value;
    if (raw.trim()) rawValues[key!] = raw.trim();
  }
  return { fields, raw: rawValues, body: lines.slice(end + 1).join('\n') };
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
  if (raw.startsWith('"') || raw.startsWith("'")) return unquote([raw, ...more.map((l) => l.trim())].join(' ').trim());
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
