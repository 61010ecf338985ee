// The code index on what real TypeScript showed when its tools were used as the model uses them:
// RxJS's overloads (mergeMap), pi-mono's overloaded getEnvApiKey, its extensions' default exports,
// Effect's generic signatures. Real grammars, files written to disk where a tool runs.
import { describe, expect, it } from 'vitest';
import { defs, parse } from './codeindex-helpers.js';

// RxJS's mergeMap, shortened: overloads whose parameters are functions and object types.
const MERGE_MAP = [
  "import { map } from './map';",
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
      'function mergeMap@2 <T, O>(project: (value: T, index: number) => O, concurrent?: number): OperatorFunction<T, O> [decl]',
      'function mergeMap@3 <T, O>(project: (value: T) => O, options: { concurrent: number }): OperatorFunction<T, O> [decl]',
      'function mergeMap@4 <T, O>(project: (value: T, index: number) => O, concurrent = Infinity): OperatorFunction<T, O>',
    ]);
  });

  it('a Go function without a body declares one also when its parameters hold braces (interface{})', async () => {
    const r = await parse('go', 'asm.go', 'package p\n\nfunc load(p interface{}) uintptr\n');
    expect(defs(r)).toEqual(['function load@3 (p interface{}) uintptr [decl]']);
  });
});
