// The bash tool's launcher: for each command, looks up what the sandbox must cover now (secret
// files listed afresh, the home folder's credentials, the repository's layout and hooks folder),
// creates the placeholders of missing protected paths and removes them when the command ends, and
// returns the argv, environment and release of one launch. With the sandbox off it still gives
// read-only commands the git hardening and no agent socket, and runs every command contained
// (contain.ts) when bwrap allows it. Must not decide which profile a command gets.

import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { containArgv } from './contain.js';
import { gitLayout } from './gitconfig.js';
import { gitHardeningEnv } from './githarden.js';
import { hooksPathOf, protectedPaths } from './protected.js';
import { buildBwrapArgv, type BwrapPlan, type SandboxFeatures } from './sandbox.js';
import { homeSecrets, kind, linkedInodes, WorkspaceScanner } from './secretfiles.js';
import { plainBash } from '../util/process.js';
import type { Launch, LaunchRequest } from '../types/tools.js';
import type { SandboxLevel } from '../types/permissions.js';

export type SandboxOptions = {
  level: SandboxLevel;
  /** The workspace's realpath. */
  root: string;
  home: string;
  /** feiyu's config and state folders (wherever XDG points them): hidden like the other credentials. */
  configDir: string;
  stateDir: string;
  /** $XDG_RUNTIME_DIR: agent and bus sockets. */
  runtimeDir?: string;
  /** The user opted into the host network at the workspace level. */
  network: boolean;
  features: SandboxFeatures;
  /** The level `off` runs commands contained (the probe found that containment works). */
  contain: boolean;
};

/** System files that only root can read, and that a command run as root must not. */
const SYSTEM_SECRETS = ['/etc/shadow', '/etc/gshadow', '/etc/sudoers'];

const contains = (outer: string, inner: string): boolean => inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);

/**
 * The launcher for a level. `off` runs bash without the sandbox, in the containment where it works
 * (else the caller records the process groups); read-only commands still get the git hardening.
 */
export function createLauncher(o: SandboxOptions): (req: LaunchRequest) => Launch {
  if (o.level === 'off' && !o.contain) return (req) => plainBash(req.command, envFor(req, o.root));
  if (o.level === 'off') {
    return (req) => {
      const [file, ...args] = containArgv(req.command, req.cwd);
      return { file: file!, args, env: envFor(req, o.root), release: () => {} };
    };
  }
  const level = o.level;
  const scanner = new WorkspaceScanner(o.root);
  const placeholders = new Placeholders();
  return (req) => {
    const empty = emptyFile();
    const home = o.home ? homeSecrets(o.home) : { dirs: [], files: [] };
    const layout = gitLayout(o.root);
    const hooksPath = hooksPathOf(o.root, layout);
    // A mask over a folder that holds the workspace would hide the workspace itself.
    const around = (p: string) => !contains(p, o.root);
    const feiyuDirs = [o.configDir, o.stateDir, ...(o.home ? [join(o.home, '.config', 'feiyu'), join(o.home, '.local', 'state', 'feiyu')] : [])];
    const hiddenDirs = [...new Set([...home.dirs, ...feiyuDirs.filter((d) => kind(d) === 'dir')])].filter(around);
    const systemSecrets = SYSTEM_SECRETS.filter(readable);
    // A hard link in the workspace to a secret elsewhere reads as the secret, so secrets are masked
    // by inode too; only a secret with other names (rare) makes the listing look at every file.
    const secretInodes = linkedInodes([...home.files, ...hiddenDirs, ...systemSecrets]);
    let listing = scanner.scan(secretInodes.size > 0);
    for (const key of linkedInodes(listing.secrets)) secretInodes.add(key);
    if (secretInodes.size && !listing.linked.length && listing.secrets.length) listing = scanner.scan(true);
    const linkedSecrets = listing.linked.filter((f) => secretInodes.has(`${f.dev}:${f.ino}`) && !listing.secrets.includes(f.path)).map((f) => f.path);
    const plan: BwrapPlan = {
      level,
      profile: req.profile,
      network: o.network,
      root: o.root,
      cwd: req.cwd,
      command: req.command,
      features: o.features,
      emptyFile: empty,
      secretFiles: [...listing.secrets, ...linkedSecrets, ...home.files, ...systemSecrets],
      hiddenDirs,
      socketDirs: socketDirs(o.runtimeDir).filter(around),
      protect: [],
      gitWritable: [],
    };
    let created: string[] = [];
    if (req.profile !== 'read') {
      const gitData = [join(o.root, '.git'), ...listing.nestedGits];
      const wanted = protectedPaths(o.root, hooksPath).filter((p) => req.profile !== 'write_git' || !gitData.includes(p.path));
      if (req.profile === 'write') wanted.push(...listing.nestedGits.map((path) => ({ path, kind: kind(path) ?? ('file' as const) })));
      created = placeholders.hold(wanted.filter((p) => !present(p.path)));
      plan.protect = wanted.filter((p) => kind(p.path) !== null).map((p) => p.path);
      if (req.profile === 'write_git' && layout) plan.gitWritable = [...new Set([layout.gitDir, layout.commonDir])].filter((d) => !contains(o.root, d) && kind(d) === 'dir');
    }
    const [file, ...args] = buildBwrapArgv(plan);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      placeholders.release(created);
    };
    return { file: file!, args, env: envFor(req, o.root), release };
  };
}

/** A read-only command's environment: git hardened, and no agent socket to sign with, bwrap or not. */
function envFor(req: LaunchRequest, root: string): NodeJS.ProcessEnv {
  if (req.profile !== 'read') return req.env;
  const { SSH_AUTH_SOCK: _agent, ...env } = req.env;
  return { ...env, ...gitHardeningEnv(root, req.env) };
}

const present = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

const readable = (path: string): boolean => {
  try {
    return statSync(path).isFile() && (process.getuid?.() === 0 || (statSync(path).mode & 0o004) !== 0);
  } catch {
    return false;
  }
};

/** /run (and /var/run when it is a folder of its own) and the runtime folder, where they exist. */
function socketDirs(runtimeDir: string | undefined): string[] {
  const dirs = ['/run', '/var/run', ...(runtimeDir ? [runtimeDir] : [])].filter((d) => {
    try {
      return lstatSync(d).isDirectory();
    } catch {
      return false;
    }
  });
  return [...new Set(dirs)].filter((d, _, all) => !all.some((o) => o !== d && contains(o, d)));
}

let empty: string | undefined;

/** A private empty read-only file for the masks, one per process (made on first use), removed when feiyu exits. */
function emptyFile(): string {
  if (empty && existsSync(empty)) return empty;
  const dir = mkdtempSync(join(tmpdir(), 'feiyu-sandbox-'));
  const file = join(dir, 'empty');
  writeFileSync(file, '', { mode: 0o444 });
  chmodSync(dir, 0o555);
  process.once('exit', () => {
    try {
      chmodSync(dir, 0o700);
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Already gone, or tmp is read-only now: nothing to keep anyway.
    }
  });
  empty = file;
  return file;
}

/**
 * Placeholders of missing protected paths, shared by the commands running at once (a background
 * job and the next command): created by the first that needs one, removed, if still empty, when
 * the last of them ends. A path that cannot be created (a read-only workspace) needs no placeholder.
 */
class Placeholders {
  private readonly held = new Map<string, { count: number; made: string[] }>();

  /** Creates what is missing, counts the holders; returns the paths held (to release later). */
  hold(entries: { path: string; kind: 'dir' | 'file' }[]): string[] {
    const out: string[] = [];
    for (const e of entries) {
      const have = this.held.get(e.path);
      if (have) {
        have.count++;
        out.push(e.path);
        continue;
      }
      try {
        const first = mkdirSync(e.kind === 'dir' ? e.path : dirname(e.path), { recursive: true });
        const made = first ? ancestry(first, e.kind === 'dir' ? e.path : dirname(e.path)) : [];
        if (e.kind === 'file') {
          writeFileSync(e.path, '', { flag: 'wx', mode: 0o444 });
          made.push(e.path);
        }
        this.held.set(e.path, { count: 1, made });
        out.push(e.path);
      } catch {
        // Not creatable here (read-only, a racing creator): the sandbox cannot create it either.
      }
    }
    return out;
  }

  release(paths: string[]): void {
    for (const path of paths) {
      const have = this.held.get(path);
      if (!have || --have.count > 0) continue;
      this.held.delete(path);
      for (const p of [...have.made].reverse()) removeIfEmpty(p);
    }
  }
}

/** The folders from `first` (the first one mkdir created) down to `last`. */
function ancestry(first: string, last: string): string[] {
  const out = [last];
  for (let p = last; p !== first && dirname(p) !== p; ) {
    p = dirname(p);
    out.unshift(p);
  }
  return out;
}

function removeIfEmpty(path: string): void {
  try {
    const st = lstatSync(path);
    if (st.isDirectory() && readdirSync(path).length === 0) rmdirSync(path);
    else if (st.isFile() && st.size === 0) unlinkSync(path);
  } catch {
    // Gone already, or in use: leave it.
  }
}
