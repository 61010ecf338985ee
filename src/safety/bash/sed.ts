// Reads a GNU sed script far enough to say whether its output only goes to stdout: addresses,
// blocks, labels and branches, text commands (a, i, c), and s or y without the e and w flags.
// Must not accept anything it does not fully parse: w, W, r, R, e and s///e or s///w write
// files, read files or run commands.

const PLAIN_COMMANDS = new Set(['p', 'P', 'l', '=', 'q', 'Q', 'd', 'D', 'n', 'N', 'z', 'g', 'G', 'h', 'H', 'x', 'F', '{', '}']);
/** Commands whose argument runs to the end of the line: labels and branches, and the version check. */
const LABEL_COMMANDS = new Set([':', 'b', 't', 'T', 'v']);
const TEXT_COMMANDS = new Set(['a', 'i', 'c']);
const S_FLAGS = /^[gpiImM0-9]*$/;

/** True when every command of the GNU sed script writes only to stdout and reads only its input. */
export function sedIsReadOnly(script: string): boolean {
  const s = script;
  let i = 0;
  const skipSpace = (): void => {
    while (i < s.length && /[ \t]/.test(s[i]!)) i++;
  };
  /** Skips a delimited regex starting after its opening delimiter; false when it is not closed. */
  const regex = (delim: string): boolean => {
    for (; i < s.length; i++) {
      const c = s[i];
      if (c === '\\') i++;
      else if (c === '[') i = bracketEnd(s, i);
      else if (c === delim) {
        i++;
        return true;
      } else if (c === '\n') return false;
    }
    return false;
  };
  const address = (): boolean => {
    if (/[0-9]/.test(s[i] ?? '')) {
      while (/[0-9~]/.test(s[i] ?? '')) i++;
      return true;
    }
    if (s[i] === '$') return ++i > 0;
    const delim = s[i] === '/' ? '/' : s[i] === '\\' ? s[i + 1] : undefined;
    if (!delim || delim === '\n') return true;
    i += s[i] === '/' ? 1 : 2;
    if (!regex(delim)) return false;
    while (/[IM]/.test(s[i] ?? '')) i++;
    return true;
  };
  while (i < s.length) {
    skipSpace();
    const c = s[i];
    if (c === undefined) break;
    if (c === ';' || c === '\n') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < s.length && s[i] !== '\n') i++;
      continue;
    }
    if (!address()) return false;
    skipSpace();
    if (s[i] === ',') {
      i++;
      skipSpace();
      if (s[i] === '+' || s[i] === '~') i++;
      if (!address()) return false;
      skipSpace();
    }
    if (s[i] === '!') i++;
    skipSpace();
    const cmd = s[i++];
    if (cmd === undefined) return false;
    if (cmd === 's' || cmd === 'y') {
      const delim = s[i++];
      if (!delim || delim === '\n' || delim === '\\') return false;
      if (cmd === 's' ? !regex(delim) : !plain(delim)) return false;
      if (!plain(delim)) return false;
      const flagsAt = i;
      while (i < s.length && !/[;\n}]/.test(s[i]!)) i++;
      if (!S_FLAGS.test(s.slice(flagsAt, i).trim())) return false;
      continue;
    }
    if (LABEL_COMMANDS.has(cmd)) {
      // A label ends at a newline or, conservatively, at a semicolon: what follows is judged as commands.
      while (i < s.length && !/[;\n]/.test(s[i]!)) i++;
      continue;
    }
    if (TEXT_COMMANDS.has(cmd)) {
      // a\⏎text, a text: the text runs to an unescaped newline.
      for (; i < s.length && s[i] !== '\n'; i++) if (s[i] === '\\') i++;
      continue;
    }
    if (!PLAIN_COMMANDS.has(cmd)) return false;
    if (cmd === '{') continue;
    if ('lqQ'.includes(cmd)) while (/[ 0-9]/.test(s[i] ?? '')) i++;
    skipSpace();
    if (i < s.length && !/[;\n}#]/.test(s[i]!)) return false;
  }
  return true;

  /** Skips a replacement or y part: only backslash escapes the delimiter. */
  function plain(delim: string): boolean {
    for (; i < s.length; i++) {
      if (s[i] === '\\') i++;
      else if (s[i] === delim) {
        i++;
        return true;
      }
    }
    return false;
  }
}

/** Index of the ] closing the bracket expression opened at `open` (GNU: a leading ] or ^] is literal). */
function bracketEnd(s: string, open: number): number {
  let i = open + 1;
  if (s[i] === '^') i++;
  if (s[i] === ']') i++;
  for (; i < s.length; i++) {
    if (s[i] === '[' && /[:.=]/.test(s[i + 1] ?? '')) {
      const close = s.indexOf(s[i + 1] + ']', i + 2);
      if (close < 0) return s.length;
      i = close + 1;
    } else if (s[i] === ']') return i;
  }
  return s.length;
}
