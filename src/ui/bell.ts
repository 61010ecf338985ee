// Getting the user's attention when feiyu waits for them: after a long turn, and when a question
// needs an answer. A desktop notification (OSC 9) where the terminal is known to show one, else
// the terminal bell; the `notify` setting picks or turns it off. Builds the sequence, never writes.

import type { NotifySetting } from '../config/settings.js';

/** Terminals that show OSC 9 as a desktop notification (Windows Terminal and ConEmu give 9 other meanings). */
const OSC9_TERMINALS = new Set(['iTerm.app', 'WezTerm', 'ghostty']);

/** A turn at least this long rings when it ends; a shorter one was watched. */
export const LONG_TURN_MS = 10_000;

/** The sequence that asks for attention with `message`, or '' when the setting turns it off. */
export function attention(setting: NotifySetting, env: NodeJS.ProcessEnv, message: string): string {
  if (setting === 'off') return '';
  // tmux and screen pass the bell on to the window list; OSC 9 would need a passthrough.
  const osc9 = setting === 'osc9' || (setting === 'auto' && !env.TMUX && !env.STY && OSC9_TERMINALS.has(env.TERM_PROGRAM ?? ''));
  if (!osc9) return '\x07';
  return `\x1b]9;${message.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ')}\x07`;
}
