// Parses a bash command with tree-sitter-bash (loaded on first use) and walks the tree into what
// the analyser needs: every simple command as unquoted words, and every construct that makes a
// command impossible to judge from its text. Must not decide anything: allowlists, paths and
// secrets belong to analysis.ts. Fail closed: a node it does not know is a problem.

import type { Node, Parser } from '@vscode/tree-sitter-wasm';
import { createParser } from '../../util/treesitter.js';

/** Why a command cannot be judged from its words alone; rules cannot allow these. */
export type ConstructCode =
  | 'parse_error'
  | 'substitution'
  | 'expansion'
  | 'dynamic_name'
  | 'assignment'
  | 'construct'
  | 'background'
  | 'redirect';

/** `detail` is English for the model; `part` is the piece of the command it is about. */
export type Problem = { code: ConstructCode; detail: string; part: string };

/** One shell word after quote removal. */
export type ShellWord = {
  /** The value bash would pass; null when a part is only known when it runs ($X, $(…)). */
  value: string | null;
  /** For glob and brace expansion: unquoted specials as written, quoted ones backslash-escaped, unknown parts as \0. */
  pattern: string;
  /** As written, for messages. */
  text: string;
};

export type SimpleCommand = {
  words: ShellWord[];
  /** Files read through `<` redirections. */
  reads: ShellWord[];
  text: string;
};

export type ParsedScript = {
  commands: SimpleCommand[];
  problems: Problem[];
  /** Words outside simple commands (loop lists, redirection targets, test operands), for the secret check. */
  loose: ShellWord[];
};

let parserPromise: Promise<Parser> | undefined;

/** The tree-sitter parser with the bash grammar, created once. */
function bashParser(): Promise<Parser> {
  parserPromise ??= createParser('bash');
  parserPromise.catch(() => (parserPromise = undefined));
  return parserPromise;
}

const GLOB_SPECIALS = /[\\*?[\]{},~]/g;
const escapeGlob = (s: string): string => s.replace(GLOB_SPECIALS, '\\$&');
const SEPARATORS = new Set([';', '&&', '||', '|', '|&']);
const WORD_TYPES = new Set([
  'word', 'number', 'string', 'raw_string', 'ansi_c_string', 'concatenation', 'simple_expansion', 'expansion',
  'command_substitution', 'process_substitution', 'arithmetic_expansion', 'brace_expression',
]);
const ARITH_TYPES = new Set([
  'number', 'variable_name', 'binary_expression', 'unary_expression', 'parenthesized_expression',
  'ternary_expression', 'postfix_expression', 'simple_expansion',
]);
const STATEMENTS = new Set(['program', 'list', 'pipeline', 'negated_command', 'command', 'redirected_statement', 'variable_assignment', 'variable_assignments', 'comment', 'ERROR']);
const CONSTRUCTS: Record<string, string> = {
  subshell: 'a subshell ( … )',
  compound_statement: 'a brace group { … }',
  function_definition: 'a function definition',
  if_statement: 'an if statement',
  while_statement: 'a loop',
  for_statement: 'a loop',
  c_style_for_statement: 'a loop',
  case_statement: 'a case statement',
  test_command: 'a test expression [ … ] / [[ … ]]',
  declaration_command: 'a declaration (export, declare, local, readonly)',
  unset_command: 'unset',
};

/**
 * Parses `src` into simple commands and problems. `vars` holds variables whose values are known
 * (HOME); literal assignments in the command are added to it as they appear.
 */
export async function parseBash(src: string, vars: Map<string, string>): Promise<ParsedScript> {
  const parser = await bashParser();
  const tree = parser.parse(src);
  if (!tree) return { commands: [], loose: [], problems: [{ code: 'parse_error', detail: 'the parser gave up', part: '' }] };
  const out: ParsedScript = { commands: [], problems: [], loose: [] };
  const problem = (code: ConstructCode, what: string, part: string): void => {
    const detail = `${what} ${clip(part)}`.trim();
    if (!out.problems.some((p) => p.code === code && p.detail === detail)) out.problems.push({ code, detail, part: clip(part) });
  };
  try {
    // MISSING nodes can sit deep inside a word; one look at the root catches them all.
    if (tree.rootNode.hasError) problem('parse_error', 'bash syntax that cannot be parsed', '');
    statement(tree.rootNode);
  } finally {
    tree.delete();
  }
  return out;

  function statement(n: Node): void {
    switch (n.type) {
      case 'program':
      case 'list':
      case 'pipeline':
      case 'negated_command':
        for (const c of kids(n)) {
          if (c.isNamed) statement(c);
          else if (c.type === '&') problem('background', 'a background job', '&');
          else if (!SEPARATORS.has(c.type) && !(c.type === '!' && n.type === 'negated_command')) {
            problem('parse_error', 'the unexpected', c.type);
          }
        }
        return;
      case 'command':
        command(n);
        return;
      case 'redirected_statement': {
        const [body, ...redirects] = kids(n);
        let cmd: SimpleCommand | undefined;
        if (body?.type === 'command') cmd = command(body);
        else if (body) statement(body);
        for (const r of redirects) redirect(r, cmd);
        return;
      }
      case 'variable_assignment':
        assignment(n);
        return;
      case 'variable_assignments':
        for (const c of kids(n)) assignment(c);
        return;
      case 'comment':
        return;
      case 'ERROR':
        inside(n);
        return;
      default:
        problem('construct', CONSTRUCTS[n.type] ?? 'the construct', n.text);
        inside(n);
    }
  }

  /** Everything nested in a construct still counts for secrets, destructive commands and deny rules. */
  function inside(n: Node): void {
    for (const c of kids(n)) {
      if (!c.isNamed) continue;
      if (WORD_TYPES.has(c.type)) out.loose.push(word(c));
      else if (STATEMENTS.has(c.type) || c.type in CONSTRUCTS) statement(c);
      else inside(c);
    }
  }

  function command(n: Node): SimpleCommand {
    const cmd: SimpleCommand = { words: [], reads: [], text: n.text };
    for (const c of kids(n)) {
      if (c.type === 'variable_assignment') {
        assignment(c);
      } else if (c.type === 'command_name') {
        const name = word(c.namedChildren[0] ?? c);
        if (name.value === null || /\$|`/.test(c.text)) problem('dynamic_name', 'a program name computed when it runs:', c.text);
        cmd.words.push(name);
      } else if (c.type === 'file_redirect' || c.type === 'herestring_redirect' || c.type === 'heredoc_redirect') {
        redirect(c, cmd);
      } else if (WORD_TYPES.has(c.type)) {
        cmd.words.push(word(c));
      } else if (c.type !== 'comment') {
        problem('construct', 'the construct', c.text);
        if (c.isNamed) inside(c);
      }
    }
    out.commands.push(cmd);
    return cmd;
  }

  function assignment(n: Node): void {
    problem('assignment', 'the variable assignment', n.text);
    const name = n.namedChildren[0];
    const value = n.namedChildren[1];
    const w = value ? word(value) : { value: '', pattern: '', text: '' };
    if (name && w.value !== null) vars.set(name.text, w.value);
    if (value) out.loose.push(w);
  }

  function redirect(r: Node, cmd: SimpleCommand | undefined): void {
    const all = kids(r);
    if (r.type === 'heredoc_redirect') {
      // tree-sitter hangs the rest of the line (`<<EOF | sort`, `<<EOF && ls`) under the heredoc.
      for (const c of all) {
        if (c.type === 'heredoc_body') inside(c);
        else if (c.isNamed && !c.type.startsWith('heredoc_')) statement(c);
        else if (c.type === '&') problem('background', 'a background job', '&');
        else if (!c.isNamed && !c.type.startsWith('<<') && !SEPARATORS.has(c.type)) problem('parse_error', 'the unexpected', c.type);
      }
      return;
    }
    const op = all.find((c) => !c.isNamed)?.type ?? '';
    const [dest, ...extra] = all.filter((c) => c.isNamed && c.type !== 'file_descriptor');
    for (const e of extra) (cmd?.words ?? out.loose).push(word(e));
    if (r.type === 'herestring_redirect') return void (dest && out.loose.push(word(dest)));
    if (op === '>&-' || op === '<&-') return;
    if (!dest) return problem('parse_error', 'the redirection', r.text);
    const target = word(dest);
    if ((op === '>&' || op === '<&') && dest.type === 'number') return;
    if (op === '<' && cmd) return void cmd.reads.push(target);
    out.loose.push(target);
    if (target.value !== '/dev/null') problem('redirect', 'the redirection', r.text);
  }

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
            inside(p);
          }
          const known = name ? vars.get(name[1] ?? name[2]!) : undefined;
          return known === undefined ? unknown() : lit(known, quoted);
        }
        case 'command_substitution': {
          const literal = literalHeredoc(p);
          if (literal !== null) return lit(literal, true);
          problem('substitution', 'the command substitution', p.text);
          inside(p);
          return unknown();
        }
        case 'process_substitution':
          problem('substitution', 'the process substitution', p.text);
          inside(p);
          return unknown();
        case 'arithmetic_expansion':
          arithmetic(p);
          return unknown();
        default:
          problem(p.type === 'ERROR' ? 'parse_error' : 'construct', 'the construct', p.text);
          if (p.isNamed) inside(p);
          return unknown();
      }
    }

    /** An unquoted word as tree-sitter cuts it: backslash escapes, and a leading ~ that bash expands. */
    function unquoted(text: string, atStart: boolean): void {
      let i = 0;
      if (atStart && text.startsWith('~')) {
        const end = text.indexOf('/') < 0 ? text.length : text.indexOf('/');
        const home = text.slice(0, end) === '~' ? vars.get('HOME') : undefined;
        if (home === undefined) unknown();
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

  function arithmetic(n: Node): void {
    for (const c of n.namedChildren) {
      if (!c) continue;
      if (c.type === 'command_substitution' || c.type === 'process_substitution') {
        problem('substitution', 'the command substitution inside arithmetic', c.text);
        inside(c);
      } else if (!ARITH_TYPES.has(c.type)) {
        problem('expansion', 'the arithmetic', n.text);
      } else {
        arithmetic(c);
      }
    }
  }
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

function kids(n: Node): Node[] {
  return n.children.filter((c): c is Node => c !== null);
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 60 ? one.slice(0, 57) + '...' : one;
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
