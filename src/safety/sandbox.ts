// The bwrap sandbox for bash: the argv built by a pure function (workspace writable, everything
// else read-only, secret folders masked, a private /tmp and PID namespace; strict adds no network),
// the start-up probe, and the wrapCommand the bash tool uses. Must not decide whether a command
// may run, and must never fall back to running a command unsandboxed: only the probe turns it off.

import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SandboxLevel, WrapCommand } from '../types.js';

/** By absolute path: never a bwrap found on a PATH that may point into the workspace. */
export const BWRAP = '/usr/bin/bwrap';
const SHELL = '/bin/bash';

/** Folders under $HOME masked with an empty tmpfs (credentials of common tools). */
const SECRET_DIRS = ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.azure', '.kube', '.docker', '.config/gh'];
/** Files under $HOME replaced by /dev/null. */
const SECRET_FILES = ['.netrc', '.git-credentials', '.npmrc', '.pypirc'];

export type Existing = (path: string) => 'dir' | 'file' | null;

export type BwrapOptions = {
  level: Exclude<SandboxLevel, 'off'>;
  /** The workspace's realpath. */
  root: string;
  home: string;
  /** feiyu's config folder (keys.json): masked like the other secrets. */
  configDir: string;
  uid: number;
  /** What exists at a path; injected so the function stays pure. */
  existing: Existing;
  command: string;
  cwd: string;
};

/** The full argv, starting with /usr/bin/bwrap, that runs `command` with bash in the sandbox. */
export function buildBwrapArgv(o: BwrapOptions): string[] {
  const argv = [BWRAP, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', o.root, o.root];
  // Masks come after the workspace bind so they still apply when the workspace holds them (root = ~).
  for (const dir of [...SECRET_DIRS.map((d) => join(o.home, d)), o.configDir, `/run/user/${o.uid}`]) {
    if (o.existing(dir) === 'dir') argv.push('--tmpfs', dir);
  }
  for (const file of SECRET_FILES.map((f) => join(o.home, f))) {
    if (o.existing(file) === 'file') argv.push('--ro-bind', '/dev/null', file);
  }
  argv.push(...protectWorkspace(o.root, o.existing));
  argv.push('--unshare-pid', '--new-session', '--die-with-parent');
  if (o.level === 'strict') argv.push('--unshare-net');
  argv.push('--chdir', o.cwd, '--', SHELL, '-c', o.command);
  return argv;
}

/**
 * Inside the workspace, what later runs outside the sandbox is re-bound read-only: git hooks,
 * git config, feiyu's project settings. .git itself is bound onto itself so that, being a mount
 * point, it cannot be renamed away and replaced by one with hooks of the command's choosing.
 */
function protectWorkspace(root: string, existing: Existing): string[] {
  const out: string[] = [];
  const git = join(root, '.git');
  if (existing(git) === 'dir') {
    const hooks = join(git, 'hooks');
    const config = join(git, 'config');
    out.push('--bind', git, git);
    // A repository without a hooks folder gets an empty read-only one, so none can be planted.
    out.push(...(existing(hooks) === 'dir' ? ['--ro-bind', hooks, hooks] : ['--tmpfs', hooks, '--remount-ro', hooks]));
    if (existing(config) === 'file') out.push('--ro-bind', config, config);
  }
  const feiyu = join(root, '.feiyu');
  if (existing(feiyu) === 'dir') out.push('--ro-bind', feiyu, feiyu);
  return out;
}

/** What is at `path` now (following symlinks), for buildBwrapArgv. */
function existingOnDisk(path: string): 'dir' | 'file' | null {
  try {
    const st = statSync(path);
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/**
 * The bash tool's wrapCommand for a level, or undefined for off. What exists is looked up on
 * each call: a .git created by an earlier command gets its hooks protected from the next one on.
 */
export function makeWrapCommand(
  level: SandboxLevel,
  o: { root: string; home?: string; configDir: string; uid?: number; existing?: Existing },
): WrapCommand | undefined {
  if (level === 'off') return undefined;
  const home = o.home || homedir();
  const uid = o.uid ?? process.getuid?.() ?? 0;
  return (command, cwd) => {
    const [file, ...args] = buildBwrapArgv({ level, root: o.root, home, configDir: o.configDir, uid, existing: o.existing ?? existingOnDisk, command, cwd });
    return { file: file!, args };
  };
}

export type ProbeResult = { ok: true } | { ok: false; reasonCode: 'bwrap_missing' | 'userns_disabled' | 'bwrap_failed'; detail: string };

/**
 * Runs bwrap once with every flag the strict level uses and a trivial command. Failure says why:
 * not installed, user namespaces disabled (the usual cause in containers), or something else.
 */
export function probeSandbox(bwrap = BWRAP, timeoutMs = 5000): Promise<ProbeResult> {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--new-session', '--die-with-parent', '--unshare-net', '--', '/bin/true'];
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: timeoutMs });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', (err: NodeJS.ErrnoException) => {
      resolve({ ok: false, reasonCode: err.code === 'ENOENT' || err.code === 'EACCES' ? 'bwrap_missing' : 'bwrap_failed', detail: `${bwrap}: ${err.message}` });
    });
    child.on('close', (code, signal) => {
      if (code === 0) return resolve({ ok: true });
      const detail = stderr.trim() || (signal ? `killed by ${signal}` : `exit code ${code}`);
      const userns = /namespace|uid map|setting up uid|Operation not permitted|Permission denied/i.test(stderr);
      resolve({ ok: false, reasonCode: userns ? 'userns_disabled' : 'bwrap_failed', detail });
    });
  });
}
