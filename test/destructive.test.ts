// What destroys work (issue 11 §2), judged on the real analysis of each exact spelling, with the
// repository's facts from real git (createGitFacts through the launcher, unsandboxed here): a
// tracked file with uncommitted changes, a clean one, a build folder, commits pushed to a
// bare remote and one that is not.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitFacts } from '../src/app/gitfacts.js';
import { analyzeBash } from '../src/safety/bash/analysis.js';
import { destructiveOf, type Loss } from '../src/safety/destructive.js';
import { createLauncher } from '../src/safety/sandboxhost.js';
import { gitRepo } from './attacks.js';

const base = realpathSync(mkdtempSync('/var/tmp/feiyu-destructive-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, 'ws');
const home = join(base, 'home');
mkdirSync(home);
execFileSync('git', ['init', '-q', '--bare', join(base, 'remote.git')]);
const { git, env } = gitRepo(root, home, { 'a.txt': 'one\n', 'b.txt': 'clean\n' });
mkdirSync(join(root, 'dist'));
writeFileSync(join(root, 'b.txt'), 'clean too\n');
git('commit', '-qam', 'second');
git('remote', 'add', 'origin', join(base, 'remote.git'));
git('push', '-q', 'origin', 'main');
writeFileSync(join(root, 'c.txt'), 'local\n');
git('add', 'c.txt');
git('commit', '-qm', 'not pushed');
writeFileSync(join(root, 'a.txt'), 'a day of work\n');

const facts = createGitFacts(createLauncher({ level: 'off', root, home, configDir: join(home, 'c'), stateDir: join(home, 's'), network: false, features: { userns: false, disableUserns: false }, contain: false }), env);

async function judge(command: string, cwd = root): Promise<Loss | null> {
  const a = await analyzeBash(command, { root, cwd, home, configDir: join(home, 'c') });
  return destructiveOf(a.commands, a.constructs, { root, cwd, home, facts });
}

describe('destructive commands ask, with what would be lost', () => {
  const lostWork = ['a.txt'];
  const cases: [string, Loss | null][] = [
    ['git reset --hard', { what: 'git reset --hard (uncommitted changes are lost)', lost: lostWork }],
    ['git reset --hard HEAD~1', { what: 'git reset --hard (uncommitted changes are lost)', lost: lostWork }],
    ['git reset HEAD~1', null],
    ['git checkout -- .', { what: 'git checkout over uncommitted changes', lost: lostWork }],
    ['git checkout -- b.txt', null],
    ['git checkout .', { what: 'git checkout over uncommitted changes', lost: lostWork }],
    ['git checkout -f main', { what: 'git checkout over uncommitted changes', lost: lostWork }],
    ['git checkout -b feature', null],
    ['git restore a.txt', { what: 'git restore over uncommitted changes', lost: lostWork }],
    ['git restore --staged a.txt', null],
    ['git -C dist restore .', null],
    ['git clean -fdx', { what: 'git clean -f (untracked files are deleted)', lost: ['(every untracked file)'] }],
    ['git clean -n', null],
    ['git push', { what: 'git push (publishes commits)', lost: [] }],
    ['git push --force-with-lease origin main', { what: 'git push --force (rewrites what others have)', lost: ['origin', 'main'] }],
    ['git push origin +main', { what: 'git push --force (rewrites what others have)', lost: ['origin', '+main'] }],
    ['git commit --amend -m x', null],
    ['git rebase -i HEAD~1', null],
    ['git rebase -i HEAD~2', { what: 'git rebase rewrites commits a remote already has', lost: ['1 pushed commit'] }],
    ['git rebase --root', { what: 'git rebase --root rewrites commits a remote already has', lost: ['2 pushed commits'] }],
    ['git rebase -i HEAD~9', { what: 'git rebase rewrites commits a remote already has', lost: ['(commits that may be pushed)'] }],
    ['git rebase --continue', null],
    ['git stash drop', { what: 'git stash drop', lost: [] }],
    ['git branch -D old', { what: 'git branch -D (unmerged commits are dropped)', lost: ['old'] }],
    // The glob as bash expands it (dist is a build folder): what exists is what would be lost.
    ['rm -rf ./*', { what: 'rm -r outside build and temporary folders', lost: ['a.txt', 'b.txt', 'c.txt'] }],
    ['rm -rf src', { what: 'rm -r outside build and temporary folders', lost: ['src'] }],
    ['rm a.txt', { what: 'rm outside build and temporary folders', lost: ['a.txt'] }],
    ['rm -rf dist node_modules/.cache /tmp/x', null],
    ['rm -rf dist/../src', { what: 'rm -r outside build and temporary folders', lost: ['dist/../src'] }],
    ['sudo rm -r -- -x', { what: 'rm -r outside build and temporary folders', lost: ['-x'] }],
    ['rm -rf "$DIR"', { what: 'rm -r outside build and temporary folders', lost: ['(a path named when it runs)'] }],
    ['rm -rf dist/*', null],
    // Without knowing whether cd succeeded, * is judged in both folders.
    ['cd dist && rm -rf *', { what: 'rm -r outside build and temporary folders', lost: ['*'] }],
    ['cd .. && rm -rf ws', { what: 'rm -r outside build and temporary folders', lost: ['ws'] }],
    ['find . -name "*.o" -delete', { what: 'find -delete', lost: ['.'] }],
    ['find src -type f -exec rm {} +', { what: 'find -exec rm', lost: ['src'] }],
    ['find . -name x -exec grep y {} +', null],
    ['dd if=/dev/zero of=disk.img bs=1M count=1', { what: 'dd', lost: ['disk.img'] }],
    ['dd if=disk.img', null],
    ['mkfs.ext4 /dev/sdb1', { what: 'mkfs.ext4 (formats a device)', lost: ['/dev/sdb1'] }],
    ['chmod -R 777 .', { what: 'chmod -R', lost: ['.'] }],
    ['chown -R nobody src', { what: 'chown -R', lost: ['src'] }],
    ['chmod +x run.sh', null],
    ['truncate -s 0 a.txt', { what: 'truncate', lost: ['a.txt'] }],
    ['echo broken > a.txt', { what: '> overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['echo fine > b.txt', null],
    ['echo more >> a.txt', null],
    ['cat b.txt 2> a.txt', { what: '> overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['echo x > "$OUT"', { what: '> onto a file named when it runs, with uncommitted changes in the repository', lost: ['a.txt'] }],
    // A program's own output onto a changed file clobbers it as `>` would (every spelling).
    ['sort -o a.txt b.txt', { what: 'sort overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['sort -uoa.txt b.txt', { what: 'sort overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['sort --output=a.txt b.txt', { what: 'sort overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['sort --out a.txt b.txt', { what: 'sort overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['sort -o c.txt b.txt', null],
    ['cp b.txt a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['cp -f -- b.txt ./a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['cp dist/a.txt .', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['cp --target-directory=. dist/a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['cp -t. dist/a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['cp -b b.txt a.txt', null],
    ['cp --backup=none b.txt a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['cp -fvt . dist/a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['tee --a a.txt < b.txt', null],
    ['cp -n b.txt a.txt', null],
    ['cp --update=none b.txt a.txt', null],
    ['cp b.txt c.txt', null],
    ['cp b.txt "$F"', { what: 'cp onto a file named when it runs, with uncommitted changes in the repository', lost: ['a.txt'] }],
    ['mv b.txt a.txt', { what: 'mv overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['mv a.txt dist/', null],
    ['install -m 644 b.txt a.txt', { what: 'install overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['ln -sf b.txt a.txt', { what: 'ln overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['ln -s b.txt d.txt', null],
    ['rsync b.txt a.txt', { what: 'rsync overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['echo x | tee a.txt', { what: 'tee overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['echo x | tee -a a.txt', null],
    ['echo x | tee --append c.txt a.txt', null],
    ['curl -o a.txt http://127.0.0.1/', { what: 'curl overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['curl -sSLoa.txt http://127.0.0.1/', { what: 'curl overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['wget -O a.txt http://127.0.0.1/', { what: 'wget overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['wget --output-document=a.txt http://127.0.0.1/', { what: 'wget overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['sudo cp b.txt a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['cd dist && cp ../b.txt ../a.txt', { what: 'cp overwrites a.txt, which has uncommitted changes', lost: ['a.txt'] }],
    ['ls -la; git status', null],
  ];
  for (const [command, expected] of cases) {
    it(command, async () => {
      expect(await judge(command)).toEqual(expected);
    });
  }

  it('without uncommitted changes, checkout and restore lose nothing; reset --hard still moves HEAD', async () => {
    git('stash', '-q');
    try {
      expect(await judge('git checkout -- .')).toBeNull();
      expect(await judge('git restore .')).toBeNull();
      expect(await judge('echo x > a.txt')).toBeNull();
      expect(await judge('git reset --hard')).toEqual({ what: 'git reset --hard (uncommitted changes are lost)', lost: [] });
    } finally {
      git('stash', 'pop', '-q');
    }
  });

  it('outside a repository: the git facts are unknown, so discarding asks', async () => {
    const bare = join(base, 'norepo');
    mkdirSync(bare, { recursive: true });
    const a = await analyzeBash('git reset --hard', { root: bare, cwd: bare, home, configDir: join(home, 'c') });
    expect(await destructiveOf(a.commands, a.constructs, { root: bare, cwd: bare, home, facts })).toEqual({ what: 'git reset --hard (uncommitted changes are lost)', lost: ['(uncommitted changes, if any)'] });
  });
});
