// The code index's parsing: per language, the definitions (kind, name, container) and the call
// sites a small real program yields; imports; doc comments; the tokenizer. Real grammars, no mocks.
import { describe, expect, it } from 'vitest';
import { extractFile } from '../src/codeindex/extract.js';
import { jsImports, pythonImports, rustImports } from '../src/codeindex/languages.js';
import { grammarFor } from '../src/codeindex/parsefile.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eachWord, identifiersOf, splitWord, stem, tokenize } from '../src/codeindex/tokenize.js';
import { WordTable } from '../src/codeindex/words.js';
import { qualifiedName, typeName, type FileRecord, type FileTerms } from '../src/codeindex/model.js';

const meta = { size: 0, mtimeMs: 0, hash: '' };
/** A file's terms by name, in the file's own numbering. */
const termNames = (t: FileTerms): string[] => Array.from(t.ids, (id) => t.dictionary[id]!);

async function parse(lang: string, path: string, text: string): Promise<FileRecord> {
  return extractFile(path, text, lang, await grammarFor(lang), meta);
}

/** `kind Container.name@line`, the way a reader checks a definition list. */
const defs = (r: FileRecord) => r.symbols.map((s) => `${s.kind} ${qualifiedName(s)}@${s.line}`);
/** `recv.name@line ← caller`, for every call site. */
const calls = (r: FileRecord) => r.calls.map((c) => `${c.recv ? `${c.recv}.` : ''}${c.name}@${c.line} ← ${c.from >= 0 ? qualifiedName(r.symbols[c.from]!) : 'top'}`);

describe('definitions and calls, per language', () => {
  it('TypeScript: functions, arrow constants, classes and members, interfaces, types, enums, namespaces', async () => {
    const r = await parse('typescript', 'src/a.ts', [
      "import { helper } from './b.js';",
      '/** Adds. */',
      'export function add(a: number, b: number): number { return helper(a) + b; }',
      'export const twice = (x: number): number => add(x, x);',
      'export class Store extends Base {',
      '  private cache = new Map<string, number>();',
      '  constructor(private readonly db: Db) { super(); }',
      '  get(key: string): number | undefined { return this.cache.get(key) ?? this.load(key); }',
      '  load(key: string) { return this.db.read(key); }',
      '}',
      'interface Shape { area(): number }',
      'type Id = string;',
      'enum Color { Red }',
      'namespace Util { export function pad() {} }',
      'const local = 3;',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'function add@3', 'function twice@4', 'class Store@5', 'method Store.constructor@7', 'method Store.get@8', 'method Store.load@9',
      'interface Shape@11', 'type Id@12', 'enum Color@13', 'namespace Util@14', 'function Util.pad@14', 'const local@15',
    ]);
    expect(calls(r)).toEqual(['helper@3 ← add', 'add@4 ← twice', 'Map@6 ← Store', 'this.cache.get@8 ← Store.get', 'this.load@8 ← Store.get', 'this.db.read@9 ← Store.load']);
    expect(r.symbols[0]).toMatchObject({ sig: '(a: number, b: number): number', doc: 'Adds.', exported: true });
    expect(r.symbols[1]).toMatchObject({ sig: '(x: number): number' });
    expect(r.symbols[2]).toMatchObject({ sig: 'extends Base' });
    expect(r.imports).toEqual([{ local: 'helper', name: 'helper', from: './b.js' }]);
    expect(r.bindings).toEqual([
      { name: 'a', type: '', scope: 0 }, { name: 'b', type: '', scope: 0 }, { name: 'x', type: '', scope: 1 },
      { name: 'cache', type: 'Map', scope: 2, field: true }, { name: 'db', type: 'Db', scope: 3 }, { name: 'db', type: 'Db', scope: 2, field: true },
      { name: 'key', type: '', scope: 4 }, { name: 'key', type: '', scope: 5 },
    ]);
  });

  it('TSX and JavaScript (with require and class fields)', async () => {
    const tsx = await parse('tsx', 'src/App.tsx', 'export function App() { return <div onClick={() => track()}>{label()}</div>; }\n');
    expect(defs(tsx)).toEqual(['function App@1']);
    expect(calls(tsx)).toEqual(['track@1 ← App', 'label@1 ← App']);
    const js = await parse('javascript', 'lib/x.js', [
      "const { parse } = require('./parse');",
      'class Job { run = () => parse(this.text); stop() { this.run(); } }',
      'function main() { new Job().stop(); }',
    ].join('\n'));
    expect(defs(js)).toEqual(['class Job@2', 'method Job.run@2', 'method Job.stop@2', 'function main@3']);
    expect(calls(js)).toEqual(['require@1 ← top', 'parse@2 ← Job.run', 'this.run@2 ← Job.stop', 'Job@3 ← main', '….stop@3 ← main']);
    expect(js.imports).toEqual([{ local: 'parse', name: 'parse', from: './parse' }]);
  });

  it('Python: classes, methods, docstrings, module variables, self calls', async () => {
    const r = await parse('python', 'pkg/store.py', [
      'from .db import connect as open_db',
      'LIMIT = 10',
      'class Store(Base):',
      '    """Keeps things."""',
      '    def __init__(self, path: str):',
      '        self.db = open_db(path)',
      '    def get(self, key):',
      '        return self.load(key)',
      '    def load(self, key):',
      '        return self.db.read(key)',
      'def main():',
      '    Store("x").get("k")',
    ].join('\n'));
    expect(defs(r)).toEqual(['var LIMIT@2', 'class Store@3', 'method Store.__init__@5', 'method Store.get@7', 'method Store.load@9', 'function main@11']);
    expect(calls(r)).toEqual(['open_db@6 ← Store.__init__', 'self.load@8 ← Store.get', 'self.db.read@10 ← Store.load', 'Store@12 ← main', '….get@12 ← main']);
    expect(r.symbols[1]).toMatchObject({ doc: 'Keeps things.', sig: '(Base)' });
    expect(r.imports).toEqual([{ local: 'open_db', name: 'connect', from: '.db' }]);
  });

  it('Go: functions, methods with their receiver type, structs, interfaces', async () => {
    const r = await parse('go', 'srv/server.go', [
      'package srv',
      'import u "example.com/x/util"',
      '// Server serves.',
      'type Server struct { name string }',
      'type Runner interface { Run() error }',
      'func (s *Server) Start() error { s.listen(); return u.Check() }',
      'func New() *Server { return &Server{} }',
    ].join('\n'));
    expect(defs(r)).toEqual(['struct Server@4', 'interface Runner@5', 'method Runner.Run@5', 'method Server.Start@6', 'function New@7']);
    expect(calls(r)).toEqual(['s.listen@6 ← Server.Start', 'u.Check@6 ← Server.Start']);
    expect(r.symbols[0]!.doc).toBe('Server serves.');
    expect(r.imports).toEqual([{ local: 'u', name: '*', from: 'example.com/x/util' }]);
  });

  it('Rust: structs, traits, impl blocks and their methods, macros', async () => {
    const r = await parse('rust', 'src/lib.rs', [
      'use crate::util::{helper, other as o};',
      '/// A thing.',
      'pub struct Foo { x: i32 }',
      'pub trait Greet { fn hi(&self); }',
      'impl Greet for Foo { fn hi(&self) { self.go(); helper(); } }',
      'impl Foo { pub fn new() -> Self { Foo::make() } }',
      'macro_rules! shout { () => {} }',
    ].join('\n'));
    expect(defs(r)).toEqual(['struct Foo@3', 'trait Greet@4', 'method Greet.hi@4', 'impl Foo@5', 'method Foo.hi@5', 'impl Foo@6', 'method Foo.new@6', 'macro shout@7']);
    expect(calls(r)).toEqual(['self.go@5 ← Foo.hi', 'helper@5 ← Foo.hi', 'Foo.make@6 ← Foo.new']);
    expect(r.imports).toEqual([{ local: 'helper', name: 'helper', from: 'crate::util' }, { local: 'o', name: 'other', from: 'crate::util' }]);
  });

  it('module-level variables are variables, not constants: let and var, Rust static mut', async () => {
    const ts = await parse('typescript', 'src/state.ts', [
      'export let counter = 0;',
      'var legacy = 1, other = 2;',
      'export const LIMIT = 10;',
      'let handler = (e: Event): void => {};',
    ].join('\n'));
    expect(ts.symbols.map((s) => `${s.kind} ${s.name}@${s.line} ${s.sig}`)).toEqual([
      'var counter@1 = 0',
      'var legacy@2 = 1',
      'var other@2 = 2',
      'const LIMIT@3 = 10',
      'function handler@4 (e: Event): void',
    ]);
    const rs = await parse('rust', 'src/lib.rs', ['pub static NAME: &str = "x";', 'static mut COUNT: u32 = 0;', 'pub(crate) static mut SEEN: bool = false;', 'const MAX: usize = 3;'].join('\n'));
    expect(defs(rs)).toEqual(['const NAME@1', 'var COUNT@2', 'var SEEN@3', 'const MAX@4']);
  });

  it('Java and C#: classes, constructors, methods, nested types', async () => {
    const java = await parse('java', 'src/Foo.java', [
      'import a.c.Util;',
      'public class Foo extends Bar {',
      '  public Foo() { init(); }',
      '  String run(int a) { Util.go(a); return new Foo().toString(); }',
      '  interface Inner { void m(); }',
      '}',
    ].join('\n'));
    expect(defs(java)).toEqual(['class Foo@2', 'method Foo.Foo@3', 'method Foo.run@4', 'interface Foo.Inner@5', 'method Inner.m@5']);
    expect(calls(java)).toEqual(['init@3 ← Foo.Foo', 'Util.go@4 ← Foo.run', 'Foo@4 ← Foo.run', '….toString@4 ← Foo.run']);
    const cs = await parse('csharp', 'src/Foo.cs', 'namespace A { public class Foo { public void Run() { Helper(); Util.Go(); } } }\n');
    expect(defs(cs)).toEqual(['namespace A@1', 'class A.Foo@1', 'method Foo.Run@1']);
    expect(calls(cs)).toEqual(['Helper@1 ← Foo.Run', 'Util.Go@1 ← Foo.Run']);
  });

  it('C and C++ (the cpp grammar): functions, classes, out-of-class methods, prototypes', async () => {
    const c = await parse('cpp', 'src/m.c', ['int helper(int a);', '// Adds.', 'int add(int a, int b) { return helper(a) + b; }', 'static const char *name(void) { return "x"; }'].join('\n'));
    expect(defs(c)).toEqual(['function helper@1', 'function add@3', 'function name@4']);
    expect(c.symbols[0]!.decl).toBe(true);
    expect(calls(c)).toEqual(['helper@3 ← add']);
    const cpp = await parse('cpp', 'src/m.cpp', ['namespace ns { class Foo { public: void run() { this->go(); } }; }', 'void Foo::out(int q) { obj.call(); ns::util(); }'].join('\n'));
    expect(defs(cpp)).toEqual(['namespace ns@1', 'class ns.Foo@1', 'method Foo.run@1', 'method Foo.out@2']);
    expect(calls(cpp)).toEqual(['this.go@1 ← Foo.run', 'obj.call@2 ← Foo.out', 'ns.util@2 ← Foo.out']);
  });

  it('Ruby, PHP and Bash', async () => {
    const rb = await parse('ruby', 'lib/foo.rb', ['module M', '  class Foo < Bar', '    def run(a)', '      helper(a)', '      self.other', '    end', '  end', 'end'].join('\n'));
    expect(defs(rb)).toEqual(['module M@1', 'class M.Foo@2', 'method Foo.run@3']);
    expect(calls(rb)).toEqual(['helper@4 ← Foo.run', 'self.other@5 ← Foo.run']);
    const php = await parse('php', 'src/Foo.php', ['<?php', 'class Foo { public function run($a) { helper($a); $this->go(); Util::make(); } }', 'function top() { return new Foo(); }'].join('\n'));
    expect(defs(php)).toEqual(['class Foo@2', 'method Foo.run@2', 'function top@3']);
    expect(calls(php)).toEqual(['helper@2 ← Foo.run', '$this.go@2 ← Foo.run', 'Util.make@2 ← Foo.run', 'Foo@3 ← top']);
    const sh = await parse('bash', 'bin/build.sh', ['#!/bin/bash', '# Builds.', 'build() {', '  helper "$1"', '}', 'build x'].join('\n'));
    expect(defs(sh)).toEqual(['function build@3']);
    expect(sh.symbols[0]!.doc).toBe('Builds.');
    expect(calls(sh)).toEqual(['helper@4 ← build', 'build@6 ← top']);
  });
});

describe('what a parse cannot give', () => {
  it('a file with syntax errors keeps the symbols that parsed and says so', async () => {
    const r = await parse('typescript', 'src/bad.ts', 'export function ok() { return 1; }\nfunction broken( {\n');
    expect(r.note).toBe('syntax_errors');
    expect(defs(r)[0]).toBe('function ok@1');
  });

  it('without a grammar the file is still searchable as text, and says why', async () => {
    const r = extractFile('src/a.ts', 'export function ok() { return searchable_word; }\n', 'typescript', { error: 'the typescript grammar did not load: gone' }, meta);
    expect({ note: r.note, detail: r.detail, symbols: r.symbols, terms: termNames(r.terms!).includes('searchable_word') }).toEqual({
      note: 'no_grammar', detail: 'the typescript grammar did not load: gone', symbols: [], terms: true,
    });
  });

  it("counts each chunk's terms per field, and the whole file's as their sum with the path once", async () => {
    const text = ['// Loads the config.', 'export function loadConfig(path: string) {', '  return readConfig(path);', '}', 'const config = loadConfig("a");', ''].join('\n');
    const r = await parse('typescript', 'src/config/config.ts', text);
    const names = termNames(r.terms!);
    // Each term with its [name, signature, doc, body, path] counts; the path's "config" twice (folder and file).
    const decode = ({ at, n }: { at: number; n: number }) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => {
        const tf = r.terms!.data[at + n + i]!;
        return [names[r.terms!.data[at + i]!]!, [tf & 15, (tf >>> 4) & 15, (tf >>> 8) & 31, (tf >>> 13) & 1023, (tf >>> 23) & 15]];
      }).sort(([a], [b]) => (a! < b! ? -1 : 1)));
    expect({ chunks: r.terms!.chunks.map((c) => ({ sym: c.sym, lengths: c.lengths, terms: decode(c) })), whole: { lengths: r.terms!.whole.lengths, terms: decode(r.terms!.whole) } }).toEqual({
      chunks: [
        { sym: 0, lengths: [3, 2, 2, 12, 4], terms: {
          config: [1, 0, 1, 2, 2], export: [0, 0, 0, 1, 0], function: [0, 0, 0, 1, 0], load: [1, 0, 1, 1, 0], loadconfig: [1, 0, 0, 1, 0], path: [0, 1, 0, 2, 0],
          read: [0, 0, 0, 1, 0], readconfig: [0, 0, 0, 1, 0], return: [0, 0, 0, 1, 0], src: [0, 0, 0, 0, 1], string: [0, 1, 0, 1, 0], ts: [0, 0, 0, 0, 1],
        } },
        { sym: 1, lengths: [1, 3, 0, 4, 4], terms: { config: [1, 1, 0, 2, 2], load: [0, 1, 0, 1, 0], loadconfig: [0, 1, 0, 1, 0], src: [0, 0, 0, 0, 1], ts: [0, 0, 0, 0, 1] } },
      ],
      whole: { lengths: [4, 5, 2, 16, 4], terms: {
        config: [2, 1, 1, 4, 2], export: [0, 0, 0, 1, 0], function: [0, 0, 0, 1, 0], load: [1, 1, 1, 2, 0], loadconfig: [1, 1, 0, 2, 0], path: [0, 1, 0, 2, 0],
        read: [0, 0, 0, 1, 0], readconfig: [0, 0, 0, 1, 0], return: [0, 0, 0, 1, 0], src: [0, 0, 0, 0, 1], string: [0, 1, 0, 1, 0], ts: [0, 0, 0, 0, 1],
      } },
    });
  });

  it('a generated file is left out of the index', async () => {
    const r = await parse('typescript', 'src/models.ts', '// This file is auto-generated by scripts/gen.ts\nexport const A = 1;\n');
    expect({ note: r.note, symbols: r.symbols.length, chunks: r.terms }).toEqual({ note: 'generated', symbols: 0, chunks: undefined });
  });

  it('a generated file says so below its license header too; words in code or docs there do not make one', async () => {
    const license = ['<?php', '/**', ' * Copyright 2007 Google Inc.', ' *', ' * Licensed under the Apache License, Version 2.0 (the "License");', ' * you may not use this file except in compliance with the License.', ' */'];
    const protoc = await parse('php', 'api/source_pb.php', [...license, '# Generated by the protocol buffer compiler. DO NOT EDIT!', '# source: api/source.proto', 'namespace api;', 'class SourceLocation {}'].join('\n'));
    const written = await parse('php', 'api/banner.php', [...license, 'namespace api;', '/** Marks a template auto-generated by the admin pages. */', 'function banner() { return "DO NOT EDIT"; }'].join('\n'));
    expect([protoc.note, written.note, written.symbols.map((s) => s.name)]).toEqual(['generated', undefined, ['banner']]);
  });
});

describe('imports as written', () => {
  it('ES modules: default, namespace, named with aliases and types, re-exports, require', () => {
    expect(jsImports("import def, { a, b as c, type T } from './x.js';")).toEqual([
      { local: 'def', name: 'default', from: './x.js' }, { local: 'a', name: 'a', from: './x.js' }, { local: 'c', name: 'b', from: './x.js' }, { local: 'T', name: 'T', from: './x.js' },
    ]);
    expect(jsImports("import * as ns from '../y';")).toEqual([{ local: 'ns', name: '*', from: '../y' }]);
    expect(jsImports("export { z, w as v } from './z.js';")).toEqual([{ local: 'z', name: 'z', from: './z.js', reexport: true }, { local: 'v', name: 'w', from: './z.js', reexport: true }]);
    expect(jsImports("export * from './all.js';")).toEqual([{ local: '*', name: '*', from: './all.js', reexport: true }]);
    expect(jsImports("import './side-effect.js';")).toEqual([]);
  });

  it('Python and Rust', () => {
    expect(pythonImports('import os.path as p')).toEqual([{ local: 'p', name: '*', from: 'os.path' }]);
    expect(pythonImports('from ..pkg import (a, b as c)')).toEqual([{ local: 'a', name: 'a', from: '..pkg' }, { local: 'c', name: 'b', from: '..pkg' }]);
    expect(rustImports('use std::{fs::{self, File}, io as stdio};')).toEqual([
      { local: 'fs', name: '*', from: 'std::fs' }, { local: 'File', name: 'File', from: 'std::fs' }, { local: 'stdio', name: 'io', from: 'std' },
    ]);
  });

  it('types reduce to the class they name', () => {
    expect(['Foo<T> | undefined', 'readonly Bar', 'string[]', 'A | B', 'ns.Baz', 'Optional[Qux]', 'number', 'any'].map(typeName)).toEqual(['Foo', 'Bar', '', '', 'Baz', 'Qux', '', undefined]);
  });
});

describe('the tokenizer', () => {
  it('splits camelCase, PascalCase, snake_case, acronyms and digits, keeping the whole identifier', () => {
    expect(tokenize('parseHTTPResponse')).toEqual(['parsehttpresponse', 'pars', 'http', 'respons']);
    expect(tokenize('MAX_FILE_BYTES utf8Decode')).toEqual(['max_file_bytes', 'max', 'file', 'byte', 'utf8decode', 'utf', 'decod']);
    expect(tokenize('the cache of a session')).toEqual(['cach', 'session']);
  });

  it('stems alike what code and prose write differently', () => {
    expect(['matching', 'matches', 'match', 'caches', 'cached', 'handled', 'handling', 'running', 'named', 'name', 'status', 'class'].map(stem)).toEqual([
      'match', 'match', 'match', 'cach', 'cach', 'handl', 'handl', 'run', 'name', 'name', 'status', 'class',
    ]);
  });

  it('finds the identifiers in a query: code-shaped words, calls, dotted paths, or a lone word', () => {
    expect(identifiersOf('why does loadSession fail on session_start')).toEqual(['loadSession', 'session_start']);
    expect(identifiersOf('ctx.ui.getEditorText() returns stale text')).toEqual(['ctx', 'ui', 'getEditorText']);
    expect(identifiersOf('compaction')).toEqual(['compaction']);
    expect(identifiersOf('how is the prompt cached')).toEqual([]);
    expect(identifiersOf('handle clipboard fallback\\n\\nCloses #1722')).toEqual([]);
  });
});

describe('the word table', () => {
  it('counts the same terms as splitting every word, also when it fills up and starts again', () => {
    // Real text: this project's own sources, with words over 64 characters, non-ASCII words and a range inside one.
    const text = ['codeindex/chunks.ts', 'codeindex/search.ts', 'i18n/catalogue.ts'].map((f) => readFileSync(join(import.meta.dirname, '..', 'src', f), 'utf8')).join('\n') + ` ${'x'.repeat(65)} 飞鱼索引 naïveCafé überCount`;
    const names: string[] = [];
    const ids = new Map<string, number>();
    const termsOf = (word: string) => splitWord(word).map((t) => ids.get(t) ?? (ids.set(t, names.push(t) - 1), names.length - 1));
    const expected: string[] = [];
    eachWord(text, 7, text.length - 3, (word) => expected.push(...splitWord(word).map((t) => `${t}@2`)));
    for (const table of [new WordTable(termsOf), new WordTable(termsOf, 50)]) {
      const got: string[] = [];
      const n = table.count(text, 7, text.length - 3, { add: (id, field) => got.push(`${names[id]}@${field}`) }, 2);
      expect({ n, got }).toEqual({ n: expected.length, got: expected });
    }
    expect(expected.length).toBeGreaterThan(2000);
  });
});
