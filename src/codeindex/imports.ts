// Imports as each language writes them, parsed from the text of an @import capture (cheaper
// than a query per form). Pure string parsing; must not know about files or the index.

/** An import as written: `local` is the name in the importing file; `name` the imported one ('*' a namespace, 'default'). */
export type ImportRecord = { local: string; name: string; from: string; reexport?: boolean };

const specifierOf = (text: string): string | undefined => /['"]([^'"]+)['"]\s*\)?\s*;?\s*$/.exec(text)?.[1];

/** `a, b as c, type T` → [[a, a], [c, b], [T, T]] as [local, imported]. */
function namedList(list: string, separator: RegExp): [string, string][] {
  return list
    .split(',')
    .map((part) => part.replace(/^\s*type\s+/, '').trim())
    .filter(Boolean)
    .map((part): [string, string] => {
      const [imported, local] = part.split(separator).map((s) => s.trim());
      return [local || imported!, imported!];
    });
}

export function jsImports(written: string): ImportRecord[] {
  // Comments are no names (Effect documents each name it re-exports: `export { /** … */ decode } from`).
  const text = written.replace(/\/\*[\s\S]*?\*\/|(?<=^|\s)\/\/[^\n]*/g, '');
  const from = specifierOf(text);
  if (!from) return [];
  const out: ImportRecord[] = [];
  const add = (local: string, name: string, reexport?: boolean) => out.push(reexport ? { local, name, from, reexport } : { local, name, from });
  if (/^\s*export\b/.test(text)) {
    const star = /^\s*export\s+\*\s*(?:as\s+([\w$]+))?/.exec(text);
    if (star) add(star[1] ?? '*', '*', true);
    const named = /\{([^}]*)\}/.exec(text);
    if (named) for (const [local, imported] of namedList(named[1]!, /\s+as\s+/)) add(local, imported, true);
    return out;
  }
  if (/\brequire\s*\(/.test(text)) {
    const whole = /^\s*(?:const|let|var)\s+([\w$]+)\s*=/.exec(text);
    if (whole) add(whole[1]!, '*');
    const destructured = /^\s*(?:const|let|var)\s*\{([^}]*)\}/.exec(text);
    if (destructured) for (const [local, imported] of namedList(destructured[1]!, /\s*:\s*/)) add(local, imported);
    return out;
  }
  const clause = /^\s*import\s+(?:type\s+)?([\s\S]*?)\s+from\s/.exec(text)?.[1] ?? '';
  const namespace = /\*\s*as\s+([\w$]+)/.exec(clause);
  if (namespace) add(namespace[1]!, '*');
  const def = /^([\w$]+)/.exec(clause);
  if (def) add(def[1]!, 'default');
  const named = /\{([^}]*)\}/.exec(clause);
  if (named) for (const [local, imported] of namedList(named[1]!, /\s+as\s+/)) add(local, imported);
  return out;
}

export function pythonImports(text: string): ImportRecord[] {
  const flat = text.replace(/[()\\\n]/g, ' ');
  const from = /^\s*from\s+(\S+)\s+import\s+(.+)$/.exec(flat);
  if (from) {
    if (from[2]!.trim() === '*') return [{ local: '*', name: '*', from: from[1]! }];
    return namedList(from[2]!, /\s+as\s+/).map(([local, name]) => ({ local, name, from: from[1]! }));
  }
  const plain = /^\s*import\s+(.+)$/.exec(flat);
  if (!plain) return [];
  // `import a.b` binds `a`; `import a.b as c` binds c to a.b.
  return namedList(plain[1]!, /\s+as\s+/).map(([local, name]) => (local === name ? { local: name.split('.')[0]!, name: '*', from: name.split('.')[0]! } : { local, name: '*', from: name }));
}

export function goImports(text: string): ImportRecord[] {
  const m = /^\s*([\w.]+)?\s*"([^"]+)"/.exec(text);
  if (!m) return [];
  const local = m[1] ?? m[2]!.split('/').pop()!;
  return local === '_' || local === '.' ? [] : [{ local, name: '*', from: m[2]! }];
}

export function rustImports(text: string): ImportRecord[] {
  const body = text.replace(/^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+/, '').replace(/;\s*$/, '').replace(/\s+/g, ' ').trim();
  const out: ImportRecord[] = [];
  const walk = (prefix: string, raw: string) => {
    const item = raw.trim();
    const open = item.indexOf('{');
    if (open >= 0 && item.endsWith('}')) {
      const head = item.slice(0, open).replace(/\s*::\s*$/, '');
      const joined = prefix && head ? `${prefix}::${head}` : prefix || head;
      for (const part of splitTopLevel(item.slice(open + 1, -1))) walk(joined, part);
      return;
    }
    const [path, alias] = item.split(/\s+as\s+/);
    const segments = (prefix ? `${prefix}::${path}` : path!).split('::').map((s) => s.trim());
    const name = segments.pop();
    if (!name || name === '*') return;
    // `use a::b::{self}` binds the module b itself.
    if (name === 'self') {
      const module = segments.at(-1);
      if (module) out.push({ local: alias || module, name: '*', from: segments.join('::') });
      return;
    }
    out.push({ local: alias || name, name, from: segments.join('::') });
  };
  walk('', body);
  return out;
}

function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '{') depth++;
    else if (list[i] === '}') depth--;
    else if (list[i] === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts.filter(Boolean);
}

export function javaImports(text: string): ImportRecord[] {
  const m = /^\s*import\s+(?:static\s+)?([\w.]+)(\.\*)?\s*;/.exec(text);
  if (!m || m[2]) return [];
  const parts = m[1]!.split('.');
  const name = parts.pop()!;
  return [{ local: name, name, from: parts.join('.') }];
}
