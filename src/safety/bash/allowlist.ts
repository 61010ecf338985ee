// Applies the shipped allowlist (programs.ts, git.ts) to one program's argv, already unquoted and
// expanded: null when the command is read-only and stays in the workspace, else the first
// problem. Must not know about shells; what touches the file system comes in through Checks.
// Deliberately absent: interpreters, package-script runners, pagers and editors.

import { getopt, isOption, type Arg, type ParsedArgs } from './getopt.js';
import { checkGit } from './git.js';
import { PROGRAMS, unsafe, type ArgProblem, type Checks, type Spec } from './programs.js';

export type { Arg } from './getopt.js';
export type { ArgCode, ArgProblem, Checks } from './programs.js';

/** Device files that are not "outside the workspace" in any way that matters. */
const DEVICES = new Set(['-', '/dev/null', '/dev/stdin', '/dev/stdout', '/dev/stderr']);
/** Programs allowlisted only to print their version with exactly these arguments (they read no project file then). */
const VERSION_ONLY: Record<string, string[][]> = {
  node: [['--version'], ['-v']],
  npm: [['--version'], ['-v']],
  python3: [['--version'], ['-V']],
  python: [['--version'], ['-V']],
  pip: [['--version'], ['-V']],
  pip3: [['--version'], ['-V']],
  go: [['version']],
  java: [['-version'], ['--version']],
  ruby: [['--version'], ['-v']],
  deno: [['--version'], ['-V']],
  bun: [['--version'], ['-v']],
  gcc: [['--version']],
  clang: [['--version']],
  make: [['--version']],
  cmake: [['--version']],
  bwrap: [['--version']],
};

/** True for programs allowlisted only to print their version. */
export function isVersionOnly(program: string): boolean {
  return Object.hasOwn(VERSION_ONLY, program);
}

/** True when the program is on the shipped allowlist. */
export function isAllowlisted(program: string): boolean {
  return program === 'git' || program === 'find' || Object.hasOwn(PROGRAMS, program) || Object.hasOwn(VERSION_ONLY, program);
}

/** Checks one command; `argv[0]` is the program name as bash will look it up. */
export function checkArgv(argv: Arg[], checks: Checks): ArgProblem | null {
  const program = argv[0]?.value ?? '';
  const args = argv.slice(1);
  if (program === 'git') return checkGit(args, checks);
  if (program === 'find') return checkFind(args, checks);
  if (Object.hasOwn(VERSION_ONLY, program)) {
    const given = args.map((a) => a.value);
    if (VERSION_ONLY[program]!.some((form) => form.length === given.length && form.every((f, i) => f === given[i]))) return null;
    return { code: 'not_allowlisted', detail: `${program} is not on the read-only allowlist` };
  }
  const spec = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program]! : undefined;
  if (!spec) return { code: 'not_allowlisted', detail: `${program} is not on the read-only allowlist` };
  return checkSpec(args, spec, checks);
}

/** Applies a spec: options resolved as getopt_long would, forbidden ones refused, paths checked. */
export function checkSpec(args: Arg[], spec: Spec, checks: Checks): ArgProblem | null {
  if (!spec.options) return null;
  const parsed = spec.options === 'none' ? { opts: [], positionals: args } : getopt(args, spec.options);
  if ('problem' in parsed) return { code: parsed.problem === 'unknown_value' ? 'unknown_arg' : 'unsafe_option', detail: parsed.detail };
  for (const o of parsed.opts) {
    if (spec.forbid && isOption(o, spec.forbid)) return unsafe(`the option ${o.name}${o.name === o.entry?.names[0] ? '' : ` (${o.entry?.names.join(', ')})`}`);
    if (!spec.pathValues || !isOption(o, spec.pathValues)) continue;
    if (typeof o.value !== 'string') return { code: 'unknown_arg', detail: `the value of ${o.name}` };
    const out = DEVICES.has(o.value) ? null : checks.outside(o.value);
    if (out) return { code: 'path_outside', detail: out };
  }
  const problem = spec.check?.(parsed);
  if (problem) return problem;
  if (spec.positionals === 'text') return null;
  return checkOperands(parsed, spec, checks);
}

function checkOperands(parsed: ParsedArgs, spec: Spec, checks: Checks): ArgProblem | null {
  const recursion = spec.recursive?.(parsed) ?? null;
  // ls, rg and grep -r with no operand read the current folder.
  const operands = parsed.positionals.length || !(spec.readsCwd || recursion) ? parsed.positionals : [{ value: '.', pattern: '.' }];
  for (const a of operands) {
    if (a.value === null) return { code: 'unknown_arg', detail: 'a path known only when it runs' };
    const out = DEVICES.has(a.value) ? null : checks.outside(a.value, a.pattern);
    if (out) return { code: 'path_outside', detail: out };
  }
  if (!recursion) return null;
  for (const a of operands) {
    const found = DEVICES.has(a.value!) ? null : checks.below(a.value!, recursion);
    if (found) return found;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// find: its own grammar of options, starting points and an expression of primaries.

const FIND_FORBID = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls', '-files0-from']);
const FIND_PATH_ARGS = /^-(newer|anewer|cnewer|samefile|newer[aBcm][aBcm])$/;

function checkFind(args: Arg[], checks: Checks): ArgProblem | null {
  const starts: Arg[] = [];
  let phase: 'options' | 'starts' | 'expression' = 'options';
  let follows = false;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return { code: 'unknown_arg', detail: 'a find argument known only when it runs' };
    if (phase === 'options' && (['-H', '-L', '-P'].includes(v) || /^-O\d$/.test(v))) {
      follows ||= v === '-L';
      continue;
    }
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
    follows ||= v === '-follow';
    if (!FIND_PATH_ARGS.test(v)) continue;
    const ref = args[++i]?.value;
    if (typeof ref !== 'string') return { code: 'unknown_arg', detail: `the value of ${v}` };
    const out = checks.outside(ref);
    if (out) return { code: 'path_outside', detail: out };
  }
  for (const s of starts.length ? starts : [{ value: '.', pattern: '.' }]) {
    const out = checks.outside(s.value!, s.pattern);
    if (out) return { code: 'path_outside', detail: out };
    // find -L lists what links lead to: a link out of the workspace lists outside.
    const below = follows ? checks.below(s.value!, { followLinks: true, hidden: true, include: () => false }) : null;
    if (below) return below;
  }
  return null;
}
