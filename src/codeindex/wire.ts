// How a parse worker's outcomes cross to the index's process: each record's calls, imports and
// bindings as one Int32Array of rows with the file's strings once each, made into objects on
// first read as a cached record's are; its terms as numbers in the worker's dictionary, with the
// terms that dictionary gained since the last message. A million small objects cost more to copy
// across and to collect than the rest of the build. Messages must be read in the order they are sent.

import type { FileRecord, FileTerms } from './model.js';
import type { ParseOutcome } from './parsefile.js';
import { makeLazily, rowsOf, stringTable, type LazyKind } from './rows.js';

type SentRecord = Omit<FileRecord, LazyKind | 'terms'> & { rows: Int32Array; strings: string[]; ends: [number, number]; terms?: Omit<FileTerms, 'dictionary'> };
type SentOutcome = Exclude<ParseOutcome, { record: unknown }> | { path: string; record: SentRecord };
/** One message: outcomes, and the terms the worker's dictionary gained meanwhile (numbered on from the last). */
export type Sent = { outcomes: SentOutcome[]; terms: string[] };

const LAZY: LazyKind[] = ['calls', 'imports', 'bindings'];

/** A worker's side: `known` is how many terms of its dictionary the other side has. */
export function send(outcomes: ParseOutcome[], known: number, termsSince: (from: number) => string[]): Sent {
  return { outcomes: outcomes.map((o) => ('record' in o ? { path: o.path, record: sendRecord(o.record) } : o)), terms: termsSince(known) };
}

function sendRecord(record: FileRecord): SentRecord {
  const { strings, str } = stringTable();
  const [calls, imports, bindings] = LAZY.map((kind) => rowsOf(record, kind, str)) as [number[], number[], number[]];
  const { calls: _c, imports: _i, bindings: _b, terms, ...rest } = record;
  const rows = new Int32Array(calls.length + imports.length + bindings.length);
  rows.set(calls);
  rows.set(imports, calls.length);
  rows.set(bindings, calls.length + imports.length);
  const sent: SentRecord = { ...rest, rows, strings, ends: [calls.length, calls.length + imports.length] };
  if (terms) sent.terms = { ids: terms.ids, data: terms.data, chunks: terms.chunks, whole: terms.whole };
  return sent;
}

/**
 * The receiving side, one per worker: `dictionary` is the worker's dictionary as far as it was
 * sent (it grows with each message).
 */
export function receive(sent: Sent, dictionary: string[]): ParseOutcome[] {
  for (const term of sent.terms) dictionary.push(term);
  return sent.outcomes.map((o) => {
    if (!('record' in o)) return o;
    const { rows, strings, ends: [a, b], terms, ...rest } = o.record;
    const record = rest as FileRecord;
    if (terms) record.terms = { ...terms, dictionary };
    makeLazily(record, { calls: { rows, strings, from: 0, to: a }, imports: { rows, strings, from: a, to: b }, bindings: { rows, strings, from: b, to: rows.length } });
    return { path: o.path, record };
  });
}
