// Checkpoints: the workspace's files at the start and the end of every turn that changes something
// (bash included), kept as commits of a shadow git repository (shadowgit.ts), and the session's
// turns logged beside them, so both survive --resume. Files over a size, folders of too many new
// files and repositories inside are left out, and said so. Knows nothing of the conversation or
// the interface; putting files back is rewindfiles.ts.
//
// Why a shadow repository and not copies of changed files: bash changes anything, so a copy of
// every file must exist before each turn. On the 3,000-file, 40 MB benchmark tree git keeps that
// in 4.6 MB (copies: 48 MB); a checkpoint then costs ~50 ms (the first of a workspace ~0.5 s),
// while walking and stat-ing the same tree from Node alone takes ~60 ms. Figures: npm run bench.

import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRecord } from './store.js';
import { ShadowGit, type ShadowOff } from './shadowgit.js';

/** A file larger than this is not kept. */
export const MAX_FILE_BYTES = 10 << 20;
/** New content one checkpoint keeps at most; past it, the largest files are left out. */
export const MAX_NEW_BYTES = 200 << 20;
/** New files one checkpoint keeps at most; past it, the folders holding most are left out. */
export const MAX_NEW_FILES = 20_000;
/** Files of a turn named in the log (the count is always whole). */
const FILES_LOGGED = 50;

export const checkpointsDir = (stateDir: string, root: string) => join(stateDir, 'checkpoints', createHash('sha256').update(root).digest('hex').slice(0, 16));

/** Where the conversation stood when a turn began: its message count, and the blocks of the last one when the turn's text joined it. */
export type Position = { messages: number; blocks?: number };

/** One turn of the session: what was asked, when, and its checkpoints (absent: it changed nothing, or none could be made). */
export type Turn = {
  n: number;
  at: string;
  /** The request's first 200 characters, and the hash of all of it (to find it in the conversation). */
  text: string;
  hash: string;
  pos: Position;
  start?: string;
  end?: string;
  /** Files the turn changed (workspace-relative, the first 50) and how many. */
  files?: string[];
  count?: number;
  /** The conversation was rewound to before it. */
  dropped?: boolean;
};

export type SkipReason = 'big' | 'many' | 'repository';
/** Something a checkpoint left out: `size` in bytes, or for 'many' the number of files. */
export type Skipped = { path: string; why: SkipReason; size: number };

/** What happened between two checkpoints by feiyu's doing: a turn (start → end) or a rewind. */
type Span = { from: string; to?: string };

export type CheckpointEvents = {
  off(why: ShadowOff): void;
  failed(message: string): void;
  skipped(items: Skipped[]): void;
};

export const hashText = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** What the user asked in a turn's text: the context hooks added after it left out. */
export const requestOf = (text: string) => text.split('\n\n<hook_context>')[0]!;

/** A workspace-relative path from a top-relative one. */
export const shownPath = (git: ShadowGit, p: string) => (git.scope ? p.slice(git.scope.length + 1) : p);

/** Gives the session `to` the turns and checkpoints of `from` (a fork of it), when it has none yet. */
export function copyLog(stateDir: string, root: string, from: string, to: string): void {
  const dir = checkpointsDir(stateDir, root);
  try {
    if (!existsSync(join(dir, `${to}.jsonl`))) copyFileSync(join(dir, `${from}.jsonl`), join(dir, `${to}.jsonl`));
  } catch {
    // nothing to copy
  }
}

/** The checkpoints of one session. Contract: operations run one at a time, in the order asked. */
export class Checkpoints {
  readonly turns: Turn[] = [];
  readonly spans: Span[] = [];
  private current: Turn | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private shadow: Promise<ShadowGit | ShadowOff> | undefined;
  private last: { commit: string; tree: string } | undefined;
  private readonly reported = new Set<string>();
  private failedOnce = false;
  /** Why the latest checkpoint could not be made (said to the user once a session). */
  lastError: string | undefined;
  /** /undo goes back from here: the turn it put back last, until a new turn starts. */
  undoneTo = Infinity;
  private readonly log: string;
  private readonly index: string;

  constructor(
    private readonly o: { root: string; stateDir: string; sessionId: string; env: NodeJS.ProcessEnv; events: CheckpointEvents },
  ) {
    const dir = checkpointsDir(o.stateDir, o.root);
    this.log = join(dir, `${o.sessionId}.jsonl`);
    this.index = join(dir, `${o.sessionId}.index`);
    this.load();
  }

  get sessionId(): string {
    return this.o.sessionId;
  }

  /** The shadow repository, made on first use; null while checkpoints are off. */
  async git(): Promise<ShadowGit | null> {
    this.shadow ??= this.openShadow();
    const got = await this.shadow;
    return got instanceof ShadowGit ? got : null;
  }

  /** Whether checkpoints are known to be off for this session (no git, the home folder). */
  async off(): Promise<boolean> {
    return (await this.git()) === null;
  }

  /** A turn began (every turn: the conversation can go back to any). */
  turnStarted(text: string, pos: Position): void {
    const n = (this.turns.at(-1)?.n ?? 0) + 1;
    const turn: Turn = { n, at: new Date().toISOString(), text: requestOf(text).slice(0, 200), hash: hashText(text), pos };
    this.turns.push(turn);
    this.current = turn;
    this.undoneTo = Infinity;
    this.append({ type: 'turn', n, at: turn.at, text: turn.text, hash: turn.hash, pos });
  }

  /** Before the turn's first call that may change files: its start checkpoint, once. */
  beforeChange(): Promise<void> {
    const turn = this.current;
    if (!turn || turn.start) return this.idle();
    return this.enqueue(async () => {
      if (turn.start) return;
      const commit = await this.snapshot(`turn ${turn.n} start`);
      if (!commit) return;
      turn.start = commit;
      this.spans.push({ from: commit });
      this.append({ type: 'start', n: turn.n, commit });
    });
  }

  /** The turn ended: its end checkpoint, when it had a start. */
  turnEnded(): void {
    const turn = this.current;
    this.current = undefined;
    if (!turn?.start) return;
    void this.enqueue(async () => {
      const made = await this.snapshotWithNames(`turn ${turn.n} end`);
      if (!made) return;
      const { commit } = made;
      const git = (await this.git())!;
      // The index held the turn's start: what changed since is what the turn changed.
      const names = commit === turn.start ? [] : made.names.sort();
      Object.assign(turn, { end: commit, files: names.slice(0, FILES_LOGGED).map((p) => shownPath(git, p)), count: names.length });
      this.spans.at(-1)!.to = commit;
      this.append({ type: 'end', n: turn.n, commit, files: turn.files, count: turn.count });
    });
  }

  /** Resolves when every checkpoint asked for so far is made. */
  idle(): Promise<void> {
    return this.queue.then(() => {});
  }

  /** Runs `work` after what is queued, before what comes later. */
  enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => {});
    return next;
  }

  /** The turns the conversation still holds, oldest first. */
  listed(): Turn[] {
    return this.turns.filter((t) => !t.dropped);
  }

  /** The first checkpoint at or after turn `n`'s start: the files as they were before it. */
  targetOf(n: number): Turn | undefined {
    return this.turns.find((t) => t.n >= n && t.start);
  }

  /** Notes a rewind: what was put back (`from` → `to` checkpoints), and the turns the conversation left. */
  recorded(n: number, r: { files: boolean; conversation: boolean; undo?: boolean; from?: string; to?: string }): void {
    this.apply(n, r);
    this.append({ type: 'rewind', n, at: new Date().toISOString(), ...r });
  }

  private apply(n: number, r: { conversation?: unknown; undo?: unknown; from?: unknown; to?: unknown }): void {
    if (typeof r.from === 'string' && typeof r.to === 'string') this.spans.push({ from: r.from, to: r.to });
    if (r.conversation === true) for (const t of this.turns) if (t.n >= n) t.dropped = true;
    if (r.undo === true) this.undoneTo = n;
  }

  /**
   * A checkpoint of the workspace now (queued after the others); null when checkpoints are off or
   * it failed (said through the events). Ignored files and what is too big are left out.
   */
  now(label: string): Promise<string | null> {
    return this.enqueue(() => this.snapshot(label));
  }

  /** Top-relative paths that differ between two checkpoints. */
  async changed(git: ShadowGit, a: string, b: string): Promise<string[]> {
    const out = await git.must(['diff-tree', '-r', '-z', '--no-renames', '--name-only', a, b, '--', git.here]);
    return out.toString('utf8').split('\0').filter(Boolean);
  }

  private async snapshot(label: string): Promise<string | null> {
    return (await this.snapshotWithNames(label))?.commit ?? null;
  }

  /** A checkpoint, and the files that changed since the one before in this session. */
  private async snapshotWithNames(label: string): Promise<{ commit: string; names: string[] } | null> {
    const git = await this.git();
    if (!git) return null;
    try {
      return await this.commit(git, label);
    } catch (err) {
      this.fail((err as Error).message);
      return null;
    }
  }

  /**
   * status (one walk of the workspace) finds what changed since the index; those paths, less what
   * is left out, go into the index; the index becomes a tree and a commit on the session's ref.
   */
  private async commit(git: ShadowGit, label: string): Promise<{ commit: string; names: string[] }> {
    // The index is this session's alone and its checkpoints run one at a time: a lock on it now was
    // left by a git killed mid-checkpoint (this process's or an earlier one's), and would stop every later one.
    rmSync(`${this.index}.lock`, { force: true });
    const status = parseStatus(await git.must(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all', '--', git.here]));
    if (!status.length && this.last) return { commit: this.last.commit, names: [] };
    const skipped = await this.leftOut(git, status);
    const leaving = status.filter((e) => !e.untracked && skipped.has(e.path)).map((e) => e.path);
    if (leaving.length) await git.must(['update-index', '--force-remove', '-z', '--stdin'], { input: leaving.join('\0') + '\0' });
    const kept = status.filter((e) => !skipped.has(e.path) && ![...skipped.keys()].some((k) => k.endsWith('/') && e.path.startsWith(k))).map((e) => e.path);
    if (kept.length) await git.must(['update-index', '--add', '--remove', '-z', '--stdin'], { input: kept.join('\0') + '\0' });
    const tree = (await git.must(['write-tree'])).toString().trim();
    this.report(git, [...skipped.values()]);
    if (this.last?.tree === tree) return { commit: this.last.commit, names: kept };
    const parent = this.last ? ['-p', this.last.commit] : [];
    const commit = (await git.must(['commit-tree', tree, '-m', label, ...parent])).toString().trim();
    git.setRef(`refs/feiyu/${this.o.sessionId}`, commit);
    this.last = { commit, tree };
    return { commit, names: kept };
  }

  /** What this checkpoint leaves out, by top-relative path (a folder ends in '/'). */
  private async leftOut(git: ShadowGit, status: StatusEntry[]): Promise<Map<string, Skipped>> {
    const out = new Map<string, Skipped>();
    const present = status.filter((e) => !e.deleted);
    const sizes = await Promise.all(present.map((e) => (e.path.endsWith('/') ? null : lstat(join(git.top, e.path)).then((st) => (st.isFile() ? st.size : 0), () => null))));
    const kept: { path: string; size: number; untracked: boolean }[] = [];
    present.forEach((e, i) => {
      const size = sizes[i];
      // git shows a repository inside the workspace as its folder: its files are its own.
      if (e.path.endsWith('/')) out.set(e.path, { path: e.path, why: 'repository', size: 0 });
      else if (size !== null && size !== undefined && size > MAX_FILE_BYTES) out.set(e.path, { path: e.path, why: 'big', size });
      else if (size !== null && size !== undefined) kept.push({ path: e.path, size, untracked: e.untracked });
    });
    const fresh = kept.filter((k) => k.untracked);
    if (fresh.length > MAX_NEW_FILES) {
      const prefix = git.scope ? git.scope + '/' : '';
      const groups = new Map<string, number>();
      for (const f of fresh) {
        const rest = f.path.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash > 0) groups.set(prefix + rest.slice(0, slash + 1), (groups.get(prefix + rest.slice(0, slash + 1)) ?? 0) + 1);
      }
      let left = fresh.length;
      for (const [dir, n] of [...groups].sort((a, b) => b[1] - a[1])) {
        if (left <= MAX_NEW_FILES) break;
        out.set(dir, { path: dir, why: 'many', size: n });
        left -= n;
      }
    }
    const inGroup = (p: string) => [...out.keys()].some((k) => k.endsWith('/') && p.startsWith(k));
    let bytes = 0;
    const rest = kept.filter((k) => !inGroup(k.path)).sort((a, b) => a.size - b.size);
    for (const k of rest) {
      bytes += k.size;
      if (bytes > MAX_NEW_BYTES) out.set(k.path, { path: k.path, why: 'big', size: k.size });
    }
    return out;
  }

  /** Says once per session what checkpoints leave out. */
  private report(git: ShadowGit, skipped: Skipped[]): void {
    const fresh = skipped.filter((s) => !this.reported.has(s.path));
    for (const s of fresh) this.reported.add(s.path);
    if (fresh.length) this.o.events.skipped(fresh.map((s) => ({ ...s, path: shownPath(git, s.path) })));
  }

  private fail(message: string): void {
    this.lastError = message;
    if (this.failedOnce) return;
    this.failedOnce = true;
    this.o.events.failed(message);
  }

  private async openShadow(): Promise<ShadowGit | ShadowOff> {
    const dir = checkpointsDir(this.o.stateDir, this.o.root);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // A new session starts from the latest index of this workspace: git then hashes only what changed since.
      if (!existsSync(this.index)) {
        const latest = readdirSync(dir)
          .filter((f) => f.endsWith('.index'))
          .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
          .sort((a, b) => b.at - a.at)[0];
        if (latest) copyFileSync(join(dir, latest.f), this.index);
      }
    } catch (err) {
      return this.turnedOff({ off: 'failed', detail: (err as Error).message });
    }
    const got = await ShadowGit.open({ root: this.o.root, dir, index: this.index, env: this.o.env, stateDir: this.o.stateDir });
    if (!(got instanceof ShadowGit)) return this.turnedOff(got);
    const head = await got.git(['rev-parse', '--verify', '-q', `refs/feiyu/${this.o.sessionId}`, `refs/feiyu/${this.o.sessionId}^{tree}`]);
    const [commit, tree] = head.out.toString().trim().split('\n');
    if (head.code === 0 && commit && tree) this.last = { commit, tree };
    return got;
  }

  private turnedOff(why: ShadowOff): ShadowOff {
    this.o.events.off(why);
    return why;
  }

  private append(record: Record<string, unknown>): void {
    try {
      mkdirSync(checkpointsDir(this.o.stateDir, this.o.root), { recursive: true, mode: 0o700 });
      appendFileSync(this.log, JSON.stringify(record) + '\n', { mode: 0o600 });
    } catch (err) {
      this.fail((err as Error).message);
    }
  }

  /** The session's log as it was left (--resume); a torn or foreign line is skipped. */
  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.log, 'utf8');
    } catch {
      return;
    }
    const byN = new Map<number, Turn>();
    for (const line of text.split('\n')) {
      const r = parseRecord(line);
      if (!r || typeof r.n !== 'number') continue;
      const turn = byN.get(r.n);
      if (r.type === 'turn' && typeof r.text === 'string' && typeof r.hash === 'string' && typeof r.at === 'string') {
        const t: Turn = { n: r.n, at: r.at, text: r.text, hash: r.hash, pos: r.pos as Position };
        byN.set(r.n, t);
        this.turns.push(t);
        this.undoneTo = Infinity;
      } else if (r.type === 'start' && turn && typeof r.commit === 'string') {
        turn.start = r.commit;
        this.spans.push({ from: r.commit });
      } else if (r.type === 'end' && turn?.start && typeof r.commit === 'string') {
        Object.assign(turn, { end: r.commit, files: Array.isArray(r.files) ? r.files : [], count: typeof r.count === 'number' ? r.count : 0 });
        const span = [...this.spans].reverse().find((s) => s.from === turn.start);
        if (span) span.to = r.commit;
      } else if (r.type === 'rewind') {
        this.apply(r.n, r);
      }
    }
  }
}

type StatusEntry = { path: string; untracked: boolean; deleted: boolean };

/**
 * `git status --porcelain=v1 -z --no-renames`: "XY path" entries. The shadow has no HEAD, so X
 * (index against HEAD) says nothing: what changed in the workspace is Y, or "??" when new.
 */
function parseStatus(out: Buffer): StatusEntry[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter((e) => e.length > 3 && (e.startsWith('??') || e[1] !== ' '))
    .map((e) => ({ path: e.slice(3), untracked: e.startsWith('??'), deleted: e[1] === 'D' }));
}
