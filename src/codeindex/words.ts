// The words of a text counted as term numbers, for indexing: each word is found by hashing its
// characters where they stand, in a table of the words seen before, so a known word costs no
// string and no Map lookup (those were most of the cost of counting terms). A new word is split
// once by the caller's function. Words are what tokenize.ts's eachWord yields: letters, digits,
// _ and $, at most 64 long. Must not know about chunks, fields or files.

import { isWordChar } from './tokenize.js';

const MAX_WORD = 64;
/** Which ASCII characters belong to words (a table: the test runs once per character of the workspace). */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) => (isWordChar(c) ? 1 : 0));
const inWord = (c: number): boolean => (c < 128 ? ASCII_WORD[c] === 1 : isWordChar(c));

/** What counts the terms: `add(id, field)` once per term of each word. */
export type TermSink = { add(id: number, field: number): void };

export class WordTable {
  // Open addressing: a slot holds a word's number + 1 (0: empty).
  private slots = new Int32Array(1 << 16);
  private words = 0;
  // Per word: its hash, its characters (in `chars`) and its term numbers (in `ids`).
  private hashes = new Int32Array(1 << 12);
  private starts = new Int32Array(1 << 12);
  private lengths = new Uint8Array(1 << 12);
  private idStarts = new Int32Array(1 << 12);
  private idCounts = new Uint8Array(1 << 12);
  private chars = new Uint16Array(1 << 16);
  private charsUsed = 0;
  private ids = new Int32Array(1 << 14);
  private idsUsed = 0;

  /** `termsOf` gives a new word's term numbers; past `maxWords` the table starts again (memory stays bounded). */
  constructor(
    private readonly termsOf: (word: string) => number[],
    private readonly maxWords = 200_000,
  ) {}

  /** Adds the terms of each word of `text` between `from` and `to` to `sink` in `field`; returns how many terms. */
  count(text: string, from: number, to: number, sink: TermSink, field: number): number {
    let n = 0;
    for (let i = from; i < to; ) {
      let c = text.charCodeAt(i);
      if (!inWord(c)) {
        i++;
        continue;
      }
      const start = i;
      let h = 0x811c9dc5 | 0;
      do {
        h = Math.imul(h ^ c, 0x01000193);
        i++;
      } while (i < to && inWord((c = text.charCodeAt(i))));
      // Base64 blobs and minified lines say nothing.
      if (i - start > MAX_WORD) continue;
      const w = this.find(text, start, i - start, h);
      const at = this.idStarts[w]!;
      const k = this.idCounts[w]!;
      for (let j = 0; j < k; j++) sink.add(this.ids[at + j]!, field);
      n += k;
    }
    return n;
  }

  /** The number of the word at `start` (adding it when new). */
  private find(text: string, start: number, length: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const s = this.slots[slot]!;
      if (s === 0) return this.add(text, start, length, hash, slot);
      const w = s - 1;
      if (this.hashes[w] === hash && this.lengths[w] === length && this.same(w, text, start, length)) return w;
    }
  }

  private same(w: number, text: string, start: number, length: number): boolean {
    const at = this.starts[w]!;
    for (let k = 0; k < length; k++) if (this.chars[at + k] !== text.charCodeAt(start + k)) return false;
    return true;
  }

  private add(text: string, start: number, length: number, hash: number, slot: number): number {
    if (this.words >= this.maxWords) {
      this.clear();
      return this.find(text, start, length, hash);
    }
    const ids = this.termsOf(text.slice(start, start + length));
    const w = this.words++;
    if (w >= this.hashes.length) this.growWords();
    this.chars = room(this.chars, this.charsUsed + length);
    this.ids = room(this.ids, this.idsUsed + ids.length);
    for (let k = 0; k < length; k++) this.chars[this.charsUsed + k] = text.charCodeAt(start + k);
    this.ids.set(ids, this.idsUsed);
    this.hashes[w] = hash;
    this.starts[w] = this.charsUsed;
    this.lengths[w] = length;
    this.idStarts[w] = this.idsUsed;
    this.idCounts[w] = ids.length;
    this.charsUsed += length;
    this.idsUsed += ids.length;
    this.slots[slot] = w + 1;
    // At most half full, so a probe ends soon.
    if (this.words * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return w;
  }

  private growWords(): void {
    const size = this.hashes.length * 2;
    this.hashes = grown(this.hashes, size);
    this.starts = grown(this.starts, size);
    this.lengths = grown(this.lengths, size);
    this.idStarts = grown(this.idStarts, size);
    this.idCounts = grown(this.idCounts, size);
  }

  private rehash(size: number): void {
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let w = 0; w < this.words; w++) {
      let slot = this.hashes[w]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = w + 1;
    }
    this.slots = slots;
  }

  private clear(): void {
    this.slots = new Int32Array(1 << 16);
    this.words = 0;
    this.charsUsed = 0;
    this.idsUsed = 0;
  }
}

type Typed = Int32Array | Uint16Array | Uint8Array;

/** `array`, or a copy twice as big (or more) when `need` does not fit. */
function room<T extends Typed>(array: T, need: number): T {
  return need <= array.length ? array : grown(array, Math.max(need, array.length * 2));
}

function grown<T extends Typed>(array: T, size: number): T {
  const out = new (array.constructor as new (n: number) => T)(size);
  out.set(array);
  return out;
}
