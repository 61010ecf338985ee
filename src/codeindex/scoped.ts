// Calls through a path for the call graph: a static call on a type (`Regex::new(re)`, `Util.go()`,
// C++ `QString::number(n)`, PHP `Cache::get($k)`) goes to that type's member; a Rust call through
// a module path (`crate::util::trace()`) goes to the function that module defines. Must not parse
// or read files: it works from the records, through the graph's look-ups.

import { CALLABLE_KINDS, SCOPE_KINDS, TYPE_KINDS } from './languages.js';
import type { CallRecord, FileRecord, Resolution, SymbolRecord, SymRef } from './model.js';
import type { ModuleResolver } from './modules.js';

/** The call graph's look-ups this module uses (the graph passes itself; a type here keeps the two modules apart). */
export type Lookups = {
  readonly modules: ModuleResolver;
  definitions(name: string): SymRef[];
  exported(path: string, name: string, depth: number): SymRef[];
  members(container: string, name: string, path?: string): SymRef[];
  byName(name: string): Resolution | null;
  overloads(refs: SymRef[]): boolean;
  symbol(ref: SymRef): SymbolRecord | undefined;
  get(path: string): FileRecord | undefined;
};

/** Crates that are never the workspace's: a path through them leaves it. */
const EXTERNAL_ROOTS = new Set(['std', 'core', 'alloc']);
/** Languages whose `A::b()` names a type or a module, never a value. */
const PATH_LANGS = new Set(['rust', 'cpp', 'php']);
/** Rust's primitive types: their associated functions are std's. */
const PRIMITIVES = new Set(['u8', 'u16', 'u32', 'u64', 'u128', 'usize', 'i8', 'i16', 'i32', 'i64', 'i128', 'isize', 'f32', 'f64', 'bool', 'char', 'str']);
/** Rust's words for modules relative to this one. */
const MODULE_WORDS = new Set(['crate', 'super']);

const isUpper = (s: string) => /^\p{Lu}/u.test(s);

/**
 * A call whose receiver is a type or module path; undefined when the receiver is (or may be) a
 * value, for the caller to resolve as a method call.
 */
export function pathCall(g: Lookups, record: FileRecord, call: CallRecord, viaAlias = false): Resolution | null | undefined {
  const recv = call.recv!;
  if (!PATH_LANGS.has(record.lang)) return undefined;
  let segments: string[];
  if (record.lang === 'php') {
    // $x->m() is a method call; Foo::m() and \App\Util::m() are static.
    if (recv.startsWith('$') || /->|\./.test(recv)) return undefined;
    segments = [recv.replace(/^.*\\/, '')];
  } else {
    if (/\.|->/.test(recv)) return undefined;
    // `::regex::bytes::Regex`: the leading `::` says nothing here (the parser dropped a turbofish's `::<T>` already).
    segments = recv.split('::').filter(Boolean);
    if (!segments.length || segments.some((s) => !/^[\w$]+$/u.test(s))) return undefined;
  }
  if (record.lang === 'rust') {
    // A path that starts at an imported name starts where the import points (`use std::mem;` … `mem::swap`).
    const imp = record.imports.find((i) => i.local === segments[0] && !i.reexport);
    if (imp) segments = [...imp.from.split('::').filter(Boolean), ...(imp.name === '*' ? [] : [imp.name]), ...segments.slice(1)];
    // One word is a value (`input.parse()`) unless written as a path (extract.ts keeps its `::`): then a primitive type
    // (u32::from_str_radix, std's) or a crate or module (autocfg::new(), tokio::spawn(), self::helper()).
    else if (segments.length === 1 && !isUpper(segments[0]!) && !MODULE_WORDS.has(segments[0]!) && !recv.endsWith('::')) return undefined;
    if (EXTERNAL_ROOTS.has(segments[0]!) || (segments.length === 1 && PRIMITIVES.has(segments[0]!))) return null;
  } else if (segments.length === 1 && !isUpper(segments[0]!)) return undefined;
  const last = segments.at(-1)!;
  const prefix = segments.slice(0, -1);
  // Rust names types in capitals; a C++ type or namespace may be lower-case (detail::helper()).
  const typeNamed = hasType(g, last, record.lang !== 'rust');
  if (isUpper(last) || (record.lang !== 'rust' && typeNamed)) {
    let found = g.members(last, call.name);
    // Rust takes a type's own method (its inherent impl) over a trait's of the same name.
    if (record.lang === 'rust' && found.length > 1) {
      const own = found.filter((t) => !inTraitImpl(g, t));
      if (own.length) found = own;
    }
    if (!found.length) {
      // A type of the workspace without the member of its own: a trait's default method, one inherited or embedded.
      // A type parameter's (`T::default()`) is any implementation's: the same, uncertain.
      // Rust: a type's method comes from its impls or a trait's default; another type's method of the name it is not.
      if (typeNamed && record.lang === 'rust') return traitMethods(g, call.name);
      if (typeNamed || typeParameter(record, call, last)) return g.byName(call.name);
      // A type alias (`type DiGraph<N> = Graph<N, Directed>`): DiGraph::new() is Graph's.
      const alias = record.lang === 'rust' && !viaAlias ? aliased(g, last) : undefined;
      if (alias) return pathCall(g, record, { ...call, recv: alias }, true);
      // An uppercase name that is a constant or static of the workspace (`REGISTRY.with()`) is a value.
      if (g.definitions(last).some((r) => !TYPE_KINDS.has(g.symbol(r)!.kind))) return undefined;
      return null;
    }
    const r = narrowed(g, record, prefix, last, found);
    // Only impls of traits for a library's type (impl Vector for Vec): the call may be the type's own method.
    const foreign = !typeNamed && r.targets.every((t) => inTraitImpl(g, t));
    return !foreign || r.how === 'name' || r.how === 'ambiguous' ? r : { targets: r.targets, how: g.overloads(r.targets) ? 'name' : 'ambiguous' };
  }
  if (record.lang !== 'rust') return undefined;
  // A module path: the function that module defines, else any free function of the name (uncertain).
  const target = g.modules.resolve(record.path, segments.join('::'), record.lang);
  const defined = target ? g.exported(target, call.name, 0).filter((r) => CALLABLE_KINDS.has(g.symbol(r)!.kind)) : [];
  if (defined.length) return { targets: defined, how: target === record.path ? 'file' : 'import' };
  const free = g.definitions(call.name).filter((r) => {
    const s = g.symbol(r)!;
    return (!s.container || hasScope(g, s.container)) && CALLABLE_KINDS.has(s.kind) && s.kind !== 'struct' && s.kind !== 'method';
  });
  const bodies = free.filter((r) => !g.symbol(r)!.decl);
  return inFolders(g, segments, bodies.length ? bodies : free, false);
}

/**
 * Of `refs`, those under the module the path names, when the resolver cannot follow it (a crate
 * named by its name, a folder's mod.rs, an inline mod): a folder or file whose name holds the
 * path's last module as a word (tokio::time → tokio-1.24.2/src/time/, regex::bytes → re_bytes.rs) or an
 * inline mod of that name. Certain when that leaves one definition; all of them, uncertain, when
 * the path names no folder the definitions are in; a path of crate:: or super:: alone narrows nothing.
 */
function inFolders(g: Lookups, modulePath: string[], refs: SymRef[], type: boolean): Resolution | null {
  if (!refs.length) return null;
  const module = modulePath.filter((s) => !MODULE_WORDS.has(s) && s !== 'self').at(-1);
  if (!module) return { targets: refs, how: g.overloads(refs) ? 'global' : 'ambiguous' };
  const under = refs.filter((r) => g.symbol(r)!.container === module || r.path.split('/').some((part) => names(part, module)));
  if (under.length && g.overloads(under)) return { targets: under, how: 'global' };
  if (under.length) return { targets: under, how: 'ambiguous' };
  // A module the index does not know: a type's member is as sure as without the path, a free function (close, sleep) is not.
  return { targets: refs, how: !g.overloads(refs) ? 'ambiguous' : type ? 'global' : 'name' };
}

/** `found`, the members of `type`, narrowed to those of the type the module path or the file means. */
function narrowed(g: Lookups, record: FileRecord, prefix: string[], type: string, found: SymRef[]): Resolution {
  if (prefix.length) {
    const target = g.modules.resolve(record.path, prefix.join('::'), record.lang);
    const files = new Set(target ? g.exported(target, type, 0).map((r) => r.path) : []);
    const inModule = found.filter((r) => files.has(r.path));
    if (inModule.length) return { targets: inModule, how: 'import' };
  }
  const own = found.filter((r) => r.path === record.path);
  if (own.length) return { targets: own, how: 'file' };
  if (prefix.length) return inFolders(g, prefix, found, true)!;
  return { targets: found, how: g.overloads(found) ? 'global' : 'ambiguous' };
}

/** True when a folder or file name (regex-syntax-0.6.27, re_bytes.rs) names `module` (regex_syntax, bytes). */
function names(part: string, module: string): boolean {
  const name = part.replace(/-\d[\w.]*$|\.rs$/, '');
  return name.replace(/-/g, '_') === module || name.split(/[-_]/).includes(module);
}

/** The type the workspace's Rust type aliases named `name` stand for (`type DiGraph<N, Ix = u32> = Graph<N, Ix>` → Graph), when they agree on one. */
function aliased(g: Lookups, name: string): string | undefined {
  const targets = new Set(
    g.definitions(name).flatMap((r) => {
      const s = g.symbol(r)!;
      const target = s.kind === 'type' ? /^\s*=\s*((?:::)?\w+(?:::\w+)*)/.exec(s.sig.replace(/^<(?:[^<>]|<[^<>]*>)*>/, ''))?.[1] : undefined;
      return target && isUpper(target.replace(/^.*::/, '')) ? [target] : [];
    }),
  );
  return targets.size === 1 ? [...targets][0] : undefined;
}

/**
 * What Rust's `Type::name()` may be when the type's own impls in view have no `name` (they may be
 * inside a macro, or it is a trait's default): the traits' methods of that name, uncertain.
 */
function traitMethods(g: Lookups, name: string): Resolution | null {
  const found = g.definitions(name).filter((r) => {
    const s = g.symbol(r)!;
    return s.kind === 'method' && !!g.get(r.path)?.symbols.some((t) => t.kind === 'trait' && t.name === s.container && t.line <= s.line && s.line <= t.endLine);
  });
  const bodies = found.filter((r) => !g.symbol(r)!.decl);
  const targets = bodies.length ? bodies : found;
  return targets.length ? { targets, how: g.overloads(targets) ? 'name' : 'ambiguous' } : null;
}

/** True when `ref` is a method of an `impl Trait for Type` (whose signature names the trait: `: Vector<T>`). */
function inTraitImpl(g: Lookups, ref: SymRef): boolean {
  const s = g.symbol(ref)!;
  const file = g.get(ref.path);
  return !!file?.symbols.some((i) => i.kind === 'impl' && i.name === s.container && i.line <= s.line && s.line <= i.endLine && i.sig.startsWith(':'));
}

/** True when the workspace defines a module (or C++ namespace) named `name`. */
function hasScope(g: Lookups, name: string): boolean {
  return g.definitions(name).some((r) => SCOPE_KINDS.has(g.symbol(r)!.kind));
}

/** True when `name` is a type parameter where `call` is: one capital (T, K2), or one a definition around it declares (`fn f<Item: Ord>`). */
function typeParameter(record: FileRecord, call: CallRecord, name: string): boolean {
  if (/^\p{Lu}\d?$/u.test(name)) return true;
  const declares = new RegExp(`^<[^(]*\\b${name}\\b`);
  return record.symbols.some((s) => s.line <= call.line && call.line <= s.endLine && declares.test(s.sig));
}

/** True when the workspace defines a type (or, with `scopes`, a C++ namespace) named `name`; an impl for a library's type (`impl Replacer for String`) is not one. */
function hasType(g: Lookups, name: string, scopes: boolean): boolean {
  return g.definitions(name).some((r) => {
    const s = g.symbol(r);
    return !!s && ((TYPE_KINDS.has(s.kind) && s.kind !== 'impl') || (scopes && SCOPE_KINDS.has(s.kind)));
  });
}

/**
 * The other languages' `Util.go()`: a member of a type or scope defined in the file, else, for
 * an uppercase name, of a type defined elsewhere; undefined when neither.
 */
export function staticCall(g: Lookups, record: FileRecord, recv: string, member: string): Resolution | undefined {
  if (/\.|::|->/.test(recv)) return undefined;
  const local = g.definitions(recv).some((r) => {
    const s = r.path === record.path ? g.symbol(r) : undefined;
    return s && !s.container && (TYPE_KINDS.has(s.kind) || SCOPE_KINDS.has(s.kind));
  });
  const own = local ? g.members(recv, member, record.path) : [];
  if (own.length) return { targets: own, how: 'file' };
  // Type::new(), Util.go(): a static call on a type defined elsewhere.
  if (isUpper(recv)) {
    const anywhere = g.members(recv, member);
    if (anywhere.length) return { targets: anywhere, how: g.overloads(anywhere) ? 'global' : 'ambiguous' };
  }
  return undefined;
}
