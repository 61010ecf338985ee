// Documents through read_file: real files built here with real libraries (xlsx writes xlsx, ods
// and xls; docx, pptx, odt and odp are zips of real OOXML / ODF parts; a PDF written by hand and
// read by the real pdftotext), extracted, paged, marked as extracted; corrupt and unknown files.
import { spawnSync } from 'node:child_process';
import { zipSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { readContent } from '../src/content/read.js';
import { extractedNote, extractedRefusal, isExtractedFormat } from '../src/content/docs.js';
import { coreTools } from '../src/tools/index.js';
import type { Tool, ToolContext, ToolOutput } from '../src/types/tools.js';
import { workspace } from './tools-helpers.js';

/** The PDF tests read with the real pdftotext (poppler-utils, installed by .ci/run); without it, its message is checked. */
const hasPdftotext = spawnSync('pdftotext', ['-v']).error === undefined;

const core = coreTools().find((t) => t.name === 'read_file')!;
/** read_file as the lead wires it: readContent first, the core read_file for everything else. */
const readFile: Tool = { ...core, run: async (args, ctx) => (await readContent(args, ctx)) ?? core.run(args, ctx) };
const read = (ctx: ToolContext, path: string, more: object = {}): Promise<ToolOutput> => readFile.run({ path, ...more }, ctx);

/** The numbered lines of a result, without the cat -n prefix. */
const body = (out: ToolOutput) => out.output.split('\n').slice(1).map((l) => l.replace(/^ +\d+\t/, ''));

const zip = (files: Record<string, string>) =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, [strToU8(text), { level: name === 'mimetype' ? 0 : 6 }]]))));

// ---------------------------------------------------------------------------------------------
// Fixtures

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const para = (text: string, style?: string, numId?: number, level = 0) =>
  `<w:p><w:pPr>${style ? `<w:pStyle w:val="${style}"/>` : ''}${numId ? `<w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="${numId}"/></w:numPr>` : ''}</w:pPr><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
const cell = (text: string) => `<w:tc><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:tc>`;

function docx(): Buffer {
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
  const style = (id: string, name: string) => `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/></w:style>`;
  const level = (ilvl: number, fmt: string) => `<w:lvl w:ilvl="${ilvl}"><w:numFmt w:val="${fmt}"/><w:lvlText w:val="${fmt === 'bullet' ? '•' : `%${ilvl + 1}.`}"/></w:lvl>`;
  return zip({
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'officeDocument', 'word/document.xml')}</Relationships>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'styles', 'styles.xml')}${rel('rId2', 'numbering', 'numbering.xml')}</Relationships>`,
    'word/styles.xml': `<?xml version="1.0" encoding="UTF-8"?><w:styles ${W}>${style('Heading1', 'heading 1')}${style('Heading2', 'heading 2')}${style('ListParagraph', 'List Paragraph')}</w:styles>`,
    'word/numbering.xml': `<?xml version="1.0" encoding="UTF-8"?><w:numbering ${W}><w:abstractNum w:abstractNumId="0">${level(0, 'bullet')}${level(1, 'bullet')}</w:abstractNum><w:abstractNum w:abstractNumId="1">${level(0, 'decimal')}</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${[
      para('Quarterly report', 'Heading1'),
      para('Revenue grew in 季度 three.'),
      para('Risks', 'Heading2'),
      para('Supply chain', 'ListParagraph', 1),
      para('Ports', 'ListParagraph', 1, 1),
      para('Currency', 'ListParagraph', 1),
      para('First step', 'ListParagraph', 2),
      para('Second step', 'ListParagraph', 2),
      `<w:tbl><w:tr>${cell('Region')}${cell('Sales')}</w:tr><w:tr>${cell('North')}${cell('120')}</w:tr></w:tbl>`,
    ].join('')}</w:body></w:document>`,
  });
}

const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const shape = (...paras: string[]) =>
  `<p:sp><p:txBody><a:bodyPr/>${paras.map((t) => `<a:p>${t.split('|').map((run) => `<a:r><a:rPr lang="en-US"/><a:t>${run}</a:t></a:r>`).join('')}</a:p>`).join('')}</p:txBody></p:sp>`;

function pptx(): Buffer {
  const slide = (...shapes: string[]) => `<?xml version="1.0" encoding="UTF-8"?><p:sld ${P}><p:cSld><p:spTree>${shapes.join('')}</p:spTree></p:cSld></p:sld>`;
  return zip({
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`,
    // The deck was reordered: slide2.xml is shown first.
    'ppt/presentation.xml': `<?xml version="1.0" encoding="UTF-8"?><p:presentation ${P}><p:sldIdLst><p:sldId id="256" r:id="rId3"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide2.xml"/></Relationships>`,
    'ppt/slides/slide1.xml': slide(shape('Roadmap'), shape('Ship v2 &amp; docs', 'Hire two engineers')),
    'ppt/slides/slide2.xml': slide(shape('Welcome to |the kickoff'), shape('飞鱼 agenda')),
  });
}

const ODF_NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"';

function odf(mime: string, body: string, manifestExtra = ''): Buffer {
  return zip({
    mimetype: mime,
    'META-INF/manifest.xml': `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">${manifestExtra}</manifest:file-entry></manifest:manifest>`,
    'content.xml': `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS}><office:body>${body}</office:body></office:document-content>`,
  });
}

const odt = () =>
  odf(
    'application/vnd.oasis.opendocument.text',
    `<office:text>
      <text:h text:outline-level="1">Design notes</text:h>
      <text:p>Plain <text:span>text</text:span> with<text:s text:c="3"/>spaces &amp; entities.</text:p>
      <text:list><text:list-item><text:p>Alpha</text:p>
        <text:list><text:list-item><text:p>Alpha one</text:p></text:list-item></text:list>
      </text:list-item><text:list-item><text:p>Beta</text:p></text:list-item></text:list>
      <text:h text:outline-level="2">Table</text:h>
      <table:table><table:table-row><table:table-cell><text:p>k</text:p></table:table-cell><table:table-cell><text:p>v</text:p></table:table-cell></table:table-row>
      <table:table-row><table:table-cell><text:p>x</text:p></table:table-cell><table:table-cell><text:p>1</text:p></table:table-cell></table:table-row></table:table>
      <text:tracked-changes><text:changed-region><text:deletion><text:p>deleted words</text:p></text:deletion></text:changed-region></text:tracked-changes>
      <text:p>End.</text:p>
    </office:text>`,
  );

const odp = () =>
  odf(
    'application/vnd.oasis.opendocument.presentation',
    `<office:presentation>
      <draw:page draw:name="p1"><draw:frame><draw:text-box><text:p>Opening</text:p></draw:text-box></draw:frame></draw:page>
      <draw:page draw:name="p2"><draw:frame><draw:text-box><text:p>Second slide</text:p><text:p>More</text:p></draw:text-box></draw:frame>
        <presentation:notes><draw:frame><draw:text-box><text:p>speaker notes</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>
    </office:presentation>`,
  );

function workbook(bookType: XLSX.BookType): Buffer {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['name', 'qty'], ['apple', 3], [], ['pear', 5]]), 'Stock');
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['总计', 8]]), '汇总');
  return XLSX.write(book, { type: 'buffer', bookType });
}

/** A valid two-page PDF with a Helvetica text line on each page, cross-reference table included. */
function pdf(pages: string[]): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  pages.forEach((text, i) => {
    const stream = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`);
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  let out = '%PDF-1.4\n';
  const offsets = objects.map((obj, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${obj}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

// ---------------------------------------------------------------------------------------------

describe('documents through read_file', () => {
  it('docx: headings, nested and numbered lists, tables', async () => {
    const ctx = await workspace({ 'report.docx': docx() });
    const out = await read(ctx, 'report.docx');
    expect(out.isError).toBeUndefined();
    expect(out.output.split('\n')[0]).toBe(extractedNote('report.docx'));
    expect(body(out)).toEqual([
      '# Quarterly report',
      '',
      'Revenue grew in 季度 three.',
      '',
      '## Risks',
      '',
      '-   Supply chain',
      '    -   Ports',
      '-   Currency',
      '',
      '1.  First step',
      '2.  Second step',
      '',
      '| Region | Sales |',
      '| --- | --- |',
      '| North | 120 |',
    ]);
    expect(out.summary).toEqual({ key: 'lines', n: 16 });
    expect(ctx.files.size).toBe(0); // not a read record: it cannot be edited anyway
  });

  it('odt: headings, lists, spaces, tables; deleted tracked changes left out', async () => {
    const ctx = await workspace({ 'notes.odt': odt() });
    expect(body(await read(ctx, 'notes.odt'))).toEqual([
      '# Design notes',
      'Plain text with   spaces & entities.',
      '- Alpha',
      '  - Alpha one',
      '- Beta',
      '## Table',
      'k\tv',
      'x\t1',
      '',
      'End.',
    ]);
  });

  it('pptx: slides in presentation order, each headed', async () => {
    const ctx = await workspace({ 'deck.pptx': pptx() });
    expect(body(await read(ctx, 'deck.pptx'))).toEqual([
      '## Slide 1',
      '',
      'Welcome to the kickoff',
      '飞鱼 agenda',
      '',
      '## Slide 2',
      '',
      'Roadmap',
      'Ship v2 & docs',
      'Hire two engineers',
    ]);
  });

  it('odp: slides headed, speaker notes left out', async () => {
    const ctx = await workspace({ 'talk.odp': odp() });
    expect(body(await read(ctx, 'talk.odp'))).toEqual(['## Slide 1', '', 'Opening', '', '## Slide 2', '', 'Second slide', 'More']);
  });

  it.each(['xlsx', 'ods', 'xls'] as const)('%s: every sheet under its name, cells tab-separated', async (ext) => {
    const ctx = await workspace({ [`stock.${ext}`]: workbook(ext === 'xls' ? 'biff8' : ext) });
    const out = await read(ctx, `stock.${ext}`);
    expect(body(out)).toEqual(['## Sheet: Stock', '', 'name\tqty', 'apple\t3', '', 'pear\t5', '', '## Sheet: 汇总', '', '总计\t8']);
    expect(out.output.split('\n')[0]).toContain('openpyxl');
  });

  it.runIf(hasPdftotext)('pdf: text page by page with pdftotext', async () => {
    const ctx = await workspace({ 'spec.pdf': pdf(['Hello from page one', 'Second page (two)']) });
    const out = await read(ctx, 'spec.pdf');
    expect(body(out).map((l) => l.trim())).toEqual(['## Page 1', '', 'Hello from page one', '', '## Page 2', '', 'Second page (two)']);
  });

  it.runIf(!hasPdftotext)('pdf without pdftotext: a clear message naming the package to install', async () => {
    const ctx = await workspace({ 'spec.pdf': pdf(['Hello']) });
    expect(await read(ctx, 'spec.pdf')).toEqual({ output: expect.stringContaining('pdftotext is not installed'), isError: true });
    expect((await read(ctx, 'spec.pdf')).output).toContain('poppler-utils');
  });

  it('pages a big document like a text file', async () => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(Array.from({ length: 2500 }, (_, i) => [i + 1])), 'Big');
    const ctx = await workspace({ 'big.xlsx': XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) });
    const first = await read(ctx, 'big.xlsx');
    const lines = first.output.split('\n');
    expect(lines.length).toBe(1 + 2000 + 1);
    expect(lines.slice(1, 4)).toEqual(['     1\t## Sheet: Big', '     2\t', '     3\t1']);
    expect(lines[2000]).toBe('  2000\t1998');
    expect(lines.at(-1)).toBe('[lines 1–2000 of 2502; call read_file with offset 2001 to continue]');
    expect(first.summary).toEqual({ key: 'lines', n: 2000 });
    const rest = await read(ctx, 'big.xlsx', { offset: 2501 });
    expect(rest.output.split('\n').slice(1)).toEqual(['  2501\t2499', '  2502\t2500']);
    const some = await read(ctx, 'big.xlsx', { offset: 10, limit: 2 });
    expect(some.output.split('\n').slice(1)).toEqual(['    10\t8', '    11\t9', '[lines 10–11 of 2502; call read_file with offset 12 to continue]']);
    expect(await read(ctx, 'big.xlsx', { offset: 3000 })).toEqual({ output: 'the text extracted from big.xlsx has 2502 lines; offset 3000 is past the end', isError: true });
  });

  it('refuses corrupt, misnamed and password-protected documents clearly', async () => {
    const encryptedOdt = odf('application/vnd.oasis.opendocument.text', '<office:text/>', '<manifest:encryption-data manifest:checksum-type="SHA1"/>');
    const ctx = await workspace({
      'broken.docx': Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(200, 7)]),
      'fake.pdf': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]),
      'cut.pdf': pdf(['Hello']).subarray(0, 60),
      'locked.xlsx': Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]),
      'locked.odt': encryptedOdt,
      'empty.pptx': zip({ 'ppt/presentation.xml': '<p:presentation/>' }),
    });
    const outputs = Object.fromEntries(
      await Promise.all(['broken.docx', 'fake.pdf', 'cut.pdf', 'locked.xlsx', 'locked.odt', 'empty.pptx'].map(async (p) => [p, await read(ctx, p)] as const)),
    );
    expect(outputs['broken.docx']).toEqual({ output: expect.stringMatching(/^broken\.docx \(204 bytes\): it cannot be read as a Word document: .+; the file may be corrupt$/), isError: true });
    expect(outputs['fake.pdf']).toEqual({
      output: 'fake.pdf (8 bytes): it is not a valid PDF document (its first bytes are not those of the format); the file may be corrupt or misnamed',
      isError: true,
    });
    if (hasPdftotext) expect(outputs['cut.pdf']).toEqual({ output: expect.stringMatching(/^cut\.pdf \(60 bytes\): pdftotext failed: .+/), isError: true });
    expect(outputs['locked.xlsx']).toEqual({ output: expect.stringContaining('locked.xlsx (512 bytes): it is password-protected (an encrypted Excel workbook)'), isError: true });
    expect(outputs['locked.odt']).toEqual({ output: 'locked.odt (' + encryptedOdt.length + ' bytes): it is password-protected; feiyu cannot open it. Ask the user for an unprotected copy.', isError: true });
    expect(outputs['empty.pptx']).toEqual({ output: `${extractedNote('empty.pptx')}\n(the document holds no text)`, summary: { key: 'lines', n: 0 } });
  });

  it('leaves unknown binaries, text under a document name and other files to the core read_file', async () => {
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(3000)]);
    const ctx = await workspace({ 'tool.bin': elf, 'notes.docx': 'just text, misnamed\n', 'a.csv': 'x,y\n1,2\n' });
    expect(await readContent({ path: 'tool.bin' }, ctx)).toBeNull();
    expect(await read(ctx, 'tool.bin')).toEqual({ output: expect.stringMatching(/^tool\.bin is an? ELF executable/), isError: true });
    expect(await readContent({ path: 'notes.docx' }, ctx)).toBeNull();
    expect((await read(ctx, 'notes.docx')).output).toContain('just text, misnamed');
    expect(await readContent({ path: 'a.csv' }, ctx)).toBeNull();
    expect(await readContent({ path: 'missing.pdf' }, ctx)).toBeNull();
  });

  it('names the formats edit_file and write_file must refuse', () => {
    expect(['a.docx', 'B.XLSX', 'c.pdf', 'd/e.odp', 'f.xls', 'g.ods', 'h.odt', 'i.pptx'].map(isExtractedFormat)).toEqual(Array(8).fill(true));
    expect(['a.txt', 'b.csv', 'c.md', 'docx', 'e.doc', 'f.png'].map(isExtractedFormat)).toEqual(Array(6).fill(false));
    expect([extractedNote('x.ts'), extractedRefusal('x.ts')]).toEqual([null, null]);
    expect(extractedRefusal('/w/data.XLSX', 'data.XLSX')).toBe(
      'data.XLSX is a .xlsx file (Excel workbook): read_file shows its extracted text, but edit_file and write_file cannot change it. To create or change one, write a script using a library for the format (e.g. openpyxl) and run it with bash.',
    );
    expect(extractedNote('/w/r.docx', 'r.docx')).toBe(
      '[text extracted from r.docx; edit_file and write_file cannot change a .docx file — to produce one, write a script (e.g. python-docx) and run it]',
    );
  });
});
