// A definition's one-line signature, from the text around its captured nodes: the header between
// its name and its body, comments and layout taken out, a return type written before the name
// moved after the parameters. Pure text work over one parse; must not know about the index.

import type { Node } from '@vscode/tree-sitter-wasm';
import type { SymbolKind } from './languages.js';

/** A definition as the query captured it. */
export type Def = { kind: SymbolKind; start: number; end: number; name: Node; body?: Node; value?: Node; owner?: Node; ret?: Node; params?: Node; tparams?: Node };

/**
 * The header from after the name to `end`, with what Java, C# and C write before the name moved
 * where TypeScript writes it: type parameters first, the return type after the parameter list
 * (`V get(Object key)` → `(Object key): V`), before a `throws` or `where` clause.
 */
export function header(def: Def, text: string, end: number): string {
  const tparams = def.tparams ? text.slice(def.tparams.startIndex, def.tparams.endIndex) : '';
  const ret = returnType(def, text);
  const at = def.params?.endIndex ?? end;
  const slice = uncommented(def, text, end);
  if (!ret || at > end) return tparams + slice(def.name.endIndex, end);
  return `${tparams}${slice(def.name.endIndex, at)}: ${ret}${slice(at, end)}`;
}

const COMMENTS = ['comment', 'line_comment', 'block_comment'];

/**
 * Slices of the header from after the name to `end` without the comments in it: a note between
 * parameters (`## HACK: turn globals into locals`, `/* the stream *\/`) is no part of the signature,
 * and one that ran to the end of its line would swallow the rest once the header is one line.
 */
function uncommented(def: Def, text: string, end: number): (from: number, to: number) => string {
  const plain = (from: number, to: number) => text.slice(from, to);
  // Most headers have none: the tree is searched only when the text has a comment's opening.
  if (!/#|\/\/|\/\*/.test(text.slice(def.name.endIndex, end))) return plain;
  let node = def.name;
  while (node.parent && node.endIndex < end) node = node.parent;
  const comments = node.descendantsOfType(COMMENTS, def.name.endPosition, def.body?.startPosition).filter((c): c is Node => !!c && c.startIndex < end);
  if (!comments.length) return plain;
  return (from, to) => {
    let out = '';
    let at = from;
    for (const c of comments) {
      if (c.endIndex <= at || c.startIndex >= to) continue;
      out += text.slice(at, c.startIndex);
      at = c.endIndex;
    }
    return out + text.slice(at, Math.max(at, to));
  };
}

/**
 * The return type a definition writes before its name, without the modifiers around it (`static`,
 * `virtual`, `constexpr`, annotations are other nodes). A C or C++ function returns the pointers
 * and references of the declarators around its function declarator too: `char **split(…)`.
 */
function returnType(def: Def, text: string): string | undefined {
  const { ret, params } = def;
  if (!ret || !params) return undefined;
  const of = (n: Node) => text.slice(n.startIndex, n.endIndex);
  if (params.type !== 'function_declarator') return of(ret).replace(/\s+/g, ' ');
  // `auto f() -> int` says it after the parameters already.
  if (params.children.some((c) => c?.type === 'trailing_return_type')) return undefined;
  const decl = ret.parent!;
  // `SQLITE_API int f(…)`: an export macro parses as the type and the real one as an error; better none than the macro.
  if (decl.children.some((c) => c?.type === 'ERROR' && c.startIndex < params.startIndex)) return undefined;
  // `const char *f()`: the qualifiers beside the type are its own, `constexpr` (a qualifier to the grammar) is not.
  const words = decl.children.filter((c) => c && c.startIndex < params.startIndex && (c.startIndex === ret.startIndex || (c.type === 'type_qualifier' && /^(const|volatile)$/.test(of(c))))).map((c) => of(c!));
  const pointers: string[] = [];
  for (let n = params.parent; n && !n.equals(decl); n = n.parent) {
    if (n.type === 'pointer_declarator' || n.type === 'reference_declarator') pointers.unshift(n.children.filter((c) => c && /^(\*|&&?|type_qualifier)$/.test(c.type)).map((c) => of(c!)).join(' '));
  }
  return [...words, ...pointers].join(' ').replace(/\s+/g, ' ').replace(/([*&]) (?=[*&])/g, '$1');
}

/** Where a definition's header ends: before its body and any comments written between the two (`def f():  # note`). */
export function headerEnd(body: Node): number {
  let first = body;
  while (first.previousSibling?.type === 'comment') first = first.previousSibling;
  return first.startIndex;
}

/**
 * One line, whitespace collapsed, trailing openers dropped (and a Rust where clause's last comma),
 * at most `max` characters. A list a formatter broke over lines reads as one written on one:
 * `(\n  a,\n  b,\n)` is `(a, b)` (a comma with no space before `)`, a one-element tuple `(u8,)`, stays).
 */
export function clean(s: string, max: number): string {
  // A backslash ending a line (C macros, shell) only continues it. Comments inside are no part of
  // it (Effect's dual APIs document each overload in the type): a block comment after a space or
  // an opener (not the /**/ of a glob), a line comment after a space and before a newline (not a URL, not Python's //).
  const flat = s
    .replace(/(?<=^|[\s{(,;])\/\*[\s\S]*?\*\/|(?<=^|\s)\/\/[^\n]*(?=\r?\n)/g, ' ')
    .replace(/\\\r?\n/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s*(?:\{|=>|:|=|;|,|\bwhere\b)?\s*$/, '')
    .replace(/^\s+/, '')
    .replace(/\( /g, '(')
    .replace(/ (?=,)/g, '')
    .replace(/,? \)/g, ')');
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}
