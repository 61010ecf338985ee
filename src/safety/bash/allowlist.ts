// The shipped allowlist: read-only programs that run without asking, with rules for their
// arguments (options that write or run other programs make them ask; paths must stay in the
// workspace). Must not know about shells: it sees one program's argv, already unquoted.
// Deliberately absent: cat, head, tail, grep (they read anywhere), interpreters, package-script
// runners, pagers and editors.

import { sedPrintsOnly } from './sed.js';

export type ArgCode = 'not_allowlisted' | 'unsafe_option' | 'path_outside' | 'unknown_arg';
export type ArgProblem = { code: ArgCode; detail: string };
/** One argument: its value (null when only known at run time) and its glob pattern. */
export type Arg = { value: string | null; pattern: string };
/** Returns the path outside the workspace that the argument names, or null. */
export type OutsideCheck = (value: string, pattern?: string) => string | null;

type Opt = { name: string; value?: string | null };
type Parsed = { opts: Opt[]; positionals: Arg[] };

type Spec = {
  /** Options that take a value (the next word, or attached: -n5, --max-count=5). */
  values?: string[];
  /** Options that make the command ask: they write, run programs or open pagers. */
  forbid?: string[];
  /** Options whose value is a path. */
  pathValues?: string[];
  /** Positionals are paths to check, free text, or (custom) decided by `check`. */
  positionals: 'paths' | 'text';
  /** With no path given, the program reads the current folder. */
  readsCwd?: boolean;
  /** Program-specific rules; may drop positionals that are not paths (a search pattern). */
  check?: (p: Parsed) => ArgProblem | null;
};

const unsafe = (detail: string): ArgProblem => ({ code: 'unsafe_option', detail });

/** For search programs: without one of `explicit`, the first positional is the pattern, not a path. */
function dropPattern(explicit: string[]): Spec['check'] {
  return (p) => {
    if (!p.opts.some((o) => explicit.includes(o.name))) p.positionals.shift();
    return null;
  };
}
const text: Spec = { positionals: 'text' };
const noArgs: Spec = { positionals: 'text', check: (p) => (p.positionals.length ? unsafe(`an argument (${p.positionals[0]!.value})`) : null) };

const PROGRAMS: Record<string, Spec> = {
  ls: { positionals: 'paths', readsCwd: true, values: ['-I', '-w', '-T', '--block-size', '--hide', '--ignore', '--tabsize', '--width', '--time-style', '--format', '--sort', '--time', '--quoting-style', '--indicator-style'] },
  pwd: text,
  echo: text,
  printf: { positionals: 'text', forbid: ['-v'] },
  true: text,
  false: text,
  wc: { positionals: 'paths', pathValues: ['--files0-from'] },
  diff: { positionals: 'paths', values: ['-I', '-F', '-x', '-S', '-L', '-D', '--label', '--ignore-matching-lines', '--show-function-line', '--exclude', '--starting-file', '--ifdef', '--width', '-W', '--tabsize', '--color', '--palette', '-U', '-C'], pathValues: ['-X', '--exclude-from', '--from-file', '--to-file'] },
  cmp: { positionals: 'paths', values: ['-i', '-n', '--ignore-initial', '--bytes'] },
  file: { positionals: 'paths', values: ['-F', '-e', '-P', '--separator', '--exclude', '--parameter'], forbid: ['-C', '--compile'], pathValues: ['-m', '--magic-file', '-f', '--files-from'] },
  stat: { positionals: 'paths', values: ['-c', '--format', '--printf'] },
  which: text,
  tree: { positionals: 'paths', readsCwd: true, values: ['-L', '-P', '-I', '-H', '-T', '--filelimit', '--timefmt', '--charset', '--sort', '--gitfile', '--infile'], forbid: ['-o', '-R', '--output'] },
  du: { positionals: 'paths', readsCwd: true, values: ['-B', '--block-size', '-d', '--max-depth', '-t', '--threshold', '--time-style', '--exclude'], pathValues: ['-X', '--exclude-from', '--files0-from'] },
  df: { positionals: 'paths', values: ['-B', '--block-size', '-t', '--type', '-x', '--exclude-type', '--output'] },
  sort: { positionals: 'paths', values: ['-k', '--key', '-t', '--field-separator', '-S', '--buffer-size', '--parallel', '--batch-size', '--sort'], pathValues: ['--files0-from', '--random-source'], forbid: ['-o', '--output', '-T', '--temporary-directory', '--compress-program'] },
  uniq: { positionals: 'paths', values: ['-f', '-s', '-w', '--skip-fields', '--skip-chars', '--check-chars', '--group', '--all-repeated'], check: (p) => (p.positionals.length > 1 ? unsafe(`a second file argument (uniq writes its output to ${p.positionals[1]!.value})`) : null) },
  tr: text,
  basename: text,
  dirname: text,
  realpath: text,
  readlink: text,
  date: { positionals: 'text', values: ['-d', '--date', '-I', '--iso-8601', '--rfc-3339', '-R'], forbid: ['-s', '--set', '-f', '--file'] },
  whoami: text,
  id: text,
  uname: text,
  nproc: text,
  printenv: text,
  hostname: noArgs,
  rg: {
    positionals: 'paths',
    readsCwd: true,
    values: ['-e', '--regexp', '-g', '--glob', '--iglob', '-t', '--type', '-T', '--type-not', '--type-add', '--type-clear', '-m', '--max-count', '-A', '-B', '-C', '--after-context', '--before-context', '--context', '-j', '--threads', '-M', '--max-columns', '-r', '--replace', '-E', '--encoding', '-d', '--max-depth', '--max-filesize', '--path-separator', '--colors', '--color', '--sort', '--sortr', '--field-match-separator', '--field-context-separator', '--context-separator', '--dfa-size-limit', '--regex-size-limit', '--engine', '--pre-glob', '--hyperlink-format', '--generate'],
    pathValues: ['-f', '--file', '--ignore-file'],
    // --pre and -z run other programs; --hidden and -u read hidden files such as .env.
    forbid: ['--pre', '--hostname-bin', '-z', '--search-zip', '--hidden', '-.', '-u', '--unrestricted'],
    check: dropPattern(['-e', '--regexp', '-f', '--file', '--files', '--type-list']),
  },
  sed: {
    positionals: 'paths',
    values: ['-e', '--expression', '-l', '--line-length'],
    forbid: ['-i', '--in-place', '-f', '--file', '-c', '--copy'],
    check: (p) => {
      if (!p.opts.some((o) => ['-n', '--quiet', '--silent'].includes(o.name))) return unsafe('sed without -n (only sed -n with print commands is read-only here)');
      const given = p.opts.filter((o) => o.name === '-e' || o.name === '--expression').map((o) => o.value);
      const scripts = given.length ? given : [p.positionals.shift()?.value];
      for (const s of scripts) {
        if (typeof s !== 'string' || !sedPrintsOnly(s)) return unsafe(`the sed script ${JSON.stringify(s ?? '')} (only print commands are allowed)`);
      }
      return null;
    },
  },
};

/** Device files that are not "outside the workspace" in any way that matters. */
const DEVICES = new Set(['-', '/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr']);

/** True when the program is on the shipped allowlist (git included). */
export function isAllowlisted(program: string): boolean {
  return program === 'git' || program === 'find' || Object.hasOwn(PROGRAMS, program);
}

/**
 * Checks one allowlisted-or-not command: null when it is read-only and stays in the workspace,
 * else the first problem. `argv[0]` is the program name as bash will look it up.
 */
export function checkArgv(argv: Arg[], outside: OutsideCheck): ArgProblem | null {
  const program = argv[0]?.value ?? '';
  if (program === 'git') return checkGit(argv.slice(1), outside);
  if (program === 'find') return checkFind(argv.slice(1), outside);
  const spec = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program]! : undefined;
  if (!spec) return { code: 'not_allowlisted', detail: `${program} is not on the read-only allowlist` };
  return checkSpec(argv.slice(1), spec, outside);
}

function checkSpec(args: Arg[], spec: Spec, outside: OutsideCheck): ArgProblem | null {
  if (spec === text) return null;
  const parsed = parseOptions(args, spec);
  if ('code' in parsed) return parsed;
  for (const o of parsed.opts) {
    if (matches(o.name, spec.forbid)) return unsafe(`the option ${o.name}`);
    if (!matches(o.name, spec.pathValues)) continue;
    if (typeof o.value !== 'string') return { code: 'unknown_arg', detail: `the value of ${o.name}` };
    const out = DEVICES.has(o.value) ? null : outside(o.value);
    if (out) return { code: 'path_outside', detail: out };
  }
  const problem = spec.check?.(parsed);
  if (problem) return problem;
  if (spec.positionals === 'text') return null;
  if (!parsed.positionals.length && spec.readsCwd) {
    const out = outside('.');
    return out ? { code: 'path_outside', detail: out } : null;
  }
  for (const a of parsed.positionals) {
    const out = DEVICES.has(a.value!) ? null : outside(a.value!, a.pattern);
    if (out) return { code: 'path_outside', detail: out };
  }
  return null;
}

/** GNU-style options: clusters (-la), attached values (-n5, --x=y), `--` ending options, unambiguous long prefixes. */
function parseOptions(args: Arg[], spec: Spec): Parsed | ArgProblem {
  const opts: Opt[] = [];
  const positionals: Arg[] = [];
  const takesValue = (name: string): boolean => matches(name, spec.values) || matches(name, spec.pathValues);
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    // An unknown word could be any option at all.
    if (v === null) return { code: 'unknown_arg', detail: `an argument known only when it runs (${args[i]!.pattern.replace(/\0/g, '…')})` };
    if (ended || v === '-' || !v.startsWith('-')) positionals.push(args[i]!);
    else if (v === '--') ended = true;
    else if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq < 0 ? v : v.slice(0, eq);
      opts.push({ name, value: eq >= 0 ? v.slice(eq + 1) : takesValue(name) ? (args[++i]?.value ?? null) : undefined });
    } else {
      for (let j = 1; j < v.length; j++) {
        const name = '-' + v[j];
        if (!takesValue(name)) {
          opts.push({ name });
          continue;
        }
        opts.push({ name, value: j + 1 < v.length ? v.slice(j + 1) : (args[++i]?.value ?? null) });
        break;
      }
    }
  }
  return { opts, positionals };
}

/** Exact match, or an abbreviated long option (GNU getopt and git accept unambiguous prefixes). */
function matches(name: string, list: string[] | undefined): boolean {
  if (!list) return false;
  return list.some((o) => o === name || (name.startsWith('--') && name.length >= 4 && o.startsWith(name)));
}

// ---------------------------------------------------------------------------------------------
// find

const FIND_FORBID = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls', '-files0-from']);
const FIND_PATH_ARGS = /^-(newer|anewer|cnewer|samefile|newer[aBcm][aBcm])$/;

/** find's own grammar: options, then starting points, then an expression of primaries. */
function checkFind(args: Arg[], outside: OutsideCheck): ArgProblem | null {
  const starts: Arg[] = [];
  let phase: 'options' | 'starts' | 'expression' = 'options';
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return { code: 'unknown_arg', detail: 'a find argument known only when it runs' };
    if (phase === 'options' && (['-H', '-L', '-P'].includes(v) || /^-O\d$/.test(v))) continue;
    if (phase === 'options' && v === '-D') {
      i++;
      continue;
    }
    if (phase !== 'expression' && !/^[-(!),]/.test(v)) {
      phase = 'starts';
      starts.push(args[i]!);
      continue;
    }
    phase = 'expression';
    if (FIND_FORBID.has(v)) return unsafe(`the find action ${v}`);
    if (!FIND_PATH_ARGS.test(v)) continue;
    const ref = args[++i]?.value;
    if (typeof ref !== 'string') return { code: 'unknown_arg', detail: `the value of ${v}` };
    const out = outside(ref);
    if (out) return { code: 'path_outside', detail: out };
  }
  for (const s of starts.length ? starts : [{ value: '.', pattern: '.' }]) {
    const out = outside(s.value!, s.pattern);
    if (out) return { code: 'path_outside', detail: out };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// git

const GIT_GLOBAL_FLAGS = new Set(['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--bare', '--version']);
const GIT_FORBID = ['--output', '--ext-diff', '--textconv', '-O', '--open-files-in-pager', '--help', '--paginate', '--filters', '--exec'];
const GIT_VALUES = ['-n', '--max-count', '--skip', '--since', '--until', '--after', '--before', '--author', '--committer', '--grep', '-S', '-G', '-L', '-U', '--format', '--date', '--abbrev', '-e', '-m', '--max-depth', '--sort', '--points-at', '--contains', '--no-contains', '--merged', '--no-merged', '--diff-filter', '-A', '-B', '-C', '--context'];
const gitSpec = (extra: Partial<Spec> = {}): Spec => ({
  positionals: 'paths',
  values: GIT_VALUES,
  forbid: GIT_FORBID,
  pathValues: ['-f', '--contents', '--exclude-from', '-X'],
  ...extra,
});
const listing = (listFlags: string[], allowed: string[]): Spec =>
  gitSpec({
    check: (p) => {
      const bad = p.opts.find((o) => !allowed.includes(o.name) && !listFlags.includes(o.name));
      if (bad) return unsafe(`the option ${bad.name} (only listing is read-only)`);
      const lists = p.opts.some((o) => listFlags.includes(o.name));
      if (p.positionals.length && !lists) return unsafe(`the argument ${p.positionals[0]!.value} (it would create something)`);
      p.positionals.length = 0;
      return null;
    },
  });
/** Commands with subcommands: only the listing ones; `required` when the bare command writes (git stash). */
const subcommand = (allowed: string[], required = false): Spec =>
  gitSpec({
    check: (p) => {
      const first = p.positionals[0]?.value ?? undefined;
      if (first === undefined ? required : !allowed.includes(first)) return unsafe(`the subcommand ${first ?? '(none)'}`);
      p.positionals.length = 0;
      const bad = p.opts.find((o) => o.name !== '-v' && o.name !== '--verbose');
      return bad ? unsafe(`the option ${bad.name}`) : null;
    },
  });

const GIT: Record<string, Spec> = {
  status: gitSpec(),
  diff: gitSpec(),
  log: gitSpec(),
  show: gitSpec(),
  shortlog: gitSpec(),
  'rev-parse': gitSpec(),
  'rev-list': gitSpec(),
  'ls-files': gitSpec(),
  'ls-tree': gitSpec(),
  blame: gitSpec(),
  // Outside the index, git grep reads ignored files such as .env.
  grep: gitSpec({ forbid: [...GIT_FORBID, '--no-index', '--untracked', '--no-exclude-standard'], check: dropPattern(['-e', '-f']) }),
  describe: gitSpec(),
  'merge-base': gitSpec(),
  'name-rev': gitSpec(),
  'for-each-ref': gitSpec(),
  'show-ref': gitSpec(),
  'count-objects': gitSpec(),
  'check-ignore': gitSpec(),
  'cat-file': gitSpec(),
  branch: listing(
    ['-l', '--list', '-a', '--all', '-r', '--remotes', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at'],
    ['-v', '-vv', '--verbose', '--show-current', '--sort', '--format', '--color', '--no-color', '--column', '--no-column', '-i', '--ignore-case', '--abbrev', '--no-abbrev', '-q'],
  ),
  tag: listing(
    ['-l', '--list', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at'],
    ['-n', '--sort', '--format', '--color', '--column', '--no-column', '-i', '--ignore-case'],
  ),
  remote: subcommand(['get-url']),
  stash: subcommand(['list', 'show'], true),
  worktree: subcommand(['list']),
  reflog: subcommand(['show']),
};

function checkGit(args: Arg[], outside: OutsideCheck): ArgProblem | null {
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return { code: 'unknown_arg', detail: 'a git argument known only when it runs' };
    if (!v.startsWith('-')) break;
    if (GIT_GLOBAL_FLAGS.has(v)) continue;
    const [name, attached] = v.startsWith('--') && v.includes('=') ? [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)] : [v, undefined];
    if (name !== '-C' && name !== '--git-dir' && name !== '--work-tree') return unsafe(`the git option ${v}`);
    const dir = attached ?? args[++i]?.value;
    if (typeof dir !== 'string') return { code: 'unknown_arg', detail: `the value of ${name}` };
    const out = outside(dir);
    if (out) return { code: 'path_outside', detail: out };
  }
  if (!args.slice(0, i).some((a) => a.value === '-C' || a.value?.startsWith('--git-dir'))) {
    const out = outside('.');
    if (out) return { code: 'path_outside', detail: out };
  }
  const sub = args[i]?.value;
  if (sub === undefined) return null;
  const spec = sub !== null && Object.hasOwn(GIT, sub) ? GIT[sub]! : undefined;
  if (!spec) return { code: 'not_allowlisted', detail: `git ${sub} is not on the read-only allowlist` };
  return checkSpec(args.slice(i + 1), spec, outside);
}
