// Where instruction files are: the project root (the folder holding `.git`, found by walking up
// without running git, else the workspace), the folders from there down to a given folder, and at
// each folder the file to use — the first of FEIYU.md, AGENTS.md, CLAUDE.md (which Claude Code also
// reads as .claude/CLAUDE.md), plus another of them when one is a stub pointing at the other. Reads
// only those files; imports are imports.ts's.

import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { FileReadError, readRegularFile } from '../../util/readfile.js';

export const CANDIDATES = ['FEIYU.md', 'AGENTS.md', 'CLAUDE.md', join('.claude', 'CLAUDE.md')] as const;

/** Past this a file is not read at all (a log or a dump named AGENTS.md by mistake). */
export const MAX_FILE_BYTES = 1 << 20;

/** The folder at or above `workspace` that holds `.git` (a folder, or a worktree's file), else the workspace. */
export function projectRootOf(workspace: string): string {
  for (let dir = workspace; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return workspace;
  }
}

/** The folders from `top` down to `bottom`, both included; `bottom` must be inside `top`. */
export function foldersBetween(top: string, bottom: string): string[] {
  const rel = relative(top, bottom);
  if (rel.startsWith('..')) return [];
  const parts = rel ? rel.split(sep) : [];
  return [top, ...parts.map((_, i) => join(top, ...parts.slice(0, i + 1)))];
}

export type FoundFile = { path: string; text: string };

/** What could not be read, as data: a FileReadError (not regular, too big) or another error's message. */
export type Unreadable = FileReadError | { file: string; message: string };

/** Reads a text file feiyu reads by itself; undefined when it does not exist or cannot be read (then `unreadable` says why). */
export function readInstructionFile(path: string, unreadable: Unreadable[]): string | undefined {
  try {
    return readRegularFile(path, MAX_FILE_BYTES);
  } catch (err) {
    unreadable.push(err instanceof FileReadError ? err : { file: path, message: (err as Error).message });
    return undefined;
  }
}

export type Level = {
  files: FoundFile[];
  /** Candidates passed over because another file at the same folder is used. */
  ignored: { path: string; used: string }[];
};

/** The instruction files of one folder, in the order to use them. */
export function readLevel(dir: string, unreadable: Unreadable[]): Level {
  const found: FoundFile[] = [];
  for (const name of CANDIDATES) {
    const path = join(dir, name);
    const text = readInstructionFile(path, unreadable);
    if (text !== undefined) found.push({ path, text });
  }
  if (!found.length) return { files: [], ignored: [] };
  // The first is used; another joins it when one of the two is a stub naming the other (and they
  // differ: a symbolic link or a copy adds nothing).
  const used = [found[0]!];
  for (const other of found.slice(1)) {
    const linked = used.some((u) => u.text !== other.text && (isStubFor(u.text, basename(other.path)) || isStubFor(other.text, basename(u.path))));
    if (linked && !used.some((u) => u.text === other.text)) used.push(other);
  }
  const ignored = found.filter((f) => !used.includes(f)).map((f) => ({ path: f.path, used: found[0]!.path }));
  return { files: used, ignored };
}

/** A stub: a few short lines that name the other file ("@AGENTS.md", "See AGENTS.md", a link to it). */
export function isStubFor(text: string, other: string): boolean {
  const bare = text.replace(/<!--[\s\S]*?-->/g, '').trim();
  const lines = bare.split('\n').filter((l) => l.trim());
  if (bare.length > 400 || lines.length > 5) return false;
  const name = other.replace(/\./g, '\\.');
  return new RegExp(`(^|[\\s@(\\[/"'\`])${name}(?![\\w.-]*[\\w-])`, 'i').test(bare);
}

/** The realpath of `path`, or undefined when it does not exist (or a link in it is broken). */
export function realOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
