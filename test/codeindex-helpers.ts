// Shared by the code index tests: the parse worker bundled as build.mjs bundles it, a workspace
// of modules that call each other in a chain, a file parsed on its own, and the index's tools run
// on a workspace of given files.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { onTestFinished } from 'vitest';
import { extractFile } from '../src/codeindex/extract.js';
import { openCodeIndex } from '../src/codeindex/index.js';
import { qualifiedName, type FileRecord } from '../src/codeindex/model.js';
import { grammarFor } from '../src/codeindex/parsefile.js';
import { workspace } from './tools-helpers.js';

export const SRC = join(import.meta.dirname, '..', 'src');

/** The worker bundled as build.mjs does, somewhere its packages resolve from (under node_modules); its folder names its processes. */
export async function workerScript(): Promise<string> {
  const dir = mkdtempSync(join(SRC, '..', 'node_modules', '.codeindex-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'codeindex-worker.js');
  await build({ entryPoints: [join(SRC, 'codeindex', 'worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return outfile;
}

/** A chain of `n` modules, each calling the one before. */
export function chain(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const previous = i > 0 ? `import { task${i - 1} } from './m${i - 1}.js';\n` : '';
    files[`src/m${i}.ts`] = `${previous}export function task${i}(n: number): number {\n  return ${i > 0 ? `task${i - 1}(n) + ` : ''}n;\n}\n`;
  }
  return files;
}

/** `text` parsed as `lang`, as if it were the file `path` (nothing on disk). */
export async function parse(lang: string, path: string, text: string): Promise<FileRecord> {
  return extractFile(path, text, lang, await grammarFor(lang), { size: 0, mtimeMs: 0, hash: '' });
}

/** `kind Container.name@line sig`, the way a reader checks a definition list. */
export const defs = (r: FileRecord): string[] => r.symbols.map((s) => `${s.kind} ${qualifiedName(s)}@${s.line} ${s.sig}${s.decl ? ' [decl]' : ''}`);

/** Indexes a workspace of `files` and runs each tool call on it: the outputs, in order. */
export async function run(files: Record<string, string>, calls: [string, Record<string, unknown>][]): Promise<string[]> {
  const ctx = await workspace(files);
  const handle = openCodeIndex({ root: ctx.root, stateDir: join(ctx.root, '..', 'state'), env: process.env, mode: 'on' });
  await handle.ready();
  const out: string[] = [];
  for (const [tool, args] of calls) out.push((await handle.tools.find((t) => t.name === tool)!.run(args, ctx)).output);
  await handle.close();
  return out;
}

// RxJS's mergeMap, shortened: overloads whose parameters are functions and object types.
export const MERGE_MAP = [
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
