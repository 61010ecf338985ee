// The words of a text counted as term numbers, for indexing: each word is found by hashing its
// characters where they stand, in a table of the words seen before, so a known word costs no
// string and no Map lookup (those were most of the cost of counting terms). A new word is split
// once by the caller's function. Words are what tokenize.ts's eachWord yields: letters, digits,
// _ and $, at most 64 long. Must not know about chunks, fields or files.

import { isWordChar, MAX_WORD } from './tokenize.js';

/** What counts the terms: `add(id, field)` once per term of each word. */
export type TermSink = { add(id: number, field: number): void };

export class WordTable {
  // Open addressing, at most half full: each slot is a pair [the word's hash, its number + 1] (0: empty),
  // so a probe reads one place in memory before the word itself.
  private slots = new Int32Array(2 << 16);
  private words = 0;
  // Per word, side by side: where its characters start in `chars`, its length, where its term numbers start in `ids`, how many.
  private meta = new Int32Array(4 << 12);
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
      if (!isWordChar(c)) {
        i++;
        continue;
      }
      const start = i;
      let h = 0x811c9dc5 | 0;
      do {
        h = Math.imul(h ^ c, 0x01000193);
        i++;
      } while (i < to && isWordChar((c = text.charCodeAt(i))));
      // Base64 blobs and minified lines say nothing.
      if (i - start > MAX_WORD) continue;
      const m = 4 * this.find(text, start, i - start, h);
      const at = this.meta[m + 2]!;
      const k = this.meta[m + 3]!;
      for (let j = 0; j < k; j++) sink.add(this.ids[at + j]!, field);
      n += k;
    }
    return n;
  }

  /** The number of the word at `start` (adding it when new). */
  private find(text: string, start: number, length: number, hash: number): number {
    const mask = (this.slots.length >> 1) - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const s = this.slots[2 * slot + 1]!;
      if (s === 0) return this.add(text, start, length, hash, slot);
      if (this.slots[2 * slot] === hash && this.same(s - 1, text, start, length)) return s - 1;
    }
  }

  private same(w: number, text: string, start: number, length: number): boolean {
    if (this.meta[4 * w + 1] !== length) return false;
    const at = this.meta[4 * w]!;
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
    this.meta = room(this.meta, 4 * w + 4);
    this.chars = room(this.chars, this.charsUsed + length);
    this.ids = room(this.ids, this.idsUsed + ids.length);
    for (let k = 0; k < length; k++) this.chars[this.charsUsed + k] = text.charCodeAt(start + k);
    this.ids.set(ids, this.idsUsed);
    this.meta.set([this.charsUsed, length, this.idsUsed, ids.length], 4 * w);
    this.charsUsed += length;
    this.idsUsed += ids.length;
    this.slots[2 * slot] = hash;
    this.slots[2 * slot + 1] = w + 1;
    if (this.words * 4 > this.slots.length) this.rehash(this.slots.length * 2);
    return w;
  }

  /** Into `size / 2` slots, each word where its hash puts it. */
  private rehash(size: number): void {
    const old = this.slots;
    const slots = new Int32Array(size);
    const mask = (size >> 1) - 1;
    for (let o = 0; o < old.length; o += 2) {
      if (old[o + 1] === 0) continue;
      let slot = old[o]! & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = old[o]!;
      slots[2 * slot + 1] = old[o + 1]!;
    }
    this.slots = slots;
  }

  private clear(): void {
    this.slots = new Int32Array(2 << 16);
    this.words = 0;
    this.charsUsed = 0;
    this.idsUsed = 0;
  }
}

type Typed = Int32Array | Uint16Array;

/** `array`, or a copy twice as big (or more) when `need` does not fit. */
function room<T extends Typed>(array: T, need: number): T {
  return need <= array.length ? array : grown(array, Math.max(need, array.length * 2));
}

function grown<T extends Typed>(array: T, size: number): T {
  const out = new (array.constructor as new (n: number) => T)(size);
  out.set(array);
  return out;
}
