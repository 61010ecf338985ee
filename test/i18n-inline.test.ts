// Every word the interface prints comes from the catalogue: no string literal with words in it
// is passed to a call that prints (write, line, note, warn, fail, question, key …) anywhere in
// src/. A literal that is the key of t() is fine; so are symbols, spaces and escape codes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogueKeys } from '../src/i18n/index.js';

const SRC = join(import.meta.dirname, '..', 'src');
const PRINTING_CALL = /\b(?:(?:out|output|stdout|stderr)\.write|(?:ui|this)\.(?:line|note|warn|fail|showMarkdown)|input\.(?:question|key)|\.setPrompt)\s*\(/g;
/** Two letters in a row, or a CJK character: words, not symbols or escape codes. */
const WORDS = /[A-Za-z]{2,}|[\u3400-\u9fff\uf900-\ufaff]/;
/** Literals that are not language. Each needs a reason. */
const ALLOWED: { file: string; text: string; why: string }[] = [
  { file: 'cli.ts', text: 'feiyu: \\n', why: 'the program name before a crash report (a stack trace)' },
];

/** The text between the parenthesis at `open` and its match, strings and templates skipped over. */
function argumentText(code: string, open: number): string {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i]!;
    if (c === "'" || c === '"' || c === '`') i = skipString(code, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return code.slice(open + 1, i);
  }
  return code.slice(open + 1);
}

function skipString(code: string, start: number): number {
  const quote = code[start];
  for (let i = start + 1; i < code.length; i++) {
    if (code[i] === '\\') i++;
    else if (quote === '`' && code[i] === '$' && code[i + 1] === '{') i = skipExpression(code, i + 1);
    else if (code[i] === quote) return i;
  }
  return code.length;
}

function skipExpression(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i]!;
    if (c === "'" || c === '"' || c === '`') i = skipString(code, i);
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return code.length;
}

/** The static text of every string literal in `code` (template parts too), except keys given to t(). */
export function literals(code: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c !== "'" && c !== '"' && c !== '`') continue;
    const end = skipString(code, i);
    // A key of t(), or a value compared with (`kind === 'gap'`): not printed as it is.
    const isKey = /\bt\(\s*$/.test(code.slice(Math.max(0, i - 10), i));
    const compared = /[!=]==\s*$/.test(code.slice(Math.max(0, i - 5), i)) || /^\s*[!=]==/.test(code.slice(end + 1, end + 6));
    if (!isKey && !compared) found.push(...staticParts(code.slice(i, end + 1)));
    i = end;
  }
  return found;
}

/** A literal's own text, and for a template the literals inside its ${} parts as well. */
function staticParts(literal: string): string[] {
  if (literal[0] !== '`') return [literal.slice(1, -1)];
  let text = '';
  const inner: string[] = [];
  for (let i = 1; i < literal.length - 1; i++) {
    if (literal[i] === '\\') {
      text += literal.slice(i, i + 2);
      i++;
    } else if (literal[i] === '$' && literal[i + 1] === '{') {
      const end = skipExpression(literal, i + 1);
      inner.push(...literals(literal.slice(i + 2, end)));
      i = end;
    } else text += literal[i];
  }
  return [text, ...inner];
}

const KEYS = new Set(catalogueKeys().en);
const hasWords = (text: string) => !KEYS.has(text) && WORDS.test(text.replace(/\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|.)/g, ''));

/** The inline words passed to printing calls in `code`. */
export function inlineWords(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(PRINTING_CALL)) {
    const args = argumentText(code, m.index + m[0].length - 1);
    out.push(...literals(args).filter(hasWords));
  }
  return out;
}

describe('user-facing strings', () => {
  it('the check finds inline words and lets catalogue keys and symbols through', () => {
    expect(inlineWords(`ui.line('Hello there'); out.write(\`Saved \${n} files\\n\`);`)).toEqual(['Hello there', 'Saved  files\\n']);
    expect(inlineWords(`ui.warn(t('x') + ' 完成');`)).toEqual([' 完成']);
    expect(inlineWords(`ui.line(p(color.red, \`⚠ \${t('decision.destructive', { what })}\`)); process.stdout.write('\\x1b[?2004h' + '\\n');`)).toEqual([]);
    expect(inlineWords(`ui.fail(t(\`mode.\${m}\`, { why: kind === 'gap' ? t('diff.gap') : t('diff.more') }));`)).toEqual([]);
    expect(inlineWords(`ui.line(t('mode.set', { mode: 'fast lane' }));`)).toEqual(['fast lane']);
  });

  it('are never written inline in src/', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [relative(SRC, join(dir, f))]));
    const files = walk(SRC).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('i18n/'));
    const found = files.flatMap((file) =>
      inlineWords(readFileSync(join(SRC, file), 'utf8'))
        .filter((text) => !ALLOWED.some((a) => a.file === file && a.text === text))
        .map((text) => `${file}: ${JSON.stringify(text)}`),
    );
    expect(found).toEqual([]);
  });
});
