// The protected paths of a workspace: what later runs outside any sandbox or configures feiyu and
// the user's tools (.git whole, git hooks folders, .feiyu, .claude, editor folders, .envrc). The
// sandbox keeps them read-only; the policy asks before a file tool writes one, in every mode.
// Must not touch the disk beyond reading the repository's config for core.hooksPath.

import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { homedir } from 'node:os';
import { configValue, repoConfig, type GitLayout } from './gitconfig.js';

/** Top-level entries of the workspace; `.envrc` is a file, the others folders. */
export const PROTECTED_NAMES: readonly { name: string; kind: 'dir' | 'file' }[] = [
  { name: '.git', kind: 'dir' },
  { name: '.feiyu', kind: 'dir' },
  { name: '.claude', kind: 'dir' },
  { name: '.vscode', kind: 'dir' },
  { name: '.idea', kind: 'dir' },
  { name: '.husky', kind: 'dir' },
  { name: '.githooks', kind: 'dir' },
  { name: '.envrc', kind: 'file' },
];

/**
 * The folder git takes hooks from when the repository's config sets core.hooksPath, resolved as
 * git does (relative to the worktree root, `~` expanded), or null.
 */
export function hooksPathOf(root: string, layout: GitLayout | null): string | null {
  if (!layout) return null;
  const value = configValue(repoConfig(layout), 'core.hookspath');
  if (!value) return null;
  const expanded = value === '~' || value.startsWith('~/') ? homedir() + value.slice(1) : value;
  return isAbsolute(expanded) ? resolve(expanded) : resolve(root, expanded);
}

/**
 * Why writing `abs` (absolute, symlinks resolved) would change a protected path of the workspace
 * `root`, or null. `hooksPath` is the repository's core.hooksPath folder, if any.
 */
export function protectedPath(root: string, abs: string, hooksPath: string | null = null): string | null {
  const rel = relative(root, abs);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return null;
  const parts = rel.split(sep);
  const top = PROTECTED_NAMES.find((p) => p.name === parts[0]);
  if (top) return top.name === '.git' ? 'the repository data (.git), where hooks and config run programs' : `${top.name}, which configures tools that run programs`;
  // A .git anywhere below: a nested repository's config and hooks.
  if (parts.includes('.git')) return 'the data of a nested repository (.git)';
  if (hooksPath && (abs === hooksPath || abs.startsWith(hooksPath + sep))) return `the git hooks folder (core.hooksPath = ${relative(root, hooksPath) || '.'})`;
  return null;
}

/** The workspace's protected paths as absolute paths, hooksPath included when inside the workspace. */
export function protectedPaths(root: string, hooksPath: string | null): { path: string; kind: 'dir' | 'file' }[] {
  const out = PROTECTED_NAMES.map((p) => ({ path: join(root, p.name), kind: p.kind }));
  if (hooksPath && hooksPath.startsWith(root + sep) && !out.some((p) => hooksPath.startsWith(p.path + sep) || hooksPath === p.path)) {
    out.push({ path: hooksPath, kind: 'dir' });
  }
  return out;
}
