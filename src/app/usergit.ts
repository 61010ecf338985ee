// git in the user's own repository, two ways. What feiyu asks by itself (which of the session's
// files git sees changed, the recent subjects) runs as a read-only command would: hardened
// (safety/githarden.ts), no locks, a git found outside the workspace. The commit the user
// confirmed (/commit) is the user's own command, like typing `git commit` (or `!git commit`): their
// environment and configuration, their hooks and signing, outside the model's permission check
// and the sandbox. Decides nothing; the interface shows and asks.

import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { relative } from 'node:path';
import { gitHardeningEnv } from '../safety/githarden.js';
import { dotGitDir } from '../safety/gitconfig.js';
import { findGit, workTreeOf } from '../session/shadowgit.js';

const READ_TIMEOUT_MS = 10_000;

/** The repository the workspace is in, or null outside one. */
export function repositoryOf(root: string): { top: string } | null {
  const top = workTreeOf(root);
  return dotGitDir(top) ? { top } : null;
}

/** A read-only question to git in `root`: its output, or null when it failed. */
function readGit(root: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string | null> {
  const git = findGit(env.PATH, root);
  if (!git) return Promise.resolve(null);
  const hardened = { ...env, ...gitHardeningEnv(root, env), GIT_LITERAL_PATHSPECS: '1', LC_ALL: 'C' };
  return new Promise((resolve) => {
    const child = spawn(git, args, { cwd: root, env: hardened, stdio: ['ignore', 'pipe', 'ignore'], timeout: READ_TIMEOUT_MS });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 ? out : null));
  });
}

/** Of `files` (workspace-relative), those git sees as changed or new and not ignored, workspace-relative. */
export async function changedForGit(root: string, env: NodeJS.ProcessEnv, files: string[]): Promise<string[] | null> {
  const repo = repositoryOf(root);
  if (!repo || !files.length) return repo ? [] : null;
  const out = await readGit(root, env, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...files]);
  if (out === null) return null;
  const prefix = relative(repo.top, root);
  return out
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
    .map((p) => (prefix ? relative(prefix, p) : p))
    .sort();
}

/** The latest commit subjects, newest first (empty in a repository without commits). */
export async function recentSubjects(root: string, env: NodeJS.ProcessEnv, n = 10): Promise<string[]> {
  const out = await readGit(root, env, ['log', `-n${n}`, '--format=%s', '--no-show-signature']);
  return out ? out.split('\n').filter(Boolean) : [];
}

/**
 * Commits `files` (workspace-relative; new ones added, deleted ones removed) with `message`, as the
 * user would from a shell: `git add -A -- files`, then `git commit -- files`, so other staged work
 * stays staged and out of this commit. `run` spawns with the terminal handed over (git's output,
 * editors and passphrase prompts reach the user). Returns the failed step's status, or 0.
 */
export function commitFiles(root: string, env: NodeJS.ProcessEnv, files: string[], message: string, run: (fn: () => SpawnSyncReturns<Buffer>) => SpawnSyncReturns<Buffer>): { status: number; error?: string } {
  const o = { cwd: root, env: { ...env, GIT_LITERAL_PATHSPECS: '1' }, stdio: 'inherit' as const };
  for (const args of [['add', '-A', '--', ...files], ['commit', '--cleanup=whitespace', '-m', message, '--', ...files]]) {
    const r = run(() => spawnSync('git', args, o));
    if (r.error) return { status: -1, error: r.error.message };
    if (r.status !== 0) return { status: r.status ?? -1 };
  }
  return { status: 0 };
}
