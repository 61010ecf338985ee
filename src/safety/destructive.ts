// What a bash command would destroy beyond undoing, and what exactly would be lost: git reset
// --hard, checkout/restore over uncommitted changes, git clean -f, any push, rewriting pushed
// commits, rm outside build and temp folders, find -delete, dd, mkfs, chmod/chown -R, truncate,
// `>` onto a tracked file with uncommitted changes, and a program's own output onto one (cp, mv,
// tee, sort -o… read in clobber.ts). These ask in every mode, auto included.
// Must not run anything itself: facts about the repository come from a RepoFacts the app gives.

import { tmpdir } from 'node:os';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import type { BashCommand, Issue } from './bash/analysis.js';
import { clobberTargets } from './clobber.js';
import { inside } from '../util/paths.js';

/** Why the command asks, and what would be lost (files with uncommitted changes, the paths removed…). */
export type Loss = { what: string; lost: string[] };

/** Read-only facts about the repository holding `cwd`, gathered by running git (see app/gitfacts.ts). */
export type RepoFacts = {
  /** The repository's top folder and its tracked files with uncommitted changes (absolute); null when `cwd` is in no repository or git failed. */
  changed(cwd: string): Promise<{ top: string; files: string[] } | null>;
  /** How many commits of `range` (a rev-list range) a remote already has; null when unknown. */
  pushedAmong(cwd: string, range: string): Promise<number | null>;
};

export type DestructiveContext = { root: string; cwd: string; home: string; facts: RepoFacts };

/** Folders whose content is rebuilt or thrown away anyway: removing in them loses no work. */
const BUILD_DIRS = new Set(['node_modules', 'dist', 'build', 'out', 'target', 'coverage', '.cache', 'tmp', 'temp', '.tmp', '__pycache__', '.next', '.nuxt', '.turbo', '.parcel-cache', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.gradle', '.svelte-kit', 'obj']);
const TEMP_DIRS = [...new Set(['/tmp', '/var/tmp', tmpdir()])];
const REMOVERS = new Set(['rm', 'unlink', 'shred']);
const RECURSIVE = /^-[^-]*[rR]|^--recursive$/;

/**
 * The first loss among the commands, or null. `constructs` are the analysis's constructs, where
 * redirections to files are found. Contract: an argument known only when the command runs (a
 * variable) counts as the worst case.
 */
export async function destructiveOf(commands: BashCommand[], constructs: Issue[], ctx: DestructiveContext): Promise<Loss | null> {
  const cwds = [ctx.cwd];
  for (const c of commands) {
    const argv = unwrapSudo(c.argv);
    if (argv[0] === 'cd' && argv[1]) cwds.push(resolve(cwds.at(-1)!, argv[1] === '~' ? ctx.home : argv[1]));
    const loss = await commandLoss(argv, cwds, ctx);
    if (loss) return loss;
  }
  for (const c of constructs) {
    if (c.code !== 'redirect') continue;
    const loss = await redirectLoss(c.params.part ?? '', cwds, ctx);
    if (loss) return loss;
  }
  return null;
}

function unwrapSudo(argv: (string | null)[]): (string | null)[] {
  let words = argv;
  while (words[0] === 'sudo' || words[0] === 'doas') {
    words = words.slice(1);
    while (words[0]?.startsWith('-')) words = words.slice(1);
  }
  return words;
}

async function commandLoss(argv: (string | null)[], cwds: string[], ctx: DestructiveContext): Promise<Loss | null> {
  const name = argv[0] === null || argv[0] === undefined ? null : basename(argv[0]);
  const args = argv.slice(1);
  const flags = args.filter((a): a is string => a !== null && a.startsWith('-') && a !== '-');
  const has = (re: RegExp) => flags.some((f) => re.test(f));
  if (name === null) return null;
  if (REMOVERS.has(name)) return removal(name, args, cwds, ctx);
  if (/^mkfs(\.|$)|^(mke2fs|mkswap|wipefs)$/.test(name)) return { what: `${name} (formats a device)`, lost: args.filter((a): a is string => a !== null && !a.startsWith('-')) };
  if (name === 'truncate') return { what: 'truncate', lost: operands(args.filter((a, k) => !['-s', '-r', '--size', '--reference'].includes(args[k - 1] ?? ''))) };
  if (name === 'dd') {
    const of = args.find((a) => a === null || a.startsWith('of='));
    return of === undefined || of === 'of=/dev/null' ? null : { what: 'dd', lost: [of === null ? '(a file named when it runs)' : of.slice(3)] };
  }
  if ((name === 'chmod' || name === 'chown' || name === 'chgrp') && has(RECURSIVE)) return { what: `${name} -R`, lost: operands(args).slice(1) };
  if (name === 'find') {
    const i = args.findIndex((a) => a === null || ['-delete', '-exec', '-execdir', '-ok', '-okdir'].includes(a));
    if (i < 0) return null;
    // find's starting points come before its first test or action.
    const end = args.findIndex((a) => a === null || /^[-(!]/.test(a));
    const starts = operands(args.slice(0, end < 0 ? args.length : end));
    if (args[i] === '-delete' || args[i] === null) return { what: 'find -delete', lost: starts };
    const run = args[i + 1];
    return run === null || run === undefined || REMOVERS.has(basename(run)) || run === 'truncate' ? { what: `find ${args[i]} ${run ?? ''}`.trim(), lost: starts } : null;
  }
  if (name === 'git') return gitLoss(args, cwds.at(-1)!, ctx);
  const targets = clobberTargets(name, args);
  return targets.length ? overwriteLoss(name, targets, cwds, ctx) : null;
}

/** Non-option arguments (after `--`, everything), unknown ones shown as such. */
function operands(args: (string | null)[]): string[] {
  const dash = args.indexOf('--');
  const words = dash >= 0 ? [...args.slice(0, dash).filter((a) => a === null || !a.startsWith('-')), ...args.slice(dash + 1)] : args.filter((a) => a === null || !a.startsWith('-'));
  return words.map((a) => a ?? '(a path named when it runs)');
}

function removal(name: string, args: (string | null)[], cwds: string[], ctx: DestructiveContext): Loss | null {
  const targets = operands(args);
  const disposable = (t: string): boolean =>
    !t.startsWith('(') && cwds.every((cwd) => {
      const abs = resolve(cwd, t === '~' || t.startsWith('~/') ? ctx.home + t.slice(1) : t);
      // A workspace or a home that lives under /tmp is still the user's.
      if (inside(abs, ctx.root) || inside(abs, ctx.home)) return false;
      if (!inside(ctx.root, abs)) return TEMP_DIRS.some((d) => abs !== d && inside(d, abs));
      // Inside (or one of) a build folder of the workspace: every part up to it is known.
      return relative(ctx.root, abs).split(sep).some((part) => BUILD_DIRS.has(part));
    });
  const kept = targets.filter((t) => !disposable(t));
  if (!kept.length) return null;
  const recursive = args.some((a) => a !== null && RECURSIVE.test(a));
  return { what: `${name}${recursive ? ' -r' : ''} outside build and temporary folders`, lost: kept };
}

async function gitLoss(args: (string | null)[], cwd: string, ctx: DestructiveContext): Promise<Loss | null> {
  let i = 0;
  let dir = cwd;
  while (args[i]?.startsWith('-') || args[i] === null) {
    const a = args[i];
    if (a === '-C' && args[i + 1]) dir = resolve(dir, args[i + 1]!);
    i += a === '-C' || a === '-c' || a === '--git-dir' || a === '--work-tree' || a === '--namespace' ? 2 : 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  const flags = rest.filter((a): a is string => a !== null && a.startsWith('-'));
  const paths = operands(rest);
  const changedUnder = async (which: string[]): Promise<string[] | null> => {
    const facts = await ctx.facts.changed(dir);
    if (!facts) return null;
    const scopes = which.length ? which.map((p) => resolve(dir, p)) : [facts.top];
    return facts.files.filter((f) => scopes.some((s) => inside(s, f))).map((f) => relative(ctx.root, f) || f);
  };
  switch (sub) {
    case 'reset': {
      if (!flags.includes('--hard') && !flags.includes('--merge')) return null;
      return { what: 'git reset --hard (uncommitted changes are lost)', lost: (await changedUnder([])) ?? ['(uncommitted changes, if any)'] };
    }
    case 'checkout':
    case 'restore': {
      const dash = rest.indexOf('--');
      const force = flags.some((f) => f === '-f' || f === '--force');
      const staged = sub === 'restore' && flags.some((f) => f === '--staged' || f === '-S') && !flags.some((f) => f === '--worktree' || f === '-W');
      const pathish = sub === 'restore' || dash >= 0 || paths.includes('.') || force;
      if (staged || !pathish) return null;
      const scope = sub === 'checkout' && dash >= 0 ? rest.slice(dash + 1).map((a) => a ?? '.') : sub === 'restore' ? paths : force ? [] : ['.'];
      const lost = await changedUnder(scope.filter((p) => !p.startsWith('(')));
      if (lost && !lost.length) return null;
      return { what: `git ${sub} over uncommitted changes`, lost: lost ?? ['(uncommitted changes, if any)'] };
    }
    case 'clean':
      return flags.some((f) => /^-[^-]*f/.test(f) || f === '--force') ? { what: 'git clean -f (untracked files are deleted)', lost: paths.length ? paths : ['(every untracked file)'] } : null;
    case 'push': {
      const force = flags.some((f) => /^-[^-]*f/.test(f) || /^--(force|mirror|delete|prune)/.test(f)) || paths.some((p) => p.startsWith('+') || p.startsWith(':'));
      return { what: force ? 'git push --force (rewrites what others have)' : 'git push (publishes commits)', lost: paths };
    }
    case 'commit':
      return flags.includes('--amend') ? rewrites('git commit --amend', 'HEAD^!', dir, ctx) : null;
    case 'rebase': {
      if (flags.some((f) => ['--continue', '--abort', '--skip', '--quit', '--edit-todo', '--show-current-patch'].includes(f))) return null;
      if (flags.includes('--root')) return rewrites('git rebase --root', 'HEAD', dir, ctx);
      const positional = rest.filter((a, k) => a === null || (!a.startsWith('-') && !['--onto', '-s', '--strategy', '-X', '--strategy-option', '--exec', '-x'].includes(rest[k - 1] ?? '')));
      if (positional.some((a) => a === null)) return { what: 'git rebase of commits named when it runs', lost: [] };
      const [upstream, branch] = positional as string[];
      return rewrites('git rebase', `${upstream ?? '@{upstream}'}..${branch ?? 'HEAD'}`, dir, ctx);
    }
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear' ? { what: `git stash ${rest[0]}`, lost: rest.slice(1).map((a) => a ?? '?') } : null;
    case 'branch':
      return flags.some((f) => f === '-D' || (/^-[^-]*d/.test(f) && flags.some((g) => g === '-f' || g === '--force'))) ? { what: 'git branch -D (unmerged commits are dropped)', lost: paths } : null;
    default:
      return null;
  }
}

async function rewrites(what: string, range: string, dir: string, ctx: DestructiveContext): Promise<Loss | null> {
  const pushed = await ctx.facts.pushedAmong(dir, range);
  if (pushed === 0) return null;
  return { what: `${what} rewrites commits a remote already has`, lost: [pushed === null ? '(commits that may be pushed)' : `${pushed} pushed commit${pushed === 1 ? '' : 's'}`] };
}

/** `> file` (not `>>`) onto a tracked file with uncommitted changes. */
async function redirectLoss(part: string, cwds: string[], ctx: DestructiveContext): Promise<Loss | null> {
  const m = /^\s*(?:\d*|&)(>\|?)\s*(.*?)\s*$/s.exec(part);
  if (!m || m[2]!.startsWith('>') || m[2]!.startsWith('&')) return null;
  const plain = /^'([^']*)'$|^"([^"$`\\]*)"$|^([^\s'"$`\\*?[{~]+)$/.exec(m[2]!);
  return overwriteLoss('>', [plain ? (plain[1] ?? plain[2] ?? plain[3]!) : null], cwds, ctx);
}

/** The first of `targets` that is a tracked file with uncommitted changes; an unknown target counts as any. */
async function overwriteLoss(label: string, targets: (string | null)[], cwds: string[], ctx: DestructiveContext): Promise<Loss | null> {
  const facts = await ctx.facts.changed(cwds.at(-1)!);
  if (!facts?.files.length) return null;
  const shown = (file: string) => relative(ctx.root, file) || file;
  if (targets.includes(null)) return { what: `${label} onto a file named when it runs, with uncommitted changes in the repository`, lost: facts.files.map(shown) };
  for (const target of targets as string[]) {
    const hit = cwds.map((cwd) => (isAbsolute(target) ? target : resolve(cwd, target))).find((abs) => facts.files.includes(abs));
    if (hit) return { what: `${label} overwrites ${shown(hit)}, which has uncommitted changes`, lost: [shown(hit)] };
  }
  return null;
}
