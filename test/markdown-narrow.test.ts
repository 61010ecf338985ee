// At 40 columns a wide Markdown table would wrap its borders into noise: it becomes a list.
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { loadMarkdown } from '../src/ui/markdown.js';

describe('Markdown on a narrow terminal', () => {
  it('turns a table wider than the terminal into one list item per row', async () => {
    const render = await loadMarkdown(40);
    const table = '| option | meaning | default |\n|---|---|---|\n| --output-format | text, json or stream-json | text |\n| --max-rounds | tool rounds per message | 25 |\n';
    const lines = render(table).split('\n');
    expect(lines.filter((l) => stringWidth(l) > 40)).toEqual([]);
    const text = lines.join('\n');
    expect(text).toMatch(/option: --output-format\n\s+meaning: text, json or stream-json\n\s+default: text/);
    expect(text).toMatch(/option: --max-rounds\n\s+meaning: tool rounds per message\n\s+default: 25/);
    // A table that fits stays a table.
    expect(stripVTControlCharacters(render('| a | b |\n|---|---|\n| 1 | 2 |\n'))).toMatch(/│ a\s+│ b\s+│/);
  });

  it('renders inline Markdown inside list items, as in paragraphs', async () => {
    const render = await loadMarkdown(40);
    const out = stripVTControlCharacters(render('- edit `math.ts` with **care**\n- run *tests*\n\n1. first `code`\n'));
    expect(out).not.toMatch(/[`*]{1,2}\w/);
    expect(out).toContain('edit math.ts with care');
    expect(out).toContain('first code');
  });
});
