// The bwrap argv for one command, as a pure function of what the command may do (its profile) and
// what the file system holds (found by sandboxhost.ts). Every sandbox: no capabilities, a user
// namespace where the kernel allows one, a new session, private /tmp, PID, IPC and UTS
// namespaces, secret files covered by an empty file, credential folders hidden. The profiles:
//   read       judged read-only: the whole file system read-only, the workspace too; no network
//              and no host unix socket.
//   write      the workspace writable but its protected paths (.git whole, hooks folders, .feiyu,
//              .claude, .vscode, .idea, .husky, .githooks, .envrc); network only when the user
//              opted in at the workspace level; strict also hides host unix sockets.
//   write_git  as write, with the repository's data (.git, and a worktree's git dir) writable:
//              for git commands the user approved.
// A protected path that does not exist is created empty (a folder or a file) and bound read-only
// for the command's duration, then removed if still empty: refusing every command of a workspace
// without .vscode would make the sandbox useless, and a placeholder makes creation impossible.
// Must not decide whether a command may run, and never falls back to running one unsandboxed.

import { BASH } from '../util/process.js';
import type { SandboxLevel } from '../types/permissions.js';
import type { SandboxProfile } from '../types/tools.js';

/** By absolute path: never a bwrap found on a PATH that may point into the workspace. */
export const BWRAP = '/usr/bin/bwrap';

/** What the kernel allows, found by the start-up probe. */
export type SandboxFeatures = { userns: boolean; disableUserns: boolean };

export type BwrapPlan = {
  level: Exclude<SandboxLevel, 'off'>;
  profile: SandboxProfile;
  /** The user opted into the host network at the workspace level. */
  network: boolean;
  /** The workspace's realpath. */
  root: string;
  cwd: string;
  command: string;
  features: SandboxFeatures;
  /** An empty read-only file: bound over secret files. */
  emptyFile: string;
  /** Secret files to cover (the workspace's, the home folder's, the system's). */
  secretFiles: string[];
  /** Folders hidden by an empty read-only tmpfs (home credentials, feiyu's config and state). */
  hiddenDirs: string[];
  /** Folders of host unix sockets (/run, $XDG_RUNTIME_DIR), hidden when there is no network. */
  socketDirs: string[];
  /** Protected paths of the workspace, bound read-only in the write profiles; missing ones already have a placeholder. */
  protect: string[];
  /** write_git: repository data outside the workspace to make writable (a worktree's git dir and common dir). */
  gitWritable: string[];
};

/**
 * bwrap covers /proc/sys only when the folder itself is writable, which it never is: its files
 * are, to the real root, since a user namespace maps root to root. Root in the sandbox could then
 * set kernel.core_pattern to a program in the workspace and have the kernel run it on the host.
 */
const PROC_COVERS = ['--ro-bind', '/proc/sys', '/proc/sys', '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger', '--ro-bind-try', '/proc/mtrr', '/proc/mtrr'];

/** Whether a command of this plan reaches no network at all (and no host unix socket). */
export const isolatedNet = (p: Pick<BwrapPlan, 'profile' | 'level'>): boolean => p.profile === 'read' || p.level === 'strict';

/** The full argv, starting with /usr/bin/bwrap, that runs `command` with bash in the sandbox. */
export function buildBwrapArgv(p: BwrapPlan): string[] {
  const argv = [BWRAP];
  if (p.features.userns) argv.push('--unshare-user', ...(p.features.disableUserns ? ['--disable-userns'] : []));
  argv.push('--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...PROC_COVERS, '--tmpfs', '/tmp');
  // Bound even when read-only: a workspace under /tmp would be hidden by the private /tmp.
  if (p.profile === 'read') argv.push('--ro-bind', p.root, p.root);
  else {
    argv.push('--bind', p.root, p.root);
    for (const path of p.protect) argv.push('--ro-bind', path, path);
    for (const dir of p.gitWritable) argv.push('--bind', dir, dir);
  }
  // Masks come after every bind that could bring the host's view back over them.
  for (const file of p.secretFiles) argv.push('--ro-bind', p.emptyFile, file);
  const hidden = isolatedNet(p) ? [...p.hiddenDirs, ...p.socketDirs] : p.hiddenDirs;
  for (const dir of hidden) argv.push('--tmpfs', dir, '--remount-ro', dir);
  if (isolatedNet(p)) argv.push('--unsetenv', 'SSH_AUTH_SOCK');
  if (isolatedNet(p) || !p.network) argv.push('--unshare-net');
  argv.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--new-session', '--die-with-parent');
  argv.push('--chdir', p.cwd, '--', BASH, '-c', p.command);
  return argv;
}
