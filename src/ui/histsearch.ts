// Ctrl+R at the prompt: an incremental search of the input history, newest first, as shells do.
// A pure state machine: each key press gives what to show (the query and the match) or how the
// search ends (the match taken into the line, or the line as it was before). input.ts draws it.

type Key = { name?: string; ctrl?: boolean; meta?: boolean };

export type SearchStep =
  /** `failing`: nothing (older) holds the query; the last match stays. */
  | { kind: 'show'; query: string; match: string | undefined; failing: boolean }
  /** `line` goes into the line; `then`: the key that ended the search is handled as usual. */
  | { kind: 'accept'; line: string; then: boolean }
  | { kind: 'cancel' };

export class HistorySearch {
  private query = '';
  /** Index in `entries` of the match shown. */
  private at = -1;

  /** `entries`: newest first, as shown in the line. */
  constructor(private readonly entries: readonly string[]) {}

  get match(): string | undefined {
    return this.at >= 0 ? this.entries[this.at] : undefined;
  }

  key(s: string | undefined, key: Key | undefined): SearchStep {
    if (key?.ctrl && key.name === 'r') return this.find(this.at + 1);
    if ((key?.ctrl && (key.name === 'g' || key.name === 'c')) || key?.name === 'escape') return { kind: 'cancel' };
    if (key?.name === 'backspace') {
      this.query = [...this.query].slice(0, -1).join('');
      return this.find(0);
    }
    if (key?.name === 'return' || key?.name === 'enter' || key?.name === 'tab') return { kind: 'accept', line: this.match ?? '', then: false };
    if (s && !key?.ctrl && !key?.meta && ![...s].some((c) => c < ' ')) {
      this.query += s;
      return this.find(Math.max(0, this.at));
    }
    // Anything else (an arrow, Ctrl+A): take the match and let the key do its work on it.
    return { kind: 'accept', line: this.match ?? '', then: true };
  }

  /** The first entry from `from` on that holds the query (any case); the match stays when none does. */
  private find(from: number): SearchStep {
    const q = this.query.toLowerCase();
    for (let i = Math.max(0, from); i < this.entries.length; i++) {
      if (this.entries[i]!.toLowerCase().includes(q)) {
        this.at = i;
        return { kind: 'show', query: this.query, match: this.entries[i], failing: false };
      }
    }
    if (from === 0) this.at = -1;
    return { kind: 'show', query: this.query, match: this.match, failing: true };
  }
}
