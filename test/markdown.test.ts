// Markdown for the terminal as an answer streams: the same rows whatever the chunks, finished
// rows of a long paragraph printed before its end, nothing printed twice or lost, word wrap at the
// width (CJK between characters, other text between words), structure kept without colour.
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { MarkdownStream, renderMarkdown } from '../src/ui/markdown.js';
import { loadWidth } from '../src/ui/width.js';

beforeAll(() => loadWidth());

const plain = (_code: string, text: string) => text;
const ansi = (code: string, text: string) => `\x1b[${code}m${text}\x1b[0m`;
const opts = (columns: number, colour = false) => ({ paint: colour ? ansi : plain, colour, columns: () => columns });

/** The rows printed for `text` streamed in chunks of `size`. */
function streamed(text: string, size: number, columns = 40, colour = false): string[] {
  const md = new MarkdownStream(opts(columns, colour));
  const rows: string[] = [];
  for (let i = 0; i < text.length; i += size) rows.push(...md.push(text.slice(i, i + size)).rows);
  return [...rows, ...md.end()];
}

const ANSWER = [
  '# Results',
  '',
  'This is **important** and `npm test` matters, with a [link](https://example.com/a) in a paragraph long enough to wrap *several* times.',
  '',
  '- first item with **bold text that spans** a row boundary somewhere here',
  '  - nested item',
  '1. one',
  '- [x] done task',
  '',
  '```js',
  'const answer = 42;',
  '```',
  '',
  '| name | value |',
  '|:--|--:|',
  '| x | 1 |',
  '| longer | 22 |',
  '',
  '> quoted words',
  '',
  '---',
  '中文段落：这是一个很长的中文句子，用来检验换行是否正确处理了中日韩文字的宽度，标点不在行首。',
  'last line',
].join('\n');

describe('MarkdownStream', () => {
  it('prints the same rows whatever the chunks, each once', () => {
    const whole = renderMarkdown(ANSWER, opts(40));
    for (const size of [1, 2, 5, 13, ANSWER.length]) expect(streamed(ANSWER, size)).toEqual(whole);
    for (const size of [1, 7]) expect(streamed(ANSWER, size, 40, true)).toEqual(renderMarkdown(ANSWER, opts(40, true)));
  });

  it('renders structure without colour: headings, bullets, tasks, code under its language, tables aligned, quotes, rules', () => {
    expect(renderMarkdown(ANSWER, opts(40))).toEqual([
      'Results',
      '═══════',
      '',
      'This is important and `npm test`',
      'matters, with a link',
      '(https://example.com/a) in a paragraph',
      'long enough to wrap several times.',
      '',
      '• first item with bold text that spans',
      '  a row boundary somewhere here',
      '  ◦ nested item',
      '1. one',
      '☑ done task',
      '',
      '  js ─────────────────────────────────',
      '    const answer = 42;',
      '',
      '┌────────┬───────┐',
      '│ name   │ value │',
      '├────────┼───────┤',
      '│ x      │     1 │',
      '│ longer │    22 │',
      '└────────┴───────┘',
      '',
      '│ quoted words',
      '',
      '───────────────────────────────────────',
      '中文段落：这是一个很长的中文句子，用来',
      '检验换行是否正确处理了中日韩文字的宽',
      '度，标点不在行首。',
      'last line',
    ]);
  });

  it('wraps at the width, never inside a word, and keeps closing punctuation with what it closes', () => {
    const rows = renderMarkdown('alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu\n\n一二三四五六七八九十一二三四五六七八九，十\n', opts(20));
    expect(rows.every((r) => stringWidth(r) <= 19)).toBe(true);
    expect(rows).toEqual(['alpha beta gamma', 'delta epsilon zeta', 'eta theta iota', 'kappa lambda mu', '', '一二三四五六七八九', '十一二三四五六七八', '九，十']);
  });

  it('prints the finished rows of a long paragraph before it ends, and shows the rest live', () => {
    const md = new MarkdownStream(opts(30));
    const words = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen ';
    const first = md.push(words);
    expect(first.rows).toEqual(['one two three four five six', 'seven eight nine ten eleven']);
    expect(first.live).toBe('twelve thirteen fourteen');
    // "fifteen" did not fit after "fourteen": however long it grows, that row is done.
    expect(md.push('fifteen')).toEqual({ rows: ['twelve thirteen fourteen'], live: 'fifteen' });
    expect(md.push(' sixteen seventeen\n')).toEqual({ rows: ['fifteen sixteen seventeen'], live: '' });
  });

  it('holds rows back while a mark is open, so no half-styled row is printed', () => {
    const md = new MarkdownStream(opts(20, true));
    const pushed = md.push('start **bold words that run on and on past the row');
    expect(pushed.rows).toEqual([]);
    expect(stripVTControlCharacters(pushed.live)).toBe('past the row');
    const closed = md.push(' end** after it and more words follow');
    expect(closed.rows.map(stripVTControlCharacters)).toEqual(['start bold words', 'that run on and on', 'past the row end', 'after it and more']);
    expect(closed.rows[0]).toBe('start \x1b[1mbold words\x1b[0m');
  });

  it('a code block is shown as it streams, line by line, and its partial line live', () => {
    const md = new MarkdownStream(opts(40));
    expect(md.push('```py\nprint(1)\nprint(')).toEqual({ rows: ['  py ─────────────────────────────────', '    print(1)'], live: '    print(' });
    expect(md.push('2)\n```')).toEqual({ rows: ['    print(2)'], live: '    ```' });
    expect(md.end()).toEqual([]);
  });

  it('a table too wide for the screen becomes a list, inline marks rendered', () => {
    const table = '| option | meaning | default |\n|---|---|---|\n| --output-format | text, json or stream-json | `text` |\n| --max-rounds | tool rounds per message | 25 |\n';
    const rows = renderMarkdown(table, opts(40));
    expect(rows.filter((l) => stringWidth(l) > 40)).toEqual([]);
    expect(rows.join('\n')).toMatch(/• option: --output-format\n\s+meaning: text, json or stream-json\n\s+default: `text`/);
  });

  it('without a closer a mark is literal; inside a word _ is not a mark', () => {
    expect(renderMarkdown('a **b and snake_case_name and 2 * 3', opts(80))).toEqual(['a **b and snake_case_name and 2 * 3']);
    expect(renderMarkdown('use `a | b` here', opts(80))).toEqual(['use `a | b` here']);
  });
});
