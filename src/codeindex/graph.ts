// The call graph: which definition a call site reaches. Resolution prefers the same file (and
// the same class for this/self), then the file's imports (through re-exports), then a name that is
// unique in the workspace; a call that several definitions could answer is marked ambiguous, and
// a method call on a receiver of unknown type is marked as matched by name only.
// Must not parse or read files: it works from the records.

import { CALLABLE_KINDS, LANGUAGES, TYPE_KINDS, type ImportRecord, type LanguageSpec } from './languages.js';
import { LITERAL, typeName, type CallRecord, type Edge, type FileRecord, type Resolution, type SymbolRecord, type SymRef } from './model.js';
import { isNodeBuiltin, ModuleResolver, type ModuleConfig } from './modules.js';
import { pathCall, staticCall } from './scoped.js';

export { CERTAIN, type Confidence, type Edge, type Resolution, type SymRef } from './model.js';

/** Receivers that are the language's own objects, never the workspace's. */
const BUILTIN_RECEIVERS: Record<string, Set<string>> = {
  es: new Set(['Math', 'JSON', 'Object', 'Array', 'Promise', 'console', 'process', 'Buffer', 'Date', 'Number', 'String', 'Symbol', 'Reflect', 'Intl', 'Error', 'RegExp', 'Map', 'Set', 'WeakMap', 'WeakSet', 'URL', 'globalThis', 'window', 'document', 'performance', 'crypto', 'Atomics', 'BigInt', 'Proxy', 'navigator', 'location', 'localStorage', 'sessionStorage']),
  python: new Set(['str', 'dict', 'list', 'set', 'tuple', 'int', 'float', 'bytes', 'object', 'super']),
};

const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

export class CallGraph {
  private readonly defs = new Map<string, SymRef[]>();
  /** Methods by name, for calls on receivers of unknown type (the commonest look-up). */
  private readonly methods = new Map<string, SymRef[]>();
  /** Call sites by name: made on first use (a warm start from the cache needs none), kept up to date after. */
  private sitesByName?: Map<string, SymRef[]>;
  readonly modules: ModuleResolver;
  /** Resolutions per record and call, valid until the next change to any record (then `stale` until the next look-up). */
  private resolved = new WeakMap<FileRecord, (Resolution | null | undefined)[]>();
  private stale = false;

  /** `get` finds a record of the store, `all` lists them in the order they were added. */
  constructor(
    readonly get: (path: string) => FileRecord | undefined,
    config: ModuleConfig,
    private readonly all: () => Iterable<FileRecord>,
  ) {
    this.modules = new ModuleResolver((p) => this.get(p) !== undefined, config);
  }

  /** Call after the record is in the store. */
  add(record: FileRecord): void {
    record.symbols.forEach((s, index) => {
      push(this.defs, s.name, { path: record.path, index });
      // A getter or setter is read or assigned, never called: no call reaches it by name.
      if (s.kind === 'method' && !s.accessor) push(this.methods, s.name, { path: record.path, index });
    });
    if (this.sitesByName) addSites(this.sitesByName, record);
    this.modules.track(record.path, true);
    this.stale = true;
  }

  /** Call with the old record, before it leaves the store. */
  remove(record: FileRecord): void {
    const drop = (map: Map<string, SymRef[]>, names: Iterable<string>) => {
      for (const name of new Set(names)) {
        const kept = (map.get(name) ?? []).filter((r) => r.path !== record.path);
        if (kept.length) map.set(name, kept);
        else map.delete(name);
      }
    };
    drop(this.defs, record.symbols.map((s) => s.name));
    drop(this.methods, record.symbols.filter((s) => s.kind === 'method' && !s.accessor).map((s) => s.name));
    if (this.sitesByName) drop(this.sitesByName, record.calls.map((c) => c.name));
    this.modules.track(record.path, false);
    this.stale = true;
  }

  private sites(): Map<string, SymRef[]> {
    if (!this.sitesByName) {
      this.sitesByName = new Map();
      for (const record of this.all()) addSites(this.sitesByName, record);
    }
    return this.sitesByName;
  }

  /** How many call sites call something named `name`. */
  siteCount(name: string): number {
    return this.sites().get(name)?.length ?? 0;
  }

  /** Definitions named `name` anywhere. */
  definitions(name: string): SymRef[] {
    return this.defs.get(name) ?? [];
  }

  /** What the `index`th call of `record` reaches; null when it leaves the workspace (a library, a builtin, a local). */
  resolveAt(record: FileRecord, index: number): Resolution | null {
    if (this.stale) {
      this.resolved = new WeakMap();
      this.stale = false;
    }
    let memo = this.resolved.get(record);
    if (!memo) this.resolved.set(record, (memo = []));
    let r = memo[index];
    if (r === undefined) memo[index] = r = this.resolve(record, record.calls[index]!);
    return r;
  }

  /** What a call site reaches; null when it leaves the workspace (a library, a builtin, a local). */
  resolve(record: FileRecord, call: CallRecord): Resolution | null {
    const spec = LANGUAGES[record.lang];
    if (!spec) return null;
    const caller = call.from >= 0 ? record.symbols[call.from] : undefined;
    if (call.recv === undefined) return this.bare(record, call.name, caller, spec);
    if (call.recv === '…') return this.byName(call.name);
    if (call.recv === LITERAL) return null;
    const path = call.recv.split(/\.|::|->/);
    const head = path[0]!;
    if (spec.selfNames.includes(call.recv)) {
      const cls = caller && (caller.container ?? (TYPE_KINDS.has(caller.kind) ? caller.name : undefined));
      // this.m(): the class's own method or an inherited one; super.m(): the base class's.
      const own = cls && this.typeDefs(record, cls)[0];
      const start = own && SUPER.has(call.recv) ? baseOf(this.symbol(own)!.sig) : cls;
      if (start) return this.typed(record, start, call.name, 0);
      return this.byName(call.name);
    }
    // A receiver whose type is declared or constructed in view: a field, a parameter, a variable.
    const bound = this.receiverType(record, call, caller, spec, path);
    if (bound !== undefined) return bound ? this.typed(record, bound, call.name, 0) : null;
    const scoped = pathCall(this, record, call);
    if (scoped !== undefined) return scoped;
    if (spec.selfNames.includes(head)) return this.byName(call.name);
    const imported = record.imports.find((i) => i.local === head && !i.reexport);
    if (imported) return this.viaImport(record, imported, path.slice(1), call.name);
    const type = path.length === 1 ? staticCall(this, record, head, call.name) : undefined;
    if (type) return type;
    const family = spec.imports === LANGUAGES.typescript!.imports ? 'es' : record.lang;
    if (BUILTIN_RECEIVERS[family]?.has(head)) return null;
    return this.byName(call.name);
  }

  /**
   * The type of `this.f`, or of a parameter or variable `x` of the calling symbol (or of the file):
   * a class name, '' for a type that is no class (a string, an array, a union), undefined when unknown.
   */
  private receiverType(record: FileRecord, call: CallRecord, caller: SymbolRecord | undefined, spec: LanguageSpec, path: string[]): string | undefined {
    const cls = caller && (caller.container ?? (TYPE_KINDS.has(caller.kind) ? caller.name : undefined));
    const field = (name: string) => (cls ? record.bindings.find((b) => b.field && b.name === name && record.symbols[b.scope]?.name === cls) : undefined);
    if (path.length === 2 && spec.selfNames.includes(path[0]!)) return field(path[1]!)?.type;
    if (path.length !== 1) return undefined;
    const own = record.bindings.find((b) => !b.field && b.name === path[0] && b.scope === call.from);
    // Java, C# and C++ name their own fields without `this.`.
    return (own ?? (spec.scope === 'global' ? field(path[0]!) : undefined) ?? record.bindings.find((b) => !b.field && b.name === path[0] && b.scope === -1))?.type;
  }

  /**
   * `member` of the workspace type `type` as seen from `record`, through its base classes. Null
   * when the type is not the workspace's (a library's) or has no such member of its own; an
   * interface's member may be any implementation, so that is matched by name (ambiguous).
   */
  private typed(record: FileRecord, type: string, member: string, depth: number): Resolution | null {
    const classes = this.typeDefs(record, type);
    // A type several packages define, none in view: any of their members, as a receiver of unknown type.
    if (!classes.length && LANGUAGES[record.lang]?.scope === 'global' && this.definitions(type).length > 1) return this.byName(member);
    // One type defined in several files of a package (Go's per-platform sigctxt) has each file's member: any of them.
    const sets = new Map(classes.map((c) => this.members(this.symbol(c)!.name, member, c.path)).filter((f) => f.length).map((f) => [f.map((r) => `${r.path}#${r.index}`).join(), f]));
    const having = [...sets.values()];
    if (having.length > 1) return { targets: having.flat(), how: 'ambiguous' };
    if (having.length) return { targets: having[0]!, how: having[0]![0]!.path === record.path ? 'file' : 'import' };
    if (depth < 3) {
      for (const c of classes) {
        const base = baseOf(this.symbol(c)!.sig);
        const from = this.get(c.path);
        const r = base && from ? this.typed(from, base, member, depth + 1) : null;
        if (r) return r;
      }
    }
    // An interface's method is any implementation's; a struct's may be one it embeds (Go): uncertain.
    if (classes.some((c) => ['interface', 'trait', 'struct'].includes(this.symbol(c)!.kind))) {
      const any = this.byName(member);
      return any && { targets: any.targets, how: 'ambiguous' };
    }
    return null;
  }

  /** The classes, interfaces and structs `name` means in `record`: its own, an import's, or a unique one elsewhere. */
  private typeDefs(record: FileRecord, name: string): SymRef[] {
    // Go gives methods to any named type (`type atomicBool int32`), not only to structs.
    const isType = (r: SymRef) => {
      const s = this.symbol(r);
      return !!s && ((TYPE_KINDS.has(s.kind) && s.kind !== 'impl') || (s.kind === 'type' && record.lang === 'go'));
    };
    const own = this.definitions(name).filter((r) => r.path === record.path && isType(r));
    if (own.length) return own;
    // Go's bound types are unqualified: the package's own, in the file's folder.
    const folder = (p: string) => p.slice(0, p.lastIndexOf('/') + 1);
    const beside = this.definitions(name).filter((r) => isType(r) && folder(r.path) === folder(record.path));
    if (LANGUAGES[record.lang]?.scope === 'package') return beside;
    // Java's own package needs no import.
    if (record.lang === 'java' && beside.length) return beside;
    const imp = record.imports.find((i) => i.local === name && !i.reexport && i.name !== '*');
    if (imp) {
      const target = this.modules.resolve(record.path, imp.from, record.lang);
      if (target) return this.exported(target, imp.name === 'default' ? name : imp.name, 0).filter(isType);
      if (isNodeBuiltin(imp.from) || imp.from.startsWith('.')) return [];
    } else if (LANGUAGES[record.lang]?.scope === 'module') return [];
    const all = this.definitions(name).filter((r) => isType(r) && !this.symbol(r)!.container);
    return all.length === 1 ? all : [];
  }

  /** A call with no receiver: the file, its imports, then the language's wider scope. */
  private bare(record: FileRecord, name: string, caller: SymbolRecord | undefined, spec: LanguageSpec): Resolution | null {
    // Inside a class, Java, C#, C++ and Ruby call their own methods without `this`.
    const container = caller?.container ?? (caller && TYPE_KINDS.has(caller.kind) ? caller.name : undefined);
    if (container && spec.scope === 'global') {
      const own = this.members(container, name, record.path);
      if (own.length) return { targets: own, how: 'file' };
    }
    const local = prefer(this.definitions(name).flatMap((ref) => {
      const s = ref.path === record.path ? this.symbol(ref) : undefined;
      return s && !s.container && CALLABLE_KINDS.has(s.kind) ? [{ s, ref }] : [];
    }));
    if (local.length) return { targets: local, how: 'file' };
    const imported = record.imports.find((i) => i.local === name && i.name !== '*' && !i.reexport);
    if (imported) return this.viaImport(record, imported, [], null);
    if (spec.scope === 'module') return null;
    const all = prefer(this.definitions(name).flatMap((ref) => {
      const s = this.symbol(ref);
      return s && CALLABLE_KINDS.has(s.kind) && (!s.container || s.kind !== 'method') ? [{ s, ref }] : [];
    }));
    if (spec.scope === 'package') {
      const dir = record.path.slice(0, record.path.lastIndexOf('/') + 1);
      const same = all.filter((r) => r.path.startsWith(dir) && !r.path.slice(dir.length).includes('/'));
      return same.length ? { targets: same, how: 'file' } : null;
    }
    if (!all.length) return null;
    return { targets: all, how: this.overloads(all) ? 'global' : 'ambiguous' };
  }

  /**
   * A call through an imported name: `member` null for the imported function itself, else a
   * member of the imported module or class (`ns.f()`, `Util.go()`, `pkg.Func()`).
   */
  private viaImport(record: FileRecord, imp: ImportRecord, rest: string[], member: string | null): Resolution | null {
    const wanted = member ?? imp.name;
    if (record.lang === 'go') {
      if (member === null) return null;
      const dirs = new Set(this.modules.folders(imp.from));
      const found = this.definitions(member).filter((r) => dirs.has(r.path.slice(0, r.path.lastIndexOf('/')) || '.') && !this.symbol(r)?.container);
      return found.length ? { targets: found, how: 'import' } : null;
    }
    const isModule = imp.name === '*';
    const spec = isModule && rest.length ? `${imp.from}.${rest.join('.')}` : imp.from;
    const target = this.modules.resolve(record.path, spec, record.lang);
    if (!target) {
      // A package that is not resolvable here may still be this workspace's own (a monorepo
      // without manifests); a name defined once and exported is taken, marked as such.
      if (isNodeBuiltin(imp.from) || imp.from.startsWith('.') || member !== null || imp.name === 'default') return null;
      const exported = this.definitions(wanted).filter((r) => {
        const s = this.symbol(r);
        return s && s.exported && !s.container && CALLABLE_KINDS.has(s.kind) && !s.decl;
      });
      const unique = exported.length > 1 ? inPackageNamed(exported, imp.from) : exported;
      return unique.length === 1 ? { targets: unique, how: 'global' } : null;
    }
    if (isModule || member === null) {
      // A default import is the module's anonymous default export (named default), else most likely the definition named as imported.
      const names = member === null && imp.name === 'default' ? ['default', imp.local] : [wanted];
      const found = names.map((n) => this.exported(target, n, 0)).find((f) => f.length) ?? [];
      return found.length ? { targets: found, how: 'import' } : null;
    }
    const classes = this.exported(target, imp.name, 0);
    const members = classes.flatMap((c) => this.members(this.symbol(c)!.name, member, c.path));
    return members.length ? { targets: members, how: 'import' } : this.byName(member);
  }

  /** Top-level definitions named `name` that `path` offers, following re-exports and imports. */
  exported(path: string, name: string, depth: number): SymRef[] {
    const record = this.get(path);
    if (!record) return [];
    const own = prefer(this.definitions(name).flatMap((ref) => {
      const s = ref.path === path ? this.symbol(ref) : undefined;
      return s && !s.container ? [{ s, ref }] : [];
    }));
    if (own.length || depth >= 4) return own;
    for (const imp of record.imports) {
      const named = imp.local === name && imp.name !== '*';
      if (!named && !(imp.reexport && imp.local === '*')) continue;
      const next = this.modules.resolve(path, imp.from, record.lang);
      const found = next ? this.exported(next, named ? imp.name : name, depth + 1) : [];
      if (found.length) return found;
    }
    return [];
  }

  /** Methods and members named `name` of the type `container`, in `path` or anywhere. */
  members(container: string, name: string, path?: string): SymRef[] {
    return prefer(this.definitions(name).flatMap((ref) => {
      const s = this.symbol(ref);
      return s && s.container === container && !s.accessor && (!path || ref.path === path) ? [{ s, ref }] : [];
    }));
  }

  /** A method call on a receiver of unknown type: every method of that name. */
  byName(name: string): Resolution | null {
    const methods = this.methods.get(name);
    if (!methods) return null;
    const found = methods.length === 1 ? methods : prefer(methods.map((ref) => ({ s: this.symbol(ref)!, ref })));
    return { targets: found, how: this.overloads(found) ? 'name' : 'ambiguous' };
  }

  /**
   * True when `refs` are one definition or overloads of one (Java, C#, C++: the same name in the
   * same class of the same file): a call reaching them is no less certain for there being several.
   */
  overloads(refs: SymRef[]): boolean {
    const first = this.symbol(refs[0]!);
    return refs.every((r) => r.path === refs[0]!.path && this.symbol(r)?.container === first?.container);
  }

  symbol(ref: SymRef): SymbolRecord | undefined {
    return this.get(ref.path)?.symbols[ref.index];
  }

  /** The call sites that reach `target`, with their callers. */
  callersOf(target: SymRef): Edge[] {
    const s = this.symbol(target);
    if (!s) return [];
    const names = new Set([s.name]);
    if ((s.name === 'constructor' || s.name === '__init__') && s.container) names.add(s.container);
    // An anonymous default export is called by whatever name a file imports it as.
    if (s.name === 'default' && !s.container) for (const r of this.all()) for (const i of r.imports) if (i.name === 'default' && !i.reexport) names.add(i.local);
    const edges: Edge[] = [];
    for (const name of names) {
      for (const site of this.sites().get(name) ?? []) {
        const record = this.get(site.path)!;
        const call = record.calls[site.index]!;
        const r = this.resolveAt(record, site.index);
        const hits = r?.targets.some((t) => t.path === target.path && t.index === target.index) || (name !== s.name && r?.targets.some((t) => this.symbol(t)?.name === s.container));
        if (r && hits) edges.push({ path: site.path, line: call.line, caller: call.from, targets: r.targets, how: r.how });
      }
    }
    return dedupe(edges);
  }

  /** The calls made inside `source`, resolved; calls that leave the workspace are left out. */
  calleesOf(source: SymRef): Edge[] {
    const record = this.get(source.path);
    if (!record) return [];
    const edges: Edge[] = [];
    record.calls.forEach((call, i) => {
      if (call.from !== source.index) return;
      const r = this.resolveAt(record, i);
      if (r) edges.push({ path: source.path, line: call.line, caller: source.index, targets: r.targets, how: r.how });
    });
    return dedupe(edges);
  }
}

const addSites = (sites: Map<string, SymRef[]>, record: FileRecord) => record.calls.forEach((c, index) => push(sites, c.name, { path: record.path, index }));

/**
 * Of several definitions, those under a folder the package name spells out: `@scope/pi-coding-agent`
 * → packages/coding-agent/… (a monorepo's package folders are named after its packages).
 */
function inPackageNamed(refs: SymRef[], spec: string): SymRef[] {
  const name = spec.split('/').filter((s) => !s.startsWith('@'))[0] ?? spec;
  const matching = refs.filter((r) => r.path.split('/').slice(0, -1).some((dir) => dir.length > 2 && name.includes(dir)));
  // The longest folder name that fits wins (coding-agent over agent).
  const best = Math.max(0, ...matching.map((r) => Math.max(...r.path.split('/').slice(0, -1).filter((d) => name.includes(d)).map((d) => d.length))));
  return matching.filter((r) => r.path.split('/').slice(0, -1).some((d) => d.length === best && name.includes(d)));
}

/** Receivers that mean the base class. */
const SUPER = new Set(['super', 'base', 'parent', 'super()']);

/**
 * The base class a class signature names: `extends Base` (TS, Java, PHP), `(Base)` (Python), `: Base` (C#, C++), `< Base` (Ruby).
 * Ruby's is the whole signature: a generic class's `<T> extends Base` is no base T.
 */
function baseOf(sig: string): string | undefined {
  const m = /\bextends\s+([\w$.]+)|^\(\s*([\w.]+)|^:\s*(?:public\s+|protected\s+|private\s+)?([\w.]+)|^<\s*([\w:]+)\s*$/.exec(sig);
  const written = m && (m[1] ?? m[2] ?? m[3] ?? m[4]);
  return written ? typeName(written.replace(/::/g, '.')) || undefined : undefined;
}

/** Definitions with bodies over mere declarations of the same thing (prototypes, overloads). */
function prefer(found: { s: SymbolRecord; ref: SymRef }[]): SymRef[] {
  const bodies = found.filter((f) => !f.s.decl);
  return (bodies.length ? bodies : found).map((f) => f.ref);
}

/** One edge per call site line and target set (a line may call the same thing twice). */
function dedupe(edges: Edge[]): Edge[] {
  const seen = new Set<string>();
  return edges.filter((e) => {
    const key = `${e.path}:${e.line}:${e.targets[0]!.path}#${e.targets[0]!.index}:${e.targets.length}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
