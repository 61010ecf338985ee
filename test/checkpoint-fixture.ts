// Checkpoints over real files and a real git, for the suites that drive them directly: a base
// folder per test (workspace, home, state) removed when it ends, the checkpoints of a session with
// what they said, and one turn as the app runs it (start checkpoint, the tools, end checkpoint).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { Checkpoints, type Skipped } from '../src/session/checkpoints.js';
import { planRewind, type FilePlan } from '../src/session/rewindfiles.js';
import { currentTest } from './scope.js';

export type Place = { base: string; ws: string; home: string; state: string; env: NodeJS.ProcessEnv };

export async function place(files: Record<string, string | Buffer> = {}): Promise<Place> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-cp-')));
  onTestFinished(() => rm(base, { recursive: true, force: true }));
  const p = { base, ws: join(base, 'ws'), home: join(base, 'home'), state: join(base, 'state'), env: { PATH: process.env.PATH, HOME: join(base, 'home'), ...currentTest().env } };
  for (const d of [p.ws, p.home]) mkdirSync(d, { recursive: true });
  write(p.ws, files);
  return p;
}

export function write(dir: string, files: Record<string, string | Buffer>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
}

export type Said = { off: unknown[]; failed: string[]; skipped: Skipped[] };

export function open(p: Place, root = p.ws, sessionId = 's1'): { cp: Checkpoints; said: Said } {
  const said: Said = { off: [], failed: [], skipped: [] };
  const events = { off: (w: unknown) => said.off.push(w), failed: (m: string) => said.failed.push(m), skipped: (s: Skipped[]) => said.skipped.push(...s) };
  return { cp: new Checkpoints({ root, stateDir: p.state, sessionId, env: p.env, events }), said };
}

/** One turn: its start checkpoint, `work` (the tools), its end checkpoint. */
export async function turn(cp: Checkpoints, text: string, work: () => unknown): Promise<void> {
  cp.turnStarted(text, { messages: cp.turns.length * 2 });
  await cp.beforeChange();
  await work();
  cp.turnEnded();
  await cp.idle();
}

export const bash = (cwd: string, script: string) => execFileSync('/bin/bash', ['-c', script], { cwd, stdio: 'pipe' });

/**
 * `path` with a git first whose writes stop at a few kilobytes, as on a full disk (it gets the
 * error, not the signal); made in `dir`.
 */
export function fullDiskPath(dir: string, path: string): string {
  const bin = join(dir, 'full-disk-bin');
  mkdirSync(bin, { recursive: true });
  const real = execFileSync('/bin/sh', ['-c', 'command -v git']).toString().trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\ntrap '' XFSZ\nulimit -f 8\nexec ${real} "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return `${bin}:${path}`;
}

/** The plan of a rewind to before turn `n`, which the test expects there to be. */
export async function planned(cp: Checkpoints, n: number): Promise<FilePlan> {
  const plan = await planRewind(cp, n);
  if (!plan || 'error' in plan) throw new Error(`no plan to rewind to turn ${n}: ${JSON.stringify(plan)}`);
  return plan;
}
