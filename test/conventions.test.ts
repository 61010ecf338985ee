// Instruction files: the walk from the repository root (found by its .git, without git) down to
// the workspace, the first of FEIYU.md / AGENTS.md / CLAUDE.md per folder and real stubs, the
// user's own file first, @imports (confined, each file once, at most five deep), the shared
// budget with every cut said, verify: lines, and subfolders added once each. Real files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONVENTIONS_BUDGET, loadConventions, SubfolderConventions, type ConventionPlaces } from '../src/config/conventions.js';
import { fitBudget } from '../src/config/conventions/budget.js';
import { isStubFor } from '../src/config/conventions/walk.js';
import { atReferences, verifyLines } from '../src/config/mdrefs.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-conv-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

/** A home with a repository in it and the workspace two folders down: home/repo/pkg/app. */
function fresh(files: Record<string, string> = {}): ConventionPlaces & { repo: string; home: string } {
  const home = join(base, String(++n), 'home');
  const repo = join(home, 'repo');
  const workspace = join(repo, 'pkg', 'app');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const places = { workspace, home, configDir: join(home, '.config', 'feiyu'), repo };
  write(home, files);
  return places;
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const shownFiles = async (places: ConventionPlaces) => (await loadConventions(places)).conventions.files.map((f) => ({ shown: f.shown, scope: f.scope, importedBy: f.importedBy, text: f.text }));

describe('the walk', () => {
  it('reads the user file, then each folder from the repository root down to the workspace, the first of FEIYU.md, AGENTS.md, CLAUDE.md', async () => {
    const places = fresh({
      '.config/feiyu/FEIYU.md': 'mine',
      'repo/AGENTS.md': 'root agents',
      'repo/CLAUDE.md': 'root claude, a different file of its own\nwith more\nlines\nthan\na\nstub\nhas',
      'repo/pkg/FEIYU.md': 'pkg feiyu',
      'repo/pkg/AGENTS.md': 'pkg agents',
      'repo/pkg/app/CLAUDE.md': 'app claude',
      'AGENTS.md': 'above the repository: not read',
    });
    expect(await shownFiles(places)).toEqual([
      { shown: '~/.config/feiyu/FEIYU.md', scope: 'user', importedBy: undefined, text: 'mine' },
      { shown: '../../AGENTS.md', scope: 'project', importedBy: undefined, text: 'root agents' },
      { shown: '../FEIYU.md', scope: 'project', importedBy: undefined, text: 'pkg feiyu' },
      { shown: 'CLAUDE.md', scope: 'project', importedBy: undefined, text: 'app claude' },
    ]);
    const { ignored } = (await loadConventions(places)).conventions;
    expect(ignored).toEqual([
      { shown: '../../CLAUDE.md', used: '../../AGENTS.md' },
      { shown: '../AGENTS.md', used: '../FEIYU.md' },
    ]);
  });

  it("reads Claude Code's other place for CLAUDE.md, .claude/CLAUDE.md, where a folder has no CLAUDE.md", async () => {
    const places = fresh({
      'repo/.claude/CLAUDE.md': '# Root rules\n\n@../docs/style.md',
      'repo/docs/style.md': 'Two spaces.',
      'repo/pkg/CLAUDE.md': 'pkg claude',
      'repo/pkg/.claude/CLAUDE.md': 'pkg hidden claude, a file of its own\nwith\nmore\nlines\nthan\na\nstub',
    });
    expect((await shownFiles(places)).map((f) => [f.shown, f.importedBy])).toEqual([
      ['../../.claude/CLAUDE.md', undefined],
      ['../../docs/style.md', '../../.claude/CLAUDE.md'],
      ['../CLAUDE.md', undefined],
    ]);
    expect((await loadConventions(places)).conventions.ignored).toEqual([{ shown: '../.claude/CLAUDE.md', used: '../CLAUDE.md' }]);
  });

  it('takes a worktree (.git as a file) as the root, and the workspace itself outside any repository', async () => {
    const places = fresh({ 'repo/AGENTS.md': 'root' });
    rmSync(join(places.repo, '.git'), { recursive: true });
    writeFileSync(join(places.repo, '.git'), 'gitdir: /elsewhere\n');
    expect((await shownFiles(places)).map((f) => f.shown)).toEqual(['../../AGENTS.md']);
    rmSync(join(places.repo, '.git'));
    write(places.workspace, { 'AGENTS.md': 'here' });
    expect((await shownFiles(places)).map((f) => f.shown)).toEqual(['AGENTS.md']);
  });

  it('finds the same root as git does', async () => {
    const places = fresh();
    rmSync(join(places.repo, '.git'), { recursive: true });
    execFileSync('git', ['init', '-q', places.repo]);
    write(places.repo, { 'AGENTS.md': 'root' });
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: places.workspace, encoding: 'utf8' }).trim();
    expect((await loadConventions(places)).conventions.files.map((f) => f.path)).toEqual([join(top, 'AGENTS.md')]);
  });

  it('reads both AGENTS.md and CLAUDE.md when one is a stub pointing at the other, either way round, each file once', async () => {
    const stubFirst = fresh({ 'repo/pkg/app/AGENTS.md': 'See CLAUDE.md.\n', 'repo/pkg/app/CLAUDE.md': '# Rules\n\nUse pnpm.\n'.repeat(5) });
    expect((await shownFiles(stubFirst)).map((f) => f.shown)).toEqual(['AGENTS.md', 'CLAUDE.md']);
    const stubSecond = fresh({ 'repo/pkg/app/AGENTS.md': '# Rules\n\nUse pnpm.\n'.repeat(5), 'repo/pkg/app/CLAUDE.md': '@AGENTS.md\n' });
    expect((await shownFiles(stubSecond)).map((f) => f.shown)).toEqual(['AGENTS.md', 'CLAUDE.md']);
    // A link (the same text) adds nothing.
    const linked = fresh({ 'repo/pkg/app/AGENTS.md': 'See CLAUDE.md' });
    symlinkSync('AGENTS.md', join(linked.workspace, 'CLAUDE.md'));
    expect((await shownFiles(linked)).map((f) => f.shown)).toEqual(['AGENTS.md']);
  });

  it('tells a stub from a file that only mentions the other one', () => {
    expect(isStubFor('@AGENTS.md', 'AGENTS.md')).toBe(true);
    expect(isStubFor('<!-- generated -->\nPlease read [AGENTS.md](./AGENTS.md) for everything.', 'AGENTS.md')).toBe(true);
    expect(isStubFor('See agents.md', 'AGENTS.md')).toBe(true);
    expect(isStubFor('See AGENTS.md.bak', 'AGENTS.md')).toBe(false);
    expect(isStubFor('Use pnpm.', 'AGENTS.md')).toBe(false);
    expect(isStubFor(`# Rules\n${'- a rule\n'.repeat(10)}Keep AGENTS.md in sync.`, 'AGENTS.md')).toBe(false);
  });

  it('skips a FIFO named AGENTS.md without waiting on it, and says so', async () => {
    const places = fresh({ 'repo/pkg/app/CLAUDE.md': 'claude' });
    execFileSync('mkfifo', [join(places.workspace, 'AGENTS.md')]);
    const loaded = await loadConventions(places);
    expect(loaded.conventions.files.map((f) => f.shown)).toEqual(['CLAUDE.md']);
    expect(loaded.unreadable.map((u) => ('problem' in u ? u.problem : u))).toEqual([{ code: 'not_regular', kind: 'FIFO' }]);
  });
});

describe('@imports', () => {
  it('follows Claude syntax: relative to the importing file, ~/ for home, outside code, trailing punctuation allowed, each file once', async () => {
    const places = fresh({
      'repo/pkg/app/AGENTS.md': [
        'See @docs/style.md and @~/notes/me.md.',
        'Mail user@example.com, not an import; @param neither.',
        'Inline `@docs/code.md` and',
        '```',
        '@docs/fenced.md',
        '```',
        'Again @docs/style.md, and a folder @docs/ is no import.',
      ].join('\n'),
      'repo/pkg/app/docs/style.md': 'style, which imports @../AGENTS.md back',
      'repo/pkg/app/docs/code.md': 'never',
      'repo/pkg/app/docs/fenced.md': 'never',
      'notes/me.md': 'home note',
    });
    const files = await shownFiles(places);
    expect(files.map((f) => [f.shown, f.importedBy])).toEqual([
      ['AGENTS.md', undefined],
      ['docs/style.md', 'AGENTS.md'],
      ['~/notes/me.md', 'AGENTS.md'],
    ]);
  });

  it('refuses what is outside the project and home, secrets, what is not text, and more than five deep; lists what is missing', async () => {
    const outside = mkdtempSync(join(base, 'outside-'));
    writeFileSync(join(outside, 'x.md'), 'outside');
    const chain = Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`repo/pkg/app/d${i}.md`, `level ${i} @d${i + 1}.md`]));
    const places = fresh({
      'repo/pkg/app/AGENTS.md': `@${outside}/x.md @.env @~/.ssh/id_rsa @~/.config/feiyu/keys.json @d1.md @nothing/here.md @diagram.png`,
      'repo/pkg/app/.env': 'TOKEN=secret',
      '.ssh/id_rsa': 'KEY',
      '.config/feiyu/keys.json': '{}',
      ...chain,
      'repo/pkg/app/d7.md': 'too deep',
    });
    // A picture named in passing ("see @diagram.png"): a PNG's first bytes.
    writeFileSync(join(places.workspace, 'diagram.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    const { conventions } = await loadConventions(places);
    expect(conventions.files.map((f) => f.shown)).toEqual(['AGENTS.md', 'd1.md', 'd2.md', 'd3.md', 'd4.md', 'd5.md']);
    expect(conventions.problems[0]).toEqual({ ref: `${outside}/x.md`, from: 'AGENTS.md', code: 'outside' });
    expect(conventions.problems.map((p) => [p.ref, p.code])).toEqual([
      [`${outside}/x.md`, 'outside'],
      ['.env', 'secret'],
      ['~/.ssh/id_rsa', 'secret'],
      ['~/.config/feiyu/keys.json', 'secret'],
      ['d6.md', 'depth'],
      ['nothing/here.md', 'missing'],
      ['diagram.png', 'binary'],
    ]);
    expect(conventions.files.map((f) => f.text).join('\n')).not.toMatch(/TOKEN=secret|^KEY$|^outside$|^\{\}$/m);
  });

  it('survives a cycle and says where it is; a file naming itself or a file taken twice is no cycle; the user file imports its neighbours in the config folder', async () => {
    const places = fresh({
      '.config/feiyu/FEIYU.md': '@rules.md',
      '.config/feiyu/rules.md': 'my rules @FEIYU.md',
      'repo/pkg/app/AGENTS.md': 'Keep @AGENTS.md short. @a.md @shared.md',
      'repo/pkg/app/a.md': 'a @b.md @shared.md',
      'repo/pkg/app/b.md': 'b @a.md @AGENTS.md',
      'repo/pkg/app/shared.md': 'shared',
    });
    const { conventions } = await loadConventions(places);
    expect(conventions.files.map((f) => [f.shown, f.scope])).toEqual([
      ['~/.config/feiyu/FEIYU.md', 'user'],
      ['~/.config/feiyu/rules.md', 'user'],
      ['AGENTS.md', 'project'],
      ['a.md', 'project'],
      ['b.md', 'project'],
      ['shared.md', 'project'],
    ]);
    expect(conventions.problems).toEqual([
      { ref: 'FEIYU.md', from: '~/.config/feiyu/rules.md', code: 'cycle' },
      { ref: 'a.md', from: 'b.md', code: 'cycle' },
      { ref: 'AGENTS.md', from: 'b.md', code: 'cycle' },
    ]);
  });

  it("lets the user's FEIYU.md import their Claude Code file, ~/.claude/CLAUDE.md, but not Claude's credentials beside it", async () => {
    const places = fresh({
      '.config/feiyu/FEIYU.md': '@~/.claude/CLAUDE.md\n@~/.claude/.credentials.json',
      '.claude/CLAUDE.md': 'Prefer small commits.',
      '.claude/.credentials.json': '{"claudeAiOauth":{"accessToken":"sk-ant-oat01-x"}}',
    });
    const { conventions } = await loadConventions(places);
    expect(conventions.files.map((f) => [f.shown, f.scope, f.text])).toEqual([
      ['~/.config/feiyu/FEIYU.md', 'user', '@~/.claude/CLAUDE.md\n@~/.claude/.credentials.json'],
      ['~/.claude/CLAUDE.md', 'user', 'Prefer small commits.'],
    ]);
    expect(conventions.problems).toEqual([{ ref: '~/.claude/.credentials.json', from: '~/.config/feiyu/FEIYU.md', code: 'secret' }]);
  });

  it('finds references where Claude does', () => {
    expect(atReferences('@a.md x @b\\ c.md `@d.md` e@f.md\n@g').map((r) => r.path)).toEqual(['a.md', 'b c.md', 'g']);
  });
});

describe('the budget', () => {
  it('keeps a 23,694-character AGENTS.md whole (it lost its last sections at 20,000)', async () => {
    const sections = Array.from({ length: 40 }, (_, i) => `## Section ${i}\n\n${'A rule that matters. '.repeat(27)}\n`).join('\n');
    const text = `${sections}\n## Safety\n\nNever run migrations against production.\n`.padEnd(23_694, ' ');
    const places = fresh({ 'repo/pkg/app/AGENTS.md': text });
    const [file] = (await loadConventions(places)).conventions.files;
    expect({ chars: file!.chars, cut: file!.cut, whole: file!.text === text }).toEqual({ chars: 23_694, cut: undefined, whole: true });
  });

  it('cuts the largest files at a line end, says where, and never passes 40,000 characters together', async () => {
    const big = (label: string) => Array.from({ length: 1000 }, (_, i) => `${label} line ${i + 1}: ${'x'.repeat(30)}`).join('\n');
    const places = fresh({ 'repo/AGENTS.md': big('root'), 'repo/pkg/app/AGENTS.md': big('app'), 'repo/pkg/FEIYU.md': 'small' });
    const { files } = (await loadConventions(places)).conventions;
    const total = files.reduce((sum, f) => sum + f.text.length, 0);
    expect(total).toBeLessThanOrEqual(CONVENTIONS_BUDGET);
    expect(files.map((f) => [f.shown, f.cut?.line, f.cut?.total])).toEqual([
      ['../../AGENTS.md', 431, 45_892],
      ['../FEIYU.md', undefined, undefined],
      ['AGENTS.md', 441, 44_892],
    ]);
    const [root, , app] = files;
    expect(root!.text.split('\n').slice(-2)).toEqual([
      `root line 430: ${'x'.repeat(30)}`,
      `[… ../../AGENTS.md is cut here: ${root!.cut!.kept} of 45892 characters fit the 40,000-character budget of instruction files; it goes on at line 431 (read_file it if it matters).]`,
    ]);
    expect(app!.text.split('\n').at(-2)).toBe(`app line 440: ${'x'.repeat(30)}`);
  });

  it('shares fairly: small files whole, the rest equal shares', () => {
    const parts = [{ path: 'a', text: 'a'.repeat(100) }, { path: 'b', text: 'b\n'.repeat(5000) }, { path: 'c', text: 'c\n'.repeat(5000) }];
    const fit = fitBudget(parts, 5100, () => 'CUT');
    expect(fit.map((f) => [f.text.length, f.cut?.kept])).toEqual([
      [100, undefined],
      [2203, 2200],
      [2203, 2200],
    ]);
  });
});

describe('verify: lines', () => {
  it('come from every file found at start-up, the user\'s apart, never from code blocks', async () => {
    const places = fresh({
      '.config/feiyu/FEIYU.md': 'verify: make lint',
      'repo/AGENTS.md': 'verify: npm test\n\n```\nverify: not-this\n```\n@docs/more.md',
      'repo/docs/more.md': 'verify: npm run typecheck\nverify: npm test',
      'repo/pkg/app/CLAUDE.md': 'verify:   cargo check  ',
    });
    expect((await loadConventions(places)).conventions.verify).toEqual({ user: ['make lint'], project: ['npm test', 'npm run typecheck', 'cargo check'] });
    expect(verifyLines('  verify: indented is not one\nverify:\nverify: x')).toEqual(['x']);
  });
});

describe('subfolders', () => {
  it('adds each folder from the workspace down once, skips files taken at start-up, and again after forget', async () => {
    const places = fresh({
      'repo/pkg/app/AGENTS.md': 'top @shared.md',
      'repo/pkg/app/shared.md': 'shared',
      'repo/pkg/app/src/AGENTS.md': 'src rules @../shared.md',
      'repo/pkg/app/src/api/CLAUDE.md': 'api rules\nverify: npm run api-test',
    });
    const start = await loadConventions(places);
    const folders = new SubfolderConventions(places, start.seen);
    const first = folders.take('src/api/handler.ts');
    expect(first && { files: first.files.map((f) => [f.shown, f.text]), verify: first.verify }).toEqual({
      files: [
        ['src/AGENTS.md', 'src rules @../shared.md'],
        ['src/api/CLAUDE.md', 'api rules\nverify: npm run api-test'],
      ],
      verify: ['npm run api-test'],
    });
    expect(folders.take('src/api/other.ts')).toBeNull();
    expect(folders.take('src/new/file.ts')).toBeNull();
    expect(folders.take('README.md')).toBeNull();
    expect(folders.take('../../outside.md')).toBeNull();
    folders.forget();
    expect(folders.take(join(places.workspace, 'src'))?.files.map((f) => f.shown)).toEqual(['src/AGENTS.md']);
  });
});
