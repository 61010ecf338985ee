// Issue 11: fewer needless questions now that the sandbox enforces. A battery of read-only commands
// a coding agent really runs (git, listing, searching, reading, jq, versions, loops and tests) in a
// real repository: at most 10% of them may ask. Prints the share and the ones that ask.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { analyzeBash } from '../src/safety/bash/analysis.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-battery-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, 'project');
const home = join(base, 'home');
const tree: Record<string, string> = {
  'package.json': '{"name":"app","version":"1.2.0","scripts":{"test":"vitest"},"dependencies":{"express":"^4"}}\n',
  'package-lock.json': '{}\n',
  'tsconfig.json': '{"compilerOptions":{"strict":true}}\n',
  'README.md': '# App\n\nInstall with npm install.\n',
  'CHANGELOG.md': '## 1.2.0\n- fixes\n',
  '.gitignore': 'node_modules/\ndist/\n',
  'src/index.ts': 'export function main() {}\n// TODO: more\n',
  'src/server.ts': 'export function handleRequest() {}\n',
  'src/util.test.ts': 'import { main } from "./index";\n',
  'data.csv': 'a,1\nb,2\n',
  'old.txt': 'one\n',
  'new.txt': 'two\n',
  'node_modules/express/package.json': '{}\n',
};
for (const [path, text] of Object.entries(tree)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
mkdirSync(join(home, '.config', 'feiyu'), { recursive: true });
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home } });
git('init', '-q', '-b', 'main');
git('add', '-A');
git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'first');
git('tag', 'v1.2.0');

const BATTERY = [
  // git
  'git status', 'git status --short', 'git status -sb', 'git log --oneline -10', 'git log --oneline --graph --all -20',
  'git log -p -2 -- src/index.ts', 'git log --stat -3', "git log --format='%h %an %s' -5", "git log --since='2 weeks ago' --oneline",
  'git diff', 'git diff --stat', 'git diff HEAD~1', 'git diff --cached', 'git diff main...HEAD --name-only', 'git show HEAD',
  'git show --stat HEAD', 'git show HEAD:package.json', 'git blame src/index.ts', 'git blame -L 1,10 src/index.ts', 'git branch',
  'git branch -a', 'git branch --show-current', 'git tag -l', 'git remote -v', 'git rev-parse HEAD', 'git rev-parse --abbrev-ref HEAD',
  'git rev-parse --show-toplevel', 'git ls-files', 'git ls-files | wc -l', 'git grep -n TODO', 'git stash list', 'git describe --tags --always',
  'git shortlog -sn', 'git config --get user.name', 'git config user.email', 'git log -1 --format=%cd', 'git merge-base HEAD main',
  'git ls-tree -r HEAD --name-only', 'git cat-file -p HEAD', 'git count-objects -v', 'git diff --name-only | head', 'git log --oneline | wc -l',
  'git status --porcelain | wc -l', 'git diff --stat HEAD~1 HEAD', 'git check-ignore -v dist', "git log -S 'main' --oneline",
  'git log --format=%an | sort | uniq -c | sort -rn', 'git --no-pager log -3', 'git -C src log --oneline -3', 'git --version',
  // listing and finding
  'ls', 'ls -la', 'ls -la src', 'ls -R src | head -50', 'ls src/*.ts', "find . -name '*.ts' -not -path './node_modules/*'",
  'find src -type f | head -20', 'find . -maxdepth 2 -type d', "find . -name package.json -not -path '*/node_modules/*'",
  "find src -name '*.test.ts' | wc -l", 'tree -L 2 -I node_modules', 'du -sh src', 'du -sh * | sort -h', 'wc -l src/*.ts',
  'wc -l $(git ls-files)', 'ls -la | grep -v node_modules', 'ls node_modules | head', 'find src -newer package.json', 'ls -1 src | wc -l',
  // searching
  "grep -rn 'TODO' src", "grep -rn import src --include='*.ts'", 'grep -c function src/index.ts', "grep -n 'export' src/index.ts",
  "grep -E 'main|handle' src/index.ts", 'rg TODO', "rg -n 'function \\w+' src", "rg --type ts 'handleRequest'", "rg -l 'import' src",
  "rg -i error -g '*.ts'", "rg -C 3 'handleRequest' src/server.ts", 'rg --files | head', 'rg -c TODO', 'rg -w main src',
  // reading
  'cat package.json', 'cat src/index.ts', 'head -20 src/index.ts', 'head -n 50 README.md', 'tail -20 CHANGELOG.md', 'tail -n +10 src/index.ts',
  "cat -n src/index.ts | sed -n '10,30p'", "sed -n '1,40p' src/server.ts", "sed -n '/export function/,/^}/p' src/index.ts",
  "sed 's/main/entry/' src/index.ts", "awk 'NR>=10 && NR<=20' src/index.ts", "awk -F, '{print $2}' data.csv", 'cat tsconfig.json | jq .compilerOptions',
  "jq '.scripts' package.json", "jq -r '.dependencies | keys[]' package.json", "cat package.json | jq '.version'", 'jq . tsconfig.json',
  'cat src/index.ts | head -20', 'cat README.md | grep -i install', 'nl src/index.ts | head', "tr -s ' ' < README.md | head -3",
  'paste -sd, README.md', 'tac CHANGELOG.md | head -3', 'cat .gitignore', 'head -c 200 package-lock.json', 'cut -d, -f1 data.csv',
  'sort -t, -k2 -n data.csv', 'sort README.md | uniq -c | sort -rn | head', 'wc -c src/*.ts | sort -n', 'diff src/index.ts src/server.ts',
  'diff -u old.txt new.txt', 'cmp old.txt new.txt', 'file src/index.ts', 'stat src/index.ts', 'md5sum package.json', 'sha256sum package-lock.json',
  'od -c src/index.ts | head', 'base64 old.txt',
  // versions and the environment
  'node --version', 'npm --version', 'node -v', 'python3 --version', 'pwd', 'echo $PWD', 'which node', 'uname -a', 'date', 'whoami',
  'env | grep NODE', 'printenv PATH', 'basename $PWD', 'dirname src/index.ts', 'realpath src', 'seq 1 5', 'nproc',
  // tests, loops, folders
  '[ -f package.json ] && echo yes', 'test -d node_modules && echo installed', 'if [ -f tsconfig.json ]; then cat tsconfig.json; fi',
  'for f in src/*.ts; do wc -l "$f"; done', 'for f in src/*.ts; do echo "$f: $(wc -l < "$f")"; done', 'cd src && ls', 'cd src && grep -n export index.ts',
  "find src -name '*.ts' | xargs wc -l", "find src -name '*.ts' -exec wc -l {} +", 'npm ls --depth=0', 'f=src/index.ts; head -5 $f',
  'ls src && echo --- && ls -a', '(cd src && ls)', '{ git status; git log -1; } 2>&1', 'git status 2>/dev/null || echo not a repo',
];

it('at most 10% of a read-only battery asks', async () => {
  const ctx = { root, cwd: root, home, configDir: join(home, '.config', 'feiyu'), path: '/usr/bin:/bin' };
  const asking: string[] = [];
  for (const command of BATTERY) {
    const r = await analyzeBash(command, ctx);
    if (r.verdict !== 'safe') asking.push(`${command}  →  ${r.verdict}: ${r.reason}`);
  }
  const share = asking.length / BATTERY.length;
  console.log(`read-only battery: ${asking.length} of ${BATTERY.length} ask (${(share * 100).toFixed(1)}%)\n${asking.map((a) => `  ${a}`).join('\n')}`);
  expect(BATTERY.length).toBeGreaterThanOrEqual(100);
  expect(share).toBeLessThanOrEqual(0.1);
});
