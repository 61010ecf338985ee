// When commands cannot be contained (no bwrap), a record of the process groups they run in:
// <state>/groups/<feiyu pid>.json lists each group's leader and its start time while it runs, so
// that the next feiyu stops what a killed one left behind. Process-wide, like a pid file: one
// record per process, whichever tool spawned the group.

import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './lock.js';

const groupsDir = (stateDir: string) => join(stateDir, 'groups');
let recordFile: string | undefined;
/** Leader pid → its start time (clock ticks since boot), which tells it from a later process with the same pid. */
const running = new Map<number, string>();

/** From now on, groups noted with noteGroup are recorded under `stateDir`. */
export function recordGroupsIn(stateDir: string): void {
  recordFile = join(groupsDir(stateDir), `${process.pid}.json`);
}

/** The start time of process `pid` from /proc, or undefined when it is gone. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces): state is field 3, start time field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function save(): void {
  if (!recordFile) return;
  try {
    if (running.size === 0) return void unlinkSync(recordFile);
    mkdirSync(join(recordFile, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(`${recordFile}.tmp`, JSON.stringify([...running].map(([pid, start]) => ({ pid, start }))), { mode: 0o600 });
    renameSync(`${recordFile}.tmp`, recordFile);
  } catch {
    // A record that cannot be written only costs the clean-up after a kill.
  }
}

/** A group was started with `pid` as its leader (a no-op unless recordGroupsIn was called). */
export function noteGroup(pid: number): void {
  if (!recordFile) return;
  const start = startTime(pid);
  if (start === undefined) return;
  running.set(pid, start);
  save();
}

/** The group led by `pid` is over. */
export function forgetGroup(pid: number): void {
  if (running.delete(pid)) save();
}

/**
 * Stops the groups recorded by feiyu processes that are gone (killed before they could) and
 * removes their records. Returns how many groups were still running.
 */
export function reapOrphanGroups(stateDir: string): number {
  let names: string[];
  try {
    names = readdirSync(groupsDir(stateDir));
  } catch {
    return 0;
  }
  let stopped = 0;
  for (const name of names) {
    const owner = Number(/^(\d+)\.json$/.exec(name)?.[1] ?? 0);
    if (!owner || owner === process.pid || processAlive(owner)) continue;
    const file = join(groupsDir(stateDir), name);
    let groups: { pid: number; start: string }[] = [];
    try {
      groups = JSON.parse(readFileSync(file, 'utf8')) as typeof groups;
    } catch {
      // torn: nothing to go on
    }
    for (const { pid, start } of Array.isArray(groups) ? groups : []) {
      const now = startTime(pid);
      // The leader is still the same process, or it is gone and its group lives on (a group id is
      // not given to a new process while the group exists): either way the group is ours.
      if (now !== undefined && now !== start) continue;
      try {
        process.kill(-pid, 'SIGKILL');
        stopped++;
      } catch {
        // already gone
      }
    }
    try {
      unlinkSync(file);
    } catch {
      // another feiyu reaped it first
    }
  }
  return stopped;
}
