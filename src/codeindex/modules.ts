// Module resolution for the call graph: which indexed file an import names. Relative paths the
// way each language spells them, workspace packages (package.json names), tsconfig path aliases,
// and dotted or :: module paths by path suffix. Must not look at symbols.

import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix } from 'node:path';

const NODE_BUILTINS = new Set(builtinModules);
const TS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];

type Alias = { prefix: string; suffix: string; targets: string[] };

export type ModuleConfig = { packages: Map<string, string>; aliases: Alias[] };

/** Workspace packages and tsconfig aliases, from the package.json and tsconfig.json files listed. */
export function readModuleConfig(root: string, manifests: string[]): ModuleConfig {
  const packages = new Map<string, string>();
  const aliases: Alias[] = [];
  for (const file of manifests) {
    const data = readJson(join(root, file));
    if (!data) continue;
    const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file);
    if (file.endsWith('package.json') && typeof data.name === 'string') packages.set(data.name, dir);
    const options = (data.compilerOptions ?? {}) as { baseUrl?: string; paths?: Record<string, string[]> };
    if (file.endsWith('tsconfig.json') && options.paths) {
      const base = posix.join(dir, options.baseUrl ?? '.');
      for (const [pattern, targets] of Object.entries(options.paths)) {
        const [prefix, suffix = ''] = pattern.split('*');
        if (Array.isArray(targets)) aliases.push({ prefix: prefix!, suffix, targets: targets.map((t) => posix.normalize(posix.join(base, t))) });
      }
    }
  }
  return { packages, aliases };
}

/** JSON or JSONC (tsconfig allows comments and trailing commas); null when unreadable. */
function readJson(file: string): Record<string, unknown> | null {
  try {
    const text = readFileSync(file, 'utf8');
    try {
      return JSON.parse(text);
    } catch {
      const stripped = text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str: string | undefined) => str ?? '').replace(/,\s*([}\]])/g, '$1');
      return JSON.parse(stripped);
    }
  } catch {
    return null;
  }
}

/** True for an import of Node's own modules: never a file of the workspace. */
export const isNodeBuiltin = (spec: string): boolean => spec.startsWith('node:') || NODE_BUILTINS.has(spec.split('/')[0]!);

/**
 * Resolves import specifiers to indexed files. `has` tells whether a path is indexed;
 * `bySuffix` finds indexed files whose path without extension ends with the given segments.
 */
export class ModuleResolver {
  private readonly stems = new Map<string, string[]>();
  private readonly folderCache = new Map<string, string[]>();

  constructor(
    private readonly has: (path: string) => boolean,
    private readonly config: ModuleConfig,
  ) {}

  /** Tells the resolver a file was added or removed (for suffix look-ups). */
  track(path: string, present: boolean): void {
    const stem = stemOf(path);
    const key = stem.slice(stem.lastIndexOf('/') + 1);
    const list = this.stems.get(key);
    // Grown in place: a warm start tracks every file, hundreds of them named index.ts.
    if (present && !list) this.stems.set(key, [path]);
    else if (present && !list!.includes(path)) list!.push(path);
    else if (!present && list) {
      const kept = list.filter((p) => p !== path);
      if (kept.length) this.stems.set(key, kept);
      else this.stems.delete(key);
    }
    if (this.folderCache.size) this.folderCache.clear();
  }

  /** The indexed file `spec` names from `from`, in `lang`'s terms; null when it is outside the workspace. */
  resolve(from: string, spec: string, lang: string): string | null {
    switch (lang) {
      case 'typescript': case 'tsx': case 'javascript': return this.resolveEs(from, spec);
      case 'python': return this.resolvePython(from, spec);
      case 'rust': return this.unique(spec.split('::').filter((s) => !['crate', 'super', 'self'].includes(s)), from);
      case 'java': return this.unique(spec.split('.'), from);
      default: return null;
    }
  }

  /** Folders whose path ends with the import path's segments (Go packages). */
  folders(spec: string): string[] {
    let found = this.folderCache.get(spec);
    if (!found) this.folderCache.set(spec, (found = this.findFolders(spec)));
    return found;
  }

  private findFolders(spec: string): string[] {
    const segments = spec.split('/');
    const last = segments.at(-1)!;
    const dirs = new Set<string>();
    for (const [key, paths] of this.stems) {
      for (const p of paths) {
        const dir = posix.dirname(p);
        if (posix.basename(dir) === last || (dir === '.' && key && segments.length === 1)) dirs.add(dir);
      }
    }
    // Prefer the folders that match the most trailing segments.
    const score = (dir: string) => {
      const parts = dir.split('/');
      let n = 0;
      while (n < parts.length && n < segments.length && parts[parts.length - 1 - n] === segments[segments.length - 1 - n]) n++;
      return n;
    };
    const best = Math.max(0, ...[...dirs].map(score));
    return best ? [...dirs].filter((d) => score(d) === best) : [];
  }

  private resolveEs(from: string, spec: string): string | null {
    if (spec.startsWith('.')) return this.esFile(posix.normalize(posix.join(posix.dirname(from), spec)));
    if (spec.startsWith('/') || isNodeBuiltin(spec)) return null;
    for (const alias of this.config.aliases) {
      if (!spec.startsWith(alias.prefix) || !spec.endsWith(alias.suffix) || spec.length < alias.prefix.length + alias.suffix.length) continue;
      const star = spec.slice(alias.prefix.length, spec.length - alias.suffix.length);
      for (const target of alias.targets) {
        const found = this.esFile(target.replace('*', star));
        if (found) return found;
      }
    }
    const scoped = spec.startsWith('@');
    const parts = spec.split('/');
    const name = parts.slice(0, scoped ? 2 : 1).join('/');
    const dir = this.config.packages.get(name);
    if (dir === undefined) return null;
    const sub = parts.slice(scoped ? 2 : 1).join('/');
    const base = dir ? `${dir}/` : '';
    if (sub) return this.esFile(`${base}src/${sub}`) ?? this.esFile(`${base}${sub}`);
    return this.esFile(`${base}src/index`) ?? this.esFile(`${base}index`) ?? this.esFile(`${base}src/main`);
  }

  /** `base` as written in an import: with its extension, a .js standing for .ts, or a folder's index. */
  private esFile(base: string): string | null {
    const clean = base.replace(/^\.\//, '');
    if (this.has(clean)) return clean;
    const bare = clean.replace(/\.(?:js|jsx|mjs|cjs|ts|tsx)$/, '');
    for (const ext of TS_EXTENSIONS) if (this.has(bare + ext)) return bare + ext;
    for (const ext of TS_EXTENSIONS) if (this.has(`${clean}/index${ext}`)) return `${clean}/index${ext}`;
    return null;
  }

  private resolvePython(from: string, spec: string): string | null {
    const dots = /^\.*/.exec(spec)![0].length;
    const rest = spec.slice(dots).split('.').filter(Boolean);
    if (dots) {
      let dir = posix.dirname(from);
      for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
      const base = posix.join(dir, ...rest);
      for (const candidate of [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`]) if (this.has(candidate.replace(/^\.\//, ''))) return candidate.replace(/^\.\//, '');
      return null;
    }
    return this.unique(rest, from) ?? this.unique([...rest, '__init__'], from);
  }

  /** The one indexed file whose path without extension ends with `segments`; the nearest to `from` when several. */
  private unique(segments: string[], from: string): string | null {
    if (!segments.length) return null;
    const tail = segments.join('/');
    const matches = (this.stems.get(segments.at(-1)!) ?? []).filter((p) => {
      const stem = stemOf(p);
      return stem === tail || stem.endsWith(`/${tail}`);
    });
    if (matches.length <= 1) return matches[0] ?? null;
    const near = matches.filter((p) => dirname(p).split('/')[0] === from.split('/')[0]);
    return near.length === 1 ? near[0]! : null;
  }
}

const stemOf = (path: string): string => path.replace(/\.[^./]+$/, '').replace(/\.d$/, '');
