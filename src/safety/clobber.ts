// The files a command overwrites through its own options and operands (cp, mv, install, ln -f,
// rsync, tee, sort -o, curl -o/-O, wget -O), read the way each program's getopt reads them:
// clustered short options, attached values, `--opt=value`, unambiguous long-option prefixes, `--`.
// Pure: no file system, no git. An argument known only when the command runs is `null`.

import { basename } from 'node:path';

type Arity = 'none' | 'arg' | 'optional';
type Spec = {
  /** Short letter → its long name (the canonical name used below). */
  short: Record<string, string>;
  long: Record<string, Arity>;
  /** GNU getopt_long accepts any unambiguous prefix of a long option. */
  prefixes: boolean;
};
type Parsed = { options: Map<string, (string | null)[]>; operands: (string | null)[] };

const COPY_LONG: Record<string, Arity> = {
  'target-directory': 'arg', 'no-target-directory': 'none', suffix: 'arg', backup: 'optional', 'no-clobber': 'none',
  update: 'optional', force: 'none', interactive: 'none', recursive: 'none', archive: 'none', verbose: 'none',
  'preserve': 'optional', 'no-preserve': 'arg', parents: 'none', link: 'none', 'symbolic-link': 'none',
  'remove-destination': 'none', 'strip-trailing-slashes': 'none', context: 'optional', sparse: 'arg', reflink: 'optional',
  'no-dereference': 'none', dereference: 'none', 'one-file-system': 'none', 'attributes-only': 'none', 'copy-contents': 'none',
  mode: 'arg', owner: 'arg', group: 'arg', directory: 'none', compare: 'none', 'preserve-timestamps': 'none', strip: 'none',
  'strip-program': 'arg', 'preserve-context': 'none', exchange: 'none', 'debug': 'none', 'keep-directory-symlink': 'none',
  'physical': 'none', 'logical': 'none', 'relative': 'none',
};
const COPY_SHORT = { t: 'target-directory', T: 'no-target-directory', S: 'suffix', b: 'backup', n: 'no-clobber', u: 'update', f: 'force', i: 'interactive', r: 'recursive', R: 'recursive', a: 'archive', v: 'verbose', p: 'preserve', l: 'link', s: 'symbolic-link', d: 'no-dereference', P: 'no-dereference', L: 'dereference', H: 'dereference', x: 'one-file-system', Z: 'context' };

const SPECS: Record<string, Spec> = {
  cp: { short: COPY_SHORT, long: COPY_LONG, prefixes: true },
  mv: { short: COPY_SHORT, long: COPY_LONG, prefixes: true },
  install: { short: { ...COPY_SHORT, m: 'mode', o: 'owner', g: 'group', d: 'directory', C: 'compare', p: 'preserve-timestamps', s: 'strip', D: 'parents' }, long: COPY_LONG, prefixes: true },
  ln: { short: { ...COPY_SHORT, s: 'symbolic-link', r: 'relative', L: 'logical', P: 'physical' }, long: COPY_LONG, prefixes: true },
  rsync: {
    short: { b: 'backup', e: 'rsh', f: 'filter', B: 'block-size', T: 'temp-dir', M: 'remote-option' },
    long: { backup: 'none', 'backup-dir': 'arg', suffix: 'arg', rsh: 'arg', filter: 'arg', 'block-size': 'arg', 'temp-dir': 'arg', 'remote-option': 'arg', exclude: 'arg', include: 'arg', 'exclude-from': 'arg', 'include-from': 'arg', 'files-from': 'arg', chmod: 'arg', 'compare-dest': 'arg', 'copy-dest': 'arg', 'link-dest': 'arg', 'partial-dir': 'arg', 'log-file': 'arg', 'password-file': 'arg', 'ignore-existing': 'none', port: 'arg', timeout: 'arg', 'max-size': 'arg', 'min-size': 'arg', bwlimit: 'arg' },
    prefixes: false,
  },
  tee: { short: { a: 'append', i: 'ignore-interrupts', p: 'output-error' }, long: { append: 'none', 'ignore-interrupts': 'none', 'output-error': 'optional' }, prefixes: true },
  sort: {
    short: { o: 'output', k: 'key', t: 'field-separator', S: 'buffer-size', T: 'temporary-directory' },
    long: { output: 'arg', key: 'arg', 'field-separator': 'arg', 'buffer-size': 'arg', 'temporary-directory': 'arg', 'batch-size': 'arg', 'compress-program': 'arg', 'files0-from': 'arg', parallel: 'arg', 'random-source': 'arg', sort: 'arg', check: 'optional', debug: 'none', unique: 'none', reverse: 'none', merge: 'none', stable: 'none', 'zero-terminated': 'none', 'ignore-case': 'none', numeric: 'none', 'numeric-sort': 'none' },
    prefixes: true,
  },
  curl: {
    short: { o: 'output', O: 'remote-name', A: 'user-agent', b: 'cookie', c: 'cookie-jar', C: 'continue-at', d: 'data', D: 'dump-header', e: 'referer', E: 'cert', F: 'form', H: 'header', K: 'config', m: 'max-time', P: 'ftp-port', Q: 'quote', r: 'range', T: 'upload-file', u: 'user', U: 'proxy-user', w: 'write-out', x: 'proxy', X: 'request', y: 'speed-time', Y: 'speed-limit', z: 'time-cond' },
    long: { output: 'arg', 'remote-name': 'none', 'user-agent': 'arg', cookie: 'arg', 'cookie-jar': 'arg', 'continue-at': 'arg', data: 'arg', 'data-raw': 'arg', 'data-binary': 'arg', 'dump-header': 'arg', referer: 'arg', cert: 'arg', form: 'arg', header: 'arg', config: 'arg', 'max-time': 'arg', 'ftp-port': 'arg', quote: 'arg', range: 'arg', 'upload-file': 'arg', user: 'arg', 'proxy-user': 'arg', 'write-out': 'arg', proxy: 'arg', request: 'arg', 'speed-time': 'arg', 'speed-limit': 'arg', 'time-cond': 'arg', url: 'arg' },
    prefixes: false,
  },
  wget: {
    short: { O: 'output-document', o: 'output-file', a: 'append-output', P: 'directory-prefix', e: 'execute', i: 'input-file', t: 'tries', T: 'timeout', U: 'user-agent', w: 'wait', Q: 'quota', l: 'level', A: 'accept', R: 'reject', D: 'domains', I: 'include-directories', X: 'exclude-directories' },
    long: { 'output-document': 'arg', 'output-file': 'arg', 'append-output': 'arg', 'directory-prefix': 'arg', execute: 'arg', 'input-file': 'arg', tries: 'arg', timeout: 'arg', 'user-agent': 'arg', wait: 'arg', quota: 'arg', level: 'arg', accept: 'arg', reject: 'arg', domains: 'arg', 'include-directories': 'arg', 'exclude-directories': 'arg', header: 'arg' },
    prefixes: true,
  },
};

/** Options and operands as the program's getopt sees them; an unknown word is taken as an operand. */
function parse(args: (string | null)[], spec: Spec): Parsed {
  const options = new Map<string, (string | null)[]>();
  const operands: (string | null)[] = [];
  const set = (name: string, value: string | null) => options.set(name, [...(options.get(name) ?? []), value]);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null || a === '-' || !a.startsWith('-')) { operands.push(a ?? null); continue; }
    if (a === '--') { operands.push(...args.slice(i + 1)); break; }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const typed = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const names = Object.keys(spec.long);
      const exact = names.includes(typed) ? [typed] : spec.prefixes ? names.filter((n) => n.startsWith(typed)) : [];
      const name = exact.length === 1 ? exact[0]! : typed;
      const arity = spec.long[name] ?? 'none';
      if (eq >= 0) set(name, a.slice(eq + 1));
      else if (arity === 'arg') set(name, args[++i] ?? null);
      else set(name, '');
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const name = spec.short[a[k]!] ?? a[k]!;
      if (spec.long[name] !== 'arg') { set(name, ''); continue; }
      set(name, k + 1 < a.length ? a.slice(k + 1) : (args[++i] ?? null));
      break;
    }
  }
  return { options, operands };
}

const joinTo = (dir: string | null, src: string | null): string | null => (dir === null || src === null ? null : `${dir.replace(/\/+$/, '')}/${basename(src)}`);

/**
 * The paths `name` (a program's base name) would overwrite, `null` for one named only when it
 * runs; an empty list when it overwrites nothing it is told to keep (a backup, no-clobber, append).
 */
export function clobberTargets(name: string, args: (string | null)[]): (string | null)[] {
  const spec = SPECS[name];
  if (!spec) return [];
  const { options, operands } = parse(args, spec);
  const has = (o: string) => options.has(o);
  switch (name) {
    case 'cp': case 'mv': case 'install': case 'ln': case 'rsync': {
      const backup = options.get('backup')?.some((v) => v !== 'none' && v !== 'off');
      if (backup || has('no-clobber') || has('ignore-existing') || has('directory')) return [];
      if (options.get('update')?.some((v) => v === 'none' || v === 'none-fail')) return [];
      if (name === 'ln' && !has('force') && !has('remove-destination')) return [];
      const target = options.get('target-directory');
      if (target) return target.flatMap((dir) => operands.map((src) => joinTo(dir, src)));
      if (name === 'ln' && operands.length === 1) return [joinTo('.', operands[0]!)];
      if (operands.length < 2) return [];
      const dest = operands.at(-1)!;
      const sources = operands.slice(0, -1);
      // Without stat, the destination may be a file or a folder: both readings count.
      return has('no-target-directory') ? [dest] : [dest, ...sources.map((src) => joinTo(dest, src))];
    }
    case 'tee':
      return has('append') ? [] : operands;
    case 'sort':
      return options.get('output') ?? [];
    case 'curl': {
      const named = options.get('output') ?? [];
      const remote = has('remote-name') ? operands.map((u) => (u === null ? null : basename(u.replace(/[?#].*$/, '')) || null)) : [];
      return [...named, ...remote].filter((p) => p !== '-');
    }
    case 'wget':
      return (options.get('output-document') ?? []).filter((p) => p !== '-');
  }
  return [];
}
