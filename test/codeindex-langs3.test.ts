// The code index on what real Java, Python, Ruby and Go code showed next: the JDK's constants,
// annotation types and records (java.base/java/util), classes nested in classes (CPython's
// argparse.py, Ruby's csv.rb), and comments above a definition that are no doc (Go's runtime
// pragmas, Ruby's magic comments, license headers).
import { describe, expect, it } from 'vitest';
import { qualifiedName } from '../src/codeindex/model.js';
import { defs, parse, run } from './codeindex-helpers.js';

const HASHMAP = [
  'package java.util;',
  '',
  'public class HashMap<K,V> extends AbstractMap<K,V> implements Map<K,V> {',
  '    @java.io.Serial',
  '    private static final long serialVersionUID = 362498820763181265L;',
  '',
  '    /**',
  '     * The default initial capacity - MUST be a power of two.',
  '     */',
  '    static final int DEFAULT_INITIAL_CAPACITY = 1 << 4; // aka 16',
  '',
  '    static final int TREEIFY_THRESHOLD = 8, UNTREEIFY_THRESHOLD = 6;',
  '',
  '    static final Comparator<Object> NATURAL = new Comparator<>() {',
  '        public int compare(Object a, Object b) { return 0; }',
  '    };',
  '',
  '    transient Node<K,V>[] table;',
  '    final float loadFactor;',
  '',
  '    static class Node<K,V> implements Map.Entry<K,V> {',
  '        final int hash;',
  '        Node(int hash) { this.hash = hash; }',
  '        public final K getKey() { return null; }',
  '    }',
  '',
  '    public int size() { return 0; }',
  '}',
  '',
].join('\n');

describe('Java', () => {
  it('static final fields are constants with type and value; instance fields are not symbols; what a constant holds is local to it', async () => {
    const r = await parse('java', 'java/util/HashMap.java', HASHMAP);
    expect(defs(r)).toEqual([
      'class HashMap@3 <K,V> extends AbstractMap<K,V> implements Map<K,V>',
      'const HashMap.serialVersionUID@4 : long = 362498820763181265L',
      'const HashMap.DEFAULT_INITIAL_CAPACITY@10 : int = 1 << 4',
      'const HashMap.TREEIFY_THRESHOLD@12 : int = 8',
      'const HashMap.UNTREEIFY_THRESHOLD@12 : int = 6',
      'const HashMap.NATURAL@14 : Comparator<Object> = new Comparator<>() { public int compare(Object a, Object b) { return 0; } }',
      'class HashMap.Node@21 <K,V> implements Map.Entry<K,V>',
      'method Node.Node@23 (int hash)',
      'method Node.getKey@24 (): K',
      'method HashMap.size@27 (): int',
    ]);
    expect(r.symbols[2]).toEqual({ name: 'DEFAULT_INITIAL_CAPACITY', kind: 'const', container: 'HashMap', line: 10, endLine: 10, sig: ': int = 1 << 4', doc: 'The default initial capacity - MUST be a power of two.', exported: true });
    expect(r.symbols[1]!.exported).toBe(false);
  });

  it('interface fields are constants; annotation types and their elements; compact constructors; enum constants are not symbols (as in TypeScript, Rust, C#)', async () => {
    const r = await parse('java', 'java/lang/annotation/Retention.java', [
      'package java.lang.annotation;',
      '',
      '@Documented',
      '@Retention(RetentionPolicy.RUNTIME)',
      '@Target(ElementType.ANNOTATION_TYPE)',
      'public @interface Retention {',
      '    RetentionPolicy value();',
      '    String since() default "";',
      '}',
      '',
      'interface Spliterator<T> {',
      '    public static final int ORDERED    = 0x00000010;',
      '    int DISTINCT   = 0x00000001;',
      '    boolean tryAdvance(Consumer<? super T> action);',
      '}',
      '',
      'record KeyValue<K, V>(K key, V value) {',
      '    KeyValue {',
      '        Objects.requireNonNull(key);',
      '    }',
      '}',
      '',
      'enum TimeUnit {',
      '    NANOSECONDS(TimeUnit.NANO_SCALE),',
      '    SECONDS(TimeUnit.SECOND_SCALE);',
      '    private static final long NANO_SCALE = 1L;',
      '    private final long scale;',
      '    TimeUnit(long s) { this.scale = s; }',
      '}',
      '',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'interface Retention@3 ',
      'method Retention.value@7 (): RetentionPolicy [decl]',
      'method Retention.since@8 (): String default "" [decl]',
      'interface Spliterator@11 <T>',
      'const Spliterator.ORDERED@12 : int = 0x00000010',
      'const Spliterator.DISTINCT@13 : int = 0x00000001',
      'method Spliterator.tryAdvance@14 (Consumer<? super T> action): boolean [decl]',
      'class KeyValue@17 <K, V>(K key, V value)',
      'method KeyValue.KeyValue@18 ',
      'enum TimeUnit@23 ',
      'const TimeUnit.NANO_SCALE@26 : long = 1L',
      'method TimeUnit.TimeUnit@28 (long s)',
    ]);
  });

  it('outlines constants and nested classes under the class that holds them; a member is found by its name with the package', async () => {
    const [outline, symbol] = await run({ 'java/util/HashMap.java': HASHMAP }, [['code_outline', { path: 'java/util/HashMap.java' }], ['code_symbol', { name: 'java.util.HashMap.Node.getKey' }]]);
    expect(symbol).toBe(['java/util/HashMap.java:24-24 method HashMap.Node.getKey(): K', '    24\t        public final K getKey() { return null; }'].join('\n'));
    expect(outline).toBe([
      'java/util/HashMap.java (28 lines)',
      '3 class HashMap<K,V> extends AbstractMap<K,V> implements Map<K,V>',
      '  10 const DEFAULT_INITIAL_CAPACITY: int = 1 << 4',
      '  12 const TREEIFY_THRESHOLD: int = 8',
      '  12 const UNTREEIFY_THRESHOLD: int = 6',
      '  14 const NATURAL: Comparator<Object> = new Comparator<>() { public int compare(Object a, Object b) { return 0; } }',
      '  21 class Node<K,V> implements Map.Entry<K,V>',
      '    23 Node(int hash)',
      '    24 getKey(): K',
      '  27 size(): int',
    ].join('\n'));
  });
});

describe('C#', () => {
  it('const and static readonly fields are constants; other fields are not symbols', async () => {
    const r = await parse('csharp', 'src/Http/HttpVersion.cs', [
      'namespace System.Net',
      '{',
      '    public static class HttpVersion',
      '    {',
      '        public const int MaxHeaderLength = 8192;',
      '        public static readonly Version Version11 = new Version(1, 1);',
      '        private static int s_count;',
      '        private readonly string _name;',
      '    }',
      '}',
      '',
    ].join('\n'));
    expect(defs(r)).toEqual([
      'namespace System.Net@1 ',
      'class System.Net.HttpVersion@3 ',
      'const HttpVersion.MaxHeaderLength@5 : int = 8192',
      'const HttpVersion.Version11@6 : Version = new Version(1, 1)',
    ]);
  });
});

const ARGPARSE = [
  'class HelpFormatter(object):',
  '    """Formatter for generating usage messages and argument help strings."""',
  '',
  '    def __init__(self, prog, indent_increment=2):',
  '        self._root_section = self._Section(self, None)',
  '',
  '    class _Section(object):',
  '',
  '        def __init__(self, formatter, parent, heading=None):',
  '            self.formatter = formatter',
  '',
  '        def format_help(self):',
  '            return self.formatter._join_parts([])',
  '',
  '    def format_help(self):',
  '        help = self._root_section.format_help()',
  '        return help',
  '',
  '',
  'class _SubParsersAction(Action):',
  '',
  '    class _ChoicesPseudoAction(Action):',
  '',
  '        def __init__(self, name, aliases, help):',
  '            pass',
  '',
].join('\n');

describe('nested classes', () => {
  it("a nested class's members are named through the classes around them: code_symbol takes the full name and the short one, the outline nests them", async () => {
    const out = await run({ 'argparse.py': ARGPARSE }, [
      ['code_outline', { path: 'argparse.py' }],
      ['code_symbol', { name: 'HelpFormatter._Section.__init__' }],
      ['code_symbol', { name: '_Section.__init__' }],
      ['code_symbol', { name: 'Other._Section.__init__' }],
      ['code_refs', { symbol: 'HelpFormatter._Section.format_help', direction: 'callers' }],
    ]);
    expect(out[0]).toBe([
      'argparse.py (25 lines)',
      '1 class HelpFormatter(object)',
      '  4 __init__(self, prog, indent_increment=2)',
      '  7 class _Section(object)',
      '    9 __init__(self, formatter, parent, heading=None)',
      '    12 format_help(self)',
      '  15 format_help(self)',
      '20 class _SubParsersAction(Action)',
      '  22 class _ChoicesPseudoAction(Action)',
      '    24 __init__(self, name, aliases, help)',
    ].join('\n'));
    const source = [
      'argparse.py:9-10 method HelpFormatter._Section.__init__(self, formatter, parent, heading=None)',
      '     9\t        def __init__(self, formatter, parent, heading=None):',
      '    10\t            self.formatter = formatter',
    ].join('\n');
    expect(out[1]).toBe(source);
    expect(out[2]).toBe(source);
    expect(out[3]).toBe('no symbol Other._Section.__init__ found; __init__ is: argparse.py:4 HelpFormatter.__init__, argparse.py:9 HelpFormatter._Section.__init__, argparse.py:24 _SubParsersAction._ChoicesPseudoAction.__init__');
    expect(out[4]).toBe(['callers of HelpFormatter._Section.format_help (argparse.py:12):', '  argparse.py:16 HelpFormatter.format_help (ambiguous)'].join('\n'));
  });

  it('a name written with the module or namespace around the class still finds its member (the qualified name stops at them)', async () => {
    const out = await run({
      'net/http.rb': ['module Net', '  class HTTP < Protocol', '    def get(path, initheader = nil)', '      request(Get.new(path, initheader))', '    end', '  end', 'end', ''].join('\n'),
    }, [['code_symbol', { name: 'Net::HTTP#get' }], ['code_symbol', { name: 'Other::HTTP#get' }]]);
    expect(out).toEqual([
      ['net/http.rb:3-5 method HTTP.get(path, initheader = nil)', '     3\t    def get(path, initheader = nil)', '     4\t      request(Get.new(path, initheader))', '     5\t    end'].join('\n'),
      'no symbol Other::HTTP#get found; get is: net/http.rb:3 HTTP.get',
    ]);
  });

  it("Ruby: the outer class's methods after a nested class are not shown as the nested class's", async () => {
    const [outline] = await run({
      'csv.rb': [
        '# frozen_string_literal: true',
        '',
        'class CSV',
        '  # The error thrown when the parser encounters illegal CSV formatting.',
        '  class MalformedCSVError < RuntimeError',
        '    attr_reader :line_number',
        '',
        '    def initialize(message, line_number)',
        '      @line_number = line_number',
        '      super("#{message} in line #{line_number}.")',
        '    end',
        '  end',
        '',
        '  class << self',
        '    def instance(data = $stdout, **options)',
        '      new(data, **options)',
        '    end',
        '  end',
        '',
        '  def initialize(data, col_sep: ",")',
        '    @io = data',
        '  end',
        'end',
        '',
      ].join('\n'),
    }, [['code_outline', { path: 'csv.rb' }]]);
    expect(outline).toBe([
      'csv.rb (23 lines)',
      '3 class CSV',
      '  5 class MalformedCSVError < RuntimeError',
      '    6 line_number attr_reader',
      '    8 initialize(message, line_number)',
      '  15 instance(data = $stdout, **options)',
      '  20 initialize(data, col_sep: ",")',
    ].join('\n'));
  });
});

describe('comments that are no doc', () => {
  it('Go: pragmas above a function are skipped, the doc above them still counts; build constraints and the license header are no doc; a line comment ending in */ is a line comment', async () => {
    const r = await parse('go', 'runtime/internal/atomic/atomic_amd64.go', [
      '// Copyright 2009 The Go Authors. All rights reserved.',
      '// Use of this source code is governed by a BSD-style',
      '// license that can be found in the LICENSE file.',
      '//go:build amd64',
      '// +build amd64',
      'package atomic',
      '',
      '//go:linkname Load',
      '//go:nosplit',
      '//go:noinline',
      'func Load(ptr *uint32) uint32 {',
      '\treturn *ptr',
      '}',
      '',
      '// Loadp loads a pointer atomically.',
      '//',
      '//go:nosplit',
      'func Loadp(ptr unsafe.Pointer) unsafe.Pointer { //nolint:all',
      '\treturn *(*unsafe.Pointer)(ptr)',
      '}',
      '',
      '// Get name: /first(first|second)*/',
      '// Do not set d.err if the name is missing.',
      'func (d *Decoder) name() (s string, ok bool) {',
      '\treturn',
      '}',
      '',
    ].join('\n'));
    expect(r.symbols).toEqual([
      { name: 'Load', kind: 'function', line: 11, endLine: 13, sig: '(ptr *uint32) uint32', exported: true },
      { name: 'Loadp', kind: 'function', line: 18, endLine: 20, sig: '(ptr unsafe.Pointer) unsafe.Pointer', doc: 'Loadp loads a pointer atomically.', exported: true },
      { name: 'name', kind: 'method', container: 'Decoder', line: 24, endLine: 26, sig: '() (s string, ok bool)', doc: 'Get name: /first(first|second)*/', exported: false },
    ]);
  });

  it('Ruby and Python: magic comments, a #! line and a license header opening the file are no doc', async () => {
    const rb = await parse('ruby', 'lib/set.rb', [
      '#!/usr/bin/env ruby',
      '# frozen_string_literal: true',
      'class Set',
      '  # rubocop:disable Style/Foo',
      '  def add(o)',
      '  end',
      'end',
      '',
    ].join('\n'));
    expect(rb.symbols).toEqual([
      { name: 'Set', kind: 'class', line: 3, endLine: 7, sig: '', exported: true },
      { name: 'add', kind: 'method', container: 'Set', line: 5, endLine: 6, sig: '(o)', exported: true },
    ]);
    const py = await parse('python', 'Lib/encodings/idna.py', [
      '# -*- coding: utf-8 -*-',
      'def nameprep(label):',
      '    return label',
      '',
      '# Licensed to the PSF under a contributor agreement.',
      '# See the LICENSE file for details.',
      '',
      '# This assumes query strings are well formed.',
      '# noqa: E501',
      'def ToASCII(label):',
      '    return label',
      '',
    ].join('\n'));
    expect(py.symbols).toEqual([
      { name: 'nameprep', kind: 'function', line: 2, endLine: 3, sig: '(label)', exported: true },
      { name: 'ToASCII', kind: 'function', line: 10, endLine: 11, sig: '(label)', doc: 'This assumes query strings are well formed.', exported: true },
    ]);
  });

  it('TypeScript and C: lint and compiler directives are skipped, the doc above them counts; a license block opening the file is no doc', async () => {
    const ts = await parse('typescript', 'src/util.ts', [
      '// SPDX-License-Identifier: MIT',
      'export function first(): void {}',
      '',
      '/** Parses a header value. */',
      '// eslint-disable-next-line @typescript-eslint/no-explicit-any',
      '// @ts-ignore',
      'export function parseHeader(v: any): string { return v; }',
      '',
    ].join('\n'));
    expect(ts.symbols).toEqual([
      { name: 'first', kind: 'function', line: 2, endLine: 2, sig: '(): void', exported: true },
      { name: 'parseHeader', kind: 'function', line: 7, endLine: 7, sig: '(v: any): string', doc: 'Parses a header value.', exported: true },
    ]);
    const c = await parse('cpp', 'src/zutil.c', [
      '/* zutil.c -- target dependent utility functions for the compression library',
      ' * Copyright (C) 1995-2017 Jean-loup Gailly',
      ' * For conditions of distribution and use, see copyright notice in zlib.h',
      ' */',
      'int zlibCompileFlags(void) { return 0; }',
      '',
      '/* Returns the version string. */',
      '#pragma inline',
      'const char *zlibVersion(void) { return "1"; }',
      '',
    ].join('\n'));
    expect(c.symbols).toEqual([
      { name: 'zlibCompileFlags', kind: 'function', line: 5, endLine: 5, sig: '(void): int', exported: true },
      { name: 'zlibVersion', kind: 'function', line: 9, endLine: 9, sig: '(void): const char *', doc: 'Returns the version string.', exported: true },
    ]);
  });

  it('Rust and C#: attributes between the doc and the definition, on one line or several, are skipped', async () => {
    const rust = await parse('rust', 'src/re_unicode.rs', [
      '/// A compiled regular expression for matching Unicode strings.',
      '#[derive(Clone)]',
      '#[cfg_attr(',
      '    feature = "serde",',
      '    derive(Serialize, Deserialize)',
      ')]',
      'pub struct Regex(Exec);',
      '',
      'impl Regex {',
      '    /// Compiles a regular expression.',
      '    #[inline]',
      '    pub fn new(re: &str) -> Result<Regex, Error> { RegexBuilder::new(re).build() }',
      '}',
      '',
    ].join('\n'));
    expect(rust.symbols.map((s) => [qualifiedName(s), s.doc])).toEqual([
      ['Regex', 'A compiled regular expression for matching Unicode strings.'],
      ['Regex', undefined],
      ['Regex.new', 'Compiles a regular expression.'],
    ]);
    const cs = await parse('csharp', 'src/Cache.cs', [
      'namespace App {',
      '    /// <summary>Keeps recent results.</summary>',
      '    [Serializable]',
      '    [DebuggerDisplay("{Count}")]',
      '    public class Cache {',
      '        /// <summary>Drops every entry.</summary>',
      '        [MethodImpl(MethodImplOptions.AggressiveInlining)]',
      '        public void Clear() {}',
      '    }',
      '}',
      '',
    ].join('\n'));
    expect(cs.symbols.filter((s) => s.kind !== 'namespace').map((s) => [qualifiedName(s), s.doc])).toEqual([
      ['App.Cache', '<summary>Keeps recent results.</summary>'],
      ['Cache.Clear', '<summary>Drops every entry.</summary>'],
    ]);
  });
});
