// Hides variables from feiyu's own initial environment block, the one Linux shows any process of
// the same user through /proc/<pid>/environ and `ps e`: a command feiyu runs outside the sandbox
// could otherwise read the API keys there as /proc/$PPID/environ. Values stay in process.env
// (moved to the heap first); only the copy the kernel shows is zeroed. Must not read or log values.

import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

/**
 * Zeroes every `NAME=value` of the initial environment for which `hide(name, value)` holds, after
 * copying it into process.env's heap storage. Returns how many were hidden; 0 where the kernel
 * offers no /proc (not Linux) or refuses writes to the process's own memory.
 */
export function hideFromEnviron(hide: (name: string, value: string) => boolean): number {
  let block: Buffer;
  let start: number;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name; env_start is field 50 of proc(5).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    start = Number(fields[50 - 3]);
    block = readFileSync('/proc/self/environ');
  } catch {
    return 0;
  }
  if (!Number.isSafeInteger(start) || start <= 0) return 0;
  const spans: [number, number][] = [];
  for (let at = 0; at < block.length; ) {
    const end = block.indexOf(0, at) < 0 ? block.length : block.indexOf(0, at);
    const entry = block.toString('utf8', at, end);
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq);
    if (eq > 0 && hide(name, entry.slice(eq + 1))) {
      // setenv copies the value to the heap and repoints environ there, so the old bytes are unused.
      const value = process.env[name];
      if (value !== undefined) process.env[name] = value;
      spans.push([at, end]);
    }
    at = end + 1;
  }
  if (!spans.length) return 0;
  let fd: number | undefined;
  try {
    fd = openSync('/proc/self/mem', 'r+');
    for (const [from, to] of spans) writeSync(fd, Buffer.alloc(to - from), 0, to - from, start + from);
    return spans.length;
  } catch {
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
