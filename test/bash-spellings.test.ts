// Issue 11, section 3, as an attacker spells it: every form the issue names (exact spelling first
// in each group, marked "issue") and further spellings of the same idea, against a real tree.
// Braces, globs, field splitting and loops are expanded before options are read; long options
// resolve like getopt_long; arithmetic never hides a substitution; cd is followed as bash does;
// options that read files are paths; recursive reads never reach a secret.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBash, type BashAnalysis } from '../src/safety/bash/analysis.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-spell-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, 'ws');
const home = join(base, 'home');
const outside = join(base, 'outside');
const configDir = join(home, '.config', 'feiyu');
for (const d of ['src', 'globs', 'dash', 'clean', 'linked', 'empty'].map((d) => join(root, d))) mkdirSync(d, { recursive: true });
for (const d of [join(home, '.ssh'), configDir, outside]) mkdirSync(d, { recursive: true });
const files = ['src/a.ts', 'src/b.ts', 'in.txt', '.env', 'globs/--pre=sh', 'globs/a.txt', 'dash/-o', 'dash/x', 'clean/c.ts', 'linked/l.ts'];
for (const f of files) writeFileSync(join(root, f), 'x');
writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
writeFileSync(join(outside, 'o.txt'), 'x');
symlinkSync(outside, join(root, 'linked', 'out'));

const ctx = { root, cwd: root, home, configDir, path: '/usr/bin:/bin' };
type Summary = { verdict: BashAnalysis['verdict']; code?: string };
const summary = (r: BashAnalysis): Summary => ({ verdict: r.verdict, code: r.code });
const safe: Summary = { verdict: 'safe', code: undefined };
const ask = (code: string): Summary => ({ verdict: 'ask', code });
const deny: Summary = { verdict: 'deny', code: 'secret' };

const table: [group: string, command: string, expected: Summary][] = [
  // Braces and globs are expanded before the program reads its options.
  ['braces (issue)', 'sort {-o,/tmp/x}', ask('unsafe_option')],
  ['braces (issue)', 'find . {-exec,id,\\;}', ask('unsafe_option')],
  ['braces (issue)', 'git log {--output=/tmp/x,-1}', ask('unsafe_option')],
  ['braces', 'git log {--output=.git/commondir,--oneline}', ask('unsafe_option')],
  ['braces', 'sort {-o,out} src/a.ts', ask('unsafe_option')],
  ['braces', 'sort -{o,-} /tmp/x', ask('unsafe_option')],
  ['braces', 'find . -name x {-delete,-print}', ask('unsafe_option')],
  ['braces', "sed -n {-e,'1e id'} in.txt", ask('unsafe_option')],
  ['braces', '{sort,-o,/tmp/x}', ask('parse_error')],
  ['braces', 'sort {1..1000}', ask('too_complex')],
  ['braces', 'sort "{-o,/tmp/x}"', safe],
  ['globs (issue)', 'cd globs && rg x *', ask('unknown_arg')],
  ['globs', 'rg x globs/*', safe],
  ['globs', 'cd dash && sort *', ask('unknown_arg')],
  ['globs', 'sort dash/*', safe],
  ['globs', 'cat src/[[:alpha:]].ts', ask('unknown_arg')],
  ['globs', 'cat ~+/in.txt', ask('unknown_arg')],
  ['globs', 'sort $UNSET src/a.ts', ask('unknown_arg')],
  ['globs', 'cd $UNSET && ls *', ask('unknown_arg')],
  ['splitting', "x='-o /tmp/y'; sort $x src/a.ts", ask('unsafe_option')],
  ['splitting', "x='src/a.ts -o/tmp/y'; sort $x", ask('unsafe_option')],
  ['splitting', "x='-o /tmp/y'; sort \"$x\" src/a.ts", ask('unsafe_option')],
  ['splitting', "x='{-o,/tmp/y}'; sort $x", safe],
  ['loops', 'for o in -o; do sort $o /tmp/y src/a.ts; done', ask('unsafe_option')],
  ['loops', 'for f in {-o,/tmp/y}; do sort $f; done', ask('unsafe_option')],
  ['loops', 'for f in src/*; do wc -l "$f"; done', safe],
  ['loops', 'for f in src/* /etc/hostname; do wc -l "$f"; done', ask('path_outside')],
  ['loops', 'for f in $(ls); do wc -l "$f"; done', ask('substitution')],
  ['loops', 'for f; do wc -l "$f"; done', ask('unknown_arg')],
  ['loops', 'x=src; while true; do ls $x; x=/etc; done', ask('unknown_arg')],
  ['loops', 'x=src; until false; do ls $x; x=/etc; done', ask('unknown_arg')],
  ['loops', 'x=src; for i in 1 2; do ls $x; x=/etc; done', ask('path_outside')],
  ['loops', 'while true; do cd src; ls *; done', ask('unknown_arg')],
  ['loops', 'x=src; while true; do ls $x; done', safe],
  ['variables', 'x=src; true || x=/etc; ls $x', ask('unknown_arg')],
  ['variables', 'x=/etc | true; ls $x', ask('unknown_arg')],
  ['variables', 'x=src; x=/etc | true; ls $x', safe],
  ['variables', 'x=src; ls $x', safe],
  ['variables', 'PATH=. ls', ask('assignment')],
  ['variables', 'IFS=/; ls', ask('assignment')],
  ['variables', 'GIT_DIR=evil git status', ask('assignment')],
  ['variables', 'LD_PRELOAD=./x.so ls', ask('assignment')],
  ['variables', 'echo $PWD', safe],
  ['variables', 'cd src && ls $PWD', safe],
  ['variables', 'ls $PWD/../..', ask('path_outside')],
  ['variables', 'cd src; cat $PWD/../.env', deny],
  // Long options resolve the way getopt_long does: exact, else a unique prefix.
  ['getopt (issue)', 'sort --o=/tmp/x src/a.ts', ask('unsafe_option')],
  ['getopt (issue)', "sed -n --e='1e id' p in.txt", ask('unsafe_option')],
  ['getopt (issue)', "sed -n --expr='1e id' in.txt", ask('unsafe_option')],
  ['getopt (issue)', 'date --f=/etc/shadow', ask('unsafe_option')],
  ['getopt (issue)', 'xargs --a=/etc/passwd echo', ask('path_outside')],
  ['getopt', "sed -n --e '1e id' in.txt", ask('unsafe_option')],
  ['getopt', "sed -ne '1e id' in.txt", ask('unsafe_option')],
  ['getopt', 'sed --in=.bak -n p in.txt', ask('unsafe_option')],
  ['getopt', 'sed -s -i.bak p in.txt', ask('unsafe_option')],
  ['getopt', 'sort --comp=sh src/a.ts', ask('unsafe_option')],
  ['getopt', 'sort --outp=x src/a.ts', ask('unsafe_option')],
  ['getopt', 'wc --files0=list', ask('unsafe_option')],
  ['getopt', 'grep --fil=/etc/passwd x in.txt', ask('unsafe_option')],
  ['getopt', 'rg --pr=x y', ask('unsafe_option')],
  ['getopt', 'ls --frobnicate', ask('unsafe_option')],
  ['getopt', 'xargs --arg=/etc/passwd echo', ask('path_outside')],
  ['getopt', 'xargs --pro=GIT_DIR git status', ask('wrapper')],
  ['getopt', 'env --ch=/tmp ls', ask('wrapper')],
  ['getopt', "env --s='sort -o x'", ask('wrapper')],
  ['getopt', 'timeout --sig=KILL 5 sort -o x', ask('unsafe_option')],
  ['getopt', 'nohup sort --output x', ask('unsafe_option')],
  ['getopt', 'tail --lin=5 in.txt', safe],
  // Arithmetic evaluates names and subscripts, and a subscript runs the $(…) in it.
  ['arithmetic (issue)', "echo 'a[$(cmd)]'; echo $((_))", ask('expansion')],
  ['arithmetic', "x='a[$(id)]'; echo $((x))", ask('expansion')],
  ['arithmetic', "x='a[$(id)]'; echo $[x]", ask('expansion')],
  ['arithmetic', "x='a[$(id)]'; echo $(( $x + 1 ))", ask('expansion')],
  ['arithmetic', 'echo $((a[1]))', ask('expansion')],
  ['arithmetic', 'echo $((x=5))', ask('expansion')],
  ['arithmetic', "[[ -v 'a[$(id)]' ]]", ask('unsafe_option')],
  ['arithmetic', '[[ -v a[$(id)] ]]', ask('substitution')],
  ['arithmetic', "test -v 'a[$(id)]'", ask('unsafe_option')],
  ['arithmetic', "[ 'a[$(id)]' -eq 1 ]", ask('unsafe_option')],
  ['arithmetic', "x='a[$(id)]'; [[ $x -lt 2 ]]", ask('unsafe_option')],
  ['arithmetic', "x='a[$(id)]'; test \"$x\" -gt 0", ask('unsafe_option')],
  ['arithmetic', "[[ 1 -lt 2 && 'a[$(id)]' -eq 1 ]]", ask('unsafe_option')],
  ['arithmetic', "printf %d 'a[$(id)]'", ask('unsafe_option')],
  ['arithmetic', "x='a[$(id)]'; printf '%d' \"$x\"", ask('unsafe_option')],
  ['arithmetic', "printf -v 'a[$(id)]' x", ask('unsafe_option')],
  ['arithmetic', "declare 'a[$(id)]=1'", ask('construct')],
  ['arithmetic', 'let x', ask('not_allowlisted')],
  ['arithmetic', '((x))', ask('expansion')],
  ['arithmetic', 'for ((i=x; i<1; i++)); do :; done', ask('construct')],
  ['arithmetic', 'echo ${x:$(id)}', ask('expansion')],
  ['arithmetic', 'echo ${y:x}', ask('expansion')],
  ['arithmetic', 'echo ${a[x]}', ask('expansion')],
  ['arithmetic', "read 'a[$(id)]'", ask('not_allowlisted')],
  ['arithmetic', "unset 'a[$(id)]'", ask('construct')],
  ['arithmetic', 'a[$(id)]=1', ask('assignment')],
  ['arithmetic', 'ls src; cat $_', ask('unknown_arg')],
  ['arithmetic', 'n=3; echo $((n * 2))', safe],
  ['arithmetic', 'for i in 1 2; do echo $((i + 1)); done', safe],
  ['arithmetic', '[ 3 -gt 2 ] && [[ 2 -le 2 ]]', safe],
  ['arithmetic', "printf '%s\\n' 'a[$(id)]'", safe],
  ['arithmetic', "printf '%d %5.2f\\n' 42 3.14", safe],
  // cd as bash reads it.
  ['cd (issue)', 'cd --', ask('path_outside')],
  ['cd (issue)', 'cd -', ask('path_outside')],
  ['cd (issue)', 'cd', ask('path_outside')],
  ['cd (issue)', 'cd $HOME', ask('path_outside')],
  ['cd', 'cd -P', ask('path_outside')],
  ['cd', 'cd -L --', ask('path_outside')],
  ['cd', 'cd -- -', ask('path_outside')],
  ['cd', 'cd "$HOME" && ls', ask('path_outside')],
  ['cd', 'cd ~', ask('path_outside')],
  ['cd', 'cd src; cd -; ls', ask('path_outside')],
  ['cd', 'cd linked/out', ask('path_outside')],
  ['cd', 'cd -- src && ls', safe],
  // Options that name files to read are paths; recursive reads reach no secret.
  ['files (issue)', 'wc --files0-from=list', ask('unsafe_option')],
  ['files (issue)', 'xargs -a /etc/passwd echo', ask('path_outside')],
  ['files (issue)', 'rg -L x linked', ask('path_outside')],
  ['files (issue)', 'diff -r src linked', ask('path_outside')],
  ['files (issue)', 'diff -rN empty .', deny],
  ['files (issue)', 'git diff --no-index src .', deny],
  ['files (issue)', "rg -g '*env' KEY", deny],
  ['files', 'sort --files0-from=list', ask('unsafe_option')],
  ['files', 'du --files0-from=list', ask('unsafe_option')],
  ['files', 'xargs -a .env echo', deny],
  ['files', 'grep -r KEY .', deny],
  ['files', 'grep -rn KEY', deny],
  ['files', 'grep -d recurse KEY .', deny],
  ['files', 'grep -R KEY linked', ask('path_outside')],
  ['files', "grep -r --include='.e*' KEY .", deny],
  ['files', "grep -r --include='*.ts' KEY .", safe],
  ['files', 'grep -r KEY src', safe],
  ['files', 'rg -t sh KEY', deny],
  ['files', "rg --iglob '*ENV' KEY", deny],
  ['files', "rg --type-add 'e:*.env' -te KEY", deny],
  ['files', "rg -g '.e*' KEY", deny],
  ['files', 'rg --hidden KEY', ask('unsafe_option')],
  ['files', 'rg -uu KEY', ask('unsafe_option')],
  ['files', 'rg KEY', safe],
  ['files', "rg -g '*.ts' KEY", safe],
  ['files', 'rg -t ts KEY', safe],
  ['files', 'rg --files', safe],
  ['files', 'diff -r src clean', safe],
  ['files', 'git diff --no-index src clean', safe],
  ['files', 'find -L linked -name x', ask('path_outside')],
  ['files', 'date -r /etc/hostname', ask('path_outside')],
  ['files', 'jq --rawfile k /etc/hostname -n .', ask('path_outside')],
  ['files', 'jq -n --slurpfile k .env .', deny],
  ['files', 'md5sum -c sums.txt', ask('unsafe_option')],
  ['files', "awk 'BEGIN { ARGV[1] = \"/etc/passwd\"; ARGC = 2 } { print }'", ask('unsafe_option')],
  ['files', "awk 'BEGIN { while ((getline l < \"/etc/passwd\") > 0) print l }'", ask('unsafe_option')],
];

describe('issue 11 spellings', () => {
  it.each(table)('%s: %j', async (_group, command, expected) => {
    expect(summary(await analyzeBash(command, ctx))).toEqual(expected);
  });

  it('covers every spelling the issue names, and each of them is stopped', () => {
    const named = table.filter(([group]) => group.endsWith('(issue)'));
    expect(named.length).toBe(21);
    expect(named.filter(([, , e]) => e.verdict === 'safe')).toEqual([]);
  });

  it('a command that expansion changed is listed as bash runs it and as written, for rules', async () => {
    const r = await analyzeBash('wc -l src/*.ts {in,out}.txt', ctx);
    expect(r.commands.map((c) => c.argv)).toEqual([
      ['wc', '-l', 'src/a.ts', 'src/b.ts', 'in.txt', 'out.txt'],
      ['wc', '-l', 'src/*.ts', '{in,out}.txt'],
    ]);
  });

  it('a recursive read that would reach a secret says which file and what to use instead', async () => {
    const r = await analyzeBash('grep -rn TODO .', ctx);
    expect(r.reason).toBe(
      `${root}/.env (read by grep -rn TODO .) touches an environment file with secrets (.env). feiyu never reads, writes, copies, moves, lists or sources secrets, in any mode. ` +
        'Search with the search tool or rg (they skip secret files), or name the folders to read.',
    );
  });
});
