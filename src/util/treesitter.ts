// The tree-sitter runtime and grammars of @vscode/tree-sitter-wasm, loaded once per process and
// on first use. Grammars are compiled by V8's baseline compiler only: its optimising tier would
// recompile each grammar on background threads (about a second of CPU for bash alone) and the
// process would wait for that work at exit. The runtime is a 170 KB CommonJS file: require()
// loads it without the export scan an ESM import() runs over its source (about 50 ms of CPU).
// Owns loading; must not know what a tree means.

import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { Language, Parser } from '@vscode/tree-sitter-wasm';

/** The grammars shipped by @vscode/tree-sitter-wasm that feiyu uses (C is parsed with cpp). */
export type GrammarName = 'bash' | 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java' | 'cpp' | 'c-sharp' | 'ruby' | 'php';

type Runtime = typeof import('@vscode/tree-sitter-wasm');

let runtime: Promise<Runtime> | undefined;
let optimise = false;

/**
 * Lets V8 optimise the grammars of this process (its default tiering). Only for a process of its
 * own that parses a lot and is ended without waiting; must be called before the first grammar loads.
 */
export function optimiseGrammars(): void {
  if (runtime) throw new Error('optimiseGrammars() after a grammar was loaded');
  optimise = true;
}
const languages = new Map<GrammarName, Promise<Language>>();

function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    // Before the first WebAssembly compilation of the process; later compilations inherit it.
    if (!optimise) setFlagsFromString('--liftoff-only');
    const mod = createRequire(import.meta.url)('@vscode/tree-sitter-wasm') as Runtime;
    await mod.Parser.init();
    return mod;
  })();
  return runtime;
}

/** The grammar called `name`, compiled once per process. Rejects when the file is missing or broken. */
export function loadLanguage(name: GrammarName): Promise<Language> {
  let language = languages.get(name);
  if (!language) {
    language = loadRuntime().then((ts) => {
      const wasm = createRequire(import.meta.url).resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${name}.wasm`);
      return ts.Language.load(wasm);
    });
    languages.set(name, language);
    // A failed load may be retried by a later caller (a file that appeared, a transient read error).
    language.catch(() => languages.delete(name));
  }
  return language;
}

/** A new parser for `name`. Parsers are cheap; one per concurrent user (they are not reentrant). */
export async function createParser(name: GrammarName): Promise<Parser> {
  const [ts, language] = await Promise.all([loadRuntime(), loadLanguage(name)]);
  const parser = new ts.Parser();
  parser.setLanguage(language);
  return parser;
}
