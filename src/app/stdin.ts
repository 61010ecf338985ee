// What headless mode reads on stdin: the message itself when none is given, else context for the
// message (`cat log | feiyu -p "explain this log"`, as claude -p does), its middle cut past a
// limit with a marker saying so. Holds at most the two kept ends in memory, whatever is piped.

import { fstatSync } from 'node:fs';
import { OutputCollector } from '../util/process.js';

/** Characters of piped context kept (about 25,000 tokens): its head and tail past this. */
export const STDIN_CAP = 100_000;
/** Something that is neither a pipe nor a file (a socket a program left open) gets this long to start. */
const FIRST_BYTE_MS = 1000;

export type Piped = { text: string; bytes: number; cut: boolean };

/**
 * Everything piped to stdin, its middle cut past `cap` characters; undefined when nothing came.
 * A pipe or a file is read to its end however long the writer takes (`npm test | feiyu -p …`);
 * anything else must start within a second, so a stdin no one writes to never hangs the run.
 */
export function readPiped(stdin: NodeJS.ReadableStream & { fd?: number }, cap = STDIN_CAP): Promise<Piped | undefined> {
  const waits = stdin.fd === undefined || waitsForEnd(stdin.fd);
  const kept = new OutputCollector();
  let bytes = 0;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', done);
      stdin.off('error', done);
      stdin.pause();
      const text = kept.text(cap);
      resolve(bytes ? { text, bytes, cut: Buffer.byteLength(text) !== bytes } : undefined);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      kept.push(chunk);
      clearTimeout(timer);
    };
    const timer = waits ? undefined : setTimeout(done, FIRST_BYTE_MS);
    stdin.on('data', onData);
    stdin.once('end', done);
    stdin.once('error', done);
    stdin.resume();
  });
}

function waitsForEnd(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isFIFO() || st.isFile() || st.isCharacterDevice();
  } catch {
    return false;
  }
}

/** The message with piped text as its context: the request first (it names the task), then what was piped. */
export function withPipedContext(message: string, piped: Piped): string {
  return `${message}\n\n<stdin>\n${piped.text.replace(/\n$/, '')}\n</stdin>`;
}
