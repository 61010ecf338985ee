// Reads one program's arguments the way GNU getopt_long does: option clusters (-la), attached and
// separate values (-n5, -n 5, --lines=5, --lines 5), optional values (only attached), `--`,
// options after operands (permutation), and long options abbreviated to any unique prefix.
// Must not judge what an option does: the allowlist decides with what this returns.

/** One argument: its value (null when only known at run time), its glob pattern, and whether a glob made it. */
export type Arg = { value: string | null; pattern: string; globbed?: boolean };

export type OptionEntry = { names: string[]; arg: 'none' | 'required' | 'optional' | 'two' };

/** A program's options, built once from a compact description (see optionTable). */
export type OptionTable = {
  entries: OptionEntry[];
  /** `-5` style counts (head -5, grep -3, nice -10) are one option, '-NUM'. */
  numeric: boolean;
  /** Options end at the first operand, as for programs that run a command (xargs, env, timeout). */
  stopAtOperand: boolean;
  /** `--no-NAME` negates the flag --NAME (ripgrep). */
  negations: boolean;
};

export type ParsedOpt = {
  /** The option as the program resolves it: `-n` or the full long name. */
  name: string;
  entry: OptionEntry | null;
  /** The value; null when only known at run time; undefined for a flag. */
  value?: string | null;
};
export type ParsedArgs<A extends Arg = Arg> = {
  opts: ParsedOpt[];
  positionals: A[];
  /** The script operand a program's check took off the operands (sed, awk, jq). */
  script?: string | null;
};
/** Why the arguments cannot be read; the program would refuse them, or they are unknown. */
export type GetoptProblem = { problem: 'unknown_value' | 'unknown_option' | 'ambiguous' | 'missing_value' | 'unexpected_value'; detail: string };

const NUM: OptionEntry = { names: ['-NUM'], arg: 'none' };

/**
 * Builds a table from entries separated by spaces: `-n|--lines=` (a required value), `--color[=]`
 * (an optional value, attached only), `--arg==` (two values, as jq's --arg name value), `-a|--all`
 * (a flag). A short option shares its entry's arity.
 */
export function optionTable(spec: string, flags: Partial<Omit<OptionTable, 'entries'>> = {}): OptionTable {
  const entries = spec.split(/\s+/).filter(Boolean).map((item): OptionEntry => {
    const arg = item.endsWith('[=]') ? 'optional' : item.endsWith('==') ? 'two' : item.endsWith('=') ? 'required' : 'none';
    return { names: item.replace(/\[?=?=\]?$/, '').split('|'), arg };
  });
  return { entries, numeric: false, stopAtOperand: false, negations: false, ...flags };
}

/** True when the option is one of `names` (any alias of its entry counts). */
export function isOption(opt: ParsedOpt, names: readonly string[]): boolean {
  return (opt.entry?.names ?? [opt.name]).some((n) => names.includes(n));
}

/** The entry a long option names: exact, else the one entry whose names it is a prefix of. */
function resolveLong(name: string, table: OptionTable): OptionEntry | GetoptProblem {
  const exact = table.entries.find((e) => e.names.includes(name));
  if (exact) return exact;
  const candidates = new Set(table.entries.filter((e) => e.names.some((n) => n.startsWith('--') && n.startsWith(name))));
  if (candidates.size === 1) return [...candidates][0]!;
  if (candidates.size > 1) return { problem: 'ambiguous', detail: `the abbreviated option ${name}, which could be ${[...candidates].map((e) => e.names.find((n) => n.startsWith(name))).join(' or ')}` };
  if (table.negations && name.startsWith('--no-')) {
    const flag = resolveLong(`--${name.slice(5)}`, table);
    if ('names' in flag && flag.arg === 'none') return { names: [name], arg: 'none' };
  }
  return { problem: 'unknown_option', detail: `the option ${name}, which this check does not know` };
}

/** Splits `args` into options and operands, or says why they cannot be read. */
export function getopt<A extends Arg>(args: A[], table: OptionTable): ParsedArgs<A> | GetoptProblem {
  const opts: ParsedOpt[] = [];
  const positionals: A[] = [];
  let ended = false;
  const next = (i: number): string | null | undefined => (i < args.length ? args[i]!.value : undefined);
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (ended) {
      positionals.push(args[i]!);
      continue;
    }
    // An unknown word could be any option at all.
    if (v === null) return { problem: 'unknown_value', detail: `an argument known only when it runs (${args[i]!.pattern.replace(/\0/g, '…').replace(/\x01/g, ' ')})` };
    if (v === '--') {
      ended = true;
      continue;
    }
    if (v === '-' || !v.startsWith('-')) {
      positionals.push(args[i]!);
      if (table.stopAtOperand) ended = true;
      continue;
    }
    if (table.numeric && /^--?\d+[a-zA-Z]*$/.test(v)) {
      opts.push({ name: '-NUM', entry: NUM, value: v.replace(/^-+/, '') });
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq < 0 ? v : v.slice(0, eq);
      const entry = resolveLong(name, table);
      if ('problem' in entry) return entry;
      const full = entry.names.find((n) => n.startsWith(name)) ?? name;
      if (eq >= 0) {
        if (entry.arg === 'none') return { problem: 'unexpected_value', detail: `${full} with a value` };
        opts.push({ name: full, entry, value: v.slice(eq + 1) });
      } else if (entry.arg === 'required' || entry.arg === 'two') {
        // Of two values (jq --rawfile name file) the second is the one that matters.
        if (entry.arg === 'two') i++;
        const value = next(++i);
        if (value === undefined) return { problem: 'missing_value', detail: `${full} without its value` };
        opts.push({ name: full, entry, value });
      } else {
        opts.push({ name: full, entry, value: entry.arg === 'optional' ? '' : undefined });
      }
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const name = '-' + v[j];
      const entry = table.entries.find((e) => e.names.includes(name));
      if (!entry) return { problem: 'unknown_option', detail: `the option ${name}${v.length > 2 ? ` (in ${v})` : ''}, which this check does not know` };
      if (entry.arg === 'none') {
        opts.push({ name, entry });
        continue;
      }
      if (j + 1 < v.length) opts.push({ name, entry, value: v.slice(j + 1) });
      else if (entry.arg === 'optional') opts.push({ name, entry, value: '' });
      else {
        const value = next(++i);
        if (value === undefined) return { problem: 'missing_value', detail: `${name} without its value` };
        opts.push({ name, entry, value });
      }
      break;
    }
  }
  return { opts, positionals };
}
