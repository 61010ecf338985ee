// The code-aware tokenizer shared by indexing and querying: identifiers split at camelCase,
// PascalCase, snake_case and digit boundaries (the whole identifier kept too), words lower-cased
// and lightly stemmed, English function words dropped. Pure; must not know about files or scores.

/** Words that carry no meaning in a query or a chunk (English function words, a few syntax words). */
const STOP = new Set(
  ('a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'may me my no nor not of on or our she should so than that the their them then there these they this those to ' +
    'too us was we were what when where which while who why will with would you your const let var self').split(' '),
);

/** Boundaries inside an identifier: _ and $, lower→Upper, UPPER→Upper lower, letter↔digit. */
const PARTS = /[_$]+|(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

/**
 * A light suffix stemmer (plurals, -ed, -ing, a final -e), applied alike to code and queries so
 * "matching" meets "match" and "caches" meets "cache". Deliberately conservative: short words
 * and words without a vowel before the suffix are left alone.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(?:ss|us|is)$/.test(w)) {
    // class, status, analysis: not plurals
  } else if (/(?:ches|shes|sses|xes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s')) w = w.slice(0, -1);
  const suffix = /(?:ing|ed)$/.exec(w);
  if (suffix && w.length - suffix[0].length >= 3 && /[aeiouy]/.test(w.slice(0, -suffix[0].length))) {
    w = w.slice(0, -suffix[0].length);
    // running → run, stopped → stop (but not added → ad, passed, called); naming → name
    if (w.length >= 4 && /([^aeiouslz])\1$/.test(w)) w = w.slice(0, -1);
    else if (w.length === 3 && /^[^aeiou][aeiou][^aeiouwxy]$/.test(w)) w = `${w}e`;
  }
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** The tokens of one word, remembered: code repeats its words, and splitting is the costly part. */
const wordCache = new Map<string, string[]>();
const WORD_CACHE_MAX = 200_000;

function tokensOfWord(word: string): string[] {
  let tokens = wordCache.get(word);
  if (tokens) return tokens;
  tokens = splitWord(word);
  if (wordCache.size >= WORD_CACHE_MAX) wordCache.clear();
  wordCache.set(word, tokens);
  return tokens;
}

/** The tokens of one word (not remembered: a caller that keeps its own memo uses this). */
export function splitWord(word: string): string[] {
  const tokens: string[] = [];
  const parts = word.split(PARTS).filter((p) => p.length > 1);
  const lower = word.toLowerCase().replace(/^[_$]+|[_$]+$/g, '');
  if (parts.length > 1 && lower.length > 1) tokens.push(lower);
  for (const part of parts) {
    const p = part.toLowerCase();
    if (!STOP.has(p)) tokens.push(stem(p));
  }
  return tokens;
}

/**
 * Calls `emit` for each token of `text`: for an identifier of several parts, each part (stemmed)
 * and the whole identifier lower-cased; for a plain word, its stem. One-letter parts and stop
 * words are skipped.
 */
export function eachToken(text: string, emit: (token: string) => void): void {
  eachWord(text, 0, text.length, (word) => {
    for (const token of tokensOfWord(word)) emit(token);
  });
}

/** Calls `emit` for each word of `text` between `from` and `to` (letters, digits, _ and $; at most 64 long). */
export function eachWord(text: string, from: number, to: number, emit: (word: string) => void): void {
  for (let i = from; i < to; ) {
    if (!isWordChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < to && isWordChar(text.charCodeAt(j))) j++;
    // Base64 blobs and minified lines say nothing.
    if (j - i <= MAX_WORD) emit(text.slice(i, j));
    i = j;
  }
}

/** The longest word counted. */
export const MAX_WORD = 64;

const NON_ASCII_WORD = /[\p{L}\p{N}]/u;
/** Which ASCII characters are letters, digits, _ or $ (a table: the test runs once per character of the workspace). */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) => ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 ? 1 : 0));

/** Letters, digits, _ and $ (no regex for ASCII: a regex per word is the slow part of indexing). */
export function isWordChar(c: number): boolean {
  return c < 128 ? ASCII_WORD[c] === 1 : NON_ASCII_WORD.test(String.fromCharCode(c));
}

/** The tokens of `text` in order (duplicates kept). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  eachToken(text, (t) => out.push(t));
  return out;
}

/** Term frequencies of `text`, added into `into`. Returns the number of tokens. */
export function countTerms(text: string, into: Map<string, number>): number {
  let n = 0;
  eachToken(text, (t) => {
    into.set(t, (into.get(t) ?? 0) + 1);
    n++;
  });
  return n;
}

/**
 * The words of a query that look like identifiers rather than prose: camelCase, PascalCase with
 * two humps, snake_case, SCREAMING_CASE, letters with digits, dotted or :: paths (each part kept),
 * or a name followed by "(". A query of one bare word counts as an identifier.
 */
export function identifiersOf(query: string): string[] {
  const found = new Set<string>();
  const words = query.match(/(?<![\\\w$])[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:\(\)?)?/g) ?? [];
  for (const raw of words) {
    const called = raw.endsWith('(') || raw.endsWith('()');
    const path = raw.replace(/\(\)?$/, '');
    for (const part of path.split(/\.|::|->/)) {
      const codeLike = /[a-z][A-Z]|[A-Z]{2,}[a-z]|_|[A-Za-z]\d|^[A-Z][a-z]+[A-Z]/.test(part);
      if (part.length > 1 && (codeLike || called || path !== part || words.length === 1)) found.add(part);
    }
  }
  return [...found];
}
