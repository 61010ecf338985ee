// Reading a file line by line in fixed-size chunks, synchronously: memory stays at one chunk and
// the longest line, whatever the file's size. For logs and session files that may be large.

import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 1 << 16;

/**
 * Calls `fn` with each line of `file` (without its newline; a last line without one included), in
 * order; `fn` returning false stops early. Throws what opening or reading throws.
 */
export function forEachLine(file: string, fn: (line: string) => boolean | void): void {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK);
    let carry: Buffer[] = [];
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      const view = buffer.subarray(0, n);
      let start = 0;
      for (let nl = view.indexOf(10); nl >= 0; nl = view.indexOf(10, start)) {
        const piece = view.subarray(start, nl);
        const line = carry.length ? Buffer.concat([...carry, piece]).toString('utf8') : piece.toString('utf8');
        carry = [];
        start = nl + 1;
        if (fn(line) === false) return;
      }
      if (start < n) carry.push(Buffer.from(view.subarray(start)));
    }
    if (carry.length) fn(Buffer.concat(carry).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}
