// Turns one tree-sitter word node into what bash would make of it before brace and glob expansion:
// its value after quote removal and the variables whose values are known, and its pattern for
// expansion. Arithmetic is checked here too: bash evaluates a name or subscript in $(( )) and runs
// any $(…) inside `a[…]`, so only known integers may appear. Must not decide anything else.

import type { Node } from '@vscode/tree-sitter-wasm';

/** Why a command cannot be judged from its words alone; rules cannot allow these. */
export type ConstructCode = 'parse_error' | 'substitution' | 'expansion' | 'dynamic_name' | 'assignment' | 'construct' | 'background' | 'redirect';

/** One shell word after quote removal. */
export type ShellWord = {
  /** The value bash would pass; null when a part is only known when it runs ($X, $(…)). */
  value: string | null;
  /**
   * For brace, glob and field expansion: unquoted specials as written, quoted ones backslash-escaped,
   * unknown parts as \0, and blanks of an unquoted expansion (where bash splits fields) as \x01.
   */
  pattern: string;
  /** As written, for messages. */
  text: string;
};

/** Variables whose values are known; null marks one that was set to something unknown. */
export type Vars = Map<string, string | null>;

export type WordEnv = {
  src: string;
  vars: Vars;
  problem(code: ConstructCode, what: string, part: string): void;
  /** Walks what a substitution runs, in the scope of a subshell. */
  nested(n: Node): void;
};

const GLOB_SPECIALS = /[\\*?[\]{},~]/g;
export const escapeGlob = (s: string): string => s.replace(GLOB_SPECIALS, '\\$&');
/** An unquoted expansion's value: globbed and split by bash, but never brace-expanded. */
const expansionPattern = (s: string): string => s.replace(/[{},~]/g, '\\$&').replace(/[ \t\n]+/g, '\x01');
const ARITH_NODES = new Set(['number', 'variable_name', 'binary_expression', 'unary_expression', 'parenthesized_expression', 'ternary_expression', 'simple_expansion', 'expansion']);
/** Operators that change a variable inside arithmetic. */
const ARITH_WRITES = new Set(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '^=', '|=', '++', '--']);
const INTEGER = /^\s*-?\d+\s*$/;

/** Reads words and arithmetic against `env`; one reader per parse. */
export function createWordReader(env: WordEnv): { word(n: Node): ShellWord; arithmetic(n: Node): void } {
  const { src, vars, problem } = env;
  const known = (name: string): string | null => vars.get(name) ?? null;

  function word(n: Node): ShellWord {
    const b = { value: '' as string | null, pattern: '', text: n.text };
    const lit = (s: string, quoted: boolean): void => {
      if (b.value !== null) b.value += s;
      b.pattern += quoted ? escapeGlob(s) : s;
    };
    const unknown = (): void => {
      b.value = null;
      b.pattern += '\0';
    };
    part(n, false);
    return b;

    function part(p: Node, quoted: boolean): void {
      switch (p.type) {
        case 'word':
          return unquoted(p.text, b.pattern === '' && b.value === '');
        case 'number':
          return lit(p.text, quoted);
        case 'raw_string':
          return lit(p.text.slice(1, -1), true);
        case 'ansi_c_string':
          return lit(decodeAnsiC(p.text.slice(2, -1)), true);
        case 'string':
          return doubleQuoted(p);
        case 'concatenation':
          for (const c of kids(p)) part(c, quoted);
          return;
        case 'brace_expression':
          return lit(p.text, false);
        case 'simple_expansion':
        case 'expansion': {
          // Only $NAME, ${NAME} and ${#NAME}: operators like ${x@P} or ${x:=y} can run or assign things.
          const name = /^\$(?:\{(\w+)\}|(\w+))$/.exec(p.text);
          if (!name && p.type === 'expansion' && !/^\$\{#\w+\}$/.test(p.text)) {
            problem('expansion', 'the expansion', p.text);
            env.nested(p);
          }
          const value = name ? known(name[1] ?? name[2]!) : null;
          if (value === null) return unknown();
          if (quoted) return lit(value, true);
          if (b.value !== null) b.value += value;
          b.pattern += expansionPattern(value);
          return;
        }
        case 'command_substitution': {
          const literal = literalHeredoc(p);
          if (literal !== null) return lit(literal, true);
          problem('substitution', 'the command substitution', p.text);
          env.nested(p);
          return unknown();
        }
        case 'process_substitution':
          problem('substitution', 'the process substitution', p.text);
          env.nested(p);
          return unknown();
        case 'arithmetic_expansion':
          arithmetic(p);
          return unknown();
        default:
          problem(p.type === 'ERROR' ? 'parse_error' : 'construct', 'the construct', p.text);
          if (p.isNamed) env.nested(p);
          return unknown();
      }
    }

    /** An unquoted word as tree-sitter cuts it: backslash escapes, and a leading ~ that bash expands. */
    function unquoted(text: string, atStart: boolean): void {
      let i = 0;
      if (atStart && text.startsWith('~')) {
        const end = text.indexOf('/') < 0 ? text.length : text.indexOf('/');
        const home = text.slice(0, end) === '~' ? known('HOME') : null;
        if (home === null) unknown();
        else lit(home, true);
        i = end;
      }
      for (; i < text.length; i++) {
        if (text[i] !== '\\') lit(text[i]!, false);
        else if (text[i + 1] === '\n') i++;
        else if (i + 1 < text.length) lit(text[++i]!, true);
      }
    }

    function doubleQuoted(p: Node): void {
      let at = p.startIndex + 1;
      const end = p.endIndex - 1;
      const gap = (to: number): void => {
        if (to > at) lit(unescapeDq(src.slice(at, to)), true);
      };
      for (const c of kids(p)) {
        if (!c.isNamed) continue;
        gap(c.startIndex);
        if (c.type === 'string_content') lit(unescapeDq(c.text), true);
        else part(c, true);
        at = c.endIndex;
      }
      gap(end);
    }
  }

  /**
   * $(( )) and $[ ]: bash evaluates names (recursively, as expressions) and subscripts, and a
   * subscript runs the $(…) in it, so `x='a[$(id)]'; echo $((x))` runs id. Only numbers, ${#x}
   * and variables known to hold integers are allowed, and nothing that assigns.
   */
  function arithmetic(n: Node): void {
    for (const c of kids(n)) {
      if (!c.isNamed) {
        if (ARITH_WRITES.has(c.type)) problem('expansion', 'an assignment inside arithmetic', n.text);
        continue;
      }
      if (c.type === 'command_substitution' || c.type === 'process_substitution') {
        problem('substitution', 'the command substitution inside arithmetic', c.text);
        env.nested(c);
      } else if (!ARITH_NODES.has(c.type)) {
        problem('expansion', 'the arithmetic', n.text);
      } else if (c.type === 'variable_name' || c.type === 'simple_expansion' || (c.type === 'expansion' && !/^\$\{#\w+\}$/.test(c.text))) {
        const name = c.type === 'variable_name' ? c.text : /^\$\{?(\w+)\}?$/.exec(c.text)?.[1];
        const value = name === undefined ? null : known(name);
        if (value === null || !INTEGER.test(value)) problem('expansion', 'arithmetic on a value not known to be a number:', c.text);
      } else if (c.type !== 'number' && c.type !== 'expansion') {
        arithmetic(c);
      }
    }
  }

  return { word, arithmetic };
}

/**
 * The text of `$(cat <<EOF … EOF)` when the here-document has no expansions: the usual way to pass
 * a multi-line commit message, and as literal as a quoted string. Null for anything else.
 */
function literalHeredoc(sub: Node): string | null {
  const inner = sub.namedChildren;
  const stmt = inner[0];
  if (inner.length !== 1 || stmt?.type !== 'redirected_statement') return null;
  const [body, redirect, ...more] = stmt.namedChildren;
  if (more.length || body?.type !== 'command' || body.text !== 'cat' || redirect?.type !== 'heredoc_redirect') return null;
  const parts = redirect.namedChildren;
  const content = parts.find((c) => c?.type === 'heredoc_body');
  if (!content || content.namedChildCount > 0 || parts.some((c) => c && !c.type.startsWith('heredoc_'))) return null;
  const dashed = kids(redirect).some((c) => c.type === '<<-');
  const text = dashed ? content.text.replace(/^\t+/gm, '') : content.text;
  return text.replace(/\n+$/, '');
}

export function kids(n: Node): Node[] {
  return n.children.filter((c): c is Node => c !== null);
}

/** Inside double quotes only \$ \` \" \\ and backslash-newline are escapes. */
function unescapeDq(s: string): string {
  return s.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

const ANSI_C: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** $'…' strings: the escapes bash decodes. */
function decodeAnsiC(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (m, e: string) => {
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    if (e[0] === 'c') return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return ANSI_C[e] ?? m;
  });
}
