// Putting the workspace's files back to a checkpoint (checkpoints.ts): what differs between it and
// the files now, which of those something other than feiyu changed since (the caller asks before
// overwriting them), the restore itself from the shadow repository, writes and removals that never
// follow a link; and the session's changes as a patch (/diff). Decides nothing about the conversation.

import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { symlinkInside, unlinkInside, writeInside } from '../util/paths.js';
import { shownPath, type Checkpoints } from './checkpoints.js';
import type { ShadowGit } from './shadowgit.js';

/** Paths are relative to the shadow's work tree top (shown(): to the workspace). */
export type FilePlan = {
  /** The turn the files go back to before, and its checkpoint. */
  turn: number;
  target: string;
  /** The checkpoint of the files just before the rewind (kept: a rewind can be rewound). */
  now: string;
  /** Changed or deleted since: written back. */
  restore: string[];
  /** Created since: removed. */
  remove: string[];
  /** Of those, changed since by something other than feiyu's turns (the user, an editor, a job). */
  conflicts: string[];
  /** Left as they are: too big (or in too large a folder) for the checkpoint before the rewind. */
  tooBig: string[];
  shown(path: string): string;
};

export type FileOutcome = { restored: string[]; removed: string[]; kept: string[]; tooBig: string[]; failed: { path: string; why: string }[]; after?: string };

/** At most this many intervals between feiyu's own changes are compared for conflicts. */
const MAX_INTERVALS = 200;

/**
 * What putting the files back to before turn `n` would do; null when nothing was checkpointed
 * from then on; why not when the files as they are now cannot be checkpointed (a full disk).
 * `turnOnly` (/undo): only the files that turn itself changed.
 */
export async function planRewind(cp: Checkpoints, n: number, turnOnly = false): Promise<FilePlan | { error: string } | null> {
  const target = cp.targetOf(n);
  const git = await cp.git();
  if (!target?.start || !git) return null;
  const now = await cp.now(`before rewind to turn ${n}`);
  if (!now) return { error: cp.lastError ?? 'unknown' };
  const plan: FilePlan = { turn: n, target: target.start, now, restore: [], remove: [], conflicts: [], tooBig: [], shown: (p) => shownPath(git, p) };
  const fields = (await git.must(['diff-tree', '-r', '-z', '--no-renames', '--name-status', target.start, now, '--', git.here])).toString('utf8').split('\0');
  const own = turnOnly && target.end ? new Set(await cp.changed(git, target.start, target.end)) : undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [status, path] = [fields[i]!, fields[i + 1]!];
    if (own && !own.has(path)) continue;
    if (status === 'A') plan.remove.push(path);
    // Gone from the checkpoint but still on disk: it was left out of it, not deleted.
    else if (status === 'D' && (await exists(join(git.top, path)))) plan.tooBig.push(path);
    else plan.restore.push(path);
  }
  const touched = new Set([...plan.restore, ...plan.remove]);
  const outside = await changedOutside(cp, git, target.start, now);
  plan.conflicts = [...touched].filter((p) => outside.has(p));
  return plan;
}

/**
 * The paths changed between feiyu's own doings from `from` on: after each turn's end (or rewind)
 * and before the next one's start, and since the last until `now`. A turn killed before its end
 * checkpoint leaves a gap that cannot be told apart: it counts as feiyu's.
 */
async function changedOutside(cp: Checkpoints, git: ShadowGit, from: string, now: string): Promise<Set<string>> {
  const first = cp.spans.findIndex((s) => s.from === from);
  const spans = cp.spans.slice(Math.max(0, first)).slice(-MAX_INTERVALS);
  const out = new Set<string>();
  for (let i = 0; i < spans.length; i++) {
    const a = spans[i]!.to;
    const b = spans[i + 1]?.from ?? now;
    if (!a || a === b) continue;
    for (const p of await cp.changed(git, a, b)) out.add(p);
  }
  return out;
}

/**
 * Puts the files back as `plan` says; the conflicts too only with `overwrite`. Removals come
 * first (a folder that was a file). Every write and removal goes through a descriptor of its
 * folder (util/paths.ts): a symbolic link swapped into the workspace cannot send it outside.
 */
export async function applyRewind(cp: Checkpoints, plan: FilePlan, overwrite: boolean): Promise<FileOutcome> {
  const git = (await cp.git())!;
  const kept = overwrite ? [] : plan.conflicts;
  const skip = new Set(kept);
  const restore = plan.restore.filter((p) => !skip.has(p));
  const remove = plan.remove.filter((p) => !skip.has(p));
  const outcome: FileOutcome = { restored: [], removed: [], kept: kept.map(plan.shown), tooBig: plan.tooBig.map(plan.shown), failed: [] };
  await cp.enqueue(async () => {
    for (const p of remove) {
      const done = await unlinkInside(git.root, join(git.top, p)).then(() => null, (err: Error) => err.message);
      if (done) outcome.failed.push({ path: plan.shown(p), why: done });
      else outcome.removed.push(plan.shown(p));
    }
    for (const [p, why] of await writeBack(git, plan.target, restore)) {
      if (why) outcome.failed.push({ path: plan.shown(p), why });
      else outcome.restored.push(plan.shown(p));
    }
  });
  outcome.after = (await cp.now(`rewound to turn ${plan.turn}`)) ?? undefined;
  return outcome;
}

/** Contents read from git at once at most (a checkpoint keeps no file over 10 MB). */
const BATCH_BYTES = 64 << 20;

type Entry = { mode: string; sha: string; size: number; path: string };

/** Writes `paths` back as the checkpoint `source` holds them; each path's error, or null. */
async function writeBack(git: ShadowGit, source: string, paths: string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>(paths.map((p) => [p, 'not in the checkpoint']));
  if (!paths.length) return out;
  const listing = (await git.must(['ls-tree', '-r', '-z', '-l', source, '--', git.here])).toString('utf8').split('\0');
  const entries: Entry[] = [];
  for (const line of listing) {
    const tab = line.indexOf('\t');
    const [mode, , sha, size] = line.slice(0, tab).split(/ +/);
    if (tab > 0 && out.has(line.slice(tab + 1))) entries.push({ mode: mode!, sha: sha!, size: Number(size) || 0, path: line.slice(tab + 1) });
  }
  for (let i = 0; i < entries.length; ) {
    const batch: Entry[] = [];
    for (let bytes = 0; i < entries.length && (batch.length === 0 || bytes + entries[i]!.size <= BATCH_BYTES); i++) {
      bytes += entries[i]!.size;
      batch.push(entries[i]!);
    }
    const blobs = parseBatch(await git.must(['cat-file', '--batch'], { input: batch.map((e) => e.sha).join('\n') + '\n' }));
    for (const e of batch) {
      const bytes = blobs.get(e.sha);
      const real = join(git.top, e.path);
      const write = !bytes
        ? Promise.reject(new Error('missing from the checkpoint'))
        : e.mode === '120000'
          ? symlinkInside(git.root, real, bytes.toString('utf8'))
          : // Sweeping a folder's stale temporary files at each of hundreds of writes would read it hundreds of times.
            writeInside(git.root, real, bytes, { executable: e.mode === '100755', sweep: false });
      out.set(e.path, await write.then(() => null, (err: Error) => err.message));
    }
  }
  return out;
}

/** `git cat-file --batch` output: "<sha> <type> <size>\n<bytes>\n" for each object asked. */
function parseBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  for (let at = 0; at < out.length; ) {
    const eol = out.indexOf(10, at);
    if (eol < 0) break;
    const [sha, type, size] = out.subarray(at, eol).toString().split(' ');
    if (type === 'missing' || size === undefined) {
      at = eol + 1;
      continue;
    }
    blobs.set(sha!, out.subarray(eol + 1, eol + 1 + Number(size)));
    at = eol + 1 + Number(size) + 1;
  }
  return blobs;
}

const exists = (p: string) => lstat(p).then(() => true, () => false);

/** The session's changes so far: a patch from its first checkpoint to the files now (paths workspace-relative); null without checkpoints. */
export async function sessionPatch(cp: Checkpoints): Promise<{ patch: string; files: string[] } | null> {
  const first = cp.turns.find((t) => t.start)?.start;
  const git = await cp.git();
  if (!first || !git) return null;
  const now = await cp.now('diff');
  if (!now) return null;
  const relative = git.scope ? [`--relative=${git.scope}`] : [];
  const files = (await cp.changed(git, first, now)).map((p) => shownPath(git, p));
  if (!files.length) return { patch: '', files };
  const patch = await git.must(['diff-tree', '-r', '-p', '-M', '--no-color', '--no-ext-diff', '--no-textconv', ...relative, first, now, '--', git.here]);
  return { patch: patch.toString('utf8'), files };
}
