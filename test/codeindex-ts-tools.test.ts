// code_symbol and code_refs on what real TypeScript showed when used as the model uses them:
// several definitions and overloads of a name (RxJS's mergeMap), paths written short, members the
// index has no symbol for, callers cut by the cap (pi-mono's getModel), literal receivers,
// module-level variables, namespace imports (Effect.gen). Real grammars, files written to disk.
import { describe, expect, it } from 'vitest';
import { MERGE_MAP, parse, run } from './codeindex-helpers.js';

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
      [
        '3 symbols match mergeMap; name one as path:line:',
        'src/channel.ts:1 function mergeMap(f: (n: number) => number)',
        'src/channel.ts:3 method Channel.mergeMap(): void',
        'src/mergeMap.ts:5 function mergeMap<T, O>(project: (value: T, index: number) => O, concurrent = Infinity): OperatorFunction<T, O>',
      ].join('\n'),
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
    expect(out).toEqual([shown, shown, 'callers of connect (packages/web/src/stream.ts:1):\n  no call sites found in the index', 'src/streams.ts is no source file the index has; code_search or read_file']);
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
      'src/tui.ts:2 is in no symbol (top-level code); the next is src/tui.ts:3 Component; read_file shows the line',
      'src/tui.ts has 13 lines',
      'no symbol Component.render found: interface Component (src/tui.ts:3): its members are not symbols of their own; code_symbol Component shows them; render is: src/tui.ts:7 Container.render',
      'no symbol TUI.render found: class TUI (src/tui.ts:11) has no method render of its own (fields are no symbols); it extends Container: try Container.render; code_symbol TUI shows its source; render is: src/tui.ts:7 Container.render',
      'no symbol Missing.render found; render is: src/tui.ts:7 Container.render',
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
    const calls = Array.from({ length: 85 }, (_, i) => `export function t${i}(): string {\n  return load('m${i}');\n}`);
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
      ...Array.from({ length: 79 }, (_, i) => `  src/models.test.ts:${3 * i + 3} t${i}`),
      '[… 6 more call sites not shown; name a narrower symbol (Class.method, path:name)]',
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
        '  src/main.ts:2,3 feed (ambiguous)',
        '',
        'callers of Input.handleInput (src/input.ts:2):',
        '  [2 uncertain call sites shown or counted above may reach this one too]',
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

  it('one line per caller or callee with the lines of all its call sites, at most 12 of them (each call site had a line of its own: a test file calling 27 times took 27 of the 80)', async () => {
    const calls = Array.from({ length: 15 }, (_, i) => `emit('e${i}');`);
    const out = await run(
      {
        'src/emit.ts': 'export function emit(e: string): void {}\nexport function run(): void {\n  emit("a");\n  emit("b");\n  stop();\n  emit("c");\n}\nfunction stop(): void {}\n',
        'src/emit.test.ts': `import { emit } from './emit.js';\n${calls.join('\n')}\n`,
      },
      [['code_refs', { symbol: 'run', direction: 'callees' }], ['code_refs', { symbol: 'emit', direction: 'callers' }]],
    );
    expect(out).toEqual([
      ['callees of run (src/emit.ts:2):', '  src/emit.ts:3,4,6 → src/emit.ts:1 emit', '  src/emit.ts:5 → src/emit.ts:8 stop'].join('\n'),
      ['callers of emit (src/emit.ts:1):', '  src/emit.ts:3,4,6 run', '  src/emit.test.ts:2,3,4,5,6,7,8,9,10,11,12,13,… 3 more (top level)'].join('\n'),
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

describe('code_search', () => {
  it('says when a name asked for occurs nowhere, so hits sharing its words are not taken for it (they came as if they answered)', async () => {
    const out = await run(
      {
        'src/widgets.ts': 'export function applyWidgets(count: number): number {\n  return count;\n}\n',
        'docs/notes.md': 'The helper renderWidgetTree is planned.\n',
      },
      [['code_search', { query: 'frobnicateWidget' }], ['code_search', { query: 'renderWidgetTree' }]],
    );
    expect(out.map((o) => o.split('\n')[0])).toEqual([
      '[frobnicateWidget occurs nowhere in the workspace; these share words with the query]',
      'docs/notes.md:1 The helper renderWidgetTree is planned.',
    ]);
  });
});
