// read_file's pages cut from the bytes against the plain way (decode the whole file, split it,
// take the slice): every page of files with CRLF, a BOM, invalid bytes, no final newline, empty
// lines, non-ASCII text and UTF-16 (whose bytes may hold 0x0A inside a character) is the same.
import { describe, expect, it } from 'vitest';
import { decode, encode, sniffType, splitLines, textPage, type TextEncoding } from '../src/content/filetype.js';

/** The page the plain way: decode everything, split everything, slice. */
function reference(bytes: Buffer, encoding: TextEncoding, start: number, limit: number) {
  const all = splitLines(decode(bytes, encoding, false));
  return { lines: all.slice(start - 1, start - 1 + limit), total: all.length, invalid: !decodes(bytes, encoding) };
}

function decodes(bytes: Buffer, encoding: TextEncoding): boolean {
  try {
    return typeof decode(bytes, encoding, true) === 'string';
  } catch {
    return false;
  }
}

const texts: [string, Buffer][] = [
  ['LF with a final newline', Buffer.from('one\ntwo\n\nfour\n')],
  ['no final newline', Buffer.from('one\ntwo\nthree')],
  ['CRLF', Buffer.from('a\r\nb\r\n\r\nd\r\n')],
  ['one empty line', Buffer.from('\n')],
  ['blank lines only', Buffer.from('\n\n\n')],
  ['a BOM', encode('第一行\n第二行\nthird\n', 'utf8-bom')],
  ['Chinese and emoji', Buffer.from('你好\n世界 🌍\n\n末行')],
  ['invalid bytes', Buffer.concat([Buffer.from('good\nbad '), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('\nafter\n')])],
  ['UTF-16LE with U+0A0A', encode('ਊ line\nsecond ĊĊ\nthird\n', 'utf16le')],
  ['UTF-16BE', encode('x\ny\r\nz', 'utf16be')],
];

describe('textPage', () => {
  it.each(texts)('gives every page of a file with %s as the whole decode does', (_name, bytes) => {
    const sniffed = sniffType(bytes);
    const encoding: TextEncoding = sniffed.kind === 'text' ? sniffed.encoding : 'utf8';
    const total = reference(bytes, encoding, 1, 1).total;
    for (let start = 1; start <= total + 2; start++) {
      for (const limit of [1, 2, 3, 2000]) {
        const page = textPage(bytes, encoding, start, limit);
        const expected = reference(bytes, encoding, start, limit);
        if (start > total) expect({ total: page.total, invalid: page.invalid }).toEqual({ total: expected.total, invalid: expected.invalid });
        else expect(page).toEqual(expected);
      }
    }
  });

  it('pages the start and the end of a big file and counts all its lines', () => {
    const bytes = Buffer.from(Array.from({ length: 50_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    expect(textPage(bytes, 'utf8', 49_999, 10)).toEqual({ lines: ['line 49999', 'line 50000'], total: 50_000, invalid: false });
    expect(textPage(bytes, 'utf8', 1, 2)).toEqual({ lines: ['line 1', 'line 2'], total: 50_000, invalid: false });
  });
});
