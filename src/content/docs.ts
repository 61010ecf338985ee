// Office documents and PDFs as text: Word, OpenDocument, spreadsheets, slide decks, PDFs, and
// the HTML → Markdown conversion web_fetch shares. Owns format knowledge only: it reads no
// files but the PDF it hands to pdftotext, and words no results beyond its own errors.
// Contract: extractText throws an Error whose message is fit for the model; nothing else throws.

import { execFile } from 'node:child_process';
import { extname } from 'node:path';

export type DocKind = 'docx' | 'odt' | 'sheet' | 'pptx' | 'odp' | 'pdf';

type DocFormat = { kind: DocKind; name: string; container: 'zip' | 'cfb' | 'pdf'; writer: string };

const FORMATS: Record<string, DocFormat> = {
  '.docx': { kind: 'docx', name: 'Word document', container: 'zip', writer: 'python-docx' },
  '.odt': { kind: 'odt', name: 'OpenDocument text', container: 'zip', writer: 'odfpy' },
  '.xlsx': { kind: 'sheet', name: 'Excel workbook', container: 'zip', writer: 'openpyxl' },
  '.xls': { kind: 'sheet', name: 'Excel 97–2003 workbook', container: 'cfb', writer: 'openpyxl (saving .xlsx)' },
  '.ods': { kind: 'sheet', name: 'OpenDocument spreadsheet', container: 'zip', writer: 'odfpy, or openpyxl for .xlsx' },
  '.pptx': { kind: 'pptx', name: 'PowerPoint presentation', container: 'zip', writer: 'python-pptx' },
  '.odp': { kind: 'odp', name: 'OpenDocument presentation', container: 'zip', writer: 'odfpy' },
  '.pdf': { kind: 'pdf', name: 'PDF document', container: 'pdf', writer: 'reportlab' },
};

export function docFormat(path: string): DocFormat | undefined {
  return FORMATS[extname(path).toLowerCase()];
}

/** True for files read_file shows as extracted text: edit_file and write_file must not change them. */
export function isExtractedFormat(path: string): boolean {
  return docFormat(path) !== undefined;
}

/** The first line of a document's extracted text, or null for a path that is not a document. */
export function extractedNote(path: string, shown = path): string | null {
  const format = docFormat(path);
  if (!format) return null;
  const ext = extname(path).toLowerCase();
  return `[text extracted from ${shown}; edit_file and write_file cannot change a ${ext} file — to produce one, write a script (e.g. ${format.writer}) and run it]`;
}

/** Why edit_file and write_file refuse `path` (a document read as extracted text), or null. */
export function extractedRefusal(path: string, shown = path): string | null {
  const format = docFormat(path);
  if (!format) return null;
  const ext = extname(path).toLowerCase();
  return `${shown} is a ${ext} file (${format.name}): read_file shows its extracted text, but edit_file and write_file cannot change it. To create or change one, write a script using a library for the format (e.g. ${format.writer}) and run it with bash.`;
}

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');

/** The text of a document, with headings, lists, sheets, slides or pages marked in Markdown. */
export async function extractText(path: string, bytes: Buffer, signal?: AbortSignal): Promise<string> {
  const format = docFormat(path);
  if (!format) throw new Error('not a document format feiyu extracts');
  const { name, container } = format;
  // An encrypted Office file is not a ZIP but an OLE compound file holding the encrypted package.
  if (container === 'zip' && bytes.subarray(0, 8).equals(CFB_MAGIC)) {
    throw new Error(`it is password-protected (an encrypted ${name}), or an older binary format under a new extension; feiyu cannot open it. Ask the user for an unprotected copy.`);
  }
  const magic = { zip: ZIP_MAGIC, cfb: CFB_MAGIC, pdf: Buffer.from('%PDF-') }[container];
  // A PDF may have a few bytes of junk before its header; readers accept it within 1 KB.
  const found = container === 'pdf' ? bytes.subarray(0, 1024).includes(magic) : bytes.subarray(0, magic.length).equals(magic);
  if (!found) throw new Error(`it is not a valid ${name} (its first bytes are not those of the format); the file may be corrupt or misnamed`);
  try {
    return tidy(await EXTRACTORS[format.kind](bytes, path, signal));
  } catch (err) {
    const msg = (err as Error).message;
    if (/password|encrypt/i.test(msg)) throw new Error(`it is password-protected; feiyu cannot open it. Ask the user for an unprotected copy.`);
    if (msg.startsWith('pdftotext')) throw err;
    throw new Error(`it cannot be read as a ${name}: ${msg}; the file may be corrupt`);
  }
}

const EXTRACTORS: Record<DocKind, (bytes: Buffer, path: string, signal?: AbortSignal) => Promise<string>> = {
  async docx(bytes) {
    const { default: mammoth } = await import('mammoth');
    // Embedded pictures would become megabytes of base64 in the text; their alt text is enough.
    const convertImage = mammoth.images.imgElement(async () => ({ src: '' }));
    const { value } = await mammoth.convertToHtml({ buffer: bytes }, { convertImage, externalFileAccess: false });
    return htmlToMarkdown(value);
  },
  async odt(bytes) {
    return odfText(await unzipText(bytes, 'content.xml'));
  },
  odp: (bytes) => EXTRACTORS.odt(bytes, ''),
  async sheet(bytes) {
    const XLSX = await import('xlsx');
    const book = XLSX.read(bytes, { type: 'buffer', cellDates: true });
    return book.SheetNames.map((sheetName) => {
      const rows = XLSX.utils.sheet_to_csv(book.Sheets[sheetName]!, { FS: '\t', strip: true });
      return `## Sheet: ${sheetName}\n\n${rows.trim() === '' ? '(empty)' : rows}`;
    }).join('\n\n');
  },
  async pptx(bytes) {
    const files = await unzip(bytes, (name) => name.startsWith('ppt/slides/slide') || name === 'ppt/presentation.xml' || name === 'ppt/_rels/presentation.xml.rels');
    return slideOrder(files).map((name, i) => `## Slide ${i + 1}\n\n${slideText(files[name]!)}`).join('\n\n');
  },
  pdf: (bytes, _path, signal) => pdfText(bytes, signal),
};

/** Trims line ends and collapses runs of blank lines, so paging counts lines that say something. */
function tidy(text: string): string {
  return text.split('\n').map((l) => l.trimEnd()).join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

// ---------------------------------------------------------------------------------------------
// ZIP containers

async function unzip(bytes: Buffer, want: (name: string) => boolean): Promise<Record<string, string>> {
  const { unzipSync, strFromU8 } = await import('fflate');
  const files = unzipSync(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), { filter: (f) => want(f.name) });
  return Object.fromEntries(Object.entries(files).map(([name, data]) => [name, strFromU8(data)]));
}

async function unzipText(bytes: Buffer, name: string): Promise<string> {
  const files = await unzip(bytes, (n) => n === name || n === 'META-INF/manifest.xml');
  // ODF encrypts each part and says so in the manifest; the part itself is then unreadable bytes.
  if (files['META-INF/manifest.xml']?.includes('encryption-data')) throw new Error('the document is encrypted');
  const text = files[name];
  if (text === undefined) throw new Error(`${name} is missing from the archive`);
  return text;
}

/** Slide part names in presentation order (presentation.xml's list), else by their numbers. */
function slideOrder(files: Record<string, string>): string[] {
  const rels = new Map<string, string>();
  for (const m of (files['ppt/_rels/presentation.xml.rels'] ?? '').matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]+)"/.exec(m[0])?.[1];
    const target = /\bTarget="([^"]+)"/.exec(m[0])?.[1];
    if (id && target) rels.set(id, 'ppt/' + target.replace(/^\/?ppt\//, '').replace(/^\//, ''));
  }
  const ordered = [...(files['ppt/presentation.xml'] ?? '').matchAll(/<p:sldId\b[^>]*\br:id="([^"]+)"/g)]
    .map((m) => rels.get(m[1]!))
    .filter((name): name is string => name !== undefined && name in files);
  if (ordered.length) return ordered;
  const num = (n: string) => Number(/(\d+)\.xml$/.exec(n)?.[1] ?? 0);
  return Object.keys(files).filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n)).sort((a, b) => num(a) - num(b));
}

// ---------------------------------------------------------------------------------------------
// XML text, without a parser: the parts we read are machine-written and flat enough for a tokenizer.

type Token = { tag: string; close: boolean; empty: boolean; attrs: string } | { text: string };

function* xmlTokens(xml: string): Generator<Token> {
  const re = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<[?!][^>]*>|<(\/?)([\w:.-]+)([^>]*?)(\/?)>|([^<]+)/g;
  for (const m of xml.matchAll(re)) {
    if (m[1] !== undefined) yield { text: m[1] };
    else if (m[3] !== undefined) yield { tag: m[3], close: m[2] === '/', empty: m[5] === '/', attrs: m[4] ?? '' };
    else if (m[6] !== undefined) yield { text: decodeEntities(m[6]) };
  }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] !== '#') return ENTITIES[e] ?? all;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];

/** Parts of an ODF body that are not the document's current text. */
const ODF_SKIP = new Set(['text:tracked-changes', 'office:annotation', 'presentation:notes', 'text:note-citation']);

/** ODF content.xml → Markdown-ish text: headings by outline level, nested lists, tables as tab-separated rows, slides. */
function odfText(xml: string): string {
  const lines: string[] = [];
  let para: string | null = null;
  let prefix = '';
  let cells: string[] | null = null;
  let listDepth = 0;
  let bullet = false;
  let skip = 0;
  let slides = 0;
  const endPara = () => {
    if (para === null) return;
    const text = para.trim();
    if (cells) cells[cells.length - 1] += (cells[cells.length - 1] ? ' ' : '') + text;
    else lines.push(prefix + text);
    para = null;
  };
  for (const t of xmlTokens(xml)) {
    if ('text' in t) {
      if (para !== null && !skip) para += t.text.replace(/\s+/g, ' ');
      continue;
    }
    if (ODF_SKIP.has(t.tag)) {
      if (!t.empty) skip += t.close ? -1 : 1;
      continue;
    }
    if (skip) continue;
    if (t.close) {
      if (t.tag === 'text:p' || t.tag === 'text:h') endPara();
      else if (t.tag === 'text:list') listDepth--;
      else if (t.tag === 'table:table') lines.push('');
      else if (t.tag === 'table:table-row' && cells) {
        lines.push(cells.join('\t').trimEnd());
        cells = null;
      }
      continue;
    }
    switch (t.tag) {
      case 'text:p':
      case 'text:h': {
        endPara();
        const level = t.tag === 'text:h' ? Number(attr(t.attrs, 'text:outline-level') ?? 1) : 0;
        prefix = level ? `${'#'.repeat(Math.min(6, level))} ` : bullet ? `${'  '.repeat(listDepth - 1)}- ` : '';
        para = '';
        bullet = false;
        if (t.empty) endPara();
        break;
      }
      case 'text:list':
        if (!t.empty) listDepth++;
        break;
      case 'text:list-item':
        bullet = true;
        break;
      case 'text:s':
        if (para !== null) para += ' '.repeat(Number(attr(t.attrs, 'text:c') ?? 1));
        break;
      case 'text:tab':
        if (para !== null) para += '\t';
        break;
      case 'text:line-break':
        if (para !== null) para += '\n';
        break;
      case 'table:table-row':
        cells = [];
        break;
      case 'table:table-cell':
      case 'table:covered-table-cell':
        cells?.push('');
        break;
      case 'draw:page':
        lines.push('', `## Slide ${++slides}`, '');
        break;
    }
  }
  return lines.join('\n');
}

/** A DrawingML slide → its paragraphs, one a line (text lives only in a:t runs). */
function slideText(xml: string): string {
  const lines: string[] = [];
  let para = '';
  let inRun = false;
  for (const t of xmlTokens(xml)) {
    if ('text' in t) {
      if (inRun) para += t.text;
    } else if (t.tag === 'a:t') inRun = !t.close && !t.empty;
    else if (t.tag === 'a:br') para += '\n';
    else if (t.tag === 'a:p' && (t.close || t.empty)) {
      if (para.trim()) lines.push(para.trim());
      para = '';
    }
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// PDF

const PDF_TIMEOUT_MS = 60_000;

/** The bytes already read (race-free) go in on stdin: pdftotext never opens a path that could have changed since. */
function pdfText(bytes: Buffer, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const args = ['-layout', '-enc', 'UTF-8', 'fd://0', '-'];
    const child = execFile('pdftotext', args, { maxBuffer: 64 * 1024 * 1024, timeout: PDF_TIMEOUT_MS, signal }, (err, stdout, stderr) => {
      if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
        return reject(new Error('pdftotext is not installed, so PDFs cannot be read. Tell the user to install poppler: `sudo apt install poppler-utils` (Debian/Ubuntu) or `brew install poppler` (macOS).'));
      }
      if (err) return reject(new Error(`pdftotext failed: ${String(stderr).trim().split('\n')[0] || err.message}`));
      // pdftotext ends every page with a form feed.
      const pages = stdout.split('\f');
      if (pages.at(-1)?.trim() === '') pages.pop();
      if (pages.every((p) => p.trim() === '')) {
        return resolve(`[no text found in ${pages.length} page(s): the PDF holds only images (a scan?); feiyu does not read text from images of pages]`);
      }
      resolve(pages.map((p, i) => `## Page ${i + 1}\n\n${p}`).join('\n\n'));
    });
    child.stdin?.on('error', () => {}); // pdftotext may exit before reading it all
    child.stdin?.end(bytes);
  });
}

// ---------------------------------------------------------------------------------------------
// HTML → Markdown

let turndown: Promise<{ turndown(html: string): string }> | undefined;

/** Markdown with headings, links, lists, code blocks and tables kept; scripts, styles and navigation dropped. */
export async function htmlToMarkdown(html: string): Promise<string> {
  turndown ??= makeTurndown();
  return (await turndown).turndown(html);
}

async function makeTurndown() {
  const { default: TurndownService } = await import('turndown');
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  td.remove(['script', 'style', 'nav', 'header', 'footer', 'aside', 'noscript', 'svg', 'form', 'iframe', 'template', 'title', 'button']);
  td.addRule('image', {
    filter: 'img',
    // Data URLs are pictures as text: megabytes the model cannot use.
    replacement: (_c, node) => {
      const alt = (node.getAttribute('alt') ?? '').trim();
      const src = node.getAttribute('src') ?? '';
      if (!src || src.startsWith('data:')) return alt ? `[image: ${alt}]` : '';
      return `![${alt}](${src})`;
    },
  });
  td.addRule('tableCell', {
    filter: ['th', 'td'],
    // Turndown escapes what would start a block ("-p" → "\-p"); inside a row nothing does.
    replacement: (c) => `| ${c.replace(/\s*\n+\s*/g, ' ').trim().replace(/^\\([-+#>=~])/, '$1').replace(/^(\d+)\\\./, '$1.').replace(/\|/g, '\\|')} `,
  });
  td.addRule('tableRow', {
    filter: 'tr',
    replacement: (c, node) => {
      let table = node.parentNode as (typeof node & { querySelector(s: string): unknown }) | null;
      while (table && table.nodeName !== 'TABLE') table = table.parentNode as typeof table;
      const header = table?.querySelector('tr') === node;
      const n = Array.from(node.childNodes as ArrayLike<{ nodeName: string }>).filter((x) => x.nodeName === 'TD' || x.nodeName === 'TH').length;
      return `${c}|\n${header ? `|${' --- |'.repeat(n)}\n` : ''}`;
    },
  });
  td.addRule('table', { filter: 'table', replacement: (c) => `\n\n${c.replace(/\n+/g, '\n').trim()}\n\n` });
  return td;
}
