// The code index on what real TypeScript showed when its tools were used as the model uses them:
// RxJS's overloads (mergeMap), pi-mono's extensions' default exports, Effect's dual APIs and
// documented re-exports, getters and setters, folders too long to outline. Real grammars, files
// written to disk where a tool runs. code_symbol and code_refs: codeindex-ts-tools.test.ts.
import { describe, expect, it } from 'vitest';
import { jsImports } from '../src/codeindex/languages.js';
import { outlineFile } from '../src/codeindex/views.js';
import { defs, MERGE_MAP, parse, run } from './codeindex-helpers.js';

describe('overloads', () => {
  it('an overload is a declaration even when its parameters are function or object types (it was taken for a definition)', async () => {
    const r = await parse('typescript', 'src/mergeMap.ts', MERGE_MAP);
    expect(defs(r)).toEqual([
      'function mergeMap@3 <T, O>(project: (value: T, index: number) => O, concurrent?: number): OperatorFunction<T, O> [decl]',
      'function mergeMap@4 <T, O>(project: (value: T) => O, options: { concurrent: number }): OperatorFunction<T, O> [decl]',
      'function mergeMap@5 <T, O>(project: (value: T, index: number) => O, concurrent = Infinity): OperatorFunction<T, O>',
    ]);
  });

  it('a Go function without a body declares one also when its parameters hold braces (interface{})', async () => {
    const r = await parse('go', 'asm.go', 'package p\n\nfunc load(p interface{}) uintptr\n');
    expect(defs(r)).toEqual(['function load@3 (p interface{}) uintptr [decl]']);
  });
});

describe('default exports', () => {
  it('an anonymous default export is a symbol named default: outlined, called through default imports, its calls its own (they were top-level code, the file outlined as empty)', async () => {
    const out = await run(
      {
        'ext/summarize.ts': "import { helper } from './util.js';\n\nexport default function (pi: ExtensionAPI) {\n  pi.on('x', () => helper());\n}\n",
        'ext/arrow.ts': "import { helper } from './util.js';\n\nexport default async (pi: ExtensionAPI): Promise<void> => {\n  helper();\n};\n",
        'ext/panel.ts': 'export default class extends Base {\n  render(): string[] {\n    return [];\n  }\n}\n',
        'ext/util.ts': 'export function helper(): void {}\n',
        'ext/main.ts': "import summarize from './summarize.js';\nexport function load(pi: ExtensionAPI): void {\n  summarize(pi);\n}\n",
      },
      [['code_outline', { path: 'ext' }], ['code_refs', { symbol: 'helper', direction: 'callers' }], ['code_refs', { symbol: 'ext/summarize.ts:default', direction: 'callers' }]],
    );
    expect(out).toEqual([
      [
        'ext/arrow.ts (5 lines)',
        'imports: ./util.js',
        '3 default(pi: ExtensionAPI): Promise<void>',
        'ext/main.ts (4 lines)',
        'imports: ./summarize.js',
        '2 load(pi: ExtensionAPI): void',
        'ext/panel.ts (5 lines)',
        '1 class default extends Base',
        '  2 render(): string[]',
        'ext/summarize.ts (5 lines)',
        'imports: ./util.js',
        '3 default(pi: ExtensionAPI)',
        'ext/util.ts (1 lines)',
        '1 helper(): void',
      ].join('\n'),
      ['callers of helper (ext/util.ts:1):', '  ext/arrow.ts:4 default', '  ext/summarize.ts:4 default'].join('\n'),
      ['callers of default (ext/summarize.ts:3):', '  ext/main.ts:3 load'].join('\n'),
    ]);
  });
});

describe('signatures', () => {
  it('hold no comments: Effect documents each form of a dual API inside its type (a glob, a URL and Python\'s // stay)', async () => {
    const ts = await parse('typescript', 'src/Option.ts', [
      'export const match: {',
      '  /**',
      '   * Performs pattern matching.',
      '   */',
      '  <B, A>(options: { readonly onNone: LazyArg<B> }): (self: Option<A>) => B',
      '  // the data-first form',
      '  <A, B>(self: Option<A>, options: { readonly onNone: LazyArg<B> }): B',
      '} = dual(2, f)',
      'export const GLOB = "src/**/*.ts";',
      'export const URL = "https://x.y/z";',
      'export function f(a: number /* unused */, b: string): void {}',
      '',
    ].join('\n'));
    const py = await parse('python', 'half.py', 'HALF = TOTAL // 2\n');
    expect([...defs(ts), ...defs(py)]).toEqual([
      'const match@1 : { <B, A>(options: { readonly onNone: LazyArg<B> }): (self: Option<A>) => B <A…',
      'const GLOB@9 = "src/**/*.ts"',
      'const URL@10 = "https://x.y/z"',
      'function f@11 (a: number, b: string): void',
      'var HALF@1 = TOTAL // 2',
    ]);
  });
});

describe('code_outline', () => {
  it('a folder cut short names what it left out by its subfolders and files (it said to outline a subfolder, also of a folder without any)', async () => {
    const files: Record<string, string> = { 'src/a/over.ts': 'export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any): void {}\n' };
    for (let i = 0; i < 150; i++) files[`src/a/f${String(i).padStart(3, '0')}.ts`] = `export function a${i}(n: number): void {}\n`;
    for (let i = 0; i < 100; i++) files[`src/b/g${String(i).padStart(3, '0')}.ts`] = `export function b${i}(n: number): void {}\n`;
    files['src/z.ts'] = 'export function z(): void {}\n';
    const [out] = await run(files, [['code_outline', { path: 'src' }]]);
    const lines = out!.split('\n');
    // The folder's own file first, then its subfolders'; what did not fit is named by subfolder.
    expect({ first: lines[0], over: lines.slice(302, 304), shown: lines.length, last: lines.slice(-2) }).toEqual({
      first: 'src/z.ts (1 lines)',
      over: ['src/a/over.ts (3 lines)', '3 f(a)'],
      shown: 402,
      last: ['[… 52 more files not shown: b/ (52 files); outline one of them]', '[members of the files from src/a/f099.ts on are not shown; outline one file for them]'],
    });
  });

  it('without parameter types, overloads are left to their implementation (each read as it)', async () => {
    const r = await parse('typescript', 'src/over.ts', 'export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any): void {}\n');
    expect(outlineFile(r, 2)).toEqual({ lines: ['src/over.ts (3 lines)', '3 f(a)'], shortened: true });
  });

  it('names imported or re-exported hold no comments (Effect\'s Schema.ts re-exports with a doc on each name: the names were the docs, the outline showed them, no call through them resolved)', async () => {
    const reexport = 'export {\n  /**\n   * @category decoding\n   */\n  decodeSync,\n  // the unknown form\n  decodeUnknownOption\n} from "./ParseResult.js"';
    expect(jsImports(reexport)).toEqual([
      { local: 'decodeSync', name: 'decodeSync', from: './ParseResult.js', reexport: true },
      { local: 'decodeUnknownOption', name: 'decodeUnknownOption', from: './ParseResult.js', reexport: true },
    ]);
    const [out] = await run(
      {
        'src/ParseResult.ts': 'export function decodeSync(u: unknown): string {\n  return String(u);\n}\n',
        'src/Schema.ts': `${reexport};\n`,
        'src/main.ts': 'import {\n  /** the sync one */ decodeSync\n} from "./Schema.js";\nexport function main(): string {\n  return decodeSync(1);\n}\n',
      },
      [['code_refs', { symbol: 'decodeSync', direction: 'callers' }]],
    );
    expect(out).toEqual(['callers of decodeSync (src/ParseResult.ts:1):', '  src/main.ts:5 main'].join('\n'));
  });

  it('an index file shows what it re-exports (it outlined as empty)', async () => {
    const r = await parse('typescript', 'src/index.ts', [
      'export type { Static, TSchema } from "@sinclair/typebox";',
      'export { Type } from "@sinclair/typebox";',
      'import { helper } from "./util.js";',
      'export * from "./api-registry.js";',
      'export * from "./stream.js";',
      'export type { A, B, C, D, E } from "./types.js";',
      '',
    ].join('\n'));
    expect(outlineFile(r, 0)).toEqual({
      lines: [
        'src/index.ts (6 lines)',
        'imports: ./util.js',
        're-exports: @sinclair/typebox (Static, TSchema, Type), ./api-registry.js, ./stream.js, ./types.js (A, B, C, D, … 1 more)',
      ],
      shortened: false,
    });
  });

  it('a folder too long with members keeps them for its first files and says once from which file on they are left out (it said nothing of members, and the shortening on every file)', async () => {
    const files: Record<string, string> = {};
    for (let f = 0; f < 30; f++) {
      const methods = Array.from({ length: 15 }, (_, m) => `  step${m}(input: string, count: number): void {}`);
      files[`src/c${String(f).padStart(2, '0')}.ts`] = `export class Component${f} {\n${methods.join('\n')}\n}\n`;
    }
    files['src/make.ts'] = 'export function make(kind: string, count: number): void {}\n';
    const [out] = await run(files, [['code_outline', { path: 'src' }]]);
    const lines = out!.split('\n');
    // The first files keep their members; the rest are brief, and one line at the end says from where.
    const brief = Array.from({ length: 8 }, (_, k) => [`src/c${22 + k}.ts (17 lines)`, `1 class Component${22 + k}`]).flat();
    expect({ head: lines.slice(0, 3), tail: lines.slice(-19), n: lines.length }).toEqual({
      head: ['src/c00.ts (17 lines)', '1 class Component0', '  2 step0(input: string, count: number): void'],
      tail: [...brief, 'src/make.ts (1 lines)', '1 make(kind, count)', '[members of the files from src/c22.ts on are not shown; outline one file for them]'],
      n: 22 * 17 + 16 + 3,
    });
  });

  it('parameters without types are named after type parameters, past callbacks and modifiers (getModel(typeof), mergeMap(project), constructor(private))', async () => {
    const r = await parse('typescript', 'src/models.ts', [
      'export function getModel<P extends Known, M extends keyof (typeof MODELS)[P]>(provider: P, modelId: M): Model<M> {',
      '  return lookup(provider, modelId);',
      '}',
      'export function mergeMap<T, O>(project: (value: T, index: number) => O, concurrent = Infinity): Op<T, O> {',
      '  return project;',
      '}',
      'export class Store {',
      '  constructor(private readonly path: string, public ttl?: number) {}',
      '}',
      '',
    ].join('\n'));
    expect(outlineFile(r, 2)).toEqual({
      lines: ['src/models.ts (9 lines)', '1 getModel(provider, modelId)', '4 mergeMap(project, concurrent)', '7 class Store', '  8 constructor(path, ttl?)'],
      shortened: true,
    });
  });
});

describe('getters and setters', () => {
  const BOX = [
    'export class Box<T> {',
    '  get value(): T {',
    '    return this.v;',
    '  }',
    '  set value(v: T) {',
    '    this.v = v;',
    '  }',
    '  get(key: string): T {',
    '    return this.v;',
    '  }',
    '}',
    '',
  ].join('\n');

  it('are shown as get and set, both at once, and no call reaches them by name (they were methods: value(), a call x.value() matched to the getter)', async () => {
    const out = await run(
      { 'src/box.ts': BOX, 'src/use.ts': 'export function read(x: any): number {\n  return x.value() + x.get("k");\n}\n' },
      [['code_outline', { path: 'src/box.ts' }], ['code_symbol', { name: 'Box.value' }], ['code_refs', { symbol: 'read', direction: 'callees' }], ['code_refs', { symbol: 'src/box.ts:2', direction: 'callers' }]],
    );
    expect(out).toEqual([
      ['src/box.ts (11 lines)', '1 class Box<T>', '  2 get value(): T', '  5 set value(v: T)', '  8 get(key: string): T'].join('\n'),
      [
        'src/box.ts:2-4 get Box.value(): T',
        '     2\t  get value(): T {',
        '     3\t    return this.v;',
        '     4\t  }',
        'src/box.ts:5-7 set Box.value(v: T)',
        '     5\t  set value(v: T) {',
        '     6\t    this.v = v;',
        '     7\t  }',
      ].join('\n'),
      ['callees of read (src/use.ts:1):', '  src/use.ts:2 → src/box.ts:8 Box.get (matched by method name only; receiver type unknown)'].join('\n'),
      ['callers of Box.value (src/box.ts:2):', '  no call sites found in the index; a getter is not called: search the text for .value'].join('\n'),
    ]);
  });
});
