// The read-only programs that run without asking, each with its whole option table (GNU coreutils
// 9, diffutils 3.8, grep 3.8, sed 4.9, ripgrep 15, jq 1.6) and what makes it ask: options that
// write, run programs or read files named elsewhere. Must not know about shells or the file system;
// allowlist.ts applies these specs to one argv.

import { isOption, optionTable as table, type ParsedArgs, type ParsedOpt } from './getopt.js';
import { awkIsReadOnly } from './awk.js';
import { pathGlobRegex } from './expand.js';
import { sedIsReadOnly } from './sed.js';
import type { OptionTable } from './getopt.js';

export type ArgCode = 'not_allowlisted' | 'unsafe_option' | 'path_outside' | 'unknown_arg' | 'secret' | 'git_config';
/** `path`: for 'secret', the secret file a recursive read reaches. */
export type ArgProblem = { code: ArgCode; detail: string; path?: string };

/** How a recursive read walks: whether it follows links, and whether it reads hidden files and which. */
export type Recursion = { followLinks: boolean; hidden: boolean; include?: (relPath: string) => boolean };

/** What the allowlist asks of the file system, answered by the analysis. */
export type Checks = {
  /** The path outside the workspace that the argument names (globs expanded, links resolved), or null. */
  outside(value: string, pattern?: string): string | null;
  /** What reading `path` recursively would reach that it must not (a secret, a link out), or null. */
  below(path: string, how: Recursion): ArgProblem | null;
  /**
   * Why git must not run in the repository it finds from `dir` (default: the shell's folder) or
   * uses at `gitDir`: its configuration names a program. 'none' when there is no repository.
   */
  gitRepo(at: { dir?: string; gitDir?: string }): ArgProblem | 'none' | null;
};

export type Spec = {
  /** The option table; absent when every argument is free text that reads nothing (echo); 'none' when every argument is an operand (test). */
  options?: OptionTable | 'none';
  /** Options that write, run programs, or read files named inside another file. */
  forbid?: string[];
  /** Options whose value is a path that is read. */
  pathValues?: string[];
  /** Operands are paths to check, or free text. */
  positionals: 'paths' | 'text';
  /** With no operand, the program reads the current folder. */
  readsCwd?: boolean;
  /** Directory operands are read whole (grep -r): what lies below them counts. Null when not recursive. */
  recursive?: (p: ParsedArgs) => Recursion | null;
  /** Program-specific rules; may remove operands that are not paths (a pattern, a script). */
  check?: (p: ParsedArgs) => ArgProblem | null;
};

export const unsafe = (detail: string): ArgProblem => ({ code: 'unsafe_option', detail });
const has = (p: ParsedArgs, names: string[]): boolean => p.opts.some((o) => isOption(o, names));
const values = (p: ParsedArgs, names: string[]): ParsedOpt[] => p.opts.filter((o) => isOption(o, names));

/** The first operand is a search pattern (unless one of `explicit` gives it), not a path. */
function dropPattern(explicit: string[]): (p: ParsedArgs) => ArgProblem | null {
  return (p) => {
    if (!has(p, explicit)) p.positionals.shift();
    return null;
  };
}

const text: Spec = { positionals: 'text' };
const V = '--help --version';
const HASH = `-b|--binary -c|--check --tag -t|--text -z|--zero --ignore-missing --quiet --status --strict -w|--warn ${V}`;
const checksum = (extra = ''): Spec => ({ positionals: 'paths', options: table(`${HASH} ${extra}`), forbid: ['-c'] });

/** A number for an arithmetic operator in test: a plain integer, never a name bash would evaluate. */
const INTEGER = /^\s*[-+]?\d+\s*$/;
const FILE_TESTS = new Set(['-a', '-b', '-c', '-d', '-e', '-f', '-g', '-h', '-k', '-p', '-r', '-s', '-u', '-w', '-x', '-G', '-L', '-N', '-O', '-S']);
const FILE_PAIRS = new Set(['-nt', '-ot', '-ef']);
const ARITH = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/**
 * test, [ and [[: file operands are paths; bash evaluates the operands of -eq… and the name of -v
 * as arithmetic, where `a[$(cmd)]` runs cmd, so those must be plain integers and names.
 */
function testExpression(p: ParsedArgs): ArgProblem | null {
  const words = p.positionals.map((a) => a.value);
  const paths = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (ARITH.has(w ?? '')) {
      for (const operand of [words[i - 1], words[i + 1]]) {
        if (operand === null || operand === undefined || !INTEGER.test(operand)) return unsafe(`the operand ${operand ?? '(unknown)'} of ${w}, which bash evaluates as arithmetic`);
      }
    } else if (w === '-v' && words[i + 1] !== undefined && !/^\w+$/.test(words[i + 1] ?? '')) {
      return unsafe(`-v ${words[i + 1] ?? '(unknown)'}: bash evaluates a subscript as arithmetic`);
    } else if (FILE_TESTS.has(w ?? '') && i + 1 < words.length) {
      paths.push(p.positionals[i + 1]!);
    } else if (FILE_PAIRS.has(w ?? '')) {
      paths.push(...[p.positionals[i - 1], p.positionals[i + 1]].filter((a) => a !== undefined));
    }
  }
  p.positionals = paths.filter((a) => a.value !== null && a.value !== ']' && a.value !== ']]');
  return null;
}
const testSpec: Spec = { positionals: 'paths', options: 'none', check: testExpression };

/** printf: %d and the other numeric conversions evaluate their argument as arithmetic. */
function printfCheck(p: ParsedArgs): ArgProblem | null {
  const [format, ...args] = p.positionals;
  p.positionals = [];
  const numeric = format?.value === null || /%[^%a-zA-Z]*[diouxXeEfFgGaAc(]|%[^%a-zA-Z]*\*/.test(format?.value ?? '');
  if (!numeric) return null;
  const bad = args.find((a) => a.value === null || !INTEGER.test(a.value) && !/^[-+]?\d*\.?\d+([eE][-+]?\d+)?$/.test(a.value));
  return bad ? unsafe(`the printf argument ${bad.value ?? '(unknown)'}, which a numeric format evaluates as arithmetic`) : null;
}

const GREP_RECURSIVE = ['-r', '-R', '-d'];
/** ripgrep types whose globs match no secret file; any other type may read one (rg -t sh reads .env). */
const RG_PLAIN_TYPES = new Set(['ts', 'js', 'py', 'rust', 'go', 'java', 'c', 'cpp', 'cs', 'css', 'html', 'json', 'md', 'markdown', 'yaml', 'toml', 'xml', 'sql', 'ruby', 'php', 'swift', 'kotlin', 'scala', 'lua', 'vue', 'svelte', 'txt', 'elixir', 'haskell', 'ocaml', 'dart', 'zig', 'proto', 'graphql', 'tf', 'csv']);

export const PROGRAMS: Record<string, Spec> = {
  pwd: text,
  echo: text,
  true: text,
  false: text,
  ':': text,
  which: text,
  type: text,
  basename: text,
  dirname: text,
  realpath: text,
  readlink: text,
  whoami: text,
  id: text,
  uname: text,
  nproc: text,
  printenv: text,
  tr: text,
  seq: text,
  expr: text,
  sleep: text,
  hostname: { positionals: 'text', options: table('-s|--short -f|--fqdn|--long -d|--domain -i|--ip-address -I|--all-ip-addresses -A|--all-fqdns'), check: (p) => (p.positionals.length ? unsafe(`an argument (${p.positionals[0]!.value}), which sets the host name`) : null) },
  printf: { positionals: 'text', options: table(''), check: printfCheck },
  test: testSpec,
  '[': testSpec,
  '[[': testSpec,
  date: { positionals: 'text', options: table(`-d|--date= --debug -f|--file= -I|--iso-8601[=] --resolution -R|--rfc-email --rfc-3339= -r|--reference= -s|--set= -u|--utc|--universal ${V}`), forbid: ['-s', '-f'], pathValues: ['-r'] },
  ls: {
    positionals: 'paths',
    readsCwd: true,
    options: table(`-a|--all -A|--almost-all --author -b|--escape --block-size= -B|--ignore-backups -c -C --color[=] -d|--directory -D|--dired -f -F --classify[=] --file-type --format= --full-time -g --group-directories-first -G|--no-group -h|--human-readable --si -H|--dereference-command-line --dereference-command-line-symlink-to-dir --hide= --hyperlink[=] --indicator-style= -i|--inode -I|--ignore= -k|--kibibytes -l -L|--dereference -m -n|--numeric-uid-gid -N|--literal -o -p -q|--hide-control-chars --show-control-chars -Q|--quote-name --quoting-style= -r|--reverse -R|--recursive -s|--size -S --sort= --time= --time-style= -t -T|--tabsize= -u -U -v -w|--width= -x -X -Z|--context --zero -1 ${V}`),
  },
  wc: { positionals: 'paths', options: table(`-c|--bytes -m|--chars -l|--lines --files0-from= -L|--max-line-length -w|--words --total= ${V}`), forbid: ['--files0-from'] },
  cat: { positionals: 'paths', options: table(`-A|--show-all -b|--number-nonblank -e -E|--show-ends -n|--number -s|--squeeze-blank -t -T|--show-tabs -u -v|--show-nonprinting ${V}`) },
  head: { positionals: 'paths', options: table(`-c|--bytes= -n|--lines= -q|--quiet|--silent -v|--verbose -z|--zero-terminated ${V}`, { numeric: true }) },
  tail: { positionals: 'paths', options: table(`-c|--bytes= -f --follow[=] -F -n|--lines= --max-unchanged-stats= --pid= -q|--quiet|--silent --retry -s|--sleep-interval= -v|--verbose -z|--zero-terminated ${V}`, { numeric: true }) },
  tac: { positionals: 'paths', options: table(`-b|--before -r|--regex -s|--separator= ${V}`) },
  nl: { positionals: 'paths', options: table(`-b|--body-numbering= -d|--section-delimiter= -f|--footer-numbering= -h|--header-numbering= -i|--line-increment= -l|--join-blank-lines= -n|--number-format= -p|--no-renumber -s|--number-separator= -v|--starting-line-number= -w|--number-width= ${V}`) },
  cut: { positionals: 'paths', options: table(`-b|--bytes= -c|--characters= -d|--delimiter= -f|--fields= -n --complement -s|--only-delimited --output-delimiter= -z|--zero-terminated ${V}`) },
  paste: { positionals: 'paths', options: table(`-d|--delimiters= -s|--serial -z|--zero-terminated ${V}`) },
  comm: { positionals: 'paths', options: table(`-1 -2 -3 --check-order --nocheck-order --output-delimiter= --total -z|--zero-terminated ${V}`) },
  join: { positionals: 'paths', options: table(`-a= -e= -i|--ignore-case -j= -o= -t= -v= -1= -2= --check-order --nocheck-order --header -z|--zero-terminated ${V}`) },
  fold: { positionals: 'paths', options: table(`-b|--bytes -s|--spaces -w|--width= ${V}`, { numeric: true }) },
  base64: { positionals: 'paths', options: table(`-d|--decode -i|--ignore-garbage -w|--wrap= ${V}`) },
  od: { positionals: 'paths', options: table(`-A|--address-radix= --endian= -j|--skip-bytes= -N|--read-bytes= -S= --strings[=] -t|--format= -v|--output-duplicates -w|--width[=] --traditional ${V} -a -b -c -d -f -i -l -o -s -x`) },
  md5sum: checksum(),
  sha1sum: checksum(),
  sha224sum: checksum(),
  sha256sum: checksum(),
  sha384sum: checksum(),
  sha512sum: checksum(),
  b2sum: checksum('-l|--length='),
  cksum: checksum('-a|--algorithm= --base64 --raw --untagged -l|--length= --debug'),
  diff: {
    positionals: 'paths',
    options: table(`--normal -q|--brief -s|--report-identical-files -c -C= --context[=] -u -U= --unified[=] -e|--ed -n|--rcs -y|--side-by-side -W|--width= --left-column --suppress-common-lines -p|--show-c-function -F|--show-function-line= --label= -t|--expand-tabs -T|--initial-tab --tabsize= --suppress-blank-empty -l|--paginate -r|--recursive --no-dereference -N|--new-file --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case -x|--exclude= -X|--exclude-from= -S|--starting-file= --from-file= --to-file= -i|--ignore-case -E|--ignore-tab-expansion -Z|--ignore-trailing-space -b|--ignore-space-change -w|--ignore-all-space -B|--ignore-blank-lines -I|--ignore-matching-lines= -a|--text --strip-trailing-cr -D|--ifdef= --old-group-format= --new-group-format= --unchanged-group-format= --changed-group-format= --line-format= --old-line-format= --new-line-format= --unchanged-line-format= -d|--minimal --horizon-lines= --speed-large-files --color[=] --palette= --help -v|--version`),
    pathValues: ['-X', '--from-file', '--to-file'],
    recursive: (p) => (has(p, ['-r']) ? { followLinks: !has(p, ['--no-dereference']), hidden: true } : null),
  },
  cmp: { positionals: 'paths', options: table(`-b|--print-bytes -i|--ignore-initial= -l|--verbose -n|--bytes= -s|--quiet|--silent --help -v|--version`) },
  file: {
    positionals: 'paths',
    options: table(`--help -v|--version -m|--magic-file= -z|--uncompress -Z|--uncompress-noreport -b|--brief -c|--checking-printout -e|--exclude= --exclude-quiet= -f|--files-from= -F|--separator= -i|--mime --apple --extension --mime-type --mime-encoding -k|--keep-going -l|--list -L|--dereference -h|--no-dereference -n|--no-buffer -N|--no-pad -0|--print0 -p|--preserve-date -P|--parameter= -r|--raw -s|--special-files -S|--no-sandbox -C|--compile -d|--debug`),
    forbid: ['-C', '-f', '-S'],
    pathValues: ['-m'],
  },
  stat: { positionals: 'paths', options: table(`-L|--dereference -f|--file-system --cached= -c|--format= --printf= -t|--terse ${V}`) },
  du: {
    positionals: 'paths',
    readsCwd: true,
    options: table(`-0|--null -a|--all --apparent-size -B|--block-size= -b|--bytes -c|--total -D|-H|--dereference-args -d|--max-depth= --files0-from= -h|--human-readable --inodes -k -L|--dereference -l|--count-links -m -P|--no-dereference -S|--separate-dirs --si -s|--summarize -t|--threshold= --time[=] --time-style= -X|--exclude-from= --exclude= -x|--one-file-system ${V}`),
    forbid: ['--files0-from'],
    pathValues: ['-X'],
  },
  df: { positionals: 'paths', options: table(`-a|--all -B|--block-size= -h|--human-readable -H|--si -i|--inodes -k -l|--local --no-sync --output[=] -P|--portability --sync --total -t|--type= -T|--print-type -x|--exclude-type= -v ${V}`) },
  sort: {
    positionals: 'paths',
    options: table(`-b|--ignore-leading-blanks -d|--dictionary-order -f|--ignore-case -g|--general-numeric-sort -i|--ignore-nonprinting -M|--month-sort -h|--human-numeric-sort -n|--numeric-sort -R|--random-sort --random-source= -r|--reverse --sort= -V|--version-sort --batch-size= -c --check[=] -C --compress-program= --debug --files0-from= -k|--key= -m|--merge -o|--output= -s|--stable -S|--buffer-size= -t|--field-separator= -T|--temporary-directory= --parallel= -u|--unique -z|--zero-terminated ${V}`),
    forbid: ['-o', '-T', '--compress-program', '--files0-from'],
    pathValues: ['--random-source'],
  },
  uniq: {
    positionals: 'paths',
    options: table(`-c|--count -d|--repeated -D --all-repeated[=] -f|--skip-fields= --group[=] -i|--ignore-case -s|--skip-chars= -u|--unique -z|--zero-terminated -w|--check-chars= ${V}`),
    check: (p) => (p.positionals.length > 1 ? unsafe(`a second file argument (uniq writes its output to ${p.positionals[1]!.value})`) : null),
  },
  tree: {
    positionals: 'paths',
    readsCwd: true,
    options: table('-a -d -l -f -x -L= -R -P= -I= --gitignore --ignore-case --matchdirs --metafirst --prune --info --infofile= --noreport --charset= --filelimit= --dirsfirst --filesfirst -o= -H= -T= --nolinks --hintro= --houtro= -i -A -S -n -C -X -J -Q -N -p -u -g -s -h --si --du -D --timefmt= -F -v -t -c -U -r --sort= --fromfile --fflinks --gitfile= -q --inodes --device --version --help'),
    forbid: ['-o', '-R', '-H', '--hintro', '--houtro'],
    pathValues: ['--infofile', '--gitfile'],
  },
  grep: {
    positionals: 'paths',
    options: table(`-E|--extended-regexp -F|--fixed-strings -G|--basic-regexp -P|--perl-regexp -e|--regexp= -f|--file= -i|-y|--ignore-case --no-ignore-case -w|--word-regexp -x|--line-regexp -z|--null-data -s|--no-messages -v|--invert-match -V|--version --help -m|--max-count= -b|--byte-offset -n|--line-number --line-buffered -H|--with-filename -h|--no-filename --label= -o|--only-matching -q|--quiet|--silent --binary-files= -a|--text -I -d|--directories= -D|--devices= -r|--recursive -R|--dereference-recursive --include= --exclude= --exclude-from= --exclude-dir= -L|--files-without-match -l|--files-with-matches -c|--count -T|--initial-tab -Z|--null -B|--before-context= -A|--after-context= -C|--context= --group-separator= --no-group-separator --color[=] --colour[=] -U|--binary`, { numeric: true }),
    pathValues: ['-f', '--exclude-from'],
    check: dropPattern(['-e', '-f']),
    recursive: (p) => {
      const recursive = values(p, GREP_RECURSIVE).some((o) => !isOption(o, ['-d']) || o.value === 'recurse');
      if (!recursive) return null;
      const include = globMatcher(values(p, ['--include']).map((o) => o.value), false);
      return { followLinks: has(p, ['-R']), hidden: true, include };
    },
  },
  rg: {
    positionals: 'paths',
    readsCwd: true,
    options: table(
      `-e|--regexp= -f|--file= --pre= --pre-glob= -z|--search-zip -s|--case-sensitive --crlf --dfa-size-limit= -E|--encoding= --engine= -F|--fixed-strings -i|--ignore-case -v|--invert-match -x|--line-regexp -m|--max-count= --mmap -U|--multiline --multiline-dotall --no-unicode --null-data -P|--pcre2 --regex-size-limit= -S|--smart-case --stop-on-nonmatch -a|--text -j|--threads= -w|--word-regexp --auto-hybrid-regex --no-pcre2-unicode --binary -L|--follow -g|--glob= --glob-case-insensitive -.|--hidden --iglob= --ignore-file= --ignore-file-case-insensitive -d|--max-depth= --max-filesize= --no-ignore --no-ignore-dot --no-ignore-exclude --no-ignore-files --no-ignore-global --no-ignore-parent --no-ignore-vcs --no-require-git --one-file-system -t|--type= -T|--type-not= --type-add= --type-clear= -u|--unrestricted -A|--after-context= -B|--before-context= --block-buffered -b|--byte-offset --color= --colors= --column -C|--context= --context-separator= --no-context-separator --field-context-separator= --field-match-separator= --heading -h|--help --hostname-bin= --hyperlink-format= --include-zero --line-buffered -n|--line-number -N|--no-line-number -M|--max-columns= --max-columns-preview -0|--null -o|--only-matching --path-separator= --passthru -p|--pretty -q|--quiet -r|--replace= --sort= --sortr= --trim --vimgrep -H|--with-filename -I|--no-filename --sort-files -c|--count --count-matches -l|--files-with-matches --files-without-match --json --debug --no-ignore-messages --no-messages --stats --trace --files --generate= --no-config --pcre2-version --type-list -V|--version`,
      { negations: true },
    ),
    pathValues: ['-f', '--ignore-file'],
    // --pre and -z run other programs; --hidden and -u read hidden files such as .env.
    forbid: ['--pre', '--hostname-bin', '-z', '-.', '-u'],
    check: dropPattern(['-e', '-f', '--files', '--type-list', '--generate', '--pcre2-version']),
    recursive: rgRecursion,
  },
  sed: {
    positionals: 'paths',
    options: table(`-n|--quiet|--silent --debug -e|--expression= -f|--file= --follow-symlinks -i|--in-place[=] -l|--line-length= --posix -E|-r|--regexp-extended -s|--separate --sandbox -u|--unbuffered -z|--null-data|--zero-terminated -b|--binary ${V}`),
    forbid: ['-i', '-f'],
    check: (p) => {
      const given = values(p, ['-e']).map((o) => o.value);
      const script = scriptOperand(p, given.length > 0);
      if (script) return script;
      const scripts = given.length ? given : [p.script];
      // GNU sed joins -e pieces with newlines: judge each piece and the whole.
      const whole = scripts.every((x) => typeof x === 'string') ? [scripts.join('\n')] : [];
      const bad = [...scripts, ...whole].find((x) => typeof x !== 'string' || !sedIsReadOnly(x));
      return bad === undefined && scripts.length ? null : unsafe(`the sed script ${JSON.stringify(bad ?? '')} (w, r, e and their kin write, read or run)`);
    },
  },
  awk: {
    positionals: 'paths',
    options: table('-F= -v= -f= -W='),
    forbid: ['-f', '-W'],
    check: (p) => {
      const script = scriptOperand(p, false);
      if (script) return script;
      if (typeof p.script !== 'string' || !awkIsReadOnly(p.script)) return unsafe(`the awk program ${JSON.stringify(p.script ?? '')} (system, getline, pipes, output redirections and ARGV reach beyond its input)`);
      // Operands like n=1 are assignments, not files.
      p.positionals = p.positionals.filter((a) => !/^[A-Za-z_]\w*=/.test(a.value ?? ''));
      return null;
    },
  },
  jq: {
    positionals: 'paths',
    options: table(`-c|--compact-output -n|--null-input -e|--exit-status -s|--slurp -r|--raw-output -j|--join-output -a|--ascii-output -R|--raw-input -C|--color-output -M|--monochrome-output -S|--sort-keys --tab --indent= --arg== --argjson== --slurpfile== --rawfile== --args --jsonargs --seq --stream --unbuffered -f|--from-file= -L= -h|--help --version`),
    forbid: ['-f', '-L'],
    pathValues: ['--slurpfile', '--rawfile'],
    check: (p) => {
      const script = scriptOperand(p, false);
      if (script) return script;
      // Modules are files read from a search path that includes ~/.jq.
      if (typeof p.script !== 'string' || /\b(import|include)\b/.test(p.script)) return unsafe(`the jq filter ${JSON.stringify(p.script ?? '')} (modules are read from outside the workspace)`);
      if (has(p, ['--args', '--jsonargs'])) p.positionals = [];
      return null;
    },
  },
};

/**
 * What ripgrep reads below its roots. Hidden files only with -. or -u, or when a glob or a file type
 * overrides the ignore rules: `rg -g '*env'` and `rg -t sh` both read .env.
 */
function rgRecursion(p: ParsedArgs): Recursion | null {
  // Listing names reads no contents.
  if (has(p, ['--files', '--type-list'])) return null;
  const positive = values(p, ['-g', '--iglob']).map((o) => o.value).filter((g) => !g?.startsWith('!'));
  const types = values(p, ['-t']).map((o) => o.value);
  const anyType = has(p, ['--type-add']) || types.some((t) => typeof t !== 'string' || !RG_PLAIN_TYPES.has(t));
  const matcher = globMatcher(positive, has(p, ['--iglob', '--glob-case-insensitive']));
  const filtered = positive.length > 0 || types.length > 0;
  const include = !filtered || anyType ? undefined : (rel: string): boolean => matcher?.(rel) ?? false;
  return { followLinks: has(p, ['-L']), hidden: has(p, ['-.', '-u']) || positive.length > 0 || anyType, include };
}

/** A test of relative paths against globs (null: no glob given); an unknown glob matches everything. */
function globMatcher(globs: (string | null | undefined)[], caseInsensitive: boolean): ((rel: string) => boolean) | undefined {
  if (!globs.length) return undefined;
  const res = globs.map((g) => (typeof g === 'string' ? pathGlobRegex(g, caseInsensitive) : null));
  return (rel) => {
    const parts = rel.split('/');
    // A glob naming a folder takes in what is below it; a glob without a slash matches any name.
    const candidates = parts.flatMap((_, i) => [parts.slice(0, i + 1).join('/'), parts.slice(i).join('/'), parts[i]!]);
    return res.some((re) => re === null || candidates.some((c) => re.test(c)));
  };
}

/**
 * Takes the script operand (sed, awk, jq) off the operands into `p.script`, unless the script
 * comes from an option. Glob results come in an order this check cannot promise, so a script
 * made by a glob is unknown.
 */
function scriptOperand(p: ParsedArgs, fromOption: boolean): ArgProblem | null {
  if (fromOption) return null;
  const first = p.positionals.shift();
  if (first?.globbed) return { code: 'unknown_arg', detail: `a script made by a glob (${first.value})` };
  p.script = first?.value;
  return null;
}
