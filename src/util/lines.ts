// Reading a file line by line in fixed-size chunks, synchronously: memory stays at one chunk and
// the longest line, whatever the file's size. For logs and session files that may be large.

import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const CHUNK = 1 << 16;

/**
 * Calls `fn` with each line of `file` (without its newline; a last line without one included), in
 * order; `fn` returning false stops early. `skip` sees where a line starts in the text read and
 * may pass over it before it is cut out (a prefix test on a big log). Throws what opening or
 * reading throws.
 */
export function forEachLine(file: string, fn: (line: string) => boolean | void, skip?: (text: string, start: number) => boolean): void {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK);
    const decoder = new StringDecoder('utf8');
    // The start of a line that spans chunks, in pieces: joined once its end is found.
    let carry: string[] = [];
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      const text = n === 0 ? decoder.end() : decoder.write(buffer.subarray(0, n));
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        const whole = carry.length === 0;
        if (!whole || !skip?.(text, start)) {
          const line = whole ? text.slice(start, nl) : carry.join('') + text.slice(start, nl);
          if (fn(line) === false) return;
        }
        carry = [];
        start = nl + 1;
      }
      if (start < text.length) carry.push(text.slice(start));
      if (n === 0) break;
    }
    if (carry.length) fn(carry.join(''));
  } finally {
    closeSync(fd);
  }
}
