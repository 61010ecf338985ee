// A workspace, a home with credentials and a folder outside, made for one test file's bash analyses.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { analyzeBash, type BashAnalysis } from '../src/safety/bash/analysis.js';

export const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-bash-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
export const root = join(base, 'ws');
export const home = join(base, 'home');
export const outside = join(base, 'outside');
export const configDir = join(home, '.config', 'feiyu');
for (const d of [join(root, 'src'), join(root, 'bin'), join(root, 'links'), join(home, '.ssh'), join(home, '.aws'), configDir, outside]) {
  mkdirSync(d, { recursive: true });
}
for (const f of ['src/a.ts', 'src/b.ts', '.env', '.env.example', '.envrc', 'README.md']) writeFileSync(join(root, f), 'x');
for (const f of ['.ssh/id_rsa', '.ssh/config', '.aws/credentials', '.aws/config', '.netrc', '.config/feiyu/keys.json']) writeFileSync(join(home, f), 'x');
writeFileSync(join(root, 'bin', 'git'), '#!/bin/sh\n');
chmodSync(join(root, 'bin', 'git'), 0o755);
symlinkSync(outside, join(root, 'links', 'out'));
symlinkSync(join(home, '.ssh'), join(root, 'links', 'keys'));

export const ctx = { root, cwd: root, home, configDir, path: '/usr/bin:/bin' };
export const analyze = (command: string, over: Partial<typeof ctx> = {}) => analyzeBash(command, { ...ctx, ...over });

export type Summary = { verdict: BashAnalysis['verdict']; code?: string; destructive: boolean };
export const summary = (r: BashAnalysis): Summary => ({ verdict: r.verdict, code: r.code, destructive: r.destructive });
export const safe: Summary = { verdict: 'safe', code: undefined, destructive: false };
export const ask = (code: string, destructive = false): Summary => ({ verdict: 'ask', code, destructive });
export const deny: Summary = { verdict: 'deny', code: 'secret', destructive: false };
export const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
export const nest = (cmd: string, n: number): string => (n === 0 ? cmd : nest(`sh -c ${q(cmd)}`, n - 1));
