// .gitignore matching against real git: the files list_files walks are exactly those that
// `git ls-files --others --exclude-standard` reports, for a file full of the rules' corner cases
// (negation, folder-only, anchoring, **, classes, escapes, nested files, re-including inside an
// ignored folder); and a 100,000-line .gitignore is matched in time that does not grow with it.
// A listing or a search stopped by the time limit returns what it found, marked partial.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rgPath } from '@vscode/ripgrep';
import { walkFiles } from '../src/tools/walk.js';
import { searchWithJs, searchWithRg } from '../src/tools/find.js';
import { GitignoreRules } from '../src/tools/gitignore.js';

async function repo(files: Record<string, string>): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-gitignore-')));
  expect(spawnSync('git', ['init', '-q', root]).status).toBe(0);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const gitSees = (root: string) =>
  spawnSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).sort();

const RULES = [
  '# a comment',
  '*.log',
  '!keep.log',
  'build/',
  '/root-only.txt',
  'docs/**/*.tmp',
  '**/cache',
  'a/**/z.txt',
  '?.c',
  '[abc].md',
  '[!x]y.md',
  '\\#hash',
  'logs/',
  '!logs/important.txt',
  'foo/*.js',
  'deep/x',
  'trailing.txt   ',
  '*.o',
  '!special.o',
].join('\n');

const PATHS = [
  'app.log', 'keep.log', 'sub/app.log', 'sub/keep.log', 'build/out.js', 'src/build/out.js', 'build.txt',
  'root-only.txt', 'sub/root-only.txt', 'docs/a.tmp', 'docs/x/y/b.tmp', 'other/docs/c.tmp', 'cache/x', 'src/cache/y',
  'a/z.txt', 'a/b/c/z.txt', 'b/a/z.txt', 'x.c', 'xy.c', 'a.md', 'd.md', 'ay.md', 'xy.md', '#hash', 'logs/important.txt',
  'logs/other.txt', 'foo/a.js', 'foo/bar/b.js', 'deep/x', 'sub/deep/x', 'trailing.txt', 'm.o', 'special.o', 'sub/special.o',
  'nested/.gitignore', 'nested/skip.me', 'nested/keep.me', 'nested/inner/skip.me', 'nested/app.log', 'plain.txt',
];

describe('.gitignore rules', () => {
  it('leave out exactly what git leaves out', async () => {
    const files: Record<string, string> = { '.gitignore': RULES };
    for (const p of PATHS) files[p] ??= 'x\n';
    files['nested/.gitignore'] = 'skip.me\n!app.log\n';
    const root = await repo(files);
    const walked = await walkFiles(root, root, '**/*');
    expect(walked).toEqual({ files: gitSees(root), partial: false, unapplied: [] });
  });

  it('match a 100,000-line file of paths and globs against hundreds of files, as git does', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => (i % 1000 === 999 ? `*.gen${i}` : `gen/file${i}.txt`));
    const files: Record<string, string> = { '.gitignore': lines.join('\n') + '\n!gen/file5.txt\n' };
    // git, the oracle, tries every pattern on every path: a few hundred paths keep it to a second.
    for (let i = 0; i < 300; i++) files[`gen/file${i * 70 + 3}.txt`] = '';
    files['gen/file5.txt'] = '';
    files['gen/file5999.txt'] = '';
    for (let i = 0; i < 100; i++) files[`src/x.gen${i * 1000 + 999}`] = '';
    files['src/kept.ts'] = '';
    const root = await repo(files);
    const walked = await walkFiles(root, root, '**/*');
    expect(walked.files).toEqual(gitSees(root));
    expect(walked.files).toContain('gen/file5999.txt'); // its line is a glob (*.gen5999) that does not name it
    expect(walked.files).toContain('gen/file5.txt'); // named, then let back in by !gen/file5.txt
    expect(walked.files.filter((f) => f.startsWith('src/'))).toEqual(['src/kept.ts']);
  });

  it('say nothing about a path no rule names', () => {
    const rules = new GitignoreRules('*.log\n!keep.log\n/dist/\n');
    expect([rules.test('a.txt', false), rules.test('x/a.log', false), rules.test('keep.log', false), rules.test('dist', true), rules.test('dist', false)]).toEqual([
      undefined,
      'ignored',
      'unignored',
      'ignored',
      undefined,
    ]);
  });
});

describe('the time limit', () => {
  it('returns what a walk found before it, marked partial', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) files[`d${i % 20}/f${i}.txt`] = '';
    const root = await repo(files);
    const walked = await walkFiles(root, root, '**/*', [], Date.now());
    expect(walked.partial).toBe(true);
    expect(walked.files.length).toBeLessThan(2000);
    const query = { root, target: '.', pattern: 'x', deadline: Date.now() };
    expect(await searchWithJs(query)).toMatchObject({ partial: true });
    // ripgrep over a FIFO no one writes to never ends by itself: the time limit must stop it. (Over
    // the files, a loaded machine can let it finish before its timer fires: complete, rightly.)
    spawnSync('mkfifo', [join(root, 'pipe')]);
    expect(await searchWithRg(rgPath, { root, target: 'pipe', pattern: 'x', deadline: Date.now() + 100 })).toEqual({ lines: [], total: 0, partial: true });
  });
});
