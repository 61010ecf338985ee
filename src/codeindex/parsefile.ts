// Reads one source file and turns it into its record: the bytes hashed, the text decoded, the
// language's parser and query loaded once per thread (through the shared liftoff-only loader).
// Used by the parse workers and, for single files, by the main thread. Must not keep records.

import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { createParser } from '../util/treesitter.js';
import { extractFile, type Grammar } from './extract.js';
import { LANGUAGES } from './languages.js';
import type { FileRecord } from './model.js';

/** Whether this system shows an open descriptor's path (Linux /proc). */
const FD_PATHS = existsSync('/proc/self/fd');

const realRoots = new Map<string, string>();
/** The workspace's real path (the engine is given one; a caller that is not still gets the check right). */
function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) realRoots.set(root, (real = realpathSync(root)));
  return real;
}

/** Files above this size are not indexed (generated tables, bundles, data). */
export const MAX_FILE_BYTES = 1024 * 1024;

const grammars = new Map<string, Promise<Grammar>>();

/** The parser and query of `lang` for this thread; `{ error }` when the grammar or the query cannot be loaded. */
export function grammarFor(lang: string): Promise<Grammar> {
  let grammar = grammars.get(lang);
  if (!grammar) {
    grammar = (async (): Promise<Grammar> => {
      const spec = LANGUAGES[lang];
      if (!spec) return { error: `no grammar for ${lang}` };
      try {
        const parser = await createParser(spec.grammar);
        const { Query } = (await import('@vscode/tree-sitter-wasm')).default as unknown as typeof import('@vscode/tree-sitter-wasm');
        return { parser, query: new Query(parser.language!, spec.query) };
      } catch (err) {
        return { error: `the ${spec.grammar} grammar did not load: ${(err as Error).message}` };
      }
    })();
    grammars.set(lang, grammar);
  }
  return grammar;
}

export type ParseJob = { path: string; lang: string };

/** What became of one file: its record, or why it is not indexed (gone, too big, binary, unreadable). */
export type ParseOutcome = { path: string; record: FileRecord } | { path: string; skipped: 'missing' | 'too_big' | 'binary' | 'unreadable'; detail?: string };

/**
 * Reads and parses `job.path` under `root`. The reads are synchronous: a file is at most 1 MB, and
 * a parse worker has nothing else to do meanwhile. Contract: never throws.
 */
export async function parseJob(root: string, job: ParseJob): Promise<ParseOutcome> {
  const abs = join(root, job.path);
  let bytes: Buffer;
  let st: Stats;
  let fd = -1;
  try {
    // A symbolic link may lead out of the workspace: the index covers regular files only (as the
    // listing does). Opened without following a link, without blocking on a FIFO and without
    // taking a terminal, then checked: a link among the folders shows in the descriptor's path.
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
    st = fstatSync(fd);
    if (!st.isFile()) return { path: job.path, skipped: 'missing' };
    const real = FD_PATHS ? readlinkSync(`/proc/self/fd/${fd}`) : abs;
    if (real !== abs && real !== join(realRoot(root), job.path)) return { path: job.path, skipped: 'unreadable', detail: `${job.path} is reached through a symbolic link (${real})` };
    if (st.size > MAX_FILE_BYTES) return { path: job.path, skipped: 'too_big' };
    // Another name of a hard-linked file may be outside the workspace: the file tools refuse it, so does the index.
    if (st.nlink > 1) return { path: job.path, skipped: 'unreadable', detail: `${job.path} has ${st.nlink} hard links` };
    bytes = readFileSync(fd);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' ? { path: job.path, skipped: 'missing' } : { path: job.path, skipped: 'unreadable', detail: (err as Error).message };
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  if (bytes.length > MAX_FILE_BYTES) return { path: job.path, skipped: 'too_big' };
  if (bytes.subarray(0, 8192).includes(0)) return { path: job.path, skipped: 'binary' };
  const meta = { size: bytes.length, mtimeMs: st.mtimeMs, hash: hashOf(bytes) };
  const grammar = await grammarFor(job.lang);
  try {
    return { path: job.path, record: extractFile(job.path, bytes.toString('utf8'), job.lang, grammar, meta) };
  } catch (err) {
    // A defect in extraction costs this file, not the build (nor a worker and its batch).
    return { path: job.path, skipped: 'unreadable', detail: `could not be indexed: ${(err as Error).message}` };
  }
}

export const hashOf = (bytes: Buffer): string => createHash('sha1').update(bytes).digest('hex');
