// The REPL's input history, kept across sessions in <state>/history (0600, folder 0700): one JSON
// string a line, so multi-line messages survive; capped, oldest dropped. A history file that
// cannot be read or written only costs the history, never the session.

import { appendFileSync, chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const HISTORY_CAP = 1000;

export class History {
  /** Oldest first. */
  readonly entries: string[];
  private lines: number;
  private broken = false;

  constructor(
    private readonly file: string | undefined,
    private readonly cap = HISTORY_CAP,
  ) {
    this.entries = file ? read(file) : [];
    this.lines = this.entries.length;
    this.entries.splice(0, Math.max(0, this.entries.length - cap));
  }

  /** Adds an entry (not a repeat of the last one) and saves it. */
  add(entry: string): void {
    if (!entry.trim() || this.entries.at(-1) === entry) return;
    this.entries.push(entry);
    if (this.entries.length > this.cap) this.entries.shift();
    if (!this.file || this.broken) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      // Appending is cheap; the file is rewritten to the cap once it holds half as much again.
      if (++this.lines > this.cap * 1.5) this.rewrite();
      else appendFileSync(this.file, JSON.stringify(entry) + '\n', { mode: 0o600 });
      chmodSync(this.file, 0o600);
    } catch {
      this.broken = true;
    }
  }

  private rewrite(): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, this.entries.map((e) => JSON.stringify(e) + '\n').join(''), { mode: 0o600 });
    renameSync(temp, this.file!);
    this.lines = this.entries.length;
  }
}

function read(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    try {
      const entry: unknown = JSON.parse(line);
      return typeof entry === 'string' ? [entry] : [];
    } catch {
      return [];
    }
  });
}
