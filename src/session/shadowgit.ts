// The shadow repository behind checkpoints: a git directory in the state folder whose work tree is
// the repository the workspace is in (or the workspace itself outside one), every command limited
// to the workspace by a pathspec, so the project's .gitignore files apply at every level. Of
// anyone's git configuration only the ignore lists are used: no global or system config, the
// read-only hardening (safety/githarden.ts) on top, attributes that turn filters and conversions
// off. Runs git; never writes the user's .git; knows nothing of turns (checkpoints.ts does).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { gitHardeningEnv } from '../safety/githarden.js';
import { configValue, dotGitDir, gitLayout, includePath, parseGitConfig, readConfigText } from '../safety/gitconfig.js';
import { inside, writeFileAtomic } from '../util/paths.js';

export type GitRun = { code: number | null; out: Buffer; err: string };

/** Why checkpoints are off for a session. */
export type ShadowOff = { off: 'no_git' | 'home' | 'failed'; detail?: string };

/** A generous limit: the first checkpoint of a large workspace hashes all of it. */
const GIT_TIMEOUT_MS = 120_000;

/**
 * Raw bytes in and out, whatever the project's .gitattributes say: no filter or ident program, no
 * line-ending or encoding conversion, git's own test for binary files. This file outranks the
 * project's attributes.
 */
const ATTRIBUTES = '* -text !eol -filter -ident !diff !working-tree-encoding !merge\n';

/** Our settings, given on every command line (above any config file). */
const SETTINGS: [string, string][] = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.symlinks', 'true'],
  ['core.quotepath', 'false'],
  ['core.untrackedcache', 'true'],
  ['gc.autodetach', 'false'],
  // The work tree may belong to another user (root working in someone's project).
  ['safe.directory', '*'],
];

/** git on $PATH, skipping folders inside the workspace and relative ones: a PATH may reach into it. */
export function findGit(path: string | undefined, root: string): string | null {
  for (const dir of (path ?? '/usr/bin:/bin').split(':')) {
    if (!isAbsolute(dir) || inside(root, dir)) continue;
    const file = join(dir, 'git');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** The top of the repository `root` is in (the nearest folder up holding .git), or `root` outside one. */
export function workTreeOf(root: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    if (dotGitDir(dir)) return dir;
    if (dirname(dir) === dir) return root;
  }
}

/**
 * The user's own ignore lists, which the shadow does not find by itself: the global excludes file
 * (core.excludesFile, else $XDG_CONFIG_HOME/git/ignore) and the repository's info/exclude.
 */
function userExcludes(top: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
  const global = [join(home, '.gitconfig'), join(xdg, 'git', 'config')].flatMap((file) => {
    const text = readConfigText(file);
    return typeof text === 'string' && text !== 'missing' ? parseGitConfig(text, file) : [];
  });
  const named = configValue(global, 'core.excludesfile');
  const files = [named ? includePath(named, join(home, '.gitconfig'), home) : join(xdg, 'git', 'ignore')];
  const layout = gitLayout(top);
  if (layout) files.push(join(layout.commonDir, 'info', 'exclude'));
  return files
    .map((file) => readConfigText(file))
    .filter((text): text is string => text !== null && text !== 'missing')
    .join('\n');
}

type Place = { file: string; top: string; root: string; gitDir: string; index: string; excludes: string; stateDir: string };

/** The shadow repository of one workspace, as one session uses it (its own index and ignore list). */
export class ShadowGit {
  readonly top: string;
  /** The workspace. */
  readonly root: string;
  /** Paths in git's output are relative to `top`; `scope` is the workspace relative to it ('' at the top). */
  readonly scope: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly excludes: string;
  private excludesWritten = false;

  private constructor(
    private readonly at: Place,
    env: NodeJS.ProcessEnv,
  ) {
    this.top = at.top;
    this.root = at.root;
    this.scope = relative(at.top, at.root);
    // Nothing of the user's git environment (GIT_DIR, GIT_CONFIG_*, alternates) reaches ours.
    const base = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('GIT_')));
    const own = Object.fromEntries(SETTINGS.flatMap(([k, v], i) => [[`GIT_CONFIG_KEY_${i}`, k], [`GIT_CONFIG_VALUE_${i}`, v]]));
    this.env = {
      ...base,
      LC_ALL: 'C',
      GIT_DIR: at.gitDir,
      GIT_WORK_TREE: at.top,
      GIT_INDEX_FILE: at.index,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_LITERAL_PATHSPECS: '1',
      GIT_AUTHOR_NAME: 'feiyu',
      GIT_AUTHOR_EMAIL: 'feiyu@localhost',
      GIT_COMMITTER_NAME: 'feiyu',
      GIT_COMMITTER_EMAIL: 'feiyu@localhost',
      ...own,
      ...gitHardeningEnv(at.top, { GIT_CONFIG_COUNT: String(SETTINGS.length) }),
      // The index is this session's own: status may keep its cache of file stats up to date.
      GIT_OPTIONAL_LOCKS: '1',
    };
    // The state folder inside the work tree (a project holding the home folder's state): never kept.
    const state = relative(at.top, at.stateDir);
    const stateLine = inside(at.top, at.stateDir) && state ? `/${escapePattern(state)}/\n` : '';
    this.excludes = `${userExcludes(at.top, env)}\n${stateLine}`;
  }

  /**
   * The shadow repository for `root` in `dir` (made when missing), used with the index `index`.
   * Off when there is no git, or when the workspace is the home folder or `/` (too much to keep).
   */
  static open(o: { root: string; dir: string; index: string; env: NodeJS.ProcessEnv; stateDir: string }): Promise<ShadowGit | ShadowOff> {
    const home = o.env.HOME || homedir();
    if (o.root === '/' || o.root === home) return Promise.resolve({ off: 'home' });
    const file = findGit(o.env.PATH, o.root);
    if (!file) return Promise.resolve({ off: 'no_git' });
    const place = { file, top: workTreeOf(o.root), root: o.root, gitDir: join(o.dir, 'repo.git'), index: o.index, excludes: o.index.replace(/\.index$/, '.exclude'), stateDir: o.stateDir };
    return new ShadowGit(place, o.env).init();
  }

  private async init(): Promise<ShadowGit | ShadowOff> {
    if (!existsSync(join(this.at.gitDir, 'HEAD'))) {
      // Made aside and renamed into place: another feiyu starting in the same workspace at the
      // same moment either wins the rename (this one uses its repository) or finds it whole.
      mkdirSync(dirname(this.at.gitDir), { recursive: true, mode: 0o700 });
      const aside = `${this.at.gitDir}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
      const { GIT_DIR: _dir, GIT_WORK_TREE: _tree, GIT_INDEX_FILE: _index, ...env } = this.env;
      const made = await run(this.at.file, ['init', '--bare', '--quiet', aside], env, dirname(this.at.gitDir));
      if (made.code !== 0) {
        rmSync(aside, { recursive: true, force: true });
        return { off: 'failed', detail: made.err.trim() };
      }
      try {
        renameSync(aside, this.at.gitDir);
      } catch {
        rmSync(aside, { recursive: true, force: true });
        if (!existsSync(join(this.at.gitDir, 'HEAD'))) return { off: 'failed', detail: `cannot make ${this.at.gitDir}` };
      }
    }
    try {
      mkdirSync(join(this.at.gitDir, 'info'), { recursive: true, mode: 0o700 });
      writeFileSync(join(this.at.gitDir, 'info', 'attributes'), ATTRIBUTES, { mode: 0o600 });
    } catch (err) {
      return { off: 'failed', detail: (err as Error).message };
    }
    return this;
  }

  /** Points the ref `name` (refs/…) at `commit`, as git keeps a loose ref: a file holding the hash. */
  setRef(name: string, commit: string): void {
    writeFileAtomic(join(this.at.gitDir, name), commit + '\n', { private: true });
  }

  /** The pathspec of the workspace. */
  get here(): string {
    return this.scope || '.';
  }

  /** Runs git in the work tree's top, with the user's ignore lists (and the project's .gitignore files). */
  git(args: string[], o: { input?: string } = {}): Promise<GitRun> {
    if (!this.excludesWritten) {
      writeFileSync(this.at.excludes, this.excludes, { mode: 0o600 });
      this.excludesWritten = true;
    }
    return run(this.at.file, ['-c', `core.excludesfile=${this.at.excludes}`, ...args], this.env, this.top, o.input);
  }

  /** Like git(), but a failure throws with git's own words. */
  async must(args: string[], o: { input?: string } = {}): Promise<Buffer> {
    const r = await this.git(args, o);
    if (r.code !== 0) throw new Error(`git ${args[0]}: ${r.err.trim() || `exit ${r.code}`}`);
    return r.out;
  }
}

/** A path as an ignore pattern that matches it alone. */
function escapePattern(path: string): string {
  return path.replace(/[\\*?[\]!#]/g, '\\$&').replace(/ $/, '\\ ');
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, input?: string): Promise<GitRun> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], timeout: GIT_TIMEOUT_MS });
    const out: Buffer[] = [];
    let err = '';
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => {
      if (err.length < 4000) err += d.toString('utf8');
    });
    child.on('error', (e) => resolve({ code: null, out: Buffer.alloc(0), err: e.message }));
    child.on('close', (code, signal) => resolve({ code, out: Buffer.concat(out), err: signal ? `${err}\n(${signal})` : err }));
    if (input !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(input);
    }
  });
}
