// Module resolution for the call graph: which indexed file an import names. Relative paths the
// way each language spells them, workspace packages (package.json names), tsconfig path aliases,
// and dotted or :: module paths by path suffix. Must not look at symbols.

import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix } from 'node:path';

const NODE_BUILTINS = new Set(builtinModules);
const TS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];

type Alias = { prefix: string; suffix: string; targets: string[] };

/** `crates`: each Rust crate's name as code writes it (`my_crate`) and its folder ('' at the root). */
export type ModuleConfig = { packages: Map<string, string>; aliases: Alias[]; crates: Map<string, string> };

/** Workspace packages, tsconfig aliases and Rust crates, from the package.json, tsconfig.json and Cargo.toml files listed. */
export function readModuleConfig(root: string, manifests: string[]): ModuleConfig {
  const packages = new Map<string, string>();
  const aliases: Alias[] = [];
  const crates = new Map<string, string>();
  for (const file of manifests) {
    const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file);
    if (file.endsWith('Cargo.toml')) {
      const name = crateName(join(root, file));
      if (name) crates.set(name, dir);
      continue;
    }
    const data = readJson(join(root, file));
    if (!data) continue;
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
  return { packages, aliases, crates };
}

/** The `[package]` name of a Cargo.toml, as Rust code writes it (dashes become underscores); null without one. */
function crateName(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8');
    const section = /^\s*\[package\]\s*$([\s\S]*?)(?=^\s*\[|(?![\s\S]))/m.exec(text)?.[1] ?? '';
    const name = /^\s*name\s*=\s*["']([^"']+)["']/m.exec(section)?.[1];
    return name ? name.replace(/-/g, '_') : null;
  } catch {
    return null;
  }
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
      case 'rust': return this.resolveRust(from, spec);
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

  /**
   * A Rust module path: from the crate's root (`crate::`, or a crate of the workspace by its
   * name), from this module (`self::`, `super::`), each module a `name.rs` or a `name/mod.rs`;
   * else, as before, the one file whose path ends with the path's segments.
   */
  private resolveRust(from: string, spec: string): string | null {
    const segments = spec.split('::').filter(Boolean);
    let dir: string | null = null;
    let rest = segments;
    if (segments[0] === 'crate') [dir, rest] = [crateSource(from), segments.slice(1)];
    else if (segments[0] === 'self' || segments[0] === 'super') {
      dir = moduleFolder(from);
      while (rest[0] === 'self' || rest[0] === 'super') {
        if (rest[0] === 'super') dir = posix.dirname(dir);
        rest = rest.slice(1);
      }
    } else if (this.config.crates.has(segments[0]!)) [dir, rest] = [posix.join(this.config.crates.get(segments[0]!)!, 'src'), segments.slice(1)];
    if (dir === null) return this.unique(segments, from) ?? this.unique([...segments, 'mod'], from);
    return this.rustModule(dir, rest);
  }

  /** The file of the module `path` below the module folder `dir` (its own file when `path` is empty). */
  private rustModule(dir: string, path: string[]): string | null {
    const clean = (p: string) => p.replace(/^\.\//, '');
    if (!path.length) {
      for (const own of ['mod.rs', 'lib.rs', 'main.rs']) if (this.has(clean(posix.join(dir, own)))) return clean(posix.join(dir, own));
      // `src/net.rs` is the module whose folder is `src/net`.
      return this.has(clean(`${dir}.rs`)) ? clean(`${dir}.rs`) : null;
    }
    const base = clean(posix.join(dir, ...path));
    return this.has(`${base}.rs`) ? `${base}.rs` : this.has(`${base}/mod.rs`) ? `${base}/mod.rs` : null;
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

/** The `src` folder of the crate a Rust file is in (the last `src` above it; the file's folder without one). */
function crateSource(file: string): string {
  const parts = posix.dirname(file).split('/');
  const at = parts.lastIndexOf('src');
  return at >= 0 ? parts.slice(0, at + 1).join('/') : posix.dirname(file);
}

/** The folder of a Rust file's own module: `a/mod.rs`, `lib.rs` and `main.rs` are their folder's; `a/b.rs` is `a/b`'s. */
function moduleFolder(file: string): string {
  return /(?:^|\/)(?:mod|lib|main)\.rs$/.test(file) ? posix.dirname(file) : file.replace(/\.rs$/, '');
}
