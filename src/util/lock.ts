// Lock files beside the files they guard (`<file>.lock`, holding the owner's pid): a short lock
// around a read-modify-write of a small file, and a long one held while a session is open. A
// lock whose process is gone is taken over. Synchronous, so callers' contracts stay simple.

import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';

/** A short lock older than this belongs to a process that hung or died mid-update. */
const SHORT_STALE_MS = 10_000;
const WAIT_STEP_MS = 10;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

export type Held = { release(): void };

/** The pid in a lock file; undefined when it cannot be read (being written, or gone). */
function holderOf(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (ours or another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates the lock file holding our pid; false when it exists. */
function create(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

function held(lock: string): Held {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (holderOf(lock) === process.pid) unlinkSafely(lock);
    },
  };
}

function unlinkSafely(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/**
 * Takes the lock when it is free or its holder is gone. Two processes breaking the same stale lock
 * at once could both think they won: the winner is whoever's pid is in the file a moment later.
 */
function tryTake(lock: string, stale: (pid: number | undefined) => boolean): Held | { heldBy: number } {
  if (create(lock)) return held(lock);
  const pid = holderOf(lock);
  if (pid === process.pid) return held(lock);
  if (!stale(pid)) return { heldBy: pid ?? 0 };
  unlinkSafely(lock);
  if (!create(lock)) return { heldBy: holderOf(lock) ?? 0 };
  sleepSync(WAIT_STEP_MS);
  return holderOf(lock) === process.pid ? held(lock) : { heldBy: holderOf(lock) ?? 0 };
}

/**
 * A lock held for a long time (a session open in this process). Returns the holder's pid when
 * another live process has it. Throws only when the lock file cannot be created at all.
 */
export function acquireLock(lock: string): Held | { heldBy: number } {
  return tryTake(lock, (pid) => pid === undefined || !processAlive(pid));
}

/**
 * Runs `fn` holding `<file>.lock`, waiting up to `timeoutMs` for another process's update to end.
 * When the lock cannot be had (a read-only folder, a holder that will not let go) `fn` runs
 * anyway: a lost update is better than no update.
 */
export function withFileLock<T>(file: string, fn: () => T, timeoutMs = 5000): T {
  const lock = `${file}.lock`;
  const stale = (pid: number | undefined) => pid === undefined ? olderThan(lock, SHORT_STALE_MS) : !processAlive(pid) || olderThan(lock, SHORT_STALE_MS);
  let taken: Held | undefined;
  for (const deadline = Date.now() + timeoutMs; !taken && Date.now() < deadline; ) {
    let got: Held | { heldBy: number };
    try {
      got = tryTake(lock, stale);
    } catch {
      break;
    }
    if ('release' in got) taken = got;
    else sleepSync(WAIT_STEP_MS);
  }
  try {
    return fn();
  } finally {
    taken?.release();
  }
}

function olderThan(path: string, ms: number): boolean {
  const st = statSync(path, { throwIfNoEntry: false });
  return st !== undefined && Date.now() - st.mtimeMs > ms;
}
