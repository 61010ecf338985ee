// What a file holds, from its bytes: binary type by magic bytes, text encoding by BOM, the
// decoding and encoding that let a text file be written back exactly as it was stored, and the
// way read_file pages, shows sizes and lines. Pure functions; must not touch the file system.

import { isUtf8 } from 'node:buffer';

const MAX_LINE_CHARS = 2000;

/** How much of a file sniffType needs. */
export const SNIFF_BYTES = 8192;

export type TextEncoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'utf16be';

/** What a file holds, judged from its first bytes. `mediaType` is set where a later tool may show it. */
export type Sniffed = { kind: 'text'; encoding: TextEncoding } | { kind: 'binary'; type: string; mediaType?: string };

type Magic = { type: string; mediaType?: string; sig: [number, string | number[]][]; weak?: true };

// `weak` signatures are short enough to begin a text file, so they only name data already known to be binary.
const MAGIC: Magic[] = [
  { type: 'PNG image', mediaType: 'image/png', sig: [[0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]]] },
  { type: 'JPEG image', mediaType: 'image/jpeg', sig: [[0, [0xff, 0xd8, 0xff]]] },
  { type: 'GIF image', mediaType: 'image/gif', sig: [[0, 'GIF8']] },
  { type: 'WEBP image', mediaType: 'image/webp', sig: [[0, 'RIFF'], [8, 'WEBP']] },
  { type: 'WAV audio', sig: [[0, 'RIFF'], [8, 'WAVE']] },
  { type: 'PDF document', mediaType: 'application/pdf', sig: [[0, '%PDF-']] },
  { type: 'ZIP archive', mediaType: 'application/zip', sig: [[0, [0x50, 0x4b, 0x03, 0x04]]] },
  { type: 'ZIP archive', mediaType: 'application/zip', sig: [[0, [0x50, 0x4b, 0x05, 0x06]]] },
  { type: 'gzip archive', sig: [[0, [0x1f, 0x8b]]] },
  { type: 'bzip2 archive', sig: [[0, 'BZh']], weak: true },
  { type: 'xz archive', sig: [[0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]]] },
  { type: 'zstd archive', sig: [[0, [0x28, 0xb5, 0x2f, 0xfd]]] },
  { type: '7-Zip archive', sig: [[0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]]] },
  { type: 'RAR archive', sig: [[0, 'Rar!\x1a\x07']] },
  { type: 'tar archive', sig: [[257, 'ustar']] },
  { type: 'ELF executable', sig: [[0, [0x7f, 0x45, 0x4c, 0x46]]] },
  { type: 'Mach-O executable', sig: [[0, [0xfe, 0xed, 0xfa, 0xce]]] },
  { type: 'Mach-O executable', sig: [[0, [0xfe, 0xed, 0xfa, 0xcf]]] },
  { type: 'Mach-O executable', sig: [[0, [0xce, 0xfa, 0xed, 0xfe]]] },
  { type: 'Mach-O executable', sig: [[0, [0xcf, 0xfa, 0xed, 0xfe]]] },
  { type: 'Mach-O universal binary or Java class file', sig: [[0, [0xca, 0xfe, 0xba, 0xbe]]] },
  { type: 'Windows executable', sig: [[0, 'MZ']], weak: true },
  { type: 'SQLite database', sig: [[0, 'SQLite format 3\0']] },
  { type: 'WebAssembly module', sig: [[0, [0x00, 0x61, 0x73, 0x6d]]] },
  { type: 'BMP image', mediaType: 'image/bmp', sig: [[0, 'BM']], weak: true },
  { type: 'ICO image', sig: [[0, [0x00, 0x00, 0x01, 0x00]]] },
  { type: 'TIFF image', sig: [[0, 'II*\0']] },
  { type: 'TIFF image', sig: [[0, 'MM\0*']] },
  { type: 'MP4/QuickTime/HEIF media', sig: [[4, 'ftyp']] },
  { type: 'MP3 audio', sig: [[0, 'ID3']], weak: true },
  { type: 'Ogg media', sig: [[0, 'OggS']] },
  { type: 'FLAC audio', sig: [[0, 'fLaC']] },
  { type: 'WOFF font', sig: [[0, 'wOFF']] },
  { type: 'WOFF2 font', sig: [[0, 'wOF2']] },
  { type: 'OpenType font', sig: [[0, 'OTTO']] },
  { type: 'TrueType font', sig: [[0, [0x00, 0x01, 0x00, 0x00]]] },
  { type: 'Photoshop image', sig: [[0, '8BPS']] },
];

// Office and other formats that are ZIP archives, told apart by the names of their first entries.
const ZIP_KINDS: [string, string, string?][] = [
  ['word/', 'Word document (.docx, a ZIP archive)', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['xl/', 'Excel workbook (.xlsx, a ZIP archive)', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['ppt/', 'PowerPoint presentation (.pptx, a ZIP archive)', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['mimetypeapplication/epub+zip', 'EPUB book (a ZIP archive)', 'application/epub+zip'],
  ['mimetypeapplication/vnd.oasis.opendocument', 'OpenDocument file (a ZIP archive)'],
  ['META-INF/', 'Java archive (.jar, a ZIP archive)'],
];

/**
 * Tells text (and its encoding, by BOM) from binary data (and its type, by magic bytes).
 * Give it at least the first 8 KB of the file. Binary means a known signature, NUL bytes,
 * or bytes that are not UTF-8.
 */
export function sniffType(buf: Buffer): Sniffed {
  const head = buf.subarray(0, SNIFF_BYTES);
  const strong = findMagic(head, false);
  if (strong) return strong;
  if (startsWith(head, 0, [0xff, 0xfe, 0, 0]) || startsWith(head, 0, [0, 0, 0xfe, 0xff])) {
    return { kind: 'binary', type: 'UTF-32 text file (not supported)' };
  }
  if (startsWith(head, 0, [0xef, 0xbb, 0xbf])) return textOrBinary(head, 'utf8-bom');
  if (startsWith(head, 0, [0xff, 0xfe])) return { kind: 'text', encoding: 'utf16le' };
  if (startsWith(head, 0, [0xfe, 0xff])) return { kind: 'text', encoding: 'utf16be' };
  return textOrBinary(head, 'utf8');
}

function textOrBinary(head: Buffer, encoding: TextEncoding): Sniffed {
  let valid = !head.includes(0);
  try {
    // stream: true, because the 8 KB may end inside a character.
    if (valid) new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    valid = false;
  }
  if (valid) return { kind: 'text', encoding };
  return findMagic(head, true) ?? { kind: 'binary', type: head.includes(0) ? 'binary file' : 'text file not in UTF-8 (e.g. Latin-1 or GBK)' };
}

function findMagic(head: Buffer, weak: boolean): Sniffed | undefined {
  const magic = MAGIC.find((m) => (m.weak === true) === weak && m.sig.every(([at, sig]) => startsWith(head, at, sig)));
  if (!magic) return undefined;
  const zip = magic.type === 'ZIP archive' ? ZIP_KINDS.find(([marker]) => head.includes(marker)) : undefined;
  const [type, mediaType] = zip ? [zip[1], zip[2]] : [magic.type, magic.mediaType];
  return mediaType ? { kind: 'binary', type, mediaType } : { kind: 'binary', type };
}

function startsWith(buf: Buffer, at: number, sig: string | number[]): boolean {
  const bytes = typeof sig === 'string' ? Buffer.from(sig, 'latin1') : Buffer.from(sig);
  return buf.length >= at + bytes.length && buf.subarray(at, at + bytes.length).equals(bytes);
}

const DECODER_LABEL: Record<TextEncoding, string> = { utf8: 'utf-8', 'utf8-bom': 'utf-8', utf16le: 'utf-16le', utf16be: 'utf-16be' };
const BOM: Record<TextEncoding, number[]> = { utf8: [], 'utf8-bom': [0xef, 0xbb, 0xbf], utf16le: [0xff, 0xfe], utf16be: [0xfe, 0xff] };

/** The file's lines without their line ends; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** Lines `start` to `start + limit - 1` (1-based) of a text file, the file's line count, and whether it has invalid bytes. */
export type TextPage = { lines: string[]; total: number; invalid: boolean };

/**
 * A page of a text file's lines. UTF-8 is cut by bytes first: only the page is decoded and split,
 * the rest is only counted, so any page of a 9 MB file costs what a byte scan costs. UTF-16
 * (where a newline byte may be half of another character) is decoded whole.
 */
export function textPage(bytes: Buffer, encoding: TextEncoding, start: number, limit: number): TextPage {
  if (encoding === 'utf16le' || encoding === 'utf16be') {
    let text: string;
    let invalid = false;
    try {
      text = decode(bytes, encoding, true);
    } catch {
      text = decode(bytes, encoding, false);
      invalid = true;
    }
    const all = splitLines(text);
    return { lines: all.slice(start - 1, start - 1 + limit), total: all.length, invalid };
  }
  const invalid = !isUtf8(bytes.subarray(encoding === 'utf8-bom' ? 3 : 0));
  let line = 1;
  let from = start === 1 ? 0 : -1;
  let to = -1;
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, nl + 1)) {
    line++;
    if (line === start) from = nl + 1;
    if (line === start + limit) to = nl + 1;
  }
  // A last line without a newline is a line too; a final newline does not start another one.
  const total = bytes.length === 0 ? 0 : bytes[bytes.length - 1] === 10 ? line - 1 : line;
  if (from === -1 || start > total) return { lines: [], total, invalid };
  const page = bytes.subarray(from, to === -1 ? bytes.length : to);
  // The BOM is only at the start of the file, and TextDecoder drops it there.
  return { lines: splitLines(new TextDecoder('utf-8', { fatal: false }).decode(page)), total, invalid };
}

/** Decodes file bytes (dropping the BOM); with `fatal`, throws on bytes that are not valid in the encoding. */
export function decode(bytes: Buffer, encoding: TextEncoding, fatal: boolean): string {
  return new TextDecoder(DECODER_LABEL[encoding], { fatal }).decode(bytes);
}

export function encode(text: string, encoding: TextEncoding): Buffer {
  const body = encoding === 'utf16le' || encoding === 'utf16be' ? Buffer.from(text, 'utf16le') : Buffer.from(text, 'utf8');
  if (encoding === 'utf16be') body.swap16();
  return Buffer.concat([Buffer.from(BOM[encoding]), body]);
}

/** "12,345 bytes", "3.4 KB", "12.0 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString('en-US')} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A line as read_file shows it (`cat -n`), cut at MAX_LINE_CHARS. */
export function numberLine(line: string, n: number): string {
  const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} [… ${line.length - MAX_LINE_CHARS} more characters on this line]` : line;
  return `${String(n).padStart(6)}\t${shown}`;
}
