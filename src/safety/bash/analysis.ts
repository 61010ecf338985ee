// Judges a bash command before it runs: safe (every simple command allowlisted and read-only),
// ask (with a reason), or deny (it touches a secret); plus the simple commands for rule matching
// and whether it destroys work. Wrappers (sh -c, env, timeout…) are judged by what they run.
// Must not run anything and must not know modes or rules: policy.ts decides with this.

import { accessSync, constants } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { checkArgv, isAllowlisted, type ArgCode } from './allowlist.js';
import { parseBash, type ConstructCode, type ShellWord } from './parse.js';
import { inside } from '../../util/paths.js';
import { showCodePoints } from '../../util/text.js';
import { findSecret, rawPattern, secretRefusal, type SecretContext, type SecretHit } from '../secrets.js';
import { GLOB_BUDGET, globPaths, hasGlob, realPath, unescapePattern } from './expand.js';

/** Why a command asks; the interface translates these through the i18n catalogue. */
export type BashReasonCode = ConstructCode | ArgCode | 'program_path' | 'hidden_chars' | 'too_long' | 'too_complex' | 'wrapper';
/** `reason` is English for the model and the trace; `params` fill the interface's translated text. */
export type Issue = { code: BashReasonCode; reason: string; params: Record<string, string> };

/** One simple command, after unwrapping timeout/env/xargs…: what a rule is matched against. */
export type BashCommand = {
  /** The words bash passes, unquoted; null where a word is only known when it runs. */
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
const OPAQUE_WRAPPERS = new Set(['eval', 'source', '.', 'exec', 'builtin', 'command', 'coproc']);

/** The command with hidden characters shown as ⟨U+00A0⟩, for prompts. */
export function visible(command: string): string {
  return showCodePoints(command, HIDDEN_ALL);
}

export async function analyzeBash(command: string, ctx: BashContext): Promise<BashAnalysis> {
  const acc: Acc = { constructs: [], commands: [], secret: null, cwds: [ctx.cwd], budget: { entries: GLOB_BUDGET } };
  await analyze(command, ctx, acc, 0);
  const { constructs, commands, secret } = acc;
  const first = constructs[0] ?? commands.find((c) => c.issue)?.issue;
  const base = {
    constructs,
    commands,
    destructive: commands.some((c) => c.destructive),
    opaque: constructs.some((c) => OPAQUE.includes(c.code)),
  };
  if (secret) return { ...base, verdict: 'deny', code: 'secret', reason: secretRefusal(secret.word, secret.what) };
  if (first) return { ...base, verdict: 'ask', code: first.code, reason: first.reason };
  return { ...base, verdict: 'safe' };
}

type Acc = { constructs: Issue[]; commands: BashCommand[]; secret: SecretHit | null; cwds: string[]; budget: { entries: number } };

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
    parsed = await parseBash(command, new Map([['HOME', ctx.home]]));
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
    const unit = unwrap(cmd.words);
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
    const issue = judge(argv, cmd.reads, ctx, acc);
    acc.commands.push({ argv: argv.map((w) => w.value), text: cmd.text, issue, destructive: destroys(argv, ctx, acc.cwds) });
  }
  for (const w of parsed.loose) checkSecret(w.pattern);
}

type Unit = { argv: ShellWord[] } | { script: string } | { construct: string };

const UNKNOWN_INPUT: ShellWord = { value: null, pattern: '\0', text: '(arguments read from input)' };

type WrapperSpec = { valued: RegExp; flags: RegExp; forbid?: RegExp; positional?: number };
// The options of each wrapper, so that what follows them is found: the program it runs.
const WRAPPERS: Record<string, WrapperSpec> = {
  env: { valued: /^(-u|--unset)$/, flags: /^-[i0v]+$|^--(ignore-environment|null|debug|unset=)/, forbid: /^-\w*[SCP]|^--(split-string|chdir)/ },
  xargs: {
    valued: /^-[aEdILnPs]$|^--(arg-file|delimiter|max-args|max-procs|max-chars|process-slot-var)$/,
    flags: /^-[0rtx]+$|^-[aEdILnPs].|^-[eil]|^--(null|no-run-if-empty|verbose|exit|[\w-]+=)/,
    forbid: /^-\w*[po]$|^--(interactive|open-tty)$/,
  },
  timeout: { valued: /^-[sk]$|^--(signal|kill-after)$/, flags: /^-v$|^-[sk].|^--(foreground|preserve-status|verbose|[\w-]+=)/, positional: 1 },
  nice: { valued: /^-n$|^--adjustment$/, flags: /^-n?-?\d+$|^--adjustment=/ },
  stdbuf: { valued: /^-[ioe]$/, flags: /^-[ioe].|^--(input|output|error)=/ },
  nohup: { valued: /^$/, flags: /^$/ },
  time: { valued: /^$/, flags: /^-p$/ },
};

/** What a wrapper runs: the inner argv, a script to parse (sh -c), or why it cannot be seen. */
function unwrap(words: ShellWord[]): Unit {
  const name = words[0]!.value ?? '';
  const rest = words.slice(1);
  if (name === 'sh' || name === 'bash') return shellScript(rest) ?? { argv: words };
  if (OPAQUE_WRAPPERS.has(name)) return { construct: `${name}, which runs what it is given` };
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name]! : undefined;
  if (!spec) return { argv: words };
  let i = 0;
  for (; i < rest.length; i++) {
    const v = rest[i]!.value;
    if (v === null) return { construct: `${name} with an argument known only when it runs` };
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-') || v === '-') break;
    if (spec.forbid?.test(v) || !(spec.valued.test(v) || spec.flags.test(v))) return { construct: `${name} with the option ${v}` };
    if (spec.valued.test(v)) i++;
  }
  const inner = rest.slice(i + (spec.positional ?? 0));
  if (name === 'env' && /^\w+=/.test(inner[0]?.value ?? '')) return { construct: 'a variable assignment passed through env' };
  if (!inner.length) return { argv: [] };
  return unwrap(name === 'xargs' ? [...inner, UNKNOWN_INPUT] : inner);
}

/** sh -c / bash -c: the script to analyse; null when this is a shell running a file (judged as a program). */
function shellScript(args: ShellWord[]): Unit | null {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return { construct: 'a shell with an argument known only when it runs' };
    if (v === '-o' || v === '+o') i++;
    else if (v === '--norc' || v === '--noprofile') continue;
    else if (/^[-+][euxvc]+$/.test(v)) command ||= v.startsWith('-') && v.includes('c');
    else if (v.startsWith('-')) return { construct: `a shell with the option ${v}` };
    else if (!command) return null;
    else return { script: v };
  }
  return command ? { construct: 'a shell -c without a command' } : null;
}

function judge(argv: ShellWord[], reads: ShellWord[], ctx: BashContext, acc: Acc): Issue | null {
  const name = argv[0]!.value;
  if (name === null) return { code: 'dynamic_name', reason: `the program name ${argv[0]!.text} is only known when it runs`, params: { part: argv[0]!.text } };
  const outside = (value: string, pattern?: string): string | null => outsidePath(value, pattern, ctx, acc);
  for (const r of reads) {
    const out = r.value === null ? '(a file named only when it runs)' : outside(r.value, r.pattern);
    if (out) return { code: 'path_outside', reason: `it reads ${out}, outside the workspace`, params: { path: out } };
  }
  if (name === 'cd') {
    const target = argv.slice(1).find((w) => !/^-[LPe@]+$/.test(w.value ?? '')) ?? { value: ctx.home, pattern: '', text: '~' };
    if (target.value === null || target.value === '-') return { code: 'unknown_arg', reason: 'cd to a folder known only when it runs', params: { command: argv.map((w) => w.text).join(' ') } };
    const dir = realPath(resolve(acc.cwds[acc.cwds.length - 1]!, target.value));
    if (!acc.cwds.includes(dir)) acc.cwds.push(dir);
    return inside(ctx.root, dir) ? null : { code: 'path_outside', reason: `cd ${dir} leaves the workspace`, params: { path: dir } };
  }
  const program = programIssue(name, ctx, acc.cwds);
  if (program) return program;
  const problem = checkArgv([{ value: basename(name), pattern: '' }, ...argv.slice(1)], outside);
  if (!problem) return null;
  const command = argv.map((w) => w.text).join(' ');
  switch (problem.code) {
    case 'not_allowlisted':
      return { code: problem.code, reason: problem.detail, params: { program: name } };
    case 'path_outside':
      return { code: problem.code, reason: `${command} reaches ${problem.detail}, outside the workspace`, params: { path: problem.detail } };
    default:
      return { code: problem.code, reason: `${command}: ${problem.detail}`, params: { command } };
  }
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
    if (!inside(ctx.root, realPath(full))) return null;
    return { code: 'program_path', reason: `${name} resolves to ${full} in the workspace, not the system's ${name}`, params: { program: full } };
  }
  return null;
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
