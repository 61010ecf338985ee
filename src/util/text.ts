// Text helpers shared by the interface and the reports: money, local dates, and terminal-safe
// text. Pure functions.

export function formatCost(cost: number | null): string {
  if (cost === null) return '$?';
  return cost < 0.01 && cost > 0 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** The local calendar date, YYYY-MM-DD. */
export function localDate(d: Date): string {
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/** The local date and time to the minute, YYYY-MM-DD HH:MM. */
export function localDateTime(d: Date): string {
  return `${localDate(d)} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

// What a terminal would act on: C0 and C1 controls (but tab and newline) and bidirectional
// overrides. Text from the model, tools and servers must not restyle, move or retitle the screen.
const TERMINAL_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every character `pattern` (global) matches shown as its code point, ⟨U+XXXX⟩. */
export function showCodePoints(text: string, pattern: RegExp): string {
  return text.replace(pattern, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** `text` with every character a terminal would act on shown as ⟨U+XXXX⟩ instead. */
export function inert(text: string): string {
  return showCodePoints(text.replace(/\r\n/g, '\n'), TERMINAL_CONTROL);
}

/** `s` cut to `max` characters with an ellipsis: one line of context in a list. */
export const clipLine = (s: string, max = 140): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
