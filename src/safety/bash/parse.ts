// Parses a bash command with tree-sitter-bash and walks it in the order bash runs it: each simple
// command as words (words.ts) with its folder, following literal variables and cd (forgetting what
// a conditional or subshell may have changed), and each construct it cannot judge. Must not decide
// anything: allowlists, paths and secrets belong to analysis.ts. Fail closed.

import { resolve } from 'node:path';
import type { Node, Parser } from '@vscode/tree-sitter-wasm';
import { createParser } from '../../util/treesitter.js';
import { createWordReader, kids, type ConstructCode, type ShellWord, type Vars } from './words.js';

export type { ConstructCode, ShellWord, Vars } from './words.js';

/** `detail` is English for the model; `part` is the piece of the command it is about. */
export type Problem = { code: ConstructCode; detail: string; part: string };

export type SimpleCommand = {
  words: ShellWord[];
  /** Files read through `<` redirections. */
  reads: ShellWord[];
  text: string;
  /** The folder it runs in, as bash's $PWD; null when a cd before it cannot be followed. */
  cwd: string | null;
  /** [[ … ]]: its words are not split or globbed. */
  literal?: boolean;
};

export type ParsedScript = {
  commands: SimpleCommand[];
  problems: Problem[];
  /** Words outside simple commands (loop lists, redirection targets, case patterns), for the secret check. */
  loose: ShellWord[];
};

export type ParseOptions = {
  /** Known variables (HOME, PWD); assignments and cd in the command update it. */
  vars: Vars;
  /** The words a `for` list makes (braces and globs expanded in `cwd`); null when not known exactly. */
  expandList(words: ShellWord[], cwd: string | null): string[] | null;
};

let parserPromise: Promise<Parser> | undefined;

function bashParser(): Promise<Parser> {
  parserPromise ??= createParser('bash');
  return parserPromise;
}

const SEPARATORS = new Set([';', '&&', '||', '|', '|&']);
const WORD_TYPES = new Set([
  'word', 'number', 'string', 'raw_string', 'ansi_c_string', 'concatenation', 'simple_expansion', 'expansion',
  'command_substitution', 'process_substitution', 'arithmetic_expansion', 'brace_expression',
]);
/** Statements walked for what they contain, but never judged: they ask. */
const CONSTRUCTS: Record<string, string> = {
  function_definition: 'a function definition',
  c_style_for_statement: 'a loop',
  declaration_command: 'a declaration (export, declare, local, readonly)',
  unset_command: 'unset',
};
/** Plain shell variables (lower case by convention) and the locale: no program reads them as instructions. */
const SAFE_NAME = /^(?!_$)[a-z_][a-z0-9_]*$|^(LC_[A-Z]+|LANG|LANGUAGE|TZ|COLUMNS|LINES|NO_COLOR)$/;
/** More loop values than this and the loop variable is treated as unknown. */
const MAX_LOOP_VALUES = 64;

/** Parses `src` into simple commands and problems, in the order bash runs them. */
export async function parseBash(src: string, opts: ParseOptions): Promise<ParsedScript> {
  const parser = await bashParser();
  const tree = parser.parse(src);
  if (!tree) return { commands: [], loose: [], problems: [{ code: 'parse_error', detail: 'the parser gave up', part: '' }] };
  const out: ParsedScript = { commands: [], problems: [], loose: [] };
  const vars = opts.vars;
  const problem = (code: ConstructCode, what: string, part: string): void => {
    const detail = `${what} ${clip(part)}`.trim();
    if (!out.problems.some((p) => p.code === code && p.detail === detail)) out.problems.push({ code, detail, part: clip(part) });
  };
  const reader = createWordReader({ src, vars, problem, nested: (n) => scoped(() => inside(n)) });
  const word = reader.word;
  try {
    // MISSING nodes can sit deep inside a word; one look at the root catches them all.
    if (tree.rootNode.hasError) problem('parse_error', 'bash syntax that cannot be parsed', '');
    statement(tree.rootNode);
  } finally {
    tree.delete();
  }
  return out;

  /** A subshell: nothing it sets survives it. */
  function scoped(walk: () => void): void {
    const saved = new Map(vars);
    walk();
    vars.clear();
    for (const [k, v] of saved) vars.set(k, v);
  }

  /** What may or may not run: whatever it changes becomes unknown. */
  function conditional(walk: () => void): void {
    const saved = new Map(vars);
    walk();
    for (const k of new Set([...saved.keys(), ...vars.keys()])) if (saved.get(k) !== vars.get(k)) vars.set(k, null);
  }

  function statement(n: Node): void {
    switch (n.type) {
      case 'program':
      case 'negated_command':
        return sequence(n);
      case 'list': {
        // a && b || c: everything after the first operand may or may not run.
        const [first, ...rest] = kids(n).filter((c) => c.isNamed);
        checkSeparators(n);
        if (first) statement(first);
        conditional(() => rest.forEach(statement));
        return;
      }
      case 'pipeline':
        checkSeparators(n);
        // Every part of a pipeline runs in a subshell.
        for (const c of kids(n)) if (c.isNamed) scoped(() => statement(c));
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
        return assignment(n, false);
      case 'variable_assignments':
        for (const c of kids(n)) assignment(c, false);
        return;
      case 'comment':
        return;
      case 'compound_statement':
      case 'do_group':
        return inside(n);
      case 'subshell':
        return scoped(() => inside(n));
      case 'if_statement':
      case 'elif_clause':
      case 'else_clause':
      case 'case_statement':
      case 'case_item':
        return conditional(() => inside(n));
      case 'while_statement':
        // A later round sees what an earlier one set: walk it knowing none of that.
        for (const name of changedIn(n)) vars.set(name, null);
        return conditional(() => inside(n));
      case 'for_statement':
        return forLoop(n);
      case 'test_command':
        return testCommand(n);
      case 'ERROR':
        return inside(n);
      default:
        problem('construct', CONSTRUCTS[n.type] ?? 'the construct', n.text);
        conditional(() => inside(n));
    }
  }

  function sequence(n: Node): void {
    checkSeparators(n);
    for (const c of kids(n)) if (c.isNamed) statement(c);
  }

  function checkSeparators(n: Node): void {
    for (const c of kids(n)) {
      if (c.isNamed) continue;
      if (c.type === '&') problem('background', 'a background job', '&');
      else if (!SEPARATORS.has(c.type) && !(c.type === '!' && n.type === 'negated_command')) problem('parse_error', 'the unexpected', c.type);
    }
  }

  /** Everything nested in a construct still counts for secrets, destructive commands and deny rules. */
  function inside(n: Node): void {
    for (const c of kids(n)) {
      if (!c.isNamed) continue;
      if (WORD_TYPES.has(c.type) || c.type === 'extglob_pattern') out.loose.push(word(c));
      else if (c.type === 'variable_name' || c.type === 'heredoc_body' || c.type === 'string_content') continue;
      else if (isStatement(c)) statement(c);
      else inside(c);
    }
  }

  function isStatement(n: Node): boolean {
    return /statement$|^(command|list|pipeline|negated_command|subshell|variable_assignments?|test_command|do_group|elif_clause|else_clause|case_item|function_definition|declaration_command|unset_command|comment|ERROR)$/.test(n.type);
  }

  /** for NAME in WORDS: the body is walked once per value when the values are known. */
  function forLoop(n: Node): void {
    const parts = kids(n);
    const name = parts.find((c) => c.type === 'variable_name')?.text ?? '';
    const inAt = parts.findIndex((c) => c.type === 'in');
    const listed = inAt < 0 ? [] : parts.slice(inAt + 1).filter((c) => WORD_TYPES.has(c.type)).map(word);
    out.loose.push(...listed);
    const body = parts.find((c) => c.type === 'do_group' || c.type === 'compound_statement');
    const values = inAt < 0 ? null : opts.expandList(listed, vars.get('PWD') ?? null);
    conditional(() => {
      if (!values?.length || values.length > MAX_LOOP_VALUES) {
        vars.set(name, null);
        if (body) statement(body);
        return;
      }
      for (const v of values) {
        vars.set(name, v);
        if (body) statement(body);
      }
    });
  }

  /** [ … ] and [[ … ]] become the command `[` or `[[` with their words; (( … )) asks. */
  function testCommand(n: Node): void {
    const [open] = kids(n);
    if (open?.type !== '[' && open?.type !== '[[') {
      problem('construct', 'the arithmetic command', n.text);
      return inside(n);
    }
    const cmd: SimpleCommand = { words: [], reads: [], text: n.text, cwd: vars.get('PWD') ?? null, literal: open.type === '[[' };
    const flatten = (p: Node): void => {
      if (WORD_TYPES.has(p.type) || p.type === 'regex' || p.type === 'extglob_pattern') {
        cmd.words.push(p.type === 'regex' ? { value: p.text, pattern: p.text, text: p.text } : word(p));
      } else if (p.type === 'test_operator' || !p.isNamed) {
        cmd.words.push({ value: p.text, pattern: p.text, text: p.text });
      } else if (/expression$/.test(p.type)) {
        kids(p).forEach(flatten);
      } else {
        problem('construct', 'the construct', p.text);
        inside(p);
      }
    };
    kids(n).forEach(flatten);
    out.commands.push(cmd);
  }

  function command(n: Node): SimpleCommand {
    const cmd: SimpleCommand = { words: [], reads: [], text: n.text, cwd: vars.get('PWD') ?? null };
    for (const c of kids(n)) {
      if (c.type === 'variable_assignment') {
        assignment(c, true);
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
    followCd(cmd);
    return cmd;
  }

  /** cd moves $PWD for the commands after it; any other way of moving (pushd, a cd we cannot follow) loses it. */
  function followCd(cmd: SimpleCommand): void {
    const name = cmd.words[0]?.value;
    if (name === 'pushd' || name === 'popd') return void vars.set('PWD', null);
    if (name !== 'cd') return;
    const before = vars.get('PWD') ?? null;
    const target = cdTarget(cmd.words.slice(1).map((w) => w.pattern));
    const dest = target === undefined ? vars.get('HOME') : target === '-' ? vars.get('OLDPWD') : target;
    vars.set('PWD', dest === null || dest === undefined || before === null ? null : resolve(before, dest));
    vars.set('OLDPWD', before);
  }

  /**
   * A simple variable assignment with a literal or known value sets the variable; one on a
   * program name other than a plain lower-case shell variable (PATH, IFS, LD_PRELOAD, GIT_DIR…)
   * changes what programs do, and asks. `prefix`: `x=1 cmd`, which sets it for cmd only.
   */
  function assignment(n: Node, prefix: boolean): void {
    const [name, op, value] = kids(n);
    const array = value?.type === 'array';
    const w = value && value.isNamed && !array ? word(value) : { value: '', pattern: '', text: '' };
    if (value?.isNamed && !array) out.loose.push(w);
    const simple = name?.type === 'variable_name' && op?.type === '=' && !array;
    if (!simple || !SAFE_NAME.test(name.text)) problem('assignment', 'the variable assignment', n.text);
    if (array) inside(value);
    if (name?.type === 'subscript') inside(name);
    if (name?.type === 'variable_name') vars.set(name.text, prefix || !simple ? null : w.value);
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
}

/** The variables a piece of script may set (assignments, loop variables, and $PWD through cd). */
function changedIn(n: Node): Set<string> {
  const out = new Set<string>();
  const visit = (c: Node): void => {
    if (c.type === 'variable_assignment' || c.type === 'for_statement') {
      const name = kids(c).find((k) => k.type === 'variable_name');
      if (name) out.add(name.text);
    }
    if (c.type === 'command' && /^(cd|pushd|popd)$/.test(kids(c).find((k) => k.type === 'command_name')?.text ?? '')) {
      out.add('PWD');
      out.add('OLDPWD');
    }
    kids(c).forEach(visit);
  };
  visit(n);
  return out;
}

/** The operand of cd after its options (-L -P -e -@ and --); undefined when there is none. */
function cdTarget(patterns: string[]): string | null | undefined {
  let i = 0;
  for (; i < patterns.length; i++) {
    const p = patterns[i]!;
    if (p === '--') {
      i++;
      break;
    }
    if (!/^-[LPe@]+$/.test(p)) break;
  }
  const operand = patterns[i];
  if (operand === undefined) return undefined;
  // A pattern with anything bash would still expand (a glob, braces, an unknown part) is not followed.
  return /[\0\x01*?[{~]/.test(operand.replace(/\\./g, '')) ? null : operand.replace(/\\(.)/g, '$1');
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 60 ? one.slice(0, 57) + '...' : one;
}
