// The code index on what real Java, Python, Ruby and Go code showed next: the JDK's constants,
// annotation types and records (java.base/java/util), classes nested in classes (CPython's
// argparse.py, Ruby's csv.rb), and comments above a definition that are no doc (Go's runtime
// pragmas, Ruby's magic comments, license headers).
import { describe, expect, it } from 'vitest';
import { extractFile } from '../src/codeindex/extract.js';
import { grammarFor } from '../src/codeindex/parsefile.js';
import type { FileRecord } from '../src/codeindex/model.js';

const meta = { size: 0, mtimeMs: 0, hash: '' };

async function parse(lang: string, path: string, text: string): Promise<FileRecord> {
  return extractFile(path, text, lang, await grammarFor(lang), meta);
}

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
});
