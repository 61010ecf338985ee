// The house rules of DESIGN.md §1, checked over every import edge of src/ (value and type imports,
// re-exports and dynamic imports): folders import one way, by rank; the loop free of its
// consumers; no cycles between files; optional modules reached only from app/; heavy
// dependencies imported lazily; nothing below ui/ prints.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : f.endsWith('.ts') && !f.endsWith('.d.ts') ? [relative(SRC, p)] : [];
  });
}
const files = walk(SRC);

/**
 * The folders from the entry point down to the vocabulary. A folder may import folders of a
 * higher rank (further right in DESIGN.md's rule), never one of its own rank or lower.
 * Optional modules share delegate's rank and are imported only by app/.
 */
const RANK: Record<string, number> = {
  'cli.ts': 0,
  'index.ts': 0,
  ui: 1,
  acp: 1,
  app: 2,
  session: 3,
  delegate: 4,
  codeindex: 4,
  mcp: 4,
  core: 5,
  tools: 6,
  hooks: 6,
  config: 7,
  safety: 8,
  providers: 8,
  content: 8,
  i18n: 9,
  util: 9,
  types: 10,
};
const OPTIONAL = ['codeindex', 'mcp'];
const folderOf = (file: string) => file.split('/')[0]!;

type Edge = { to: string; type: boolean; lazy: boolean };

/** Our files and the packages each file imports. */
function importsOf(file: string): { ours: Edge[]; packages: { name: string; lazy: boolean }[] } {
  const text = readFileSync(join(SRC, file), 'utf8');
  const ours: Edge[] = [];
  const packages: { name: string; lazy: boolean }[] = [];
  const staticRe = /^(?:import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm;
  const sideEffectRe = /^import\s+['"]([^'"]+)['"]/gm;
  const dynamicRe = /import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(staticRe)) record(m[2]!, m[1] !== undefined || /^import\s+\{\s*type\b[^}]*\}$/.test(m[0]) || allTypes(m[0]), false);
  for (const m of text.matchAll(sideEffectRe)) record(m[1]!, false, false);
  for (const m of text.matchAll(dynamicRe)) record(m[1]!, false, true);
  return { ours, packages };
  function record(spec: string, type: boolean, lazy: boolean) {
    if (spec.startsWith('.')) {
      const to = posix.normalize(posix.join(dirname(file), spec)).replace(/\.js$/, '.ts');
      ours.push({ to, type, lazy });
    } else if (!spec.startsWith('node:')) packages.push({ name: spec, lazy: lazy || type });
  }
}

/** `import { type A, type B } from …`: erased, but still an edge of the design. */
function allTypes(statement: string): boolean {
  const names = /\{([^}]*)\}/.exec(statement)?.[1];
  if (!names || /^import\s+\w/.test(statement.replace(/^import\s+type/, ''))) return false;
  return names.split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '));
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));

function closure(file: string, follow: (e: Edge) => boolean = () => true): Set<string> {
  const seen = new Set<string>();
  const stack = [file];
  while (stack.length) {
    const f = stack.pop()!;
    for (const e of graph.get(f)?.ours ?? []) if (follow(e) && !seen.has(e.to)) seen.add(e.to), stack.push(e.to);
  }
  return seen;
}

describe('layering', () => {
  it('every relative import names a file in src/, and every file is in a ranked folder', () => {
    const missing = [...graph].flatMap(([f, g]) => g.ours.filter((e) => !files.includes(e.to)).map((e) => `${f} → ${e.to}`));
    expect(missing).toEqual([]);
    expect(files.filter((f) => RANK[folderOf(f)] === undefined)).toEqual([]);
  });

  it('folders import only folders to their right, type imports included', () => {
    const wrong = [...graph].flatMap(([f, g]) =>
      g.ours
        .filter((e) => folderOf(e.to) !== folderOf(f) && RANK[folderOf(e.to)]! <= RANK[folderOf(f)]!)
        .map((e) => `${f} → ${e.to}${e.type ? ' (type)' : ''}`),
    );
    expect(wrong).toEqual([]);
  });

  it('core imports only util, types and the model table', () => {
    const allowed = (to: string) => ['core', 'util', 'types'].includes(folderOf(to)) || to === 'providers/models.ts';
    const wrong = files.filter((f) => folderOf(f) === 'core').flatMap((f) => graph.get(f)!.ours.filter((e) => !allowed(e.to)).map((e) => `${f} → ${e.to}`));
    expect(wrong).toEqual([]);
  });

  it('core reads no files and starts no processes: the loop gets what it needs as values', () => {
    const io = /from\s+['"]node:(fs|fs\/promises|child_process|net|http|https)['"]/;
    expect(files.filter((f) => folderOf(f) === 'core' && io.test(readFileSync(join(SRC, f), 'utf8')))).toEqual([]);
  });

  it('optional modules are imported only by app/ (or themselves)', () => {
    const wrong = [...graph].flatMap(([f, g]) =>
      g.ours.filter((e) => OPTIONAL.includes(folderOf(e.to)) && folderOf(e.to) !== folderOf(f) && folderOf(f) !== 'app').map((e) => `${f} → ${e.to}`),
    );
    expect(wrong).toEqual([]);
  });

  it('app/ loads optional modules lazily: types aside, only through import()', () => {
    const eager = [...graph].flatMap(([f, g]) =>
      folderOf(f) === 'app' ? g.ours.filter((e) => OPTIONAL.includes(folderOf(e.to)) && !e.lazy && !e.type).map((e) => `${f} → ${e.to}`) : [],
    );
    expect(eager).toEqual([]);
  });

  it('nothing imports the entry points (the CLI, the package), and there are no cycles, not even through types', () => {
    expect([...graph].filter(([, g]) => g.ours.some((e) => e.to === 'cli.ts' || e.to === 'index.ts')).map(([f]) => f)).toEqual([]);
    const cyclic = files.filter((f) => closure(f).has(f));
    expect(cyclic).toEqual([]);
  });

  it('the rule sees type-only edges and re-exports', () => {
    const probe = (text: string) => {
      const m = /^(?:import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/m.exec(text)!;
      return { spec: m[2], type: m[1] !== undefined || allTypes(m[0]) };
    };
    expect(probe(`import type { A } from './a.js';`)).toEqual({ spec: './a.js', type: true });
    expect(probe(`import { type A, type B } from '../b.js';`)).toEqual({ spec: '../b.js', type: true });
    expect(probe(`import { type A, b } from '../b.js';`)).toEqual({ spec: '../b.js', type: false });
    expect(probe(`export { x } from './x.js';`)).toEqual({ spec: './x.js', type: false });
  });

  it('heavy dependencies are imported lazily', () => {
    const heavy = ['@anthropic-ai/sdk', 'openai', 'ajv', 'fast-glob', '@vscode/ripgrep', 'web-tree-sitter', '@vscode/tree-sitter-wasm', 'marked', 'marked-terminal', 'sharp', 'xlsx', 'mammoth', 'turndown', 'minisearch', '@modelcontextprotocol/sdk', '@agentclientprotocol/sdk'];
    const eager = [...graph].flatMap(([f, g]) => g.packages.filter((p) => !p.lazy && heavy.some((h) => p.name === h || p.name.startsWith(h + '/'))).map((p) => `${f}: ${p.name}`));
    expect(eager).toEqual([]);
  });

  it('nothing below ui/ prints', () => {
    const printing = /\bprocess\.(stdout|stderr)\b|\bconsole\.(log|error|warn|info)\(/;
    const wrong = files.filter((f) => RANK[folderOf(f)]! >= RANK.app! && printing.test(readFileSync(join(SRC, f), 'utf8')));
    expect(wrong).toEqual([]);
  });
});
