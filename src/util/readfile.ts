// Reading the small text files feiyu reads by itself (configuration, conventions, history,
// .gitignore, notes): only regular files, never more than a limit, so a FIFO cannot hang the
// start and /dev/zero cannot eat the memory. A UTF-8 byte order mark is dropped. Words for the
// user are the caller's: errors carry what was wrong, as data.

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** What was wrong with a file: not a regular file (`kind` says what it is), or too big. */
export type ReadProblem = { code: 'not_regular'; kind: 'folder' | 'FIFO' | 'socket' | 'device' | 'special file' } | { code: 'too_big'; size: number; max: number };

export class FileReadError extends Error {
  constructor(
    readonly file: string,
    readonly problem: ReadProblem,
  ) {
    super(
      problem.code === 'not_regular'
        ? `${file} is a ${problem.kind}, not a regular file; it was not read`
        : `${file} is ${problem.size} bytes, more than the ${problem.max} read there; it was not read`,
    );
    this.name = 'FileReadError';
  }
}

/** The most bytes read of a configuration file: far more than any real one holds. */
export const CONFIG_FILE_MAX = 1 << 20;

function kindOf(st: Stats): Extract<ReadProblem, { code: 'not_regular' }>['kind'] {
  if (st.isDirectory()) return 'folder';
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  return 'special file';
}

/**
 * The text of the regular file `file` (UTF-8, a leading BOM dropped), or undefined when it does
 * not exist. Throws FileReadError for anything but a regular file, or one over `maxBytes`; other
 * errors (permissions) as they are. Contract: never blocks on a FIFO, never reads past the limit.
 */
export function readRegularFile(file: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FileReadError(file, { code: 'not_regular', kind: kindOf(st) });
    if (st.size > maxBytes) throw new FileReadError(file, { code: 'too_big', size: st.size, max: maxBytes });
    // The file may grow while it is read: one byte past the limit says so.
    const buffer = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > maxBytes) throw new FileReadError(file, { code: 'too_big', size: length, max: maxBytes });
    const text = buffer.toString('utf8', 0, length);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } finally {
    closeSync(fd);
  }
}
