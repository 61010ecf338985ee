// The command analyser against a broad table (compound commands, substitutions, redirections,
// wrappers, argument abuse, look-alike characters, long chains, parse errors, destructive
// commands) and the hard-deny tripwire against obfuscated spellings, on a real temporary tree.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBash, visible, type BashAnalysis } from '../src/safety/bash/analysis.js';
import { checkSecretPath } from '../src/safety/secrets.js';
import { sedIsReadOnly } from '../src/safety/bash/sed.js';
import { expandBraces } from '../src/safety/bash/expand.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-bash-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, 'ws');
const home = join(base, 'home');
const outside = join(base, 'outside');
const configDir = join(home, '.config', 'feiyu');
for (const d of [join(root, 'src'), join(root, 'bin'), join(root, 'links'), join(home, '.ssh'), join(home, '.aws'), configDir, outside]) {
  mkdirSync(d, { recursive: true });
}
for (const f of ['src/a.ts', 'src/b.ts', '.env', '.env.example', '.envrc', 'README.md']) writeFileSync(join(root, f), 'x');
for (const f of ['.ssh/id_rsa', '.ssh/config', '.aws/credentials', '.aws/config', '.netrc', '.config/feiyu/keys.json']) writeFileSync(join(home, f), 'x');
writeFileSync(join(root, 'bin', 'git'), '#!/bin/sh\n');
chmodSync(join(root, 'bin', 'git'), 0o755);
symlinkSync(outside, join(root, 'links', 'out'));
symlinkSync(join(home, '.ssh'), join(root, 'links', 'keys'));

const ctx = { root, cwd: root, home, configDir, path: '/usr/bin:/bin' };
const analyze = (command: string, over: Partial<typeof ctx> = {}) => analyzeBash(command, { ...ctx, ...over });

type Summary = { verdict: BashAnalysis['verdict']; code?: string; destructive: boolean };
const summary = (r: BashAnalysis): Summary => ({ verdict: r.verdict, code: r.code, destructive: r.destructive });
const safe: Summary = { verdict: 'safe', code: undefined, destructive: false };
const ask = (code: string, destructive = false): Summary => ({ verdict: 'ask', code, destructive });
const deny: Summary = { verdict: 'deny', code: 'secret', destructive: false };
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const nest = (cmd: string, n: number): string => (n === 0 ? cmd : nest(`sh -c ${q(cmd)}`, n - 1));

describe('analyzeBash: whole results', () => {
  it('a safe pipeline lists every simple command', async () => {
    expect(await analyze('ls -la src | wc -l && git status')).toEqual({
      verdict: 'safe',
      constructs: [],
      commands: [
        { argv: ['ls', '-la', 'src'], text: 'ls -la src', issue: null, destructive: null },
        { argv: ['wc', '-l'], text: 'wc -l', issue: null, destructive: null },
        { argv: ['git', 'status'], text: 'git status', issue: null, destructive: null },
      ],
      destructive: false,
      opaque: false,
    });
  });

  it('a substitution asks, and the commands inside it are still listed', async () => {
    expect(await analyze('echo "today: $(date +%F)"')).toEqual({
      verdict: 'ask',
      code: 'substitution',
      reason: 'it contains the command substitution $(date +%F)',
      constructs: [{ code: 'substitution', reason: 'it contains the command substitution $(date +%F)', params: { part: '$(date +%F)' } }],
      commands: [
        { argv: ['date', '+%F'], text: 'date +%F', issue: null, destructive: null },
        { argv: ['echo', null], text: 'echo "today: $(date +%F)"', issue: null, destructive: null },
      ],
      destructive: false,
      opaque: false,
    });
  });

  it('wrappers are judged by what they run; quoting is removed from the words', async () => {
    expect(await analyze(`timeout 60 npm run "unit tests" && bash -c 'git commit -m "a b"'`)).toEqual({
      verdict: 'ask',
      code: 'not_allowlisted',
      reason: 'npm is not on the read-only allowlist',
      constructs: [],
      commands: [
        { argv: ['npm', 'run', 'unit tests'], text: 'timeout 60 npm run "unit tests"', issue: { code: 'not_allowlisted', reason: 'npm is not on the read-only allowlist', params: { program: 'npm' } }, destructive: null },
        { argv: ['git', 'commit', '-m', 'a b'], text: 'git commit -m "a b"', issue: { code: 'not_allowlisted', reason: 'git commit is not on the read-only allowlist', params: { program: 'git' } }, destructive: null },
      ],
      destructive: false,
      opaque: false,
    });
  });

  it('a commit message from a literal here-document is a plain word', async () => {
    const r = await analyze(`git commit -m "$(cat <<'EOF'\nFix the parser\n\nDetails: $HOME stays literal\nEOF\n)"`);
    expect(r.constructs).toEqual([]);
    expect(r.commands.map((c) => c.argv)).toEqual([['git', 'commit', '-m', 'Fix the parser\n\nDetails: $HOME stays literal']]);
  });

  it('a hard deny explains itself to the model', async () => {
    const r = await analyze('cat ~/.ssh/id_rsa');
    expect(r.verdict).toBe('deny');
    expect(r.reason).toBe(
      `${home}/.ssh/id_rsa touches the .ssh folder (SSH keys). feiyu never reads, writes, copies, moves, lists or sources secrets, in any mode. ` +
        'If you only need to mention the name (for example in .gitignore), edit that file with edit_file instead of a shell command; otherwise ask the user to do this step themselves.',
    );
  });
});

describe('analyzeBash: the table', () => {
  const table: [string, string, Summary][] = [
    // compound commands
    ['compound', 'ls && pwd', safe],
    ['compound', 'ls; pwd; echo done', safe],
    ['compound', 'ls || echo none', safe],
    ['compound', 'ls src | sort | uniq -c', safe],
    ['compound', 'ls |& wc -l', safe],
    ['compound', 'ls\npwd\n', safe],
    ['compound', '! ls src', safe],
    ['compound', 'ls # a comment; rm -rf /', safe],
    ['compound', 'ls && npm test', ask('not_allowlisted')],
    ['compound', 'git status; git diff; git log --oneline -3', safe],
    // substitutions, every form
    ['substitution', 'echo $(date)', ask('substitution')],
    ['substitution', 'echo `date`', ask('substitution')],
    ['substitution', 'echo "x$(date)y"', ask('substitution')],
    ['substitution', 'diff <(ls) <(ls src)', ask('substitution')],
    ['substitution', 'ls > >(wc)', ask('substitution')],
    ['substitution', 'echo $(( $(id -u) + 1 ))', ask('substitution')],
    ['substitution', 'echo $((1 + 2 * 3))', safe],
    ['substitution', 'echo ${x:-$(date)}', ask('expansion')],
    ['substitution', 'wc -l <<< "$(id)"', ask('substitution')],
    ['substitution', 'wc -l <<EOF\nhello $(id)\nEOF', ask('substitution')],
    ['substitution', "wc -l <<'EOF'\nhello $(id)\nEOF", safe],
    ['substitution', 'wc -l <<EOF\nhello $USER\nEOF', safe],
    ['substitution', 'echo "$(echo "$(echo "$(id)")")"', ask('substitution')],
    // redirections
    ['redirect', 'ls > /dev/null', safe],
    ['redirect', 'ls 2>/dev/null', safe],
    ['redirect', 'ls 2>&1', safe],
    ['redirect', 'ls >&2', safe],
    ['redirect', 'ls &>/dev/null', safe],
    ['redirect', 'ls 2>&-', safe],
    ['redirect', 'ls > out.txt', ask('redirect')],
    ['redirect', 'ls >> build.log', ask('redirect')],
    ['redirect', 'ls 2> err.txt', ask('redirect')],
    ['redirect', 'ls >| out.txt', ask('redirect')],
    ['redirect', 'ls &>> out.txt', ask('redirect')],
    ['redirect', 'ls >& out.txt', ask('redirect')],
    ['redirect', 'ls > /dev/null /etc', ask('path_outside')],
    ['redirect', 'wc -l < src/a.ts', safe],
    ['redirect', 'wc -l < /etc/passwd', ask('path_outside')],
    ['redirect', '{ ls; } > /dev/null', safe],
    // wrappers
    ['wrapper', "sh -c 'ls -la'", safe],
    ['wrapper', 'bash -c "git status && ls src"', safe],
    ['wrapper', 'bash -ec "ls"', safe],
    ['wrapper', "bash -c 'npm test'", ask('not_allowlisted')],
    ['wrapper', "bash -c 'ls > out'", ask('redirect')],
    ['wrapper', 'sh -c "$CMD"', ask('wrapper')],
    ['wrapper', 'bash -lc ls', ask('wrapper')],
    ['wrapper', 'bash -i -c ls', ask('wrapper')],
    ['wrapper', 'bash ./script.sh', ask('not_allowlisted')],
    ['wrapper', nest('ls', 4), safe],
    ['wrapper', nest('ls', 5), ask('wrapper')],
    ['wrapper', 'env', safe],
    ['wrapper', 'env ls', safe],
    ['wrapper', 'env -i ls', safe],
    ['wrapper', 'env FOO=1 ls', ask('wrapper')],
    ['wrapper', "env -S 'ls -la'", ask('wrapper')],
    ['wrapper', 'env -C /tmp ls', ask('wrapper')],
    ['wrapper', 'timeout 10 git status', safe],
    ['wrapper', 'timeout -s KILL -k 5 10 ls', safe],
    ['wrapper', 'timeout 10 npm test', ask('not_allowlisted')],
    ['wrapper', 'nice -n 5 ls', safe],
    ['wrapper', 'nice -10 ls', safe],
    ['wrapper', 'nohup ls', safe],
    ['wrapper', 'stdbuf -oL ls', safe],
    ['wrapper', 'time ls', safe],
    ['wrapper', 'timeout 5 nice nohup ls src', safe],
    ['wrapper', 'ls | xargs echo', safe],
    ['wrapper', 'ls | xargs wc -l', ask('unknown_arg')],
    ['wrapper', 'ls | xargs rm', ask('not_allowlisted')],
    ['wrapper', 'xargs -p ls', ask('wrapper')],
    ['wrapper', 'xargs -o ls', ask('wrapper')],
    ['wrapper', 'eval ls', ask('wrapper')],
    ['wrapper', 'source ./env.sh', ask('wrapper')],
    ['wrapper', '. ./env.sh', ask('wrapper')],
    ['wrapper', 'exec ls', ask('wrapper')],
    ['wrapper', 'command ls', safe],
    ['wrapper', 'command -v rm', safe],
    ['wrapper', 'builtin cd src', ask('wrapper')],
    ['wrapper', 'sudo ls', ask('not_allowlisted')],
    // constructs
    ['construct', 'x=1 ls', safe],
    ['construct', 'PATH=./bin git status', ask('assignment')],
    ['construct', 'x=1', safe],
    ['construct', 'IFS=/ ls', ask('assignment')],
    ['construct', 'a[0]=1', ask('assignment')],
    ['construct', 'a=(x y)', ask('assignment')],
    ['construct', 'export PATH=.:$PATH', ask('construct')],
    ['construct', 'declare -x A=1', ask('construct')],
    ['construct', 'unset HOME', ask('construct')],
    ['construct', 'f() { ls; }; f', ask('construct')],
    ['construct', '(ls)', safe],
    ['construct', '{ ls; }', safe],
    ['construct', 'if true; then ls; fi', safe],
    ['construct', 'for f in src/*; do ls $f; done', safe],
    ['construct', 'for f in src/* /etc; do ls $f; done', ask('path_outside')],
    ['construct', 'for ((i=0; i<3; i++)); do ls; done', ask('construct')],
    ['construct', 'while true; do ls; done', safe],
    ['construct', 'case x in x) ls;; esac', safe],
    ['construct', '[ -f src/a.ts ]', safe],
    ['construct', '[[ 1 -eq 1 ]] && ls', safe],
    ['construct', '((x++))', ask('construct')],
    ['construct', 'ls &', ask('background')],
    ['construct', 'ls & pwd', ask('background')],
    ['construct', '$CMD src', ask('dynamic_name')],
    ['construct', 'l$s src', ask('dynamic_name')],
    ['construct', '${CMD} src', ask('dynamic_name')],
    ['construct', '"$(which ls)" -l', ask('substitution')],
    ['construct', 'echo ${x@P}', ask('expansion')],
    ['construct', 'echo ${!ref}', ask('expansion')],
    ['construct', 'echo ${x:=y}', ask('expansion')],
    ['construct', 'echo ${#x} $HOME "$@" $?', safe],
    ['construct', 'echo $"translated"', ask('construct')],
    // git argument abuse
    ['git', 'git status', safe],
    ['git', 'git log --oneline -n 5 -- src', safe],
    ['git', 'git diff HEAD~1 --stat', safe],
    ['git', 'git show HEAD:src/a.ts', safe],
    ['git', 'git -c core.pager=evil log', ask('unsafe_option')],
    ['git', 'git -c core.fsmonitor=evil status', ask('unsafe_option')],
    ['git', 'git --config-env=core.pager=X log', ask('unsafe_option')],
    ['git', 'git --exec-path=/tmp status', ask('unsafe_option')],
    ['git', 'git -p log', ask('unsafe_option')],
    ['git', 'git --paginate log', ask('unsafe_option')],
    ['git', 'git --no-pager log', safe],
    ['git', 'git diff --output=/tmp/x', ask('unsafe_option')],
    ['git', 'git diff --output /tmp/x', ask('unsafe_option')],
    ['git', 'git diff --outp=x', ask('unsafe_option')],
    ['git', 'git log --ext-diff', ask('unsafe_option')],
    ['git', 'git show --textconv HEAD', ask('unsafe_option')],
    ['git', 'git diff --no-textconv', safe],
    ['git', 'git grep -O foo', ask('unsafe_option')],
    ['git', 'git grep --open-files-in-pager foo', ask('unsafe_option')],
    ['git', 'git diff --help', ask('unsafe_option')],
    ['git', 'git cat-file --filters HEAD:src/a.ts', ask('unsafe_option')],
    ['git', 'git -C src status', safe],
    ['git', 'git -C /tmp status', ask('path_outside')],
    ['git', 'git -C .. status', ask('path_outside')],
    ['git', 'git --git-dir=/tmp/x/.git log', ask('path_outside')],
    ['git', 'git --work-tree /tmp log', ask('path_outside')],
    ['git', 'git diff --no-index /etc/passwd src/a.ts', ask('path_outside')],
    ['git', 'git branch', safe],
    ['git', 'git branch -a -v', safe],
    ['git', 'git branch --list "feat/*"', safe],
    ['git', 'git branch new-feature', ask('unsafe_option')],
    ['git', 'git branch -D old', ask('unsafe_option')],
    ['git', 'git branch -m a b', ask('unsafe_option')],
    ['git', 'git tag', safe],
    ['git', 'git tag -l "v1*"', safe],
    ['git', 'git tag v1.0', ask('unsafe_option')],
    ['git', 'git tag -d v1.0', ask('unsafe_option')],
    ['git', 'git stash list', safe],
    ['git', 'git stash', ask('unsafe_option')],
    ['git', 'git stash pop', ask('unsafe_option')],
    ['git', 'git remote -v', safe],
    ['git', 'git remote add evil https://x', ask('unsafe_option')],
    ['git', 'git worktree list', safe],
    ['git', 'git worktree add ../x', ask('unsafe_option')],
    ['git', 'git rev-parse --show-toplevel', safe],
    ['git', 'git ls-files -o --exclude-standard', safe],
    ['git', 'git commit -m wip', ask('not_allowlisted')],
    ['git', 'git push', ask('not_allowlisted')],
    ['git', 'git config core.pager evil', ask('unsafe_option')],
    ['git', 'git config --get core.pager', safe],
    ['git', 'git help log', ask('not_allowlisted')],
    // find
    ['find', "find . -name '*.ts'", safe],
    ['find', 'find src -type f -newer src/a.ts', safe],
    ['find', 'find', safe],
    ['find', 'find -L src -name x', safe],
    ['find', 'find . -exec rm {} \\;', ask('unsafe_option')],
    ['find', 'find . -execdir cat {} +', ask('unsafe_option')],
    ['find', 'find . -ok rm {} \\;', ask('unsafe_option')],
    ['find', 'find . -okdir rm {} \\;', ask('unsafe_option')],
    ['find', 'find . -name x -delete', ask('unsafe_option')],
    ['find', 'find . -fprint /tmp/list', ask('unsafe_option')],
    ['find', 'find . -fprintf out %p', ask('unsafe_option')],
    ['find', 'find . -fls out', ask('unsafe_option')],
    ['find', 'find / -name passwd', ask('path_outside')],
    ['find', 'find src .. -name x', ask('path_outside')],
    ['find', 'find src -newer /etc/passwd', ask('path_outside')],
    // rg
    ['rg', 'rg TODO src', safe],
    ['rg', 'rg -n --glob "*.ts" TODO', safe],
    ['rg', 'rg /api/v1 src', safe],
    ['rg', 'rg --pre cat foo', ask('unsafe_option')],
    ['rg', 'rg --pre=./x.sh foo', ask('unsafe_option')],
    ['rg', 'rg --hostname-bin=./x foo', ask('unsafe_option')],
    ['rg', 'rg -z foo', ask('unsafe_option')],
    ['rg', 'rg --hidden API_KEY', ask('unsafe_option')],
    ['rg', 'rg -uu API_KEY', ask('unsafe_option')],
    ['rg', 'rg -. API_KEY', ask('unsafe_option')],
    ['git', 'git grep --no-index API_KEY', ask('unsafe_option')],
    ['git', 'git grep --untracked --no-exclude-standard API_KEY', ask('unsafe_option')],
    ['rg', 'rg foo /etc', ask('path_outside')],
    ['rg', 'rg -e foo /etc', ask('path_outside')],
    ['rg', 'rg -f /etc/patterns src', ask('path_outside')],
    // sed
    ['sed', 'sed -n 1,5p src/a.ts', safe],
    ['sed', "sed -n '/start/,/end/p' src/a.ts", safe],
    ['sed', "sed -n 's/foo/bar/gp' src/a.ts", safe],
    ['sed', "sed -n '$p;1p' src/a.ts", safe],
    ['sed', "sed -n -e '1p' -e '$=' src/a.ts", safe],
    ['sed', 'sed -n p /etc/passwd', ask('path_outside')],
    ['sed', 'sed 1p src/a.ts', safe],
    ['sed', 'sed 1e src/a.ts', ask('unsafe_option')],
    ['sed', 'sed -i s/a/b/ src/a.ts', ask('unsafe_option')],
    ['sed', 'sed -ni p src/a.ts', ask('unsafe_option')],
    ['sed', 'sed --in-place=.bak -n p src/a.ts', ask('unsafe_option')],
    ['sed', 'sed -n -f script.sed src/a.ts', ask('unsafe_option')],
    ['sed', "sed -n 's/a/b/w out' src/a.ts", ask('unsafe_option')],
    ['sed', "sed -n 's/a/id/e' src/a.ts", ask('unsafe_option')],
    ['sed', "sed -n '1e id' src/a.ts", ask('unsafe_option')],
    ['sed', "sed -n '1w /tmp/x' src/a.ts", ask('unsafe_option')],
    ['sed', "sed -n 'r /etc/passwd' src/a.ts", ask('unsafe_option')],
    ['sed', "sed -n -e p -e 's/x/y/w z' src/a.ts", ask('unsafe_option')],
    // sort and friends
    ['sort', 'sort src/a.ts', safe],
    ['sort', 'sort -t, -k2 -n src/a.ts', safe],
    ['sort', 'sort -o out src/a.ts', ask('unsafe_option')],
    ['sort', 'sort -uo out src/a.ts', ask('unsafe_option')],
    ['sort', 'sort --output=out src/a.ts', ask('unsafe_option')],
    ['sort', 'sort --out=out src/a.ts', ask('unsafe_option')],
    ['sort', 'sort -T /tmp src/a.ts', ask('unsafe_option')],
    ['sort', 'sort --compress-program=sh src/a.ts', ask('unsafe_option')],
    ['sort', 'sort /etc/passwd', ask('path_outside')],
    ['sort', 'uniq src/a.ts src/b.ts', ask('unsafe_option')],
    ['sort', 'tree -o out', ask('unsafe_option')],
    ['sort', 'printf -v PATH x', ask('unsafe_option')],
    ['sort', 'date -s tomorrow', ask('unsafe_option')],
    ['sort', 'file -C -m magic', ask('unsafe_option')],
    // paths and programs
    ['paths', 'ls src/*.ts', safe],
    ['paths', 'ls *', safe],
    ['paths', 'ls /etc', ask('path_outside')],
    ['paths', 'ls ..', ask('path_outside')],
    ['paths', 'ls src/../..', ask('path_outside')],
    ['paths', 'ls ../*', ask('path_outside')],
    ['paths', 'ls ~', ask('path_outside')],
    ['paths', 'ls links/out/', ask('path_outside')],
    ['paths', 'diff src/a.ts /dev/null', safe],
    ['paths', 'diff src/a.ts /etc/hosts', ask('path_outside')],
    ['paths', 'wc --files0-from=/etc/list', ask('unsafe_option')],
    ['paths', 'cd src && ls', safe],
    ['paths', 'cd /tmp && ls', ask('path_outside')],
    ['paths', 'cd', ask('path_outside')],
    ['paths', 'cd -', ask('path_outside')],
    ['paths', 'ls $DIR', ask('unknown_arg')],
    ['programs', 'cat src/a.ts', safe],
    ['programs', 'cat /etc/passwd', ask('path_outside')],
    ['programs', 'head -5 src/a.ts', safe],
    ['programs', 'tail src/a.ts', safe],
    ['programs', 'grep x src/a.ts', safe],
    ['programs', 'python3 -c 1', ask('not_allowlisted')],
    ['programs', 'node x.js', ask('not_allowlisted')],
    ['programs', 'npm test', ask('not_allowlisted')],
    ['programs', 'make', ask('not_allowlisted')],
    ['programs', 'less README.md', ask('not_allowlisted')],
    ['programs', 'vim README.md', ask('not_allowlisted')],
    ['programs', './git status', ask('program_path')],
    ['programs', 'bin/git status', ask('program_path')],
    ['programs', '/tmp/x/git status', ask('program_path')],
    ['programs', '/usr/bin/git status', safe],
    ['programs', '/usr/bin/../../tmp/git status', ask('program_path')],
    // look-alike whitespace and control characters
    ['chars', 'ls\u00a0-la', ask('hidden_chars')],
    ['chars', 'ls\u200b', ask('hidden_chars')],
    ['chars', 'ls\u3000-la', ask('hidden_chars')],
    ['chars', 'echo \u202eabc', ask('hidden_chars')],
    ['chars', 'ls\r', ask('hidden_chars')],
    ['chars', 'echo \x1b[2J', ask('hidden_chars')],
    ['chars', 'echo a\x00b', ask('hidden_chars')],
    ['chars', 'ls\t-la', safe],
    ['chars', 'echo 你好，世界', safe],
    // parse errors
    ['parse', 'ls (', ask('parse_error')],
    ['parse', 'echo "unterminated', ask('parse_error')],
    ['parse', 'ls ;; pwd', ask('parse_error')],
    ['parse', 'if', ask('parse_error')],
    ['parse', 'ls <> f', ask('parse_error')],
    ['parse', 'echo @(x|y)', ask('parse_error')],
    ['parse', 'ls sr\\\nc', ask('parse_error')],
    ['parse', 'ls \\\n  -la', safe],
    // destructive commands
    ['destructive', 'git reset --hard', ask('not_allowlisted', true)],
    ['destructive', 'git reset --hard origin/main', ask('not_allowlisted', true)],
    ['destructive', 'git reset --soft HEAD~1', ask('not_allowlisted')],
    ['destructive', 'git checkout -- .', ask('not_allowlisted', true)],
    ['destructive', 'git checkout .', ask('not_allowlisted', true)],
    ['destructive', 'git checkout -- src/a.ts', ask('not_allowlisted', true)],
    ['destructive', 'git checkout -f main', ask('not_allowlisted', true)],
    ['destructive', 'git checkout -b feature', ask('not_allowlisted')],
    ['destructive', 'git restore src/a.ts', ask('not_allowlisted', true)],
    ['destructive', 'git restore --staged src/a.ts', ask('not_allowlisted')],
    ['destructive', 'git clean -fdx', ask('not_allowlisted', true)],
    ['destructive', 'git clean --force', ask('not_allowlisted', true)],
    ['destructive', 'git clean -n', ask('not_allowlisted')],
    ['destructive', 'git push --force', ask('not_allowlisted', true)],
    ['destructive', 'git push -f origin main', ask('not_allowlisted', true)],
    ['destructive', 'git push --force-with-lease', ask('not_allowlisted', true)],
    ['destructive', 'git push origin +main', ask('not_allowlisted', true)],
    ['destructive', 'git -C src push -uf origin x', ask('not_allowlisted', true)],
    ['destructive', 'git push origin main', ask('not_allowlisted')],
    ['destructive', 'git stash drop', ask('unsafe_option', true)],
    ['destructive', 'rm -rf ~', ask('not_allowlisted', true)],
    ['destructive', 'rm -rf ~/', ask('not_allowlisted', true)],
    ['destructive', 'rm -rf "$HOME"', ask('not_allowlisted', true)],
    ['destructive', 'rm -rf /', ask('not_allowlisted', true)],
    ['destructive', 'rm -fr --no-preserve-root /', ask('not_allowlisted', true)],
    ['destructive', 'rm -rf .', ask('not_allowlisted', true)],
    ['destructive', 'rm -r ..', ask('not_allowlisted', true)],
    ['destructive', `rm -rf ${root}`, ask('not_allowlisted', true)],
    ['destructive', `rm -rf ${base}`, ask('not_allowlisted', true)],
    ['destructive', 'rm -rf *', ask('not_allowlisted', true)],
    ['destructive', 'rm -rf ./*', ask('not_allowlisted', true)],
    ['destructive', 'rm -rf .git', ask('not_allowlisted', true)],
    ['destructive', 'rm -R $DIR', ask('not_allowlisted', true)],
    ['destructive', 'cd src && rm -rf ..', ask('not_allowlisted', true)],
    ['destructive', 'sudo rm -rf /', ask('not_allowlisted', true)],
    ['destructive', 'timeout 5 rm -rf ~', ask('not_allowlisted', true)],
    ['destructive', "sh -c 'git reset --hard'", ask('not_allowlisted', true)],
    ['destructive', 'rm -rf src', ask('not_allowlisted')],
    ['destructive', 'rm -rf src/*', ask('not_allowlisted')],
    ['destructive', 'rm -f README.md', ask('not_allowlisted')],
  ];

  it.each(table)('%s: %j', async (_group, command, expected) => {
    expect(summary(await analyze(command))).toEqual(expected);
  });

  it('an allowlisted name that $PATH finds in the workspace is not the system program', async () => {
    expect(summary(await analyze('git status', { path: `${root}/bin:/usr/bin` }))).toEqual(ask('program_path'));
    expect(summary(await analyze('git status', { path: 'bin:/usr/bin' }))).toEqual(ask('program_path'));
    expect(summary(await analyze('git status', { path: '/usr/bin:/bin' }))).toEqual(safe);
  });

  it('a cwd outside the workspace makes reading commands ask', async () => {
    expect(summary(await analyze('ls', { cwd: outside }))).toEqual(ask('path_outside'));
    expect(summary(await analyze('git status', { cwd: outside }))).toEqual(ask('path_outside'));
    expect(summary(await analyze('echo hi', { cwd: outside }))).toEqual(safe);
  });
});

describe('analyzeBash: size', () => {
  it('500 parts joined by && are analysed part by part', async () => {
    const r = await analyze(Array(500).fill('ls src').join(' && '));
    expect(summary(r)).toEqual(safe);
    expect(r.commands).toHaveLength(500);
    const last = await analyze([...Array(500).fill('ls'), 'npm test'].join(' && '));
    expect(summary(last)).toEqual(ask('not_allowlisted'));
  });

  it('a 2000-stage pipeline and 300 nested substitutions do not blow up', async () => {
    expect(summary(await analyze(Array(2000).fill('ls').join(' | ')))).toEqual(safe);
    expect(summary(await analyze('echo ' + '$('.repeat(300) + 'x' + ')'.repeat(300)))).toEqual(ask('substitution'));
  });

  it('too long a command asks without being analysed, but is still searched for secrets', async () => {
    const long = 'ls ' + 'a'.repeat(100_001);
    expect(summary(await analyze(long))).toEqual(ask('too_long'));
    expect(summary(await analyze(`cat ~/.ssh/id_rsa ${'a'.repeat(100_001)}`))).toEqual(deny);
  });

  it('10000 nested subshells end in an answer, not a crash', async () => {
    const r = await analyze('('.repeat(10_000) + 'ls' + ')'.repeat(10_000));
    expect(r.verdict).toBe('ask');
    expect(['construct', 'too_complex', 'parse_error']).toContain(r.code);
  });
});

describe('hard denies: obfuscated spellings', () => {
  const denied: string[] = [
    'cat ~/.ssh/id_rsa',
    'cat $HOME/.ssh/config',
    'cat ${HOME}/.ssh/config',
    'cat "$HOME"/.ssh/config',
    'cat "${HOME}/.ssh/config"',
    `cat ${home}/.ssh/config`,
    'cat ~/".ssh"/config',
    "cat ~/'.ssh'/config",
    'cat ~/.s"s"h/config',
    'cat ~/\\.ssh/config',
    'cat ~/.ss\\h/config',
    "cat ~/.ss$'h'/config",
    "cat ~/$'\\x2essh'/config",
    'cat ~/.ss?/config',
    'cat ~/.s*/config',
    'cat ~/.[s]sh/config',
    'cat ~/.ss[a-z]/*',
    'cat ~/.{ssh,cache}/config',
    'cat ~/.ss{g..i}/config',
    'cat ~/x/../.ssh/config',
    `cat /tmp/../${home}/.ssh/config`,
    'cat ~/../$(basename ~)/.ssh/config',
    'cd ~/.ssh && cat config',
    'cd ~ && cat .ssh/config',
    'cd ~; cd .ssh; cat config',
    'D=.ssh; cat ~/$D/config',
    'ls ~/.ssh',
    'cp -r ~/.ssh /tmp/keys',
    'tar czf /tmp/k.tgz ~/.ssh',
    'echo key >> ~/.ssh/authorized_keys',
    'cat links/keys/config',
    'cat${IFS}$HOME/.ssh/id_rsa',
    `python3 -c "print(open('$HOME/.ssh/id_rsa').read())"`,
    `node -e 'require("fs").readFileSync(process.env.HOME + "/.ssh/id_rsa")'`,
    'cat /srv/deploy/id_ed25519',
    'cat id_ecdsa_sk',
    'cat work.ppk',
    'cat ~/.aws/credentials',
    'ls ~/.aws',
    'gpg --homedir ~/.gnupg --export-secret-keys',
    'cat ~/.netrc',
    'cat ~/.git-credentials',
    'cat .env',
    'cat ./.env',
    'cat src/../.env',
    'cat .env.local',
    'cat .env.production',
    'cat src/.env',
    'cat .en?',
    'cat .e*',
    'source .env',
    '. ./.env',
    'cp .env /tmp/x',
    'ln -s .env leak',
    'git show HEAD:.env',
    'echo x > .env',
    'cp .env.example .env',
    'cat ~/.config/feiyu/keys.json',
    `cat ${configDir}/keys.json`,
    'ls ~/.config/feiyu',
    'echo "{}" > ~/.config/feiyu/approvals.json',
    'echo $(cat ~/.ssh/id_rsa)',
    'sh -c "cat ~/.ssh/id_rsa"',
    'eval "cat ~/.ssh/id_rsa"',
    'timeout 5 cat .env',
    'cat ~/.ssh/id_rsa (',
    'cat\u00a0~/.ssh/id_rsa',
    'cat ~/.ss\\\nh/id_rsa',
  ];
  it.each(denied)('%j is refused', async (command) => {
    expect(summary(await analyze(command))).toEqual(deny);
  });

  const allowed: [string, Summary][] = [
    ['cat .env.example', safe],
    ['cat .envrc', safe],
    ['cat ~/.ssh_notes', ask('path_outside')],
    ['cat ~/.aws/config', ask('path_outside')],
    ['cat keys/id_rsa.pub', safe],
    ['echo ssh', safe],
    ['ls src', safe],
    ['ls -a', safe],
  ];
  it.each(allowed)('%j is not a secret', async (command, expected) => {
    expect(summary(await analyze(command))).toEqual(expected);
  });

  it('checkSecretPath names what a path is', () => {
    const cases: [string, string | null][] = [
      [`${home}/.ssh`, 'the .ssh folder (SSH keys)'],
      [`${home}/.ssh/known_hosts`, 'the .ssh folder (SSH keys)'],
      [`/root/.gnupg/pubring.kbx`, 'the .gnupg folder (GnuPG keys)'],
      [`${home}/.aws/credentials`, 'AWS credentials (.aws/credentials)'],
      [`${home}/.aws`, 'AWS credentials (.aws/credentials)'],
      [`${home}/.aws/config`, null],
      [`${root}/deploy/id_rsa`, 'a private key (id_rsa)'],
      [`${root}/deploy/id_rsa.pub`, null],
      [`${home}/.netrc`, 'a credentials file (.netrc)'],
      [`${root}/.env`, 'an environment file with secrets (.env)'],
      [`${root}/.ENV`, 'an environment file with secrets (.env)'],
      [`${root}/.env.staging`, 'an environment file with secrets (.env.staging)'],
      [`${root}/.env.example`, null],
      [`${root}/.env.sample`, null],
      [`${root}/.envrc`, null],
      [`${root}/.env/bin/python`, null],
      [`${configDir}/keys.json`, "feiyu's API keys (keys.json)"],
      [`${configDir}/approvals.json`, "feiyu's own configuration folder (settings, approvals and trust are changed by the user only)"],
      [`${root}/src/a.ts`, null],
    ];
    expect(cases.map(([p]) => [p, checkSecretPath(p, configDir)])).toEqual(cases);
  });
});

describe('helpers', () => {
  it('visible() shows hidden characters', () => {
    expect(visible('ls\u00a0-la\u200b\x1b')).toBe('ls⟨U+00A0⟩-la⟨U+200B⟩⟨U+001B⟩');
  });

  it('expandBraces follows bash, escapes included, and refuses explosions', () => {
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expandBraces('x{1..3}')).toEqual(['x1', 'x2', 'x3']);
    expect(expandBraces('{c..a}')).toEqual(['c', 'b', 'a']);
    expect(expandBraces('a\\{b,c}')).toEqual(['a\\{b,c}']);
    expect(expandBraces('{x}')).toEqual(['{x}']);
    expect(expandBraces('{1..100000}')).toBeNull();
    expect(expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toBeNull();
  });

  it.each([
    ['p', true],
    ['1,5p', true],
    ['/a/,/b/p', true],
    ['\\,x/y,p', true],
    ['$!N;P;D', true],
    ['s/[/]/X/gp', true],
    ['y/abc/xyz/;p', true],
    ['1~2p;10q', true],
    ['/x/{p;q}', true],
    ['s/a/b/w out', false],
    ['s/a/b/e', false],
    ['s/[/]/X/w out', false],
    ['1e id', false],
    ['1r /etc/passwd', false],
    ['R x', false],
    ['W x', false],
    ['a text', true],
    ['1i\\\nline', true],
    ['b end; :end', true],
    ['s/a/b', false],
  ])('sedIsReadOnly(%j) is %s', (script, expected) => {
    expect(sedIsReadOnly(script)).toBe(expected);
  });
});
