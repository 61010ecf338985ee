import { rgPath } from '@vscode/ripgrep';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listFiles, search, searchWithJs, searchWithRg, type SearchQuery } from '../src/tools/find.js';
import type { ToolContext } from '../src/types/tools.js';
import { workspace } from './tools-helpers.js';

const tree = {
  '.gitignore': 'dist/\n*.log\n!keep.log\n',
  '.git/HEAD': 'ref: refs/heads/main\nneedle in git\n',
  '.github/ci.yml': 'run: needle\n',
  'README.md': '# Needle\nA needle here.\n',
  'src/a.ts': 'const needle = 1;\nconst other = 2;\nexport { needle };\n',
  'src/b.ts': 'import { needle } from "./a";\n',
  'src/gen/.gitignore': '*.gen.ts\n',
  'src/gen/x.gen.ts': 'needle generated\n',
  'src/gen/y.ts': `// ${'long '.repeat(80)}needle\n`,
  'dist/out.js': 'needle\n',
  'debug.log': 'needle\n',
  'keep.log': 'needle kept\n',
  'node_modules/pkg/index.js': 'needle\n',
  'bin.dat': Buffer.from('needle\0binary\n'),
};

const list = (ctx: ToolContext, args: { pattern?: string; path?: string }) => listFiles.run(args, ctx);
const find = (ctx: ToolContext, args: { pattern: string; path?: string; glob?: string; ignore_case?: boolean }) => search.run(args, ctx);

describe('list_files', () => {
  it('lists files sorted, without .git, node_modules and gitignored files (root and nested rules)', async () => {
    const ctx = await workspace(tree);
    const files = ['.github/ci.yml', '.gitignore', 'README.md', 'bin.dat', 'keep.log', 'src/a.ts', 'src/b.ts', 'src/gen/.gitignore', 'src/gen/y.ts'];
    expect(await list(ctx, {})).toEqual({ output: files.join('\n'), summary: { key: 'files', n: files.length } });
  });

  it('takes a glob relative to a folder and shows root-relative paths', async () => {
    const ctx = await workspace(tree);
    expect((await list(ctx, { pattern: '**/*.ts', path: 'src' })).output).toBe('src/a.ts\nsrc/b.ts\nsrc/gen/y.ts');
    expect((await list(ctx, { pattern: '*.ts', path: 'src' })).output).toBe('src/a.ts\nsrc/b.ts');
    expect((await list(ctx, { path: 'src/gen' })).output).toBe('src/gen/.gitignore\nsrc/gen/y.ts');
    expect((await list(ctx, { path: 'node_modules' })).output).toBe('node_modules/pkg/index.js');
  });

  it('caps the list and says how many were left out', async () => {
    const many = Object.fromEntries(Array.from({ length: 503 }, (_, i) => [`f/${String(i).padStart(3, '0')}.txt`, '']));
    const ctx = await workspace(many);
    const out = await list(ctx, {});
    const lines = out.output.split('\n');
    expect(lines.length).toBe(501);
    expect(lines.slice(-2)).toEqual(['f/499.txt', '[… 3 more files not shown; narrow the pattern or path]']);
    expect(out.summary).toEqual({ key: 'files', n: 503 });
  });

  it('explains an empty result and refuses files and outside paths', async () => {
    const ctx = await workspace(tree);
    expect(await list(ctx, { pattern: '**/*.rs' })).toEqual({ output: 'No files match **/*.rs in .', summary: { key: 'files', n: 0 } });
    expect(await list(ctx, { path: 'src/a.ts' })).toEqual({ output: 'src/a.ts is a file, not a folder; read it with read_file', isError: true });
    expect(await list(ctx, { path: '..' })).toEqual({ output: `path .. is outside the workspace ${ctx.root}`, isError: true });
    for (const pattern of ['../*', '/etc/*', 'src/../../*', '~/*']) {
      expect(await list(ctx, { pattern })).toEqual({ output: `pattern ${pattern} reaches outside the folder; choose the folder with path and keep the pattern relative`, isError: true });
    }
    expect((await list(ctx, { pattern: '..foo/**' })).isError).toBeUndefined();
  });
});

/** A folder beside the workspace holding private.txt (with a needle), linked from the workspace as out/. */
async function linkOutside(root: string): Promise<string> {
  const outside = join(dirname(root), 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'private.txt'), 'needle outside\n');
  await symlink(outside, join(root, 'out'));
  return outside;
}

describe('list_files: issue 11, the folder above and links out', () => {
  it(`refuses '.{.,}/*' and the other brace spellings of .., / and ~`, async () => {
    const ctx = await workspace(tree);
    await writeFile(join(dirname(ctx.root), 'parent-secret.txt'), 'x');
    for (const pattern of ['.{.,}/*', '{..,src}/*', '.{.,.}/*', 'src/.{.,}/.{.,}/*', '{/etc,src}/*', '{~,src}/*', '!{..,x}/*', '{a..c}/.{.,}/*']) {
      expect(await list(ctx, { pattern })).toEqual({ output: `pattern ${pattern} reaches outside the folder; choose the folder with path and keep the pattern relative`, isError: true });
    }
    expect((await list(ctx, { pattern: '**/*.{ts,md}' })).output).toBe('README.md\nsrc/a.ts\nsrc/b.ts\nsrc/gen/y.ts');
  });

  it('lists nothing through a link to a folder outside, whatever the glob', async () => {
    const ctx = await workspace({ 'a.txt': 'x' });
    await linkOutside(ctx.root);
    for (const pattern of ['out/*', 'out/**', '*/private.txt', 'out/private.txt']) {
      expect(await list(ctx, { pattern })).toEqual({ output: `No files match ${pattern} in .`, summary: { key: 'files', n: 0 } });
    }
  });
});

describe('search: issue 11, secrets and containment in every form', () => {
  it('the JavaScript fallback reads nothing outside the workspace, through links or globs', async () => {
    const ctx = await workspace({ 'ok.txt': 'needle\n' });
    const outside = await linkOutside(ctx.root);
    await symlink(join(outside, 'private.txt'), join(ctx.root, 'file-link.txt'));
    for (const glob of ['out/*', 'out/**', 'out/private.txt', '*/private.txt', '**/*', '*.txt', undefined]) {
      const q = { root: ctx.root, target: '.', pattern: 'needle', glob };
      const lines = glob && glob.startsWith('out') || glob === '*/private.txt' ? [] : ['ok.txt:1:needle'];
      expect(await searchWithJs(q)).toEqual({ lines, total: lines.length });
      expect(await searchWithRg(rgPath, q)).toEqual({ lines, total: lines.length });
    }
  });

  it("a glob like '**/.env' never reveals a secret, with ripgrep or without", async () => {
    const ctx = await workspace({ '.env': 'needle\n', 'sub/.env': 'needle\n', 'cert/server.pem': 'needle\n', 'deploy/id_ed25519': 'needle\n', '.npmrc': 'needle\n', 'ok.env.txt': 'needle\n' });
    for (const glob of ['**/.env', '.env', '*env', 'sub/.env', '**/*', '**/*.pem', '{.env,x}', 'deploy/*', '.npmrc']) {
      const q = { root: ctx.root, target: '.', pattern: 'needle', glob };
      const rg = await searchWithRg(rgPath, q);
      const js = await searchWithJs(q);
      for (const result of [rg, js]) {
        const lines = result && 'lines' in result ? result.lines : [];
        expect(lines.filter((l) => !l.startsWith('ok.env.txt:'))).toEqual([]);
      }
    }
    expect((await find(ctx, { pattern: 'needle', glob: '**/.env' })).output).toBe('No matches for needle in .');
  });
});

describe('search', () => {
  it('returns path:line:text sorted by path, skipping ignored, hidden-git, node_modules and binary files', async () => {
    const ctx = await workspace(tree);
    const lines = [
      '.github/ci.yml:1:run: needle',
      'README.md:2:A needle here.',
      'keep.log:1:needle kept',
      'src/a.ts:1:const needle = 1;',
      'src/a.ts:3:export { needle };',
      'src/b.ts:1:import { needle } from "./a";',
      `src/gen/y.ts:1:// ${'long '.repeat(80).slice(0, 297)} [... omitted end of long line]`,
    ];
    expect(await find(ctx, { pattern: 'needle' })).toEqual({ output: lines.join('\n'), summary: { key: 'matches', n: 7 } });
  });

  it('filters by path, glob and case', async () => {
    const ctx = await workspace(tree);
    expect((await find(ctx, { pattern: 'needle', path: 'src', glob: '*.ts' })).output.split('\n').map((l) => l.split(':')[0])).toEqual([
      'src/a.ts', 'src/a.ts', 'src/b.ts', 'src/gen/y.ts',
    ]);
    expect((await find(ctx, { pattern: 'NEEDLE', path: 'README.md', ignore_case: true })).output).toBe('README.md:1:# Needle\nREADME.md:2:A needle here.');
  });

  it('reports no match, an invalid regex, and never takes the pattern as a flag', async () => {
    const ctx = await workspace(tree);
    expect(await find(ctx, { pattern: 'haystack' })).toEqual({ output: 'No matches for haystack in .', summary: { key: 'matches', n: 0 } });
    const bad = await find(ctx, { pattern: 'needle(' });
    expect(bad.isError).toBe(true);
    expect(bad.output).toMatch(/^invalid regular expression: [\s\S]*Escape special characters/);
    expect(await find(ctx, { pattern: '--pre=cat' })).toEqual({ output: 'No matches for --pre=cat in .', summary: { key: 'matches', n: 0 } });
    expect(await find(ctx, { pattern: 'x', path: '../' })).toEqual({ output: `path ../ is outside the workspace ${ctx.root}`, isError: true });
    expect(await find(ctx, { pattern: 'x', glob: '../**' })).toEqual({ output: 'glob ../** reaches outside the folder; choose the folder with path', isError: true });
  });

  it('caps the matches and counts the rest', async () => {
    const ctx = await workspace({ 'many.txt': Array.from({ length: 250 }, (_, i) => `hit ${i + 1}`).join('\n') });
    const out = await find(ctx, { pattern: 'hit' });
    const lines = out.output.split('\n');
    expect(lines.length).toBe(201);
    expect(lines.slice(-2)).toEqual(['many.txt:200:hit 200', '[… 50 more matching lines not shown; narrow the pattern, path or glob]']);
    expect(out.summary).toEqual({ key: 'matches', n: 250 });
  });

  it('the JavaScript fallback finds what ripgrep finds', async () => {
    const ctx = await workspace(tree);
    await symlink(join(ctx.root, 'src/a.ts'), join(ctx.root, 'link.ts'));
    const queries: Omit<SearchQuery, 'root'>[] = [
      { target: '.', pattern: 'needle' },
      { target: '.', pattern: 'NEEDLE', ignoreCase: true },
      { target: 'src', pattern: 'needle|other', glob: '*.ts' },
      { target: '.', pattern: 'needle', glob: '!*.ts' },
      { target: '.', pattern: 'needle', glob: '*.{md,yml}' },
      { target: 'src', pattern: 'needle', glob: 'src/*.ts' },
      { target: 'src/a.ts', pattern: '^const' },
      { target: '.', pattern: 'nothing here' },
    ];
    for (const q of queries) {
      const full = { ...q, root: ctx.root };
      expect(await searchWithJs(full)).toEqual(await searchWithRg(rgPath, full));
    }
    expect(await searchWithRg(join(ctx.root, 'no-such-rg'), { target: '.', pattern: 'x', root: ctx.root })).toBeNull();
  });

  it('never returns the contents of secret files, with ripgrep or without', async () => {
    const ctx = await workspace({ '.env': 'TOKEN=needle\n', 'cfg/.env.local': 'needle\n', 'keys/id_rsa': 'needle\n', 'ok.txt': 'needle\n' });
    for (const q of [{ target: '.', pattern: 'needle' }, { target: '.', pattern: 'needle', glob: '*' }, { target: 'cfg', pattern: 'needle' }]) {
      const full = { ...q, root: ctx.root };
      const expected = q.target === 'cfg' ? [] : ['ok.txt:1:needle'];
      expect(await searchWithRg(rgPath, full)).toEqual({ lines: expected, total: expected.length });
      expect(await searchWithJs(full)).toEqual({ lines: expected, total: expected.length });
    }
  });

  it('falls back to JavaScript when ripgrep cannot start', async () => {
    const ctx = await workspace(tree);
    const withRg = await find(ctx, { pattern: 'needle' });
    process.env.FEIYU_RG_PATH = join(ctx.root, 'missing-rg');
    try {
      expect(await find(ctx, { pattern: 'needle' })).toEqual(withRg);
      const bad = await find(ctx, { pattern: 'needle(' });
      expect(bad.output).toMatch(/^invalid regular expression: Invalid regular expression/);
    } finally {
      delete process.env.FEIYU_RG_PATH;
    }
  });
});
