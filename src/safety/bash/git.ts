// The git part of the allowlist: which subcommands only read, which of their options write, run
// programs or read files, and the repository check that makes every git command ask when
// repository data names a program. Must not run git; the repository is read through Checks.

import { unsafe, type ArgProblem, type Checks } from './programs.js';
import type { Arg } from './getopt.js';

type Opt = { name: string; value?: string | null };
type GitParsed = { opts: Opt[]; positionals: Arg[] };

type GitSpec = {
  /** Options whose value is the next word when not attached. */
  values?: string[];
  /** Options that write, run programs or open pagers; abbreviations count too. */
  forbid?: string[];
  /** Options whose value is a path that is read. */
  pathValues?: string[];
  /** Program-specific rules; may remove operands that are not paths. */
  check?: (p: GitParsed) => ArgProblem | null;
};

const GLOBAL_FLAGS = new Set(['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--bare', '--version', '--no-lazy-fetch', '--no-advice']);
// --show-signature and %G placeholders run gpg, which the repository's gpg.program may name: gitRepo checks that.
const FORBID = ['--output', '--ext-diff', '--textconv', '-O', '--open-files-in-pager', '--help', '--paginate', '--filters', '--exec', '--upload-pack', '--receive-pack'];
const VALUES = ['-n', '--max-count', '--skip', '--since', '--until', '--after', '--before', '--author', '--committer', '--grep', '-S', '-G', '-L', '--format', '--pretty', '--date', '--sort', '--points-at', '--diff-filter'];

const spec = (extra: GitSpec = {}): GitSpec => ({ values: VALUES, forbid: FORBID, pathValues: ['--contents', '--exclude-from', '-X'], ...extra });
const dropPattern = (explicit: string[]) => (p: GitParsed): ArgProblem | null => {
  if (!p.opts.some((o) => explicit.includes(o.name))) p.positionals.shift();
  return null;
};
const listing = (listFlags: string[], allowed: string[]): GitSpec =>
  spec({
    check: (p) => {
      const bad = p.opts.find((o) => !allowed.includes(o.name) && !listFlags.includes(o.name));
      if (bad) return unsafe(`the option ${bad.name} (only listing is read-only)`);
      if (p.positionals.length && !p.opts.some((o) => listFlags.includes(o.name))) return unsafe(`the argument ${p.positionals[0]!.value} (it would create something)`);
      p.positionals.length = 0;
      return null;
    },
  });
/** Commands with subcommands: only the listing ones; `required` when the bare command writes (git stash). */
const subcommand = (allowed: string[], required = false): GitSpec =>
  spec({
    check: (p) => {
      const first = p.positionals[0]?.value ?? undefined;
      if (first === undefined ? required : !allowed.includes(first)) return unsafe(`the subcommand ${first ?? '(none)'}`);
      p.positionals.length = 0;
      const bad = p.opts.find((o) => o.name !== '-v' && o.name !== '--verbose');
      return bad ? unsafe(`the option ${bad.name}`) : null;
    },
  });

const CONFIG_READS = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list'];
const CONFIG_MODIFIERS = ['--local', '--worktree', '--show-origin', '--show-scope', '--name-only', '-z', '--null', '--type', '--bool', '--int', '--bool-or-int', '--path', '--expiry-date', '--default', '--includes', '--no-includes', '--all', '--regexp', '--value', '--fixed-value', '--url'];

/** git config: only reading a value or the list, in the repository's own scopes. */
function configCheck(p: GitParsed): ArgProblem | null {
  const bad = p.opts.find((o) => !CONFIG_READS.includes(o.name) && !CONFIG_MODIFIERS.includes(o.name));
  if (bad) return unsafe(`git config ${bad.name}`);
  const words = p.positionals.map((a) => a.value);
  p.positionals = [];
  if (words[0] === 'get' || words[0] === 'list') return null;
  if (p.opts.some((o) => CONFIG_READS.includes(o.name))) return null;
  return words.length === 1 ? null : unsafe(`git config ${words.join(' ')} (it would set a value)`);
}

const GIT: Record<string, GitSpec> = {
  status: spec(),
  diff: spec(),
  log: spec(),
  whatchanged: spec(),
  show: spec(),
  shortlog: spec(),
  cherry: spec(),
  'rev-parse': spec(),
  'rev-list': spec(),
  'ls-files': spec(),
  'ls-tree': spec(),
  blame: spec({ pathValues: ['--contents', '-S', '--ignore-revs-file'] }),
  annotate: spec({ pathValues: ['--contents', '-S', '--ignore-revs-file'] }),
  // Outside the index, git grep reads ignored files such as .env.
  grep: spec({ values: [...VALUES, '-e', '-A', '-B', '-C', '--context', '--max-depth', '-m'], forbid: [...FORBID, '--no-index', '--untracked', '--no-exclude-standard'], pathValues: ['-f'], check: dropPattern(['-e', '-f']) }),
  describe: spec(),
  'merge-base': spec(),
  'name-rev': spec(),
  'for-each-ref': spec(),
  'show-ref': spec(),
  'count-objects': spec(),
  'check-ignore': spec(),
  'check-attr': spec(),
  'cat-file': spec(),
  version: spec(),
  var: spec(),
  config: spec({ values: ['--type', '--default', '--value', '--url'], forbid: [...FORBID, '--global', '--system', '--file', '-f', '--blob', '--edit', '-e'], check: configCheck }),
  branch: listing(
    ['-l', '--list', '-a', '--all', '-r', '--remotes', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at'],
    ['-v', '-vv', '--verbose', '--show-current', '--sort', '--format', '--color', '--no-color', '--column', '--no-column', '-i', '--ignore-case', '--abbrev', '--no-abbrev', '-q'],
  ),
  tag: listing(['-l', '--list', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at'], ['-n', '--sort', '--format', '--color', '--column', '--no-column', '-i', '--ignore-case']),
  remote: subcommand(['get-url']),
  stash: subcommand(['list', 'show'], true),
  worktree: subcommand(['list']),
  reflog: subcommand(['show']),
};

/** A long option matches a name of `list` exactly or, as git accepts, abbreviated to a prefix. */
function matchesLong(name: string, list: readonly string[]): boolean {
  return list.some((o) => o === name || (name.startsWith('--') && name.length >= 3 && o.startsWith('--') && o.startsWith(name)));
}

export function checkGit(args: Arg[], checks: Checks): ArgProblem | null {
  let i = 0;
  const at: { dir?: string; gitDir?: string } = {};
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return { code: 'unknown_arg', detail: 'a git argument known only when it runs' };
    if (!v.startsWith('-')) break;
    if (GLOBAL_FLAGS.has(v)) continue;
    const [name, attached] = v.startsWith('--') && v.includes('=') ? [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)] : [v, undefined];
    if (name !== '-C' && name !== '--git-dir' && name !== '--work-tree') return unsafe(`the git option ${v}`);
    const dir = attached ?? args[++i]?.value;
    if (typeof dir !== 'string') return { code: 'unknown_arg', detail: `the value of ${name}` };
    const out = checks.outside(dir);
    if (out) return { code: 'path_outside', detail: out };
    if (name === '-C') at.dir = at.dir && !dir.startsWith('/') ? `${at.dir}/${dir}` : dir;
    if (name === '--git-dir') at.gitDir = dir;
  }
  if (at.dir === undefined && at.gitDir === undefined) {
    const out = checks.outside('.');
    if (out) return { code: 'path_outside', detail: out };
  }
  const sub = args[i]?.value;
  if (sub === undefined) return null;
  const gitSpec = sub !== null && Object.hasOwn(GIT, sub) ? GIT[sub]! : undefined;
  if (!gitSpec) return { code: 'not_allowlisted', detail: `git ${sub} is not on the read-only allowlist` };
  const repo = checks.gitRepo(at);
  if (repo && repo !== 'none') return repo;
  const parsed = parseGitOptions(args.slice(i + 1), gitSpec);
  for (const o of parsed.opts) {
    if (matchesLong(o.name, gitSpec.forbid ?? [])) return unsafe(`the option ${o.name}`);
    if (!matchesLong(o.name, gitSpec.pathValues ?? [])) continue;
    if (typeof o.value !== 'string') return { code: 'unknown_arg', detail: `the value of ${o.name}` };
    const out = checks.outside(o.value);
    if (out) return { code: 'path_outside', detail: out };
  }
  const problem = gitSpec.check?.(parsed);
  if (problem) return problem;
  for (const a of parsed.positionals) {
    if (a.value === null) return { code: 'unknown_arg', detail: 'a git argument known only when it runs' };
    const out = a.value === '-' ? null : checks.outside(a.value, a.pattern);
    if (out) return { code: 'path_outside', detail: out };
  }
  // git diff --no-index (and git diff outside any repository) compares folders whole, .env included.
  if (sub === 'diff' && (repo === 'none' || parsed.opts.some((o) => o.name.length >= 6 && '--no-index'.startsWith(o.name)))) {
    for (const a of parsed.positionals) {
      const found = checks.below(a.value!, { followLinks: false, hidden: true });
      if (found) return found;
    }
  }
  return null;
}

/** Options the way git's parser reads them; unknown options are git's own business (it refuses them). */
function parseGitOptions(args: Arg[], gitSpec: GitSpec): GitParsed {
  const opts: Opt[] = [];
  const positionals: Arg[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (ended || v === null || v === '-' || !v.startsWith('-')) {
      positionals.push(args[i]!);
      continue;
    }
    if (v === '--') {
      ended = true;
      continue;
    }
    const eq = v.startsWith('--') ? v.indexOf('=') : -1;
    const name = eq < 0 ? (v.startsWith('--') ? v : v.slice(0, 2)) : v.slice(0, eq);
    const attached = eq >= 0 ? v.slice(eq + 1) : !v.startsWith('--') && v.length > 2 ? v.slice(2) : undefined;
    const takesValue = (gitSpec.values ?? []).includes(name) || matchesLong(name, gitSpec.pathValues ?? []);
    // A short cluster (-vv, -la) is kept whole unless its first letter takes a value.
    if (!v.startsWith('--') && v.length > 2 && !takesValue) {
      opts.push({ name: v });
      for (const c of v.slice(1)) opts.push({ name: `-${c}` });
      continue;
    }
    opts.push({ name, value: attached ?? (takesValue ? (args[++i]?.value ?? null) : undefined) });
  }
  return { opts, positionals };
}
