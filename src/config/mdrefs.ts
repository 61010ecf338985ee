// What Markdown instruction files and commands point at, found where Claude Code finds it:
// `@path` references (imports, files to inline) outside code spans and fenced blocks, `!`cmd``
// shell lines outside fenced blocks, and `verify:` lines. Pure text work: resolving and reading
// the paths is the caller's.

/** `text` with fenced code blocks (and, with `spans`, inline code) blanked out, offsets kept. */
export function maskCode(text: string, spans: boolean): string {
  let out = '';
  let fence: string | null = null;
  for (const line of text.split(/(?<=\n)/)) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      out += blank(line);
      continue;
    }
    if (marker) {
      fence = marker;
      out += blank(line);
      continue;
    }
    out += spans ? line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length)) : line;
  }
  return out;
}

/** Spaces for every character but newlines. */
const blank = (s: string): string => s.replace(/[^\n]/g, ' ');

export type Reference = { path: string; start: number; end: number };

/**
 * The `@path` references of `text` (Claude's syntax): after a line start or whitespace, up to the
 * next whitespace (`\ ` escapes a space); never inside code. `user@example.com` is not one.
 */
export function atReferences(text: string): Reference[] {
  const refs: Reference[] = [];
  for (const m of maskCode(text, true).matchAll(/(^|\s)@((?:[^\s\\]|\\ )+)/g)) {
    const start = m.index + m[1]!.length;
    refs.push({ path: m[2]!.replace(/\\ /g, ' '), start, end: start + 1 + m[2]!.length });
  }
  return refs;
}

/** The candidates a reference may mean: as written, then without trailing punctuation ("see @README."). */
export function pathCandidates(path: string): string[] {
  const bare = path.replace(/[.,;:!?)\]'"]+$/, '');
  return bare && bare !== path ? [path, bare] : [path];
}

export type ShellSpan = { command: string; start: number; end: number };

/** Claude's `!`command`` lines: run before the prompt is sent, their output put in their place. */
export function shellSpans(text: string): ShellSpan[] {
  const masked = maskCode(text, false);
  return [...masked.matchAll(/!`([^`\n]+)`/g)].map((m) => ({ command: m[1]!.trim(), start: m.index, end: m.index + m[0].length })).filter((s) => s.command);
}

/** The commands of `verify: <command>` lines outside code blocks, in order. */
export function verifyLines(text: string): string[] {
  return [...maskCode(text, false).matchAll(/^verify:[ \t]*(\S.*?)[ \t]*$/gm)].map((m) => m[1]!);
}
