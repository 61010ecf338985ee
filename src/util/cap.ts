// Output capping: keeps the head and the tail of a long tool output and says exactly what was cut.
// Owns only string arithmetic; it must not know about tools, files or processes.

/** The most characters a tool result may have; runTool caps every result to this. */
export const OUTPUT_CAP = 30_000;

/** Room left for the marker line so a capped result stays within `max`. */
const MARKER_ROOM = 80;

/**
 * Text already dropped before capping (a stream that outgrew its buffer): it sat at offset `at` of
 * the text given to capOutput and held `chars` characters and `lines` newlines.
 */
export type Gap = { at: number; chars: number; lines: number };

/**
 * Caps `text` at about `max` characters by cutting its middle. Cuts fall on line boundaries
 * when one is near, and the marker states the characters and lines removed.
 * Contract: head + "\n" + (the cut text) + tail === text when the cut falls on line boundaries.
 */
export function capOutput(text: string, max = OUTPUT_CAP, gap?: Gap): string {
  if (!gap && text.length <= max) return text;
  const budget = Math.max(0, max - MARKER_ROOM);
  const headEnd = Math.min(Math.floor(budget / 2), gap ? gap.at : text.length);
  const tailStart = Math.max(text.length - (budget - Math.floor(budget / 2)), gap ? gap.at : 0);
  // Snap to a newline in the outer half of each budget, so neither side ends mid-line.
  const nl = text.lastIndexOf('\n', headEnd - 1);
  const h = nl >= headEnd / 2 ? nl : avoidSurrogateSplit(text, headEnd);
  const cutFrom = nl >= headEnd / 2 ? nl + 1 : h;
  const nl2 = text.indexOf('\n', tailStart);
  const tailLen = text.length - tailStart;
  const t = nl2 >= 0 && nl2 < tailStart + tailLen / 2 ? nl2 + 1 : avoidSurrogateSplit(text, tailStart);
  const cut = text.slice(cutFrom, Math.max(cutFrom, t));
  const chars = cut.length + (gap?.chars ?? 0);
  const lines = countNewlines(cut) + (gap?.lines ?? 0);
  const lineNote = lines > 0 ? ` (${lines.toLocaleString('en-US')} lines)` : '';
  const marker = `\n[… ${chars.toLocaleString('en-US')} characters${lineNote} cut from the middle …]\n`;
  return text.slice(0, h) + marker + text.slice(Math.max(cutFrom, t));
}

/** Moves a cut point off the middle of a surrogate pair. */
function avoidSurrogateSplit(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff ? i + 1 : i;
}

export function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
