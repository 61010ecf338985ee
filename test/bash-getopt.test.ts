// getopt_long as the allowlist reads it: clusters, attached and separate values, optional values
// (attached only), two-valued options, `--`, options after operands, unique prefixes, ambiguity,
// unknown options, --no- negations, -NUM counts, and stopping at the first operand.
import { describe, expect, it } from 'vitest';
import { getopt, optionTable } from '../src/safety/bash/getopt.js';

const words = (...vs: (string | null)[]) => vs.map((value) => ({ value, pattern: value ?? '\0' }));
const read = (table: ReturnType<typeof optionTable>, ...vs: (string | null)[]) => {
  const r = getopt(words(...vs), table);
  return 'problem' in r ? r : { opts: r.opts.map((o) => [o.name, o.value]), operands: r.positionals.map((a) => a.value) };
};

describe('getopt', () => {
  const sort = optionTable('-o|--output= -n|--numeric-sort -c --check[=] --compress-program= -k|--key=');

  it('clusters, attached and separate values, options after operands, and --', () => {
    expect(read(sort, '-nk2', 'a', '-o', 'out', '--', '-n')).toEqual({
      opts: [['-n', undefined], ['-k', '2'], ['-o', 'out']],
      operands: ['a', '-n'],
    });
    expect(read(sort, '-no/tmp/x')).toEqual({ opts: [['-n', undefined], ['-o', '/tmp/x']], operands: [] });
  });

  it('long options: exact, unique prefixes (=value or the next word), optional values only attached', () => {
    expect(read(sort, '--o=/tmp/x', '--num', '--comp', 'sh', '--check', 'f')).toEqual({
      opts: [['--output', '/tmp/x'], ['--numeric-sort', undefined], ['--compress-program', 'sh'], ['--check', '']],
      operands: ['f'],
    });
    expect(read(sort, '--check=quiet')).toEqual({ opts: [['--check', 'quiet']], operands: [] });
  });

  it('refuses what the program would refuse: ambiguous, unknown, a flag with a value, a missing value', () => {
    expect(read(sort, '--c')).toEqual({ problem: 'ambiguous', detail: 'the abbreviated option --c, which could be --check or --compress-program' });
    expect(read(sort, '--frob')).toEqual({ problem: 'unknown_option', detail: 'the option --frob, which this check does not know' });
    expect(read(sort, '-nz')).toEqual({ problem: 'unknown_option', detail: 'the option -z (in -nz), which this check does not know' });
    expect(read(sort, '--numeric-sort=1')).toEqual({ problem: 'unexpected_value', detail: '--numeric-sort with a value' });
    expect(read(sort, '-o')).toEqual({ problem: 'missing_value', detail: '-o without its value' });
    expect(read(sort, null)).toEqual({ problem: 'unknown_value', detail: 'an argument known only when it runs (…)' });
  });

  it('two-valued options, --no- negations, -NUM counts, and stopping at the first operand', () => {
    expect(read(optionTable('--rawfile== -n'), '--rawfile', 'k', 'f.txt', '-n', '.')).toEqual({ opts: [['--rawfile', 'f.txt'], ['-n', undefined]], operands: ['.'] });
    expect(read(optionTable('--hidden -L|--follow', { negations: true }), '--no-hidden', '--no-follow')).toEqual({ opts: [['--no-hidden', undefined], ['--no-follow', undefined]], operands: [] });
    expect(read(optionTable('-n|--lines=', { numeric: true }), '-20', 'f')).toEqual({ opts: [['-NUM', '20']], operands: ['f'] });
    expect(read(optionTable('-k|--kill-after=', { stopAtOperand: true }), '-k', '5', '10', 'sort', '-o', 'x')).toEqual({ opts: [['-k', '5']], operands: ['10', 'sort', '-o', 'x'] });
  });
});
