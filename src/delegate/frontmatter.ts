// The front matter of a definition file: the YAML subset Claude Code's sub-agent files use
// (`key: value` with plain, quoted or block scalars, and lists in block or flow form) and the
// Markdown body after it. Pure; knows nothing of what the keys mean.

export type FrontValue = string | string[];
export type FrontMatter = { fields: Record<string, FrontValue>; body: string };

const unquote = (raw: string): string => {
  const v = raw.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
  // A plain scalar ends at a comment.
  return v.replace(/\s+#.*$/, '');
};

const flowList = (raw: string): string[] =>
  raw
    .trim()
    .slice(1, -1)
    .split(',')
    .map(unquote)
    .filter(Boolean);

/** Splits `---` front matter from the body; a file without it is all body. Throws on a line it cannot read. */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { fields: {}, body: text.trim() };
  const end = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(l));
  if (end < 0) throw new Error('the front matter has no closing ---');
  const fields: Record<string, FrontValue> = {};
  for (let i = 1; i < end; i++) {
    const line = lines[i]!;
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const m = /^([A-Za-z_][\w-]*)\s*:(.*)$/.exec(line);
    if (!m) throw new Error(`line ${i + 1} is not "key: value": ${line.slice(0, 60)}`);
    const key = m[1]!;
    const rest = m[2]!.trim();
    if (rest.startsWith('[') && rest.endsWith(']')) {
      fields[key] = flowList(rest);
      continue;
    }
    if (rest === '' || rest === '|' || rest === '>' || /^[|>][-+]?$/.test(rest)) {
      // What follows, indented: a list (`- item`) or a block scalar.
      const block: string[] = [];
      while (i + 1 < end && (/^\s+\S/.test(lines[i + 1]!) || lines[i + 1]!.trim() === '' || (rest === '' && /^-\s/.test(lines[i + 1]!)))) block.push(lines[++i]!);
      const items = block.filter((l) => l.trim());
      if (rest === '' && items.length && items.every((l) => /^\s*-\s/.test(l))) {
        fields[key] = items.map((l) => unquote(l.replace(/^\s*-\s/, '')));
      } else {
        const indent = Math.min(...items.map((l) => /^\s*/.exec(l)![0].length));
        const kept = block.map((l) => l.slice(indent));
        fields[key] = rest.startsWith('>') ? kept.join(' ').replace(/\s+/g, ' ').trim() : kept.join('\n').trim();
      }
      continue;
    }
    fields[key] = unquote(rest);
  }
  return { fields, body: lines.slice(end + 1).join('\n').trim() };
}
