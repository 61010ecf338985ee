// Large pastes: a bracketed paste of many lines (a log, a file) is shown at the prompt, and kept in
// the history, as one placeholder — [pasted 4,400 lines] — and sent whole. The placeholders of
// this session are remembered here; one recalled in a later session is only its words.

import { t } from '../i18n/index.js';

/** A paste of at least this many lines, or characters, is collapsed. */
export const COLLAPSE_LINES = 12;
export const COLLAPSE_CHARS = 2000;

export class Pastes {
  private readonly held = new Map<string, string>();

  /** The placeholder standing for `text`, or null when it is small enough to show as it is. */
  collapse(text: string): string | null {
    const lines = text.replace(/\n$/, '').split('\n').length;
    if (lines < COLLAPSE_LINES && text.length < COLLAPSE_CHARS) return null;
    const n = (lines > 1 ? lines : text.length).toLocaleString('en-US');
    const base = t(lines > 1 ? 'paste.lines' : 'paste.chars', { n });
    // Two pastes of one size stay apart.
    let placeholder = base;
    for (let k = 2; this.held.has(placeholder) && this.held.get(placeholder) !== text; k++) placeholder = `${base.slice(0, -1)} #${k}]`;
    this.held.set(placeholder, text);
    return placeholder;
  }

  /** `message` with every placeholder of this session replaced by what was pasted. */
  expand(message: string): string {
    let out = message;
    for (const [placeholder, text] of this.held) out = out.split(placeholder).join(text);
    return out;
  }
}

type Key = { name?: string; sequence?: string };

/** The text a run of pasted key presses typed. */
export function pastedText(keys: [string | undefined, Key | undefined][]): string {
  return keys.map(([s, key]) => (key?.name === 'return' || key?.name === 'enter' ? '\n' : key?.name === 'tab' ? '\t' : (s ?? ''))).join('');
}
