// A definition's doc comment: the docstring opening its body (Python) or the comment block right
// above it, without what only looks like one: directives to tools (`//go:noinline`, `// eslint-…`,
// `# frozen_string_literal: true`, `#pragma`) and the copyright or license header opening a file.

import type { Node } from '@vscode/tree-sitter-wasm';
import type { Doc } from './chunks.js';
import type { LanguageSpec } from './languages.js';

/** Lines written for a compiler, linter or editor (skipped: a doc above them still counts). */
const SLASH_DIRECTIVE = /^(?:\/\/(?:go:|line |export |extern |\s*\+build\b|\s*(?:nolint|NOLINT|eslint-|eslint\s|@ts-|tslint:|prettier-ignore|biome-ignore|istanbul\s|c8\s|jshint|SPDX-License-Identifier:|#nosec|noinspection|NOSONAR|CHECKSTYLE|\$NON-NLS))|#\s*pragma\b)/;
const HASH_DIRECTIVE = /^#\s*(?:frozen_string_literal:|-\*-|(?:vim?|ex):|(?:en)?coding[:=]|rubocop:|noqa\b|type:\s*ignore|pylint:|mypy:|pyright:|fmt:\s*(?:off|on|skip)|isort:|shellcheck\s|SPDX-License-Identifier:|typed:\s*(?:true|false|strict|strong|ignore))/;
/** A decorator or annotation (`@Override`), an attribute (Rust and PHP `#[derive(…)]`, C# `[Serializable]`, C++ `[[nodiscard]]`). */
const ATTRIBUTE = /^(?:@|#\[|\[)/;
/** The last line of an attribute written over several lines: `)]`. */
const ATTRIBUTE_END = /[)\]]\]?$/;

/** The line opening the attribute that line `end` closes (at most 20 lines up), or 0. */
function attributeStart(lineAt: (l: number) => string, end: number): number {
  for (let l = end - 1; l >= 1 && l >= end - 20; l--) {
    const raw = lineAt(l);
    if (ATTRIBUTE.test(raw)) return l;
    if (!raw || /^(?:\/\/|\/?\*)/.test(raw) || /[;{}]$/.test(raw)) return 0;
  }
  return 0;
}

/** What a file's opening comment says when it is a legal header rather than a doc. */
const LEGAL = /\bcopyright\b|\(c\)\s*\d{4}|\blicen[cs]ed?\b|SPDX-License-Identifier|all rights reserved/i;

export function docOf(text: string, lines: number[], line: number, body: Node | undefined, spec: LanguageSpec): Doc {
  if (spec.doc === 'docstring' && body) {
    const m = /^\s*[rRuUbB]{0,2}("""|'''|"|')([\s\S]*?)\1/.exec(text.slice(body.startIndex, body.startIndex + 4000));
    if (m) return { text: m[2]!.trim(), from: line };
  }
  const directive = spec.doc === 'slash' ? SLASH_DIRECTIVE : HASH_DIRECTIVE;
  const lineAt = (l: number) => text.slice(lines[l - 1]!, (lines[l] ?? text.length + 1) - 1).trim();
  const above: string[] = [];
  let from = line;
  // Up to the start of a long block (Rust and Ruby docs run to hundreds of lines of examples), keeping its first 40.
  for (let l = line - 1; l >= 1 && above.length < 1000; l--) {
    const raw = lineAt(l);
    if (directive.test(raw)) continue;
    // A block comment's end (a line comment may end in `*/` too: `// Get name: /first(first|second)*/`).
    if (spec.doc === 'slash' && raw.endsWith('*/') && !raw.startsWith('//')) {
      const block: string[] = [raw];
      while (!block[0]!.includes('/*') && --l >= 1) block.unshift(lineAt(l));
      above.unshift(...block);
      from = Math.max(l, 1);
      break;
    }
    const comment = spec.doc === 'slash' ? /^\/\/\/?!?\s?(.*)$/.exec(raw) : /^#(?!!)\s?(.*)$/.exec(raw);
    if (comment) {
      above.unshift(raw);
      from = l;
    } else if (above.length || !ATTRIBUTE.test(raw)) {
      // Decorators, annotations and attributes may sit between doc and definition, over several lines too.
      const opening = !above.length && ATTRIBUTE_END.test(raw) ? attributeStart(lineAt, l) : 0;
      if (!opening) break;
      l = opening;
    }
  }
  // A block opening the file (after a `#!` line and directives) that names a copyright or license is its legal header.
  let top = 1;
  while (top < from && (/^#!/.test(lineAt(top)) || directive.test(lineAt(top)) || !lineAt(top))) top++;
  if (above.length && top === from && LEGAL.test(above.join('\n'))) return { text: '', from: line };
  const doc = above
    .slice(0, 40)
    .map((l) => (l.startsWith('//') ? l.replace(/^\/\/\/?!?\s?/, '') : l.replace(/^\/\*\*?|\*\/$|^\*\s?|^#\s?/g, '')).trim())
    // Rules drawn with `# =====` or `// -----` say nothing.
    .filter((l) => /[\p{L}\p{N}]/u.test(l))
    .join('\n');
  return { text: doc, from: doc ? from : line };
}

export const firstLine = (doc: string): string => {
  const line = doc.split('\n')[0]!.trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
};

/** Python decorators that change how a function is used: read as an attribute, called on the class, entered with `with`. */
const USE_DECORATOR = /^(?:(?:functools\.)?(?:cached_)?property|[\w.]+\.(?:setter|getter|deleter)|staticmethod|classmethod|(?:contextlib\.)?(?:async)?contextmanager|(?:typing\.)?overload|(?:abc\.)?abstract(?:method|property))$/;

/** ` @property`, ` @stem.setter`, … for the decorators of a Python definition that say how it is used ('' for none). */
export function useDecorators(name: Node, text: string): string {
  const decorated = name.parent?.parent;
  if (decorated?.type !== 'decorated_definition') return '';
  return decorated.namedChildren
    .filter((c): c is Node => c?.type === 'decorator')
    .map((c) => text.slice(c.startIndex + 1, c.endIndex).trim())
    .filter((d) => USE_DECORATOR.test(d))
    .map((d) => ` @${d}`)
    .join('');
}
