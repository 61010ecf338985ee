// Sees through programs that run another program (env, timeout, nice, nohup, stdbuf, time,
// xargs, command, sh -c / bash -c): what they run, with their own options read as getopt_long
// reads them. Must not judge the inner program; analysis.ts does, with the same rules.

import { getopt, isOption, optionTable, type OptionTable } from './getopt.js';
import type { ShellWord } from './words.js';

/** What a wrapper runs: the inner argv (and files it reads itself), a script to parse, or why it cannot be seen. */
export type Unit = { argv: ShellWord[]; reads: ShellWord[] } | { script: string } | { construct: string };

/** The input xargs appends to the command: unknown words. */
export const UNKNOWN_INPUT: ShellWord = { value: null, pattern: '\0', text: '(arguments read from input)' };
const OPAQUE = new Set(['eval', 'source', '.', 'exec', 'builtin', 'coproc']);

type Wrapper = { options: OptionTable; forbid: string[]; positional?: number };
const stop = { stopAtOperand: true };
const WRAPPERS: Record<string, Wrapper> = {
  env: {
    options: optionTable('-i|--ignore-environment -0|--null -u|--unset= -C|--chdir= -S|--split-string= --block-signal[=] --default-signal[=] --ignore-signal[=] --list-signal-handling -v|--debug --help --version', stop),
    forbid: ['-C', '-S'],
  },
  xargs: {
    options: optionTable('-0|--null -a|--arg-file= -d|--delimiter= -E= -e|--eof[=] -I= -i|--replace[=] -L|--max-lines= -l[=] -n|--max-args= -o|--open-tty -P|--max-procs= -p|--interactive --process-slot-var= -r|--no-run-if-empty -s|--max-chars= --show-limits -t|--verbose -x|--exit --help --version', stop),
    // --process-slot-var sets a variable of the command's choosing (GIT_DIR=0) in what it runs.
    forbid: ['-o', '-p', '--process-slot-var'],
  },
  timeout: { options: optionTable('--preserve-status --foreground -k|--kill-after= -s|--signal= -v|--verbose --help --version', stop), forbid: [], positional: 1 },
  nice: { options: optionTable('-n|--adjustment= --help --version', { ...stop, numeric: true }), forbid: [] },
  stdbuf: { options: optionTable('-i|--input= -o|--output= -e|--error= --help --version', stop), forbid: [] },
  nohup: { options: optionTable('--help --version', stop), forbid: [] },
  time: { options: optionTable('-p', stop), forbid: [] },
  command: { options: optionTable('-p -v -V', stop), forbid: [] },
};

/** What a command made of `words` runs. */
export function unwrap(words: ShellWord[]): Unit {
  const name = words[0]!.value ?? '';
  const rest = words.slice(1);
  if (name === 'sh' || name === 'bash') return shellScript(rest) ?? { argv: words, reads: [] };
  if (OPAQUE.has(name)) return { construct: `${name}, which runs what it is given` };
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name]! : undefined;
  if (!spec) return { argv: words, reads: [] };
  const parsed = getopt(rest, spec.options);
  if ('problem' in parsed) return { construct: `${name} with ${parsed.detail}` };
  const bad = parsed.opts.find((o) => isOption(o, spec.forbid));
  if (bad) return { construct: `${name} with the option ${bad.name}` };
  // command -v / -V only describes the name.
  if (name === 'command' && parsed.opts.some((o) => o.name === '-v' || o.name === '-V')) return { argv: [{ ...words[0]!, value: 'echo' }], reads: [] };
  let inner = parsed.positionals.slice(spec.positional ?? 0);
  if (name === 'env' && inner[0]?.value === '-') inner = inner.slice(1);
  if (name === 'env' && /^\w+=/.test(inner[0]?.value ?? '')) return { construct: 'a variable assignment passed through env' };
  if (!inner.length) return { argv: [], reads: [] };
  const reads: ShellWord[] = [];
  if (name === 'xargs') {
    const file = parsed.opts.find((o) => isOption(o, ['-a']));
    if (file) reads.push(file.value === null || file.value === undefined ? UNKNOWN_INPUT : { value: file.value, pattern: file.value.replace(/[\\*?[\]{},~]/g, '\\$&'), text: file.value });
    const replace = parsed.opts.find((o) => isOption(o, ['-I', '-i']));
    if (replace) {
      // With -I the input replaces the placeholder instead of following the command.
      const mark = replace.value || '{}';
      inner = inner.map((w) => (w.value === null || w.value.includes(mark) ? UNKNOWN_INPUT : w));
    } else inner = [...inner, UNKNOWN_INPUT];
  }
  const deeper = unwrap(inner);
  return 'argv' in deeper ? { argv: deeper.argv, reads: [...reads, ...deeper.reads] } : deeper;
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
