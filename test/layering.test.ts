// The house rules of DESIGN.md §1, checked over the imports of src/: one-way dependencies, the
// loop free of its consumers, heavy dependencies imported lazily.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const files = readdirSync(SRC).filter((f) => f.endsWith('.ts'));

/** Our modules each file imports (static and dynamic, value imports only). */
function importsOf(file: string): { ours: string[]; packages: { name: string; lazy: boolean }[] } {
  const text = readFileSync(join(SRC, file), 'utf8');
  const ours: string[] = [];
  const packages: { name: string; lazy: boolean }[] = [];
  const staticRe = /^import\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm;
  const dynamicRe = /import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(staticRe)) {
    if (m[1]) continue; // import type: erased at build time
    record(m[2]!, false);
  }
  for (const m of text.matchAll(dynamicRe)) record(m[1]!, true);
  return { ours, packages };
  function record(spec: string, lazy: boolean) {
    if (spec.startsWith('./')) ours.push(spec.slice(2).replace(/\.js$/, '.ts'));
    else if (!spec.startsWith('node:')) packages.push({ name: spec, lazy });
  }
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));

function closure(file: string): Set<string> {
  const seen = new Set<string>();
  const stack = [file];
  while (stack.length) {
    const f = stack.pop()!;
    for (const dep of graph.get(f)?.ours ?? []) if (!seen.has(dep)) seen.add(dep), stack.push(dep);
  }
  return seen;
}

describe('layering', () => {
  it('every relative import names a file in src/', () => {
    const missing = [...graph].flatMap(([f, g]) => g.ours.filter((d) => !files.includes(d)).map((d) => `${f} → ${d}`));
    expect(missing).toEqual([]);
  });

  it('types.ts imports nothing of ours', () => {
    expect(graph.get('types.ts')!.ours).toEqual([]);
  });

  it('the agent core never reaches its consumers', () => {
    const consumers = ['ui.ts', 'repl.ts', 'headless.ts', 'cli.ts', 'session.ts', 'trace.ts', 'i18n.ts', 'messages-en.ts', 'messages-zh.ts'];
    // The REPL's own modules, and what only they use.
    consumers.push('commands.ts', 'commands-session.ts', 'keywizard.ts', 'confirm.ts', 'input.ts', 'history.ts', 'undo.ts', 'welcome.ts', 'spinner.ts', 'markdown.ts', 'width.ts', 'diff.ts');
    for (const core of ['agent.ts', 'runtool.ts', 'providers.ts', 'tools.ts']) {
      expect([...closure(core)].filter((d) => consumers.includes(d)), core).toEqual([]);
    }
  });

  it('nothing imports the entry point, and there are no cycles', () => {
    expect([...graph].filter(([, g]) => g.ours.includes('cli.ts')).map(([f]) => f)).toEqual([]);
    const cyclic = files.filter((f) => closure(f).has(f));
    expect(cyclic).toEqual([]);
  });

  it('heavy dependencies are imported lazily', () => {
    const heavy = ['@anthropic-ai/sdk', 'openai', 'ajv', 'fast-glob', '@vscode/ripgrep', 'web-tree-sitter', '@vscode/tree-sitter-wasm', 'marked', 'marked-terminal', 'sharp', 'xlsx', 'mammoth', 'turndown'];
    const eager = [...graph].flatMap(([f, g]) => g.packages.filter((p) => !p.lazy && heavy.some((h) => p.name === h || p.name.startsWith(h + '/'))).map((p) => `${f}: ${p.name}`));
    expect(eager).toEqual([]);
  });
});
