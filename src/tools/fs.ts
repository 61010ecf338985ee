// The file tools: read_file, write_file and edit_file, and edit_file's account of a failed match.
// Every path goes through paths.ts (confinement, read-before-write, atomic writes) and every byte
// through filetype.ts (type, encoding); this module must not reach the disk any other way.

import { countNewlines } from '../util/cap.js';
import { decode, encode, formatSize, numberLine, SNIFF_BYTES, sniffType, splitLines, textPage, type Sniffed, type TextEncoding } from '../content/filetype.js';
import { MAX_LINES, pageLines, pageRange, readContent } from '../content/read.js';
import { extractedRefusal } from '../content/docs.js';
import { checkFresh, openForRead, relPath, resolveForRead, resolveInWorkspace, versionOf, writeInside } from '../util/paths.js';
import { toolError, type FileChange, type Tool, type ToolContext, type ToolOutput } from '../types/tools.js';

const MAX_FILE_BYTES = 10 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// read_file

type ReadArgs = { path: string; offset?: number; limit?: number };

function typeName(sniffed: Sniffed): string {
  if (sniffed.kind === 'text') return 'text';
  return sniffed.mediaType ? `${sniffed.type} (${sniffed.mediaType})` : sniffed.type;
}

async function runRead(args: ReadArgs, ctx: ToolContext): Promise<ToolOutput> {
  const content = await readContent(args, ctx);
  if (content) return content;
  const r = await resolveForRead(ctx.root, ctx.readRoots ?? [], args.path);
  if (!r.ok) return toolError(r.error);
  const inWorkspace = r.base === ctx.root;
  const shown = inWorkspace ? relPath(ctx.root, r.real) : r.real;
  if (!r.exists) return toolError(`${shown} does not exist`);
  if (r.isDir) return toolError(`${shown} is a folder; use list_files to see its files`);
  const opened = await openForRead(r.base, r.real, shown);
  if ('error' in opened) return toolError(opened.error);
  const { fh, st } = opened;
  let bytes: Buffer;
  try {
    if (st.size > MAX_FILE_BYTES) {
      const head = await fh.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
      const type = typeName(sniffType(head.buffer.subarray(0, head.bytesRead)));
      return toolError(`${shown} is ${formatSize(st.size)} (${type}); read_file reads files up to 10 MB. Use search to find lines in it, or bash (head, tail, sed -n 'A,Bp') to read parts.`);
    }
    bytes = await fh.readFile();
  } finally {
    await fh.close();
  }
  const sniffed = sniffType(bytes);
  if (sniffed.kind === 'binary') {
    return toolError(`${shown} is a ${typeName(sniffed)}, ${formatSize(bytes.length)}; read_file only reads text files.`);
  }
  // A skill's file is read, never written: no read-before-write record for it.
  if (inWorkspace) ctx.files.set(r.real, versionOf(bytes, st));
  if (bytes.length === 0) return { output: `${shown} is empty (0 bytes)`, summary: { key: 'lines', n: 0 } };
  const { start, limit } = pageRange(args);
  const text = textPage(bytes, sniffed.encoding, start, limit);
  const note = text.invalid ? '\n[the file has bytes that are not valid text in its encoding, shown as �; edit_file and write_file will refuse it]' : '';
  const page = pageLines({ ...text, start });
  if ('pastEnd' in page) return toolError(`${shown} has ${text.total} lines; offset ${page.pastEnd} is past the end`);
  return { output: page.text + note, summary: { key: 'lines', n: page.n } };
}

// ---------------------------------------------------------------------------------------------
// write_file and edit_file

type Existing = { text: string; encoding: TextEncoding };

/** The current text of a file about to be overwritten, or why it may not be. */
async function loadForWrite(ctx: ToolContext, real: string, shown: string): Promise<Existing | string> {
  const opened = await openForRead(ctx.root, real, shown);
  if ('error' in opened) return opened.error;
  const bytes = await opened.fh.readFile().finally(() => opened.fh.close());
  const sniffed = sniffType(bytes);
  if (sniffed.kind === 'binary') return `${shown} is a ${typeName(sniffed)}; write_file and edit_file only change text files`;
  const stale = checkFresh(ctx.files, real, bytes, shown);
  if (stale) return stale;
  try {
    return { text: decode(bytes, sniffed.encoding, true), encoding: sniffed.encoding };
  } catch {
    return `${shown} has bytes that are not valid text in its encoding; change it with bash instead, so they are kept`;
  }
}

/** Writes `after` in `encoding`, records the new version as read, and returns the change for the interface. */
async function commit(ctx: ToolContext, real: string, shown: string, before: string | null, after: string, encoding: TextEncoding): Promise<FileChange> {
  ctx.files.set(real, await writeInside(ctx.root, real, encode(after, encoding)));
  return { path: shown, before, after };
}

function lineCount(text: string): number {
  return text === '' ? 0 : countNewlines(text) + (text.endsWith('\n') ? 0 : 1);
}

const isCrlf = (text: string): boolean => {
  const nl = text.indexOf('\n');
  return nl > 0 && text[nl - 1] === '\r';
};

type WriteArgs = { path: string; content: string };

async function runWrite(args: WriteArgs, ctx: ToolContext): Promise<ToolOutput> {
  if (typeof args.content !== 'string') return toolError('content must be a string');
  const r = await resolveInWorkspace(ctx.root, args.path);
  if (!r.ok) return toolError(r.error);
  const shown = relPath(ctx.root, r.real);
  if (r.isDir) return toolError(`${shown} is a folder`);
  const extracted = extractedRefusal(r.real, shown);
  if (extracted) return toolError(extracted);
  let before: string | null = null;
  let encoding: TextEncoding = 'utf8';
  let after = args.content;
  if (r.exists) {
    const existing = await loadForWrite(ctx, r.real, shown);
    if (typeof existing === 'string') return toolError(existing);
    ({ text: before, encoding } = existing);
    // A model writes LF; a CRLF file stays CRLF rather than changing every line.
    if (isCrlf(before) && !after.includes('\r')) after = after.replace(/\n/g, '\r\n');
  }
  const change = await commit(ctx, r.real, shown, before, after, encoding);
  const n = lineCount(after);
  return { output: `Wrote ${n} line${n === 1 ? '' : 's'} to ${shown}${before === null ? ' (new file)' : ''}`, summary: { key: 'wrote', n }, change };
}

type EditArgs = { path: string; old_string: string; new_string: string; replace_all?: boolean };

function findAll(text: string, s: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + s.length)) found.push(i);
  return found;
}

/** 1-based line numbers of the given offsets (ascending). */
function lineNumbers(text: string, offsets: number[]): number[] {
  let line = 1;
  let from = 0;
  return offsets.map((at) => {
    line += countNewlines(text.slice(from, at));
    from = at;
    return line;
  });
}

async function runEdit(args: EditArgs, ctx: ToolContext): Promise<ToolOutput> {
  if (typeof args.old_string !== 'string' || typeof args.new_string !== 'string') return toolError('old_string and new_string must be strings');
  if (args.old_string === '') return toolError('old_string is empty; give the exact text to replace (write_file creates or overwrites whole files)');
  if (args.old_string === args.new_string) return toolError('old_string and new_string are the same; nothing would change');
  const r = await resolveInWorkspace(ctx.root, args.path);
  if (!r.ok) return toolError(r.error);
  const shown = relPath(ctx.root, r.real);
  const extracted = extractedRefusal(r.real, shown);
  if (extracted) return toolError(extracted);
  if (!r.exists) return toolError(`${shown} does not exist; create it with write_file`);
  if (r.isDir) return toolError(`${shown} is a folder`);
  const existing = await loadForWrite(ctx, r.real, shown);
  if (typeof existing === 'string') return toolError(existing);
  const { text, encoding } = existing;
  // The model writes LF. In a CRLF file its strings are matched and written as CRLF; a mixed
  // file may hold the LF form itself, so that is the second try.
  let oldS = args.old_string.replace(/\r\n/g, '\n');
  let newS = args.new_string.replace(/\r\n/g, '\n');
  let found: number[] = [];
  if (isCrlf(text)) {
    found = findAll(text, oldS.replace(/\n/g, '\r\n'));
    if (found.length > 0 || !oldS.includes('\n')) [oldS, newS] = [oldS.replace(/\n/g, '\r\n'), newS.replace(/\n/g, '\r\n')];
  }
  if (found.length === 0) found = findAll(text, oldS);
  if (found.length === 0) return toolError(describeMismatch(text, args.old_string, shown));
  if (found.length > 1 && args.replace_all !== true) {
    const lines = lineNumbers(text, found);
    const list = lines.length > 20 ? `${lines.slice(0, 20).join(', ')}, …` : lines.join(', ');
    return toolError(`old_string occurs ${found.length} times in ${shown} (lines ${list}); include more surrounding lines to make it unique, or set replace_all to change every one`);
  }
  const parts: string[] = [];
  let from = 0;
  const newOffsets: number[] = [];
  let shift = 0;
  for (const at of found) {
    parts.push(text.slice(from, at), newS);
    newOffsets.push(at + shift);
    shift += newS.length - oldS.length;
    from = at + oldS.length;
  }
  parts.push(text.slice(from));
  let after = parts.join('');
  // The file keeps its final newline, or its lack of one, whatever the strings ended with.
  const eol = isCrlf(text) ? '\r\n' : '\n';
  if (text.endsWith('\n') && after !== '' && !after.endsWith('\n')) after += eol;
  if (!text.endsWith('\n') && after.endsWith('\n')) after = after.slice(0, after.endsWith('\r\n') ? -2 : -1);
  const change = await commit(ctx, r.real, shown, text, after, encoding);
  const starts = lineNumbers(after, newOffsets);
  const span = Math.max(1, lineCount(newS));
  const where =
    found.length === 1
      ? span === 1 ? `line ${starts[0]}` : `lines ${starts[0]}–${starts[0] + span - 1}`
      : `${found.length} replacements, at lines ${starts.slice(0, 20).join(', ')}${starts.length > 20 ? ', …' : ''}`;
  return { output: `Edited ${shown}: ${where}`, summary: { key: 'edited', n: found.length }, change };
}

/** Why old_string was not found, with the most similar part of the file, numbered as read_file shows it. */
function describeMismatch(text: string, old: string, shown: string): string {
  const fileLines = splitLines(text);
  if (fileLines.length === 0) return `old_string was not found in ${shown}: the file is empty`;
  const oldLines = splitLines(old.replace(/\r\n/g, '\n'));
  const hints: string[] = [];
  const meaningful = oldLines.filter((l) => l.trim() !== '');
  if (meaningful.length > 0 && meaningful.every((l) => /^\s*\d+\t/.test(l))) {
    hints.push("old_string seems to include read_file's line-number prefixes; leave them out.");
  } else if (collapse(text).includes(collapse(old))) {
    hints.push('It would match if whitespace were ignored: copy indentation, spaces and line breaks exactly.');
  }
  const start = nearestWindow(fileLines, oldLines);
  const from = Math.max(0, start - 2);
  const to = Math.min(fileLines.length, start + oldLines.length + 2, from + 40);
  const snippet = fileLines.slice(from, to).map((l, i) => numberLine(l, from + i + 1));
  return [`old_string was not found in ${shown}.`, ...hints, `The most similar part of the file (lines ${from + 1}–${to}):`, ...snippet].join('\n');
}

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * The start of the window of file lines most like `oldLines`: most lines equal after trimming,
 * ties broken by how alike the first non-blank line is. Linear in the file, so huge files stay cheap.
 */
function nearestWindow(fileLines: string[], oldLines: string[]): number {
  const want = oldLines.slice(0, 200).map((l) => l.trim());
  const where = new Map<string, number[]>();
  want.forEach((l, k) => {
    if (l !== '') where.set(l, [...(where.get(l) ?? []), k]);
  });
  const equal = new Uint32Array(fileLines.length);
  let most = 0;
  fileLines.forEach((line, j) => {
    for (const k of where.get(line.trim()) ?? []) if (j >= k) most = Math.max(most, ++equal[j - k]);
  });
  const k0 = Math.max(0, want.findIndex((l) => l !== ''));
  let best = 0;
  let bestScore = -1;
  let tried = 0;
  for (let i = 0; i < fileLines.length && tried < 20_000; i++) {
    if (equal[i] !== most) continue;
    tried++;
    const score = equal[i] + dice((fileLines[i + k0] ?? '').trim(), want[k0] ?? '');
    if (score > bestScore) [best, bestScore] = [i, score];
  }
  return best;
}

/** Dice coefficient over character bigrams: 1 for equal strings, 0 for nothing in common. */
function dice(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) grams.set(a.slice(i, i + 2), (grams.get(a.slice(i, i + 2)) ?? 0) + 1);
  let hits = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const left = grams.get(b.slice(i, i + 2)) ?? 0;
    if (left > 0) {
      grams.set(b.slice(i, i + 2), left - 1);
      hits++;
    }
  }
  return (2 * hits) / (a.length + b.length - 2);
}

// ---------------------------------------------------------------------------------------------

const pathProp = { type: 'string' };

export const readFileTool: Tool<ReadArgs> = {
  name: 'read_file',
  description:
    'Lines numbered (cat -n), ~28,000 chars a call at most: page with offset. Images are shown if you have vision; PDF and office documents come as text and cannot be edited.',
  parameters: {
    type: 'object',
    properties: {
      path: pathProp,
      offset: { type: 'integer', minimum: 1 },
      limit: { type: 'integer', minimum: 1, maximum: MAX_LINES },
    },
    required: ['path'],
    additionalProperties: false,
  },
  kind: 'read',
  describe: (a) => ({ title: a.path, path: a.path }),
  run: runRead,
};

export const writeFileTool: Tool<WriteArgs> = {
  name: 'write_file',
  description:
    'Create or overwrite a text file (folders are made). Read a file before overwriting it; to change part of one, use edit_file.',
  parameters: {
    type: 'object',
    properties: { path: pathProp, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  kind: 'write',
  describe: (a) => ({ title: a.path, path: a.path, ...(typeof a.content === 'string' && { preview: { kind: 'write', path: a.path, content: a.content } }) }),
  run: runWrite,
};

export const editFileTool: Tool<EditArgs> = {
  name: 'edit_file',
  description:
    'Replace text in a file you have read. old_string must match exactly (indentation too, no line numbers) and occur once, unless replace_all.',
  parameters: {
    type: 'object',
    properties: {
      path: pathProp,
      old_string: { type: 'string' },
      new_string: { type: 'string' },
      replace_all: { type: 'boolean' },
    },
    required: ['path', 'old_string', 'new_string'],
    additionalProperties: false,
  },
  kind: 'write',
  describe: (a) => ({
    title: a.path,
    path: a.path,
    ...(typeof a.old_string === 'string' && typeof a.new_string === 'string' && { preview: { kind: 'edit', path: a.path, before: a.old_string, after: a.new_string, ...(a.replace_all === true && { replaceAll: true }) } }),
  }),
  run: runEdit,
};
