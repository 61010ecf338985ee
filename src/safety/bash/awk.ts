// Reads an awk program far enough to say whether it only reads its input and prints to stdout:
// no system(), no getline (from files or commands), no pipes, no output redirection in print and
// printf, no ARGV/ARGC (which add files to read), no gawk @-directives or indirect calls.
// Must err towards "no": anything it cannot tokenise is not read-only.

const FORBIDDEN_NAMES = new Set(['system', 'getline', 'ARGV', 'ARGC']);
/** After these tokens a slash starts a regex; after anything else it divides (the safe reading). */
const BEFORE_REGEX = new Set(['', '(', ',', '{', '}', ';', '\n', '~', '!~', '!', '&&', '||', '?', ':', '=', '==', '!=', '<', '<=', '>=', '+', '-', '*', '%', '^', 'in']);

type Token = { text: string; kind: 'name' | 'number' | 'string' | 'regex' | 'op' };

/** The tokens of an awk program; null when a string or regex is not closed. */
function tokenize(src: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  const prev = (): string => {
    const t = out[out.length - 1];
    return t === undefined ? '' : t.kind === 'op' || t.text === 'in' ? t.text : '\0';
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || (c === '\\' && src[i + 1] === '\n')) {
      i += c === '\\' ? 2 : 1;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '"' || (c === '/' && BEFORE_REGEX.has(prev()))) {
      let j = i + 1;
      let inClass = false;
      for (; j < src.length; j++) {
        if (src[j] === '\\') j++;
        else if (src[j] === '\n') return null;
        else if (c === '/' && src[j] === '[') inClass = true;
        else if (inClass && src[j] === ']') inClass = false;
        else if (src[j] === c && !inClass) break;
      }
      if (j >= src.length) return null;
      out.push({ text: src.slice(i, j + 1), kind: c === '"' ? 'string' : 'regex' });
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_]\w*/.exec(src.slice(i));
    if (word) {
      out.push({ text: word[0], kind: 'name' });
      i += word[0].length;
      continue;
    }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ text: num[0], kind: 'number' });
      i += num[0].length;
      continue;
    }
    const op = /^(?:\|\||&&|\|&|>>|<=|>=|==|!=|!~|\+\+|--|[-+*/%^]=|[\s\S])/.exec(src.slice(i))![0];
    out.push({ text: op, kind: 'op' });
    i += op.length;
  }
  return out;
}

/** True when the awk program only reads its input files and writes to stdout. */
export function awkIsReadOnly(program: string): boolean {
  const tokens = tokenize(program);
  if (!tokens) return false;
  let inPrint = false;
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'name' && FORBIDDEN_NAMES.has(t.text)) return false;
    if (t.kind !== 'op' && t.kind !== 'name') continue;
    if (t.text === '|' || t.text === '|&' || t.text === '@' || t.text === '`') return false;
    if (t.text === 'print' || t.text === 'printf') {
      inPrint = true;
      depth = 0;
    } else if (t.text === '(' || t.text === '[') depth++;
    else if (t.text === ')' || t.text === ']') depth--;
    else if (t.text === ';' || t.text === '\n' || t.text === '}' || t.text === '{') inPrint = false;
    // Unparenthesised, > and >> after print are output redirections (a comparison needs parentheses).
    else if (inPrint && depth <= 0 && (t.text === '>' || t.text === '>>')) return false;
  }
  return true;
}
