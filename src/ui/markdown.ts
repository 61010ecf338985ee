// Markdown for a streamed answer: cuts the text into blocks as they complete (a paragraph at its
// blank line, a heading at its line end, a code block at its closing fence) so each is printed
// once and never redrawn, and renders a block for the terminal with marked + marked-terminal,
// loaded on first use (they take a few hundred milliseconds to import).

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(\s|$)/;

/** Collects streamed text and hands out the blocks that are complete. */
export class MarkdownBlocks {
  private partial = '';
  private block: string[] = [];
  private fence: string | null = null;

  /** Adds streamed text; returns the blocks it completed, in order. */
  push(text: string): string[] {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop()!;
    const done: string[] = [];
    for (const line of lines) this.addLine(line, done);
    return done;
  }

  /** Everything not yet handed out, as one block (null when there is nothing). */
  flush(): string | null {
    const rest = [...this.block, ...(this.partial ? [this.partial] : [])].join('\n');
    this.block = [];
    this.partial = '';
    this.fence = null;
    return rest.trim() ? rest : null;
  }

  private addLine(line: string, done: string[]): void {
    const end = () => {
      if (this.block.some((l) => l.trim())) done.push(this.block.join('\n'));
      this.block = [];
    };
    const fence = FENCE.exec(line)?.[1];
    if (this.fence) {
      this.block.push(line);
      const closes = fence && fence[0] === this.fence[0] && fence.length >= this.fence.length && !line.trim().slice(fence.length).trim();
      if (closes) {
        this.fence = null;
        end();
      }
      return;
    }
    if (fence) {
      end();
      this.fence = fence;
      this.block.push(line);
      return;
    }
    if (!line.trim()) return end();
    if (HEADING.test(line)) {
      end();
      this.block.push(line);
      return end();
    }
    this.block.push(line);
  }
}

export type RenderMarkdown = (markdown: string) => string;

let loading: Promise<RenderMarkdown> | undefined;

/** The terminal renderer for Markdown, `columns` wide; imported once, on first use. */
export function loadMarkdown(columns: number): Promise<RenderMarkdown> {
  loading ??= (async () => {
    const [{ Marked }, { markedTerminal }, { default: stringWidth }] = await Promise.all([import('marked'), import('marked-terminal'), import('string-width')]);
    const marked = new Marked(markedTerminal({ width: columns, reflowText: false, showSectionPrefix: false, tab: 2 }));
    // marked-terminal prints a list item's text raw with marked ≥ 13 (its issue #304): render the
    // inline tokens, so `code` and **bold** in lists look as they do in paragraphs.
    marked.use({
      renderer: {
        text(token) {
          return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : token.text;
        },
      },
    });
    const render = (markdown: string) => (marked.parse(markdown, { async: false }) as string).replace(/\s+$/, '');
    return (markdown: string) => {
      const out = render(markdown);
      if (!out.split('\n').some((line) => stringWidth(line) > columns)) return out;
      // A table wider than the terminal would wrap into a mess: its rows become lists instead.
      let narrow = markdown;
      for (const token of marked.lexer(markdown)) if (token.type === 'table') narrow = narrow.replace(token.raw, tableAsList(token as TableToken));
      return narrow === markdown ? out : render(narrow).replace(/ +$/gm, '');
    };
  })();
  return loading;
}

type TableToken = { raw: string; header: { text: string }[]; rows: { text: string }[][] };

/** A table as Markdown list items, one per row: "header: cell" lines. */
function tableAsList(table: TableToken): string {
  // Two spaces before a newline: a hard line break inside the list item.
  const rows = table.rows.map((row) => row.map((cell, i) => `${i === 0 ? '-' : ' '} ${table.header[i]?.text ?? ''}: ${cell.text}`).join('  \n'));
  return rows.join('\n') + '\n\n';
}
