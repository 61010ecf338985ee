// Judges a bash command before it runs: safe (every simple command allowlisted and read-only),
// ask (with a reason), or deny (it touches a secret); plus the simple commands for rule matching
// and whether it destroys work. Wrappers (sh -c, env, timeout…) are judged by what they run.
// Must not run anything and must not know modes or rules: policy.ts decides with this.

import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { checkArgv, isAllowlisted, isVersionOnly, type ArgCode, type Checks } from './allowlist.js';
import { parseBash, type ConstructCode, type ShellWord } from './parse.js';
import { inside } from '../../util/paths.js';
import { showCodePoints } from '../../util/text.js';
import { findSecret, rawPattern, secretBelow, secretRefusal, type SecretContext, type SecretHit } from '../secrets.js';
import { expandWord, GLOB_BUDGET, globPaths, hasGlob, realPath, unescapePattern, WALK_BUDGET } from './expand.js';
import { findGitDir, repositoryConfigProblem } from './gitconfig.js';
import { unwrap } from './wrappers.js';

/** Why a command asks; the interface translates these through the i18n catalogue. */
export type BashReasonCode = ConstructCode | Exclude<ArgCode, 'secret'> | 'program_path' | 'hidden_chars' | 'too_long' | 'too_complex' | 'wrapper';
/** `reason` is English for the model and the trace; `params` fill the interface's translated text. */
export type Issue = { code: BashReasonCode; reason: string; params: Record<string, string> };

/** One simple command, after unwrapping timeout/env/xargs…: what a rule is matched against. */
export type BashCommand = {
  /**
   * The words bash passes, unquoted and expanded; null where a word is only known when it runs.
   * A command whose expansion changed its words is listed twice, expanded and as written.
   */
  argv: (string | null)[];
  /** As written in the command. */
  text: string;
  /** Null when allowlisted and read-only; else why it asks. A rule may allow it anyway. */
  issue: Issue | null;
  /** Why it destroys work (git reset --hard, rm -rf ~ …), or null. */
  destructive: string | null;
};

export type BashAnalysis = {
  verdict: 'safe' | 'ask' | 'deny';
  /** For ask and deny: the first reason, in English for the model and the trace. */
  reason?: string;
  code?: BashReasonCode | 'secret';
  /** What no rule can allow: substitutions, redirections to files, parse errors… */
  constructs: Issue[];
  commands: BashCommand[];
  destructive: boolean;
  /** Some commands cannot be seen (eval, a computed program name, an unparsable part). */
  opaque: boolean;
};

export type BashContext = {
  root: string;
  /** The shell's current folder. */
  cwd: string;
  home: string;
  /** feiyu's config folder: keys.json and the rest are secrets. */
  configDir: string;
  /** $PATH of the shell, to catch an allowlisted name that resolves into the workspace. */
  path?: string;
};

/** Longer commands are not analysed (they ask). */
const MAX_LENGTH = 100_000;
const MAX_DEPTH = 4;
// Control characters (but tab and newline), invisible and bidirectional marks, look-alike spaces:
// the parser and bash may split them differently, and a person cannot see them in a prompt.
const HIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u00a0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'g');
const OPAQUE: BashReasonCode[] = ['parse_error', 'dynamic_name', 'expansion', 'wrapper', 'hidden_chars', 'too_long', 'too_complex'];
const SHELL_BUILTINS = new Set(['echo', 'printf', 'pwd', 'true', 'false', 'cd']);
const SYSTEM_DIRS = ['/usr/bin/', '/bin/', '/usr/local/bin/', '/usr/sbin/', '/sbin/'];

/** The command with hidden characters shown as ⟨U+00A0⟩, for prompts. */
export function visible(command: string): string {
  return showCodePoints(command, HIDDEN_ALL);
}

export async function analyzeBash(command: string, ctx: BashContext): Promise<BashAnalysis> {
  const acc: Acc = { constructs: [], commands: [], secret: null, cwds: [ctx.cwd], budget: { entries: GLOB_BUDGET }, walk: { entries: WALK_BUDGET }, repos: new Map() };
  await analyze(command, ctx, acc, 0);
  const { constructs, commands, secret } = acc;
  const first = constructs[0] ?? commands.find((c) => c.issue)?.issue;
  const base = {
    constructs,
    commands,
    destructive: commands.some((c) => c.destructive),
    opaque: constructs.some((c) => OPAQUE.includes(c.code)),
  };
  if (secret) return { ...base, verdict: 'deny', code: 'secret', reason: secretRefusal(secret.word, secret.what, secret.instead) };
  if (first) return { ...base, verdict: 'ask', code: first.code, reason: first.reason };
  return { ...base, verdict: 'safe' };
}

type Acc = {
  constructs: Issue[];
  commands: BashCommand[];
  secret: SecretHit | null;
  /** Every folder the shell may be in (a cd that may or may not run adds one). */
  cwds: string[];
  /** Directory entries left for globs, and for walks below folders read recursively. */
  budget: { entries: number };
  walk: { entries: number };
  /** Repository configuration verdicts by git folder. */
  repos: Map<string, string | null>;
};

async function analyze(command: string, ctx: BashContext, acc: Acc, depth: number): Promise<void> {
  const construct = (code: BashReasonCode, reason: string, part = ''): void => {
    if (!acc.constructs.some((c) => c.code === code && c.reason === reason)) acc.constructs.push({ code, reason, params: { part } });
  };
  const secrets: SecretContext = { cwds: acc.cwds, home: ctx.home, configDir: ctx.configDir, budget: acc.budget };
  const checkSecret = (pattern: string): void => {
    if (acc.secret) return;
    const hit = findSecret(pattern, secrets);
    if (hit === 'too_complex') construct('too_complex', 'globs that match too many files to check');
    else acc.secret = hit;
  };
  const hidden = HIDDEN.exec(command);
  // Where bash and the parser may disagree on the words, the raw text is searched for secrets too.
  if (command.length > MAX_LENGTH || hidden || /\S\\\n\S/.test(command)) checkSecret(rawPattern(command));
  if (command.length > MAX_LENGTH) return construct('too_long', `the command is longer than ${MAX_LENGTH} characters`);
  if (hidden) construct('hidden_chars', `it contains the invisible or look-alike character ${visible(hidden[0])}`, visible(hidden[0]));
  if (/\S\\\n\S/.test(command)) construct('parse_error', 'it contains a line continuation inside a word', '\\⏎');

  let parsed;
  try {
    const vars = new Map<string, string | null>([['HOME', ctx.home], ['PWD', ctx.cwd]]);
    parsed = await parseBash(command, {
      vars,
      expandList: (words, cwd) => {
        const values = words.flatMap((w) => expandWord(w, cwd, ctx.home, acc.budget).map((x) => x.value));
        return values.every((v) => v !== null) ? (values as string[]) : null;
      },
    });
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    checkSecret(rawPattern(command));
    return construct('too_complex', 'it is nested too deeply to analyse');
  }
  for (const p of parsed.problems) construct(p.code, `it contains ${p.detail}`, p.part);
  if (parsed.problems.some((p) => p.code === 'parse_error')) checkSecret(rawPattern(command));

  for (const cmd of parsed.commands) {
    for (const w of [...cmd.words, ...cmd.reads]) checkSecret(w.pattern);
    if (cmd.words.length === 0) continue;
    // Braces, ~, field splitting and globs happen before a program reads its options: `sort {-o,x}`.
    const words = cmd.literal ? cmd.words : cmd.words.flatMap((w) => expandWord(w, cmd.cwd, ctx.home, acc.budget));
    const unit = unwrap(words);
    if ('construct' in unit) {
      construct('wrapper', `it runs ${unit.construct}`, cmd.text);
      continue;
    }
    if ('script' in unit) {
      if (depth >= MAX_DEPTH) construct('wrapper', 'it nests shells too deeply to analyse', cmd.text);
      else await analyze(unit.script, ctx, acc, depth + 1);
      continue;
    }
    const argv = unit.argv;
    if (argv.length === 0) continue;
    const issue = judge(argv, [...cmd.reads, ...unit.reads], ctx, acc);
    // `rm -rf *` is judged by its pattern too: the files it matches now are not the point.
    const raw = cmd.literal ? unit : unwrap(cmd.words);
    const destructive = destroys(argv, ctx, acc.cwds) ?? ('argv' in raw ? destroys(raw.argv, ctx, acc.cwds) : null);
    const values = argv.map((w) => w.value);
    acc.commands.push({ argv: values, text: cmd.text, issue, destructive });
    // Rules see the command as written too: a deny rule for `cat *.pem` matches either form, and
    // an allow rule must cover both.
    const written = 'argv' in raw ? raw.argv.map((w) => w.value) : null;
    if (written && (written.length !== values.length || written.some((v, i) => v !== values[i]))) {
      acc.commands.push({ argv: written, text: cmd.text, issue, destructive });
    }
  }
  for (const w of parsed.loose) checkSecret(w.pattern);
}

function judge(argv: ShellWord[], reads: ShellWord[], ctx: BashContext, acc: Acc): Issue | null {
  const name = argv[0]!.value;
  if (name === null) return { code: 'dynamic_name', reason: `the program name ${argv[0]!.text} is only known when it runs`, params: { part: argv[0]!.text } };
  for (const r of reads) {
    const out = r.value === null ? '(a file named only when it runs)' : outsidePath(r.value, r.pattern, ctx, acc);
    if (out) return { code: 'path_outside', reason: `it reads ${out}, outside the workspace`, params: { path: out } };
  }
  if (name === 'cd') return judgeCd(argv, ctx, acc);
  const program = programIssue(name, ctx, acc.cwds);
  if (program) return program;
  const problem = checkArgv([{ value: basename(name), pattern: '' }, ...argv.slice(1)], checks(ctx, acc));
  if (!problem) return null;
  const command = argv.map((w) => w.text).join(' ');
  switch (problem.code) {
    case 'not_allowlisted':
      return { code: problem.code, reason: problem.detail, params: { program: name } };
    case 'path_outside':
      return { code: problem.code, reason: `${command} reaches ${problem.detail}, outside the workspace`, params: { path: problem.detail } };
    case 'secret':
      acc.secret ??= { word: `${problem.path} (read by ${command})`, what: problem.detail, instead: 'Search with the search tool or rg (they skip secret files), or name the folders to read.' };
      return { code: 'unsafe_option', reason: `${command} reads ${problem.path}: ${problem.detail}`, params: { command } };
    case 'git_config':
      return { code: problem.code, reason: `${command}: ${problem.detail}`, params: { command, detail: problem.detail } };
    default:
      return { code: problem.code, reason: `${command}: ${problem.detail}`, params: { command } };
  }
}

/**
 * cd as bash reads it: options -L -P -e -@ and `--`, no operand meaning $HOME, `-` meaning $OLDPWD
 * (the folder before, which this check cannot know). The folder joins those later commands may run in.
 */
function judgeCd(argv: ShellWord[], ctx: BashContext, acc: Acc): Issue | null {
  let i = 1;
  for (; i < argv.length; i++) {
    const v = argv[i]!.value;
    if (v === '--') {
      i++;
      break;
    }
    if (v === null || !/^-[LPe@]+$/.test(v)) break;
  }
  const target = argv[i] ?? { value: ctx.home, pattern: '', text: '$HOME' };
  const command = argv.map((w) => w.text).join(' ');
  if (target.value === null) return { code: 'unknown_arg', reason: `${command}: a folder known only when it runs`, params: { command } };
  if (target.value === '-') return { code: 'path_outside', reason: `${command} goes back to $OLDPWD, a folder this check cannot see`, params: { path: '$OLDPWD' } };
  const dir = realPath(resolve(acc.cwds[acc.cwds.length - 1]!, target.value || '.'));
  if (!acc.cwds.includes(dir)) acc.cwds.push(dir);
  return inside(ctx.root, dir) ? null : { code: 'path_outside', reason: `${command} leaves the workspace for ${dir}`, params: { path: dir } };
}

/** The file-system side of the allowlist, for the folders the shell may be in. */
function checks(ctx: BashContext, acc: Acc): Checks {
  return {
    outside: (value, pattern) => outsidePath(value, pattern, ctx, acc),
    below: (path, how) => {
      for (const cwd of acc.cwds) {
        const hit = secretBelow(resolve(cwd, path), { ...how, root: ctx.root, configDir: ctx.configDir, home: ctx.home, budget: acc.walk });
        if (hit === 'too_complex') return { code: 'unknown_arg', detail: `${path} holds too many files to check what it reads` };
        if (hit?.kind === 'secret') return { code: 'secret', detail: hit.what, path: hit.path };
        if (hit?.kind === 'outside') return { code: 'path_outside', detail: `${hit.target} (through the link ${hit.path})` };
      }
      return null;
    },
    gitRepo: (at) => {
      for (const cwd of acc.cwds) {
        const gitDir = at.gitDir ? resolve(cwd, at.gitDir) : findGitDir(resolve(cwd, at.dir ?? '.'));
        if (gitDir === null) return 'none';
        if (!acc.repos.has(gitDir)) acc.repos.set(gitDir, repositoryConfigProblem(gitDir, ctx.root, ctx.home));
        const why = acc.repos.get(gitDir);
        if (why) return { code: 'git_config', detail: `the repository's configuration names a program git would run (${why})` };
      }
      return null;
    },
  };
}

/** A program named by a path, or an allowlisted name that $PATH finds in the workspace, is not the system's. */
function programIssue(name: string, ctx: BashContext, cwds: string[]): Issue | null {
  if (name.includes('/')) {
    const real = realPath(resolve(cwds[cwds.length - 1]!, name));
    const system = SYSTEM_DIRS.some((d) => real.startsWith(d)) && !inside(ctx.root, real);
    return system ? null : { code: 'program_path', reason: `${name} is a program given by its path, not the system's ${basename(name)}`, params: { program: name } };
  }
  if (SHELL_BUILTINS.has(name) || !ctx.path || !isAllowlisted(name)) return null;
  for (const dir of ctx.path.split(':')) {
    const full = resolve(cwds[cwds.length - 1]!, dir || '.', name);
    try {
      accessSync(full, constants.X_OK);
    } catch {
      continue;
    }
    const real = realPath(full);
    if (inside(ctx.root, real)) return { code: 'program_path', reason: `${name} resolves to ${full} in the workspace, not the system's ${name}`, params: { program: full } };
    return isVersionOnly(name) && isShim(name, real, ctx.home) ? { code: 'program_path', reason: `${name} resolves to ${full}, a version manager's shim that picks what to run from the workspace's files`, params: { program: full } } : null;
  }
  return null;
}

/**
 * asdf, pyenv, volta and mise put shims on $PATH that read .tool-versions, package.json and the
 * like in the workspace to choose (or download) what to run: in the home folder, a script or a
 * link to a program of another name.
 */
function isShim(name: string, real: string, home: string): boolean {
  if (!inside(home, real)) return false;
  if (basename(real) !== name) return true;
  try {
    if (!statSync(real).isFile()) return true;
    const fd = openSync(real, 'r');
    try {
      const head = Buffer.alloc(2);
      readSync(fd, head, 0, 2, 0);
      return head.toString() === '#!';
    } finally {
      closeSync(fd);
    }
  } catch {
    return true;
  }
}

/** The first path outside the workspace that an argument names (globs expanded, symlinks resolved). */
function outsidePath(value: string, pattern: string | undefined, ctx: BashContext, acc: Acc): string | null {
  const expanded = value === '~' || value.startsWith('~/') ? ctx.home + value.slice(1) : value;
  for (const cwd of acc.cwds) {
    const abs = resolve(cwd, expanded);
    let paths = [abs];
    if (pattern && hasGlob(pattern)) {
      const absPattern = isAbsolute(unescapePattern(pattern)) ? pattern : `${cwd.replace(/[\\*?[\]{},~]/g, '\\$&')}/${pattern}`;
      const found = globPaths(absPattern, acc.budget);
      if (found === null) return `${value} (a glob too large to check)`;
      if (found.length) paths = found;
    }
    for (const p of paths) {
      const real = realPath(p);
      if (!inside(ctx.root, real)) return real;
    }
  }
  return null;
}

const RECURSIVE = /^-[^-]*[rR]|^--recursive$/;

/** Why this command destroys work that cannot be recovered, or null. */
function destroys(argv: ShellWord[], ctx: BashContext, cwds: string[]): string | null {
  let words = argv;
  while (['sudo', 'doas'].includes(words[0]?.value ?? '')) {
    words = words.slice(1);
    while (words[0]?.value?.startsWith('-')) words = words.slice(1);
  }
  const v = words.map((w) => w.value);
  const has = (re: RegExp): boolean => v.some((x) => x !== null && re.test(x));
  if (v[0] === 'rm' && has(RECURSIVE)) {
    const targets = words.slice(1).filter((w) => w.value === null || !w.value.startsWith('-'));
    const critical = targets.find((w) => removesEverything(w, ctx, cwds));
    return critical ? `rm -r of ${critical.text}` : null;
  }
  if (v[0] !== 'git') return null;
  let i = 1;
  while (v[i]?.startsWith('-')) i += ['-C', '-c', '--git-dir', '--work-tree'].includes(v[i]!) ? 2 : 1;
  const args = v.slice(i + 1);
  switch (v[i]) {
    case 'reset':
      return args.includes('--hard') ? 'git reset --hard' : null;
    case 'checkout': {
      const dash = args.indexOf('--');
      const discards = (dash >= 0 && dash < args.length - 1) || args.includes('.') || args.some((a) => a === '-f' || a === '--force');
      return discards ? 'git checkout that discards changes' : null;
    }
    case 'restore':
      return !args.includes('--staged') || args.some((a) => a === '--worktree' || a === '-W') ? 'git restore (discards changes)' : null;
    case 'clean':
      return args.some((a) => a !== null && (/^-[^-]*f/.test(a) || a === '--force')) ? 'git clean -f' : null;
    case 'push':
      return args.some((a) => a !== null && (/^-[^-]*f/.test(a) || /^--(force|mirror)/.test(a) || a.startsWith('+'))) ? 'git push --force' : null;
    case 'stash':
      return args[0] === 'drop' || args[0] === 'clear' ? `git stash ${args[0]}` : null;
    default:
      return null;
  }
}

/** rm -r of /, ~, the workspace, one of its parents or its .git, or of everything in one of them (`*`). */
function removesEverything(w: ShellWord, ctx: BashContext, cwds: string[]): boolean {
  if (w.value === null) return true;
  const critical = (p: string): boolean =>
    p === '/' || p === ctx.home || inside(p, ctx.root) || p === join(ctx.root, '.git');
  const slash = w.pattern.lastIndexOf('/');
  const last = w.pattern.slice(slash + 1);
  const dir = slash < 0 ? '.' : unescapePattern(w.pattern.slice(0, slash)) || '/';
  return cwds.some((cwd) => {
    const abs = resolve(cwd, w.value!);
    if (critical(abs) || critical(realPath(abs))) return true;
    return hasGlob(last) && /^[*?.]+$/.test(last) && critical(realPath(resolve(cwd, dir)));
  });
}
