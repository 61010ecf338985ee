// read_file for what is not plain text: images go to the model when it can see them, documents
// come back as extracted text paged like a text file. read_file calls readContent first and reads
// the file as text when it returns null; this module must not write files or decide what a format
// holds (images.ts, docs.ts), and must not import tools/fs.ts (which imports it).

import { extname } from 'node:path';
import { OUTPUT_CAP } from '../util/cap.js';
import { docFormat, extractedNote, extractText } from './docs.js';
import { formatSize, numberLine, sniffType } from './filetype.js';
import { imageTokens, prepareImage } from './images.js';
import { openForRead, relPath, resolveInWorkspace } from '../util/paths.js';
import { toolError, type ToolContext, type ToolOutput } from '../types/tools.js';
import type { ImageBlock } from '../types/conversation.js';
import type { ModelConfig } from '../types/providers.js';

export const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp']);
/** Documents and images are read whole into memory; past this they are refused. */
const MAX_CONTENT_BYTES = 50 * 1024 * 1024;
/** Lines read_file gives at most per call. */
export const MAX_LINES = 2000;
/** read_file stops early rather than let runTool cut the middle out of a page of code. */
const READ_BUDGET = OUTPUT_CAP - 2000;

type ReadArgs = { path: string; offset?: number; limit?: number };

/**
 * The result of read_file for an image or a document, or null when the path is anything else
 * (or is really text under such a name): the caller then reads it as a text file.
 */
export async function readContent(args: ReadArgs, ctx: ToolContext): Promise<ToolOutput | null> {
  const ext = extname(String(args.path)).toLowerCase();
  const isImage = IMAGE_EXTENSIONS.has(ext);
  if (!isImage && !docFormat(String(args.path))) return null;
  const r = await resolveInWorkspace(ctx.root, args.path);
  if (!r.ok || !r.exists || r.isDir) return null; // read_file words these errors
  const shown = relPath(ctx.root, r.real);
  const opened = await openForRead(ctx.root, r.real, shown);
  if ('error' in opened) return toolError(opened.error);
  const { size } = opened.st;
  if (size > MAX_CONTENT_BYTES) {
    await opened.fh.close();
    return toolError(`${shown} is ${formatSize(size)}; read_file reads images and documents up to 50 MB.`);
  }
  const bytes = await opened.fh.readFile().finally(() => opened.fh.close());
  const sniffed = sniffType(bytes);
  if (sniffed.kind === 'text') return null;
  if (isImage) return readImage(bytes, shown, ctx.provider?.().config);
  return readDocument(r.real, bytes, shown, args, ctx.signal);
}

/**
 * An image for `model`, scaled and re-encoded as images.ts does, or an error worded for the model
 * when the bytes are not an image or the model cannot see images (sending it would fail the turn).
 * Also used for the images a user attaches to a message.
 */
export async function readImage(bytes: Buffer, shown: string, model: ModelConfig | undefined): Promise<ToolOutput> {
  const sniffed = sniffType(bytes);
  const mediaType = sniffed.kind === 'binary' ? sniffed.mediaType : undefined;
  if (!mediaType?.startsWith('image/')) return toolError(`${shown} is not an image: it is ${sniffed.kind === 'binary' ? `a ${sniffed.type}` : 'text'}, ${formatSize(bytes.length)}.`);
  if (model?.vision !== true) {
    // Sending it anyway would make the provider reject the whole turn.
    return toolError(`${shown} is an image (${mediaType}, ${formatSize(bytes.length)}), and the current model${model ? ` (${model.name})` : ''} cannot see images: vision is not enabled for it, so the image was not sent. Tell the user; they can switch to a model with vision.`);
  }
  let prepared;
  try {
    prepared = await prepareImage(bytes);
  } catch (err) {
    return toolError(`${shown} cannot be decoded as an image (${(err as Error).message}); the file may be corrupt or truncated.`);
  }
  const { original: o, sent: s } = prepared;
  const frames = o.frames > 1 ? `, animated (${o.frames} frames; the first is shown)` : '';
  const how = s.reencoded ? `as ${s.width}×${s.height} ${s.mediaType.slice(6).toUpperCase()}, ${formatSize(s.data.length)}` : 'as it is';
  const image: ImageBlock = { type: 'image', mediaType: s.mediaType, data: s.data.toString('base64'), path: shown, bytes: s.data.length };
  return {
    output: `Image ${shown}: ${o.width}×${o.height} ${o.format.toUpperCase()}, ${formatSize(o.bytes)}${frames}; sent ${how} (≈${imageTokens(s.width, s.height).toLocaleString('en-US')} tokens).`,
    images: [image],
    summary: { key: 'ok' },
  };
}

async function readDocument(real: string, bytes: Buffer, shown: string, args: ReadArgs, signal: AbortSignal): Promise<ToolOutput> {
  let text: string;
  try {
    text = await extractText(real, bytes, signal);
  } catch (err) {
    return toolError(`${shown} (${formatSize(bytes.length)}): ${(err as Error).message}`);
  }
  const note = extractedNote(real, shown)!;
  if (text === '') return { output: `${note}\n(the document holds no text)`, summary: { key: 'lines', n: 0 } };
  const lines = text.split('\n');
  const { start, limit } = pageRange(args);
  const page = pageLines({ lines: lines.slice(start - 1, start - 1 + limit), start, total: lines.length }, note);
  if ('pastEnd' in page) return toolError(`the text extracted from ${shown} has ${lines.length} lines; offset ${page.pastEnd} is past the end`);
  return { output: page.text, summary: { key: 'lines', n: page.n } };
}

/** The lines a read_file call asks for: from `start` (1-based), at most `limit` (≤ MAX_LINES). */
export function pageRange(args: { offset?: number; limit?: number }): { start: number; limit: number } {
  return {
    start: Math.max(1, Math.floor(Number(args.offset) || 1)),
    limit: Math.min(MAX_LINES, Math.max(1, Math.floor(Number(args.limit) || MAX_LINES))),
  };
}

/** Lines `start`… of a text `total` lines long: the lines a pageRange asked for (fewer at the end). */
export type LineWindow = { lines: readonly string[]; start: number; total: number };

/**
 * One page numbered as cat -n: the window's lines, up to about 28,000 characters with `head`
 * above them, and a last line saying how to read on. At least one line is always given;
 * `pastEnd` is the offset when it is past the last line.
 */
export function pageLines(w: LineWindow, head?: string): { text: string; n: number } | { pastEnd: number } {
  if (w.start > w.total) return { pastEnd: w.start };
  const rows = head === undefined ? [] : [head];
  const first = rows.length;
  let used = head?.length ?? 0;
  let n = w.start;
  for (const line of w.lines) {
    const row = numberLine(line, n);
    if (rows.length > first && used + row.length > READ_BUDGET) break;
    rows.push(row);
    used += row.length + 1;
    n++;
  }
  const last = n - 1;
  if (last < w.total) rows.push(`[lines ${w.start}–${last} of ${w.total}; call read_file with offset ${last + 1} to continue]`);
  return { text: rows.join('\n'), n: last - w.start + 1 };
}
