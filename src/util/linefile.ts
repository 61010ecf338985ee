// Append-only line files that survive a full disk and other write failures (sessions, the trace):
// a failed append is kept and written again with the next one, a torn last line is ended (or cut
// back, for a file only this process writes) before anything follows it, and a failure spell is
// reported once, its end once. Never throws.

import { appendFileSync, closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export type LineFileOptions = {
  /** Only this process writes the file (it holds its lock): a torn tail is cut back rather than ended. */
  exclusive?: boolean;
  /** Lines kept for the retry; past this the oldest are given up (the trace), 0 = no limit (a session). */
  maxPending?: number;
  onError?: (error: Error) => void;
  onRecovered?: () => void;
};

export class LineFile {
  private pending: string[] = [];
  private failing = false;
  /** The file's size after the last whole write (exclusive files), to cut a torn tail back to. */
  private goodSize: number | undefined;
  private tailChecked = false;
  /** Lines given up because maxPending was passed during a failure. */
  lost = 0;

  constructor(
    readonly file: string,
    private readonly o: LineFileOptions = {},
  ) {}

  get failed(): boolean {
    return this.failing;
  }

  /** Appends `lines` (each without its newline), after whatever earlier appends failed. True when all is on disk. */
  append(lines: string[]): boolean {
    this.pending.push(...lines);
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      if (!this.tailChecked || this.failing) this.repairTail();
      appendFileSync(this.file, this.pending.map((l) => l + '\n').join(''), { mode: 0o600 });
      this.pending = [];
      if (this.o.exclusive) this.goodSize = statSync(this.file, { throwIfNoEntry: false })?.size;
      if (this.failing) {
        this.failing = false;
        this.o.onRecovered?.();
      }
      return true;
    } catch (e) {
      const max = this.o.maxPending ?? 0;
      if (max > 0 && this.pending.length > max) this.lost += this.pending.splice(0, this.pending.length - max).length;
      if (!this.failing) {
        this.failing = true;
        this.o.onError?.(e instanceof Error ? e : new Error(String(e)));
      }
      return false;
    }
  }

  /** A partial line (a failed or killed write) must not swallow the next one. */
  private repairTail(): void {
    let fd: number;
    try {
      fd = openSync(this.file, 'r+');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (this.o.exclusive) this.goodSize = 0;
      this.tailChecked = true;
      return;
    }
    try {
      const { size } = fstatSync(fd);
      if (this.o.exclusive && this.goodSize !== undefined && size > this.goodSize) {
        ftruncateSync(fd, this.goodSize);
      } else if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) writeSync(fd, '\n', size);
      }
      if (this.o.exclusive) this.goodSize ??= fstatSync(fd).size;
      this.tailChecked = true;
    } finally {
      closeSync(fd);
    }
  }
}
