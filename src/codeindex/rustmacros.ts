// Rust items written inside a macro invocation (tokio's `cfg_rt! { pub fn spawn … }`, syn's
// `ast_struct! { pub struct … }`, libc's `f! { pub fn FD_SET … }`): tree-sitter leaves a macro's
// body as tokens, so its items would be no symbols and its calls no calls. Such a body is parsed
// again on its own, as the items it holds, at its place in the file. Must not parse: the caller does.

import type { Node, Point, Range, Tree } from '@vscode/tree-sitter-wasm';

/** A macro body opening with an item, its doc or an attribute (`static ref` is lazy_static's own syntax, no item). */
const ITEM = /^\s*(?:#!?\[|\/\/[/!]|(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|unsafe|const|default|extern(?:\s+"[^"]*")?)\s+)*(?:fn|impl|struct|enum|union|trait|mod|use|type)\b|(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?!ref\b)\w+\s*:)/;
/** A line opening a macro with a brace: where an item macro may be. */
const MACRO_LINE = /^[ \t]*[\w:]+![ \t]*\{/gm;
/** What holds items: a file, and the bodies of impls, traits and modules. */
const HOLDERS = new Set(['source_file', 'declaration_list']);

/** The bodies (inside the braces) of the macros of `tree` that hold items, where items stand. */
export function itemMacroBodies(tree: Tree, text: string, point: (offset: number) => Point): Range[] {
  const ranges: Range[] = [];
  // Found from the text's lines, not by walking every item: most files have none.
  for (const m of text.matchAll(MACRO_LINE)) {
    const at = m.index + m[0].length - m[0].trimStart().length;
    let node: Node | null = tree.rootNode.descendantForIndex(at);
    while (node && node.type !== 'macro_invocation' && node.startIndex === at) node = node.parent;
    if (!node || node.type !== 'macro_invocation' || node.startIndex !== at || !HOLDERS.has(node.parent?.type ?? '')) continue;
    const tokens = node.children.find((c) => c?.type === 'token_tree');
    if (!tokens || text[tokens.startIndex] !== '{' || !ITEM.test(text.slice(tokens.startIndex + 1, tokens.startIndex + 400))) continue;
    const [startIndex, endIndex] = [tokens.startIndex + 1, tokens.endIndex - 1];
    ranges.push({ startIndex, endIndex, startPosition: point(startIndex), endPosition: point(endIndex) });
  }
  return ranges;
}
