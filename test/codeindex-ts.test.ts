// The code index on what real TypeScript showed when its tools were used as the model uses them:
// RxJS's overloads (mergeMap), pi-mono's overloaded getEnvApiKey, its extensions' default exports,
// Effect's generic signatures. Real grammars, files written to disk where a tool runs.
import { describe, expect, it } from 'vitest';
import { jsImports } from '../src/codeindex/languages.js';
import { outlineFile } from '../src/codeindex/views.js';
import { defs, parse, run } from './codeindex-helpers.js';

// RxJS's mergeMap, shortened: overloads whose parameters are functions and object types.
const MERGE_MAP = [
  "import { map } from './map';",
  '/** Projects each value to an observable, merged. */',
  'export function mergeMap<T, O>(project: (value: T, index: number) => O, concurrent?: number): OperatorFunction<T, O>;',
  'export function mergeMap<T, O>(project: (value: T) => O, options: { concurrent: number }): OperatorFunction<T, O>;',
  'export function mergeMap<T, O>(',
  '  project: (value: T, index: number) => O,',
  '  concurrent = Infinity',
  '): OperatorFunction<T, O> {',
  '  return map(project);',
  '}',
  '',
].join('\n');

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

describe('code_symbol', () => {
  it('several definitions are listed with their kinds and full names, also when some of them have overloads (the first was shown as if it were the only one)', async () => {
    const out = await run(
      {
        'src/mergeMap.ts': MERGE_MAP,
        'src/map.ts': 'export function map<T>(f: T): T {\n  return f;\n}\n',
        'src/channel.ts': 'export const mergeMap = (f: (n: number) => number) => f;\nexport class Channel {\n  mergeMap(): void {}\n}\n',
      },
      [['code_symbol', { name: 'mergeMap' }], ['code_symbol', { name: 'src/mergeMap.ts:mergeMap' }]],
    );
    expect(out[0]).toEqual(
      ['3 symbols match mergeMap; name one as path:name or path:line:', 'src/channel.ts:1 function mergeMap', 'src/channel.ts:3 method Channel.mergeMap', 'src/mergeMap.ts:5 function mergeMap'].join('\n'),
    );
    expect(out[1]!.split('\n')[0]).toEqual('src/mergeMap.ts:5-10 function mergeMap<T, O>(project: (value: T, index: number) => O, concurrent = Infinity): OperatorFunction<T, O>');
  });

  it('a class cut at 400 lines names the members it did not show (it only said to read on)', async () => {
    const methods = Array.from({ length: 140 }, (_, i) => `  step${i}(): number {\n    return ${i};\n  }`);
    const [out] = await run({ 'src/session.ts': `export class Session {\n  private count = 0;\n${methods.join('\n')}\n}\n` }, [['code_symbol', { name: 'Session' }]]);
    const cut = Array.from({ length: 7 }, (_, i) => `${402 + 3 * i} step${133 + i}`).join(', ');
    expect(out!.split('\n').at(-1)).toEqual(`[… 23 more lines; read_file src/session.ts with offset 401; members not shown: ${cut} (code_symbol Session.name shows one)]`);
  });

  it('a path may start with ./ or be the end of one; a path no file has is said to be none (both found nothing)', async () => {
    const out = await run(
      {
        'packages/ai/src/stream.ts': 'export function streamSimple(): void {}\n',
        'packages/web/src/stream.ts': 'export function connect(): void {}\n',
      },
      [
        ['code_symbol', { name: './packages/ai/src/stream.ts:1' }],
        ['code_symbol', { name: 'stream.ts:streamSimple' }],
        ['code_refs', { symbol: 'web/src/stream.ts:connect', direction: 'callers' }],
        ['code_symbol', { name: 'src/streams.ts:connect' }],
      ],
    );
    const shown = 'packages/ai/src/stream.ts:1-1 function streamSimple(): void\n     1\texport function streamSimple(): void {}';
    expect(out).toEqual([shown, shown, 'callers of connect (packages/web/src/stream.ts:1):\n  no call sites found in the index', 'src/streams.ts is no indexed file; no symbol src/streams.ts:connect found; try code_search']);
  });

  it('says why nothing matched when the index knows: a line in no symbol, past the end, an interface\'s member, an inherited method (it only said to try code_search)', async () => {
    const out = await run(
      {
        'src/tui.ts': [
          "import { join } from 'node:path';",
          '',
          'export interface Component {',
          '  render(width: number): string[];',
          '}',
          'export class Container implements Component {',
          '  render(width: number): string[] {',
          '    return [];',
          '  }',
          '}',
          'export class TUI extends Container {',
          '  private children: Component[] = [];',
          '}',
          '',
        ].join('\n'),
      },
      [
        ['code_symbol', { name: 'src/tui.ts:2' }],
        ['code_symbol', { name: 'src/tui.ts:99' }],
        ['code_symbol', { name: 'Component.render' }],
        ['code_refs', { symbol: 'TUI.render', direction: 'callers' }],
        ['code_symbol', { name: 'Missing.render' }],
      ],
    );
    expect(out).toEqual([
      'no symbol src/tui.ts:2 found: line 2 of src/tui.ts is in no symbol (the next one is Component at line 3); read_file shows it',
      'no symbol src/tui.ts:99 found: src/tui.ts has 13 lines',
      'no symbol Component.render found: interface Component (src/tui.ts:3): its members are not symbols of their own; code_symbol Component shows them',
      'no symbol TUI.render found: class TUI (src/tui.ts:11) has no method render of its own (fields are no symbols); it extends Container: try Container.render; code_symbol TUI shows its source',
      'no symbol Missing.render found; try code_search',
    ]);
  });

  it('Module.name finds the export of the module so named, as a namespace import writes it (Effect.gen found nothing, or an interface Effect)', async () => {
    const out = await run(
      {
        'src/Effect.ts': 'export const gen = (f: () => number): number => f();\n',
        'src/Channel.ts': 'export interface Effect<A> {\n  readonly value: A;\n}\n',
        'src/main.ts': "import * as Effect from './Effect.js';\nexport function main(): number {\n  return Effect.gen(() => 1);\n}\n",
      },
      [['code_symbol', { name: 'Effect.gen' }], ['code_refs', { symbol: 'Effect.gen', direction: 'callers' }], ['code_symbol', { name: 'Effect.run' }]],
    );
    expect(out).toEqual([
      'src/Effect.ts:1-1 function gen(f: () => number): number\n     1\texport const gen = (f: () => number): number => f();',
      'callers of gen (src/Effect.ts:1):\n  src/main.ts:3 main',
      'no symbol Effect.run found: interface Effect (src/Channel.ts:1): its members are not symbols of their own; code_symbol Effect shows them',
    ]);
  });

  it('an overloaded function is shown with its overloads and the doc above them (they were left out, the doc with them)', async () => {
    const [out] = await run({ 'src/mergeMap.ts': MERGE_MAP, 'src/map.ts': 'export function map<T>(f: T): T {\n  return f;\n}\n' }, [['code_symbol', { name: 'mergeMap' }]]);
    expect(out!.split('\n').slice(0, 4)).toEqual([
      'src/mergeMap.ts:5-10 function mergeMap<T, O>(project: (value: T, index: number) => O, concurrent = Infinity): OperatorFunction<T, O>',
      '     2\t/** Projects each value to an observable, merged. */',
      '     3\texport function mergeMap<T, O>(project: (value: T, index: number) => O, concurrent?: number): OperatorFunction<T, O>;',
      '     4\texport function mergeMap<T, O>(project: (value: T) => O, options: { concurrent: number }): OperatorFunction<T, O>;',
    ]);
  });
});

describe('code_refs', () => {
  it('callers: certain before uncertain, code before tests, so the cap cuts the noise (pi-mono\'s getModel showed 80 test lines and cut its callers in src)', async () => {
    const calls = Array.from({ length: 85 }, (_, i) => `load('m${i}');`);
    const [out] = await run(
      {
        'src/models.ts': 'export function load(id: string): string {\n  return id;\n}\n',
        'src/models.test.ts': `import { load } from './models.js';\n${calls.join('\n')}\n`,
        'src/zz/app.ts': "import { load } from '../models.js';\nexport function main(): string {\n  return load('default');\n}\n",
      },
      [['code_refs', { symbol: 'load', direction: 'callers' }]],
    );
    expect(out!.split('\n')).toEqual([
      'callers of load (src/models.ts:1):',
      '  src/zz/app.ts:3 main',
      ...Array.from({ length: 79 }, (_, i) => `  src/models.test.ts:${i + 2} (top level)`),
      '[… 6 more edges not shown]',
    ]);
  });

  it('definitions that share their callers (all matched by name) show the list once (it was repeated for each)', async () => {
    const component = (name: string) => `export class ${name} {\n  handleInput(data: string): void {}\n}\n`;
    const [out] = await run(
      { 'src/box.ts': component('Box'), 'src/input.ts': component('Input'), 'src/main.ts': 'export function feed(c: any): void {\n  c.handleInput("a");\n  c.handleInput("b");\n}\n' },
      [['code_refs', { symbol: 'handleInput', direction: 'callers' }]],
    );
    expect(out).toEqual(
      [
        'callers of Box.handleInput (src/box.ts:2):',
        '  src/main.ts:2 feed (ambiguous)',
        '  src/main.ts:3 feed (ambiguous)',
        '',
        'callers of Input.handleInput (src/input.ts:2):',
        '  the same 2 callers as Box.handleInput above',
      ].join('\n'),
    );
  });

  it('a call on a literal, or on a variable holding one, is the language\'s own: not matched by name to the workspace\'s methods (parseSymbol\'s /^\\d+$/.test() went to GitignoreRules.test)', async () => {
    const [out] = await run(
      {
        'src/rules.ts': 'export class Rules {\n  test(path: string): boolean {\n    return true;\n  }\n  push(rule: string): void {}\n  run(): void {}\n}\n',
        'src/parse.ts': [
          'export function parse(spec: string, h: Handler, x: any): string[] {',
          '  const out = [];',
          "  if (/^\\d+$/.test(spec)) out.push(spec);",
          "  const handler: Handler = { run() {} };",
          '  handler.run();',
          "  return ['a'].concat(x.test(spec));",
          '}',
          'interface Handler {',
          '  run(): void;',
          '}',
          '',
        ].join('\n'),
      },
      [['code_refs', { symbol: 'parse', direction: 'callees' }]],
    );
    expect(out).toEqual(
      [
        'callees of parse (src/parse.ts:1):',
        '  src/parse.ts:5 → src/rules.ts:6 Rules.run (ambiguous)',
        '  src/parse.ts:6 → src/rules.ts:2 Rules.test (matched by method name only; receiver type unknown)',
      ].join('\n'),
    );
  });

  it('a module-level variable\'s type holds in the whole file (pi-tui\'s widthCache.get() went to every get by name: its binding was scoped to its own declaration)', async () => {
    const out = await run(
      {
        'src/utils.ts': [
          "import { Store } from './store.js';",
          'const widthCache = new Map<string, number>();',
          'const store = new Store();',
          'export function width(s: string): number {',
          '  store.get(s);',
          '  return widthCache.get(s) ?? 0;',
          '}',
          '',
        ].join('\n'),
        'src/store.ts': 'export class Store {\n  get(key: string): number {\n    return 0;\n  }\n}\nexport class Auth {\n  get(key: string): number {\n    return 1;\n  }\n}\n',
      },
      [['code_refs', { symbol: 'width', direction: 'callees' }]],
    );
    expect(out).toEqual([['callees of width (src/utils.ts:4):', '  src/utils.ts:5 → src/store.ts:2 Store.get'].join('\n')]);
  });

  it('a literal receiver is one in Python and Rust too', async () => {
    const py = await parse('python', 'a.py', 'def f(items):\n    return ", ".join(items) + [1].index(1)\n');
    const rs = await parse('rust', 'a.rs', 'fn f() -> String {\n    "a".to_string()\n}\n');
    expect([...py.calls, ...rs.calls]).toEqual([
      { name: 'join', line: 2, recv: '<literal>', from: 0 },
      { name: 'index', line: 2, recv: '<literal>', from: 0 },
      { name: 'to_string', line: 2, recv: '<literal>', from: 0 },
    ]);
  });

  it('callers: certain ones before those matched by name', async () => {
    const [out] = await run(
      {
        'src/models.ts': 'export class Store {\n  save(): void {}\n}\n',
        'src/a.ts': 'export function flush(x: any): void {\n  x.save();\n}\n',
        'src/b.ts': "import { Store } from './models.js';\nexport function persist(s: Store): void {\n  s.save();\n}\n",
      },
      [['code_refs', { symbol: 'Store.save', direction: 'callers' }]],
    );
    expect(out).toEqual(['callers of Store.save (src/models.ts:2):', '  src/b.ts:3 persist', '  src/a.ts:2 flush (matched by method name only; receiver type unknown)'].join('\n'));
  });

  it('a call through a default import reaches the default export (it reached nothing)', async () => {
    const [out] = await run(
      {
        'src/format.ts': 'export default function format(n: number): string {\n  return String(n);\n}\n',
        'src/main.ts': "import fmt from './format.js';\nimport format from './format.js';\nexport function main(): string {\n  return fmt(1) + format(2);\n}\n",
      },
      [['code_refs', { symbol: 'format', direction: 'callers' }]],
    );
    // fmt(1) is not followed: the record does not say which definition a named default export is, so the imported name must match it.
    expect(out).toEqual(['callers of format (src/format.ts:1):', '  src/main.ts:4 main'].join('\n'));
  });

  it('an overload is no definition of its own: its implementation alone is shown (each overload came with "no calls into indexed code")', async () => {
    const [out] = await run({ 'src/mergeMap.ts': MERGE_MAP, 'src/map.ts': 'export function map<T>(f: T): T {\n  return f;\n}\n' }, [['code_refs', { symbol: 'src/mergeMap.ts:mergeMap', direction: 'callees' }]]);
    expect(out).toEqual(['callees of mergeMap (src/mergeMap.ts:5):', '  src/mergeMap.ts:9 → src/map.ts:1 map'].join('\n'));
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
    expect({ over: lines.slice(301, 303), shown: lines.length, last: lines.at(-1) }).toEqual({
      over: ['src/a/over.ts (3 lines)', '3 f(a)'],
      shown: 401,
      last: '[… 52 more files not shown, in src/: b/ (51 files), z.ts; outline them]',
    });
  });

  it('without parameter types, overloads are left to their implementation (each read as it)', async () => {
    const r = await parse('typescript', 'src/over.ts', 'export function f(a: string): void;\nexport function f(a: number): void;\nexport function f(a: any): void {}\n');
    expect(outlineFile(r, 2)).toEqual(['src/over.ts (3 lines) [signatures shortened to fit; code_symbol shows one in full]', '3 f(a)']);
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
    expect(outlineFile(r)).toEqual([
      'src/index.ts (6 lines)',
      'imports: ./util.js',
      're-exports: @sinclair/typebox (Static, TSchema, Type), ./api-registry.js, ./stream.js, ./types.js (A, B, C, D, … 1 more)',
    ]);
  });

  it('a folder too long with members says once that members and parameter types were left out (it said nothing of members, and the shortening on every file)', async () => {
    const files: Record<string, string> = {};
    for (let f = 0; f < 30; f++) {
      const methods = Array.from({ length: 15 }, (_, m) => `  step${m}(input: string, count: number): void {}`);
      files[`src/c${String(f).padStart(2, '0')}.ts`] = `export class Component${f} {\n${methods.join('\n')}\n}\n`;
    }
    const expected = Object.keys(files).flatMap((path, f) => [`${path} (17 lines)`, `1 class Component${f}`]);
    files['src/make.ts'] = 'export function make(kind: string, count: number): void {}\n';
    const [out] = await run(files, [['code_outline', { path: 'src' }]]);
    expect(out).toEqual(['[members of classes and other types left out, parameters without types, to fit; code_outline a file for all of it]', ...expected, 'src/make.ts (1 lines)', '1 make(kind, count)'].join('\n'));
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
    expect(outlineFile(r, 2)).toEqual([
      'src/models.ts (9 lines) [signatures shortened to fit; code_symbol shows one in full]',
      '1 getModel(provider, modelId)',
      '4 mergeMap(project, concurrent)',
      '7 class Store',
      '  8 constructor(path, ttl?)',
    ]);
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
