// The live area: the last few lines of the screen that change in place while a turn runs — the
// tail of a running command's output, the unfinished line of an answer, the waiting line. Drawn
// below everything printed and erased before anything else is printed, so scrollback never keeps
// it. Several lines need the cursor moved up over them; where that cannot be relied on (a dumb
// terminal) only the last line is drawn, erased with \r and spaces.

import { truncate, width } from './width.js';

type Out = { write(text: string): unknown };

export class LiveArea {
  /** The lines on the screen now, as drawn. */
  private drawn: string[] = [];

  constructor(
    private readonly out: Out,
    private readonly columns: () => number,
    /** The terminal understands cursor movement (not TERM=dumb). */
    private readonly ansi: boolean,
  ) {}

  get shown(): boolean {
    return this.drawn.length > 0;
  }

  /** Shows `lines` (each cut to fit one row), replacing what is shown. */
  draw(lines: string[]): void {
    const max = Math.max(10, this.columns() - 1);
    const next = (this.ansi ? lines : lines.slice(-1)).map((l) => (width(l) > max ? truncate(l, max) : l));
    const same = next.length === this.drawn.length && next.every((l, i) => i === next.length - 1 || l === this.drawn[i]);
    if (same && next.length) {
      // Only the last line changed (the spinner ticking): rewrite it alone.
      const last = next.at(-1)!;
      if (last !== this.drawn.at(-1)) this.out.write('\r' + last + this.eraseRest(width(last), width(this.drawn.at(-1)!)));
      this.drawn = next;
      return;
    }
    this.clear();
    if (!next.length) return;
    this.out.write(next.join('\n'));
    this.drawn = next;
  }

  /** Erases what is shown, leaving the cursor at the start of its first line. */
  clear(): void {
    if (!this.drawn.length) return;
    if (!this.ansi) this.out.write('\r' + ' '.repeat(width(this.drawn.at(-1)!)) + '\r');
    else this.out.write('\r\x1b[K' + '\x1b[1A\x1b[K'.repeat(this.drawn.length - 1));
    this.drawn = [];
  }

  private eraseRest(now: number, before: number): string {
    if (this.ansi) return '\x1b[K';
    return ' '.repeat(Math.max(0, before - now));
  }
}
