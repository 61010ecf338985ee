// .gitignore rules as git reads them (wildmatch with `**`, negation, folder-only rules, anchoring,
// a folder's exclusion covering everything in it), matched in time that does not grow with the
// number of plain rules: names and paths without wildcards are looked up, `*.ext` rules by suffix,
// and only real globs are tested one by one. Pure: the caller reads the files.

/** What the rules of one .gitignore say about a path: the last matching rule decides. */
export type Verdict = 'ignored' | 'unignored' | undefined;

type Rule = { index: number; negate: boolean; dirOnly: boolean };
type GlobRule = Rule & { anchored: boolean; re: RegExp };

/** The rules of one .gitignore file, for paths relative to its folder. */
export class GitignoreRules {
  /** Names without a slash or wildcard, matched against a path's last part. */
  private readonly names = new Map<string, Rule[]>();
  /** Paths without wildcards, relative to the file's folder. */
  private readonly paths = new Map<string, Rule[]>();
  /** `*.ext`-like rules: a star followed by plain text, matched against the end of the last part. */
  private readonly suffixes = new Map<string, Rule[]>();
  private longestSuffix = 0;
  /** Everything else, newest first, so the search can stop at the first match. */
  private readonly globs: GlobRule[] = [];

  constructor(text: string) {
    text.split(/\r?\n/).forEach((line, index) => this.add(line, index));
    this.globs.reverse();
  }

  /** The verdict for `rel` (relative to the file's folder, '/'-separated) as a file or a folder. */
  test(rel: string, isDir: boolean): Verdict {
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    let best: Rule | undefined;
    const consider = (rules: Rule[] | undefined) => {
      for (const r of rules ?? []) if ((isDir || !r.dirOnly) && (!best || r.index > best.index)) best = r;
    };
    consider(this.names.get(base));
    consider(this.paths.get(rel));
    for (let i = Math.max(0, base.length - this.longestSuffix); i < base.length; i++) consider(this.suffixes.get(base.slice(i)));
    for (const g of this.globs) {
      if (best && g.index < best.index) break;
      if ((isDir || !g.dirOnly) && g.re.test(g.anchored ? rel : base)) {
        best = g;
        break;
      }
    }
    return best ? (best.negate ? 'unignored' : 'ignored') : undefined;
  }

  private add(raw: string, index: number): void {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) return;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.replace(/\/+$/, '');
    if (line === '') return;
    // A slash at the start or in the middle anchors the rule to this folder.
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const rule: Rule = { index, negate, dirOnly };
    if (!/[*?[\\]/.test(line)) return push(anchored ? this.paths : this.names, line, rule);
    const suffix = /^\*([^*?[\\/]+)$/.exec(line);
    if (suffix && !anchored) {
      this.longestSuffix = Math.max(this.longestSuffix, suffix[1]!.length);
      return push(this.suffixes, suffix[1]!, rule);
    }
    const re = globToRegExp(line);
    if (re) this.globs.push({ ...rule, anchored, re });
  }
}

function push(map: Map<string, Rule[]>, key: string, rule: Rule): void {
  const list = map.get(key);
  if (list) list.push(rule);
  else map.set(key, [rule]);
}

/** A git wildmatch pattern (with `/` significant) as an anchored regular expression; undefined when it is malformed. */
function globToRegExp(glob: string): RegExp | undefined {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] !== '*') {
        re += '[^/]*';
        continue;
      }
      while (glob[i + 1] === '*') i++;
      const before = i < 2 || glob[i - 2] === '/';
      const after = i + 1 >= glob.length || glob[i + 1] === '/';
      if (!before || !after) re += '[^/]*';
      else if (i + 1 >= glob.length) re += '.*';
      else {
        re += '(?:.*/)?';
        i++; // the slash after ** is part of it
      }
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) return undefined;
      let body = glob.slice(i + 1, end);
      if (body.startsWith('!') || body.startsWith('^')) body = '^' + body.slice(1);
      re += `(?!/)[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '\\' && i + 1 < glob.length) re += escape(glob[++i]!);
    else re += escape(c);
  }
  try {
    return new RegExp(`^${re}$`);
  } catch {
    return undefined;
  }
}

const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
