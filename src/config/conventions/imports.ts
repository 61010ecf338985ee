// `@path` imports inside instruction files (Claude's syntax): relative to the importing file, `~/`
// for the home folder; confined to the project and the home folder, never a secret (keys,
// credentials, feiyu's own settings), regular text files only, at most five imports deep, each file
// once (a cycle ends, and is said). The imported text follows the file that imports it; the
// reference stays.

import { lstatSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { atReferences, pathCandidates } from '../mdrefs.js';
import { secretFileKind } from '../../safety/secrets.js';
import { inside } from '../../util/paths.js';
import { readInstructionFile, realOf, type FoundFile, type Unreadable } from './walk.js';

/** Imports reach this many files deep from the file that was found. */
export const MAX_IMPORT_DEPTH = 5;

export type ImportPlace = {
  /** Realpaths imports must stay inside: the project root and the home folder. */
  roots: string[];
  home: string;
  configDir: string;
};

/**
 * A reference that was not imported, and why: `cycle` when it leads back to a file that (through
 * others) imports the one naming it; `missing` ones are shown by /context only.
 */
export type ImportProblem = { ref: string; from: string; code: 'outside' | 'secret' | 'depth' | 'cycle' | 'binary' | 'missing' };

/** A file found by the walk or imported: `importedBy` is the importing file's path. */
export type Part = FoundFile & { importedBy?: string };

export type ImportResult = { parts: Part[]; problems: ImportProblem[] };

/**
 * `file` followed by what it imports, depth first. `seen` holds the realpaths already taken (by
 * this load or an earlier one) and is added to.
 */
export function withImports(file: FoundFile, place: ImportPlace, seen: Set<string>, unreadable: Unreadable[]): ImportResult {
  const out: ImportResult = { parts: [], problems: [] };
  const top = realOf(file.path) ?? file.path;
  seen.add(top);
  // The realpaths from the file found down to the one being read: a reference to one of them is a cycle.
  const chain = [top];
  visit(file, undefined, 0);
  return out;

  function visit(current: FoundFile, importedBy: string | undefined, depth: number): void {
    out.parts.push(importedBy ? { ...current, importedBy } : current);
    for (const ref of atReferences(current.text)) {
      const found = resolveRef(ref.path, current.path, place);
      if (!found) continue;
      if ('code' in found) {
        out.problems.push({ ref: ref.path, from: current.path, code: found.code });
        continue;
      }
      // A file naming itself ("keep @CLAUDE.md up to date") is no cycle worth a word.
      if (chain.slice(0, -1).includes(found.real)) {
        out.problems.push({ ref: ref.path, from: current.path, code: 'cycle' });
        continue;
      }
      if (seen.has(found.real) || found.real === chain.at(-1)) continue;
      if (depth + 1 > MAX_IMPORT_DEPTH) {
        out.problems.push({ ref: ref.path, from: current.path, code: 'depth' });
        continue;
      }
      seen.add(found.real);
      const text = readInstructionFile(found.real, unreadable);
      if (text === undefined) continue;
      // "See @docs/architecture.png" names a picture: its bytes are no instructions.
      if (isBinary(text)) {
        out.problems.push({ ref: ref.path, from: current.path, code: 'binary' });
        continue;
      }
      chain.push(found.real);
      visit({ path: found.real, text }, current.path, depth + 1);
      chain.pop();
    }
  }
}

type Resolved = { real: string } | { code: ImportProblem['code'] };

/** Where a reference leads, or why it may not be imported; undefined for a word that is no path (`@param`). */
function resolveRef(ref: string, from: string, place: ImportPlace): Resolved | undefined {
  for (const candidate of pathCandidates(ref)) {
    const expanded = candidate === '~' || candidate.startsWith('~/') ? place.home + candidate.slice(1) : candidate;
    const abs = resolve(dirname(from), expanded);
    if (!exists(abs)) continue;
    const real = realOf(abs);
    // A folder named in passing ("@src/") is no import.
    if (!real || isFolder(real)) return undefined;
    if (!place.roots.some((root) => inside(root, real))) return { code: 'outside' };
    if (isSecret(real, place)) return { code: 'secret' };
    return { real };
  }
  // A mention like @param or @user is no file: only what looks like a path is worth reporting.
  return /[/.]/.test(ref) ? { code: 'missing' } : undefined;
}

/** Secrets are never imported; in feiyu's configuration folder only Markdown is (the user's FEIYU.md and what it imports). */
function isSecret(real: string, place: ImportPlace): boolean {
  if (inside(place.configDir, real)) return !real.endsWith('.md');
  return secretFileKind(real, place.home) !== null;
}

/** Text decoded from a file that is not text: a NUL, or more than 1% of bytes that are no UTF-8. */
function isBinary(text: string): boolean {
  if (text.includes('\0')) return true;
  const invalid = text.match(/\uFFFD/g)?.length ?? 0;
  return invalid > text.length / 100;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
