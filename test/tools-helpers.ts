// Shared by the tools tests: a real temporary workspace and a ToolContext over it, whose commands
// belong to the test (test/scope.ts).

import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { ToolContext } from '../src/types/tools.js';
import { currentTest } from './scope.js';

/** A fresh workspace holding `files` (path → content), removed when the test ends; what its commands start is killed then. */
export async function workspace(files: Record<string, string | Buffer> = {}): Promise<ToolContext> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-tools-')));
  onTestFinished(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'ws');
  await mkdir(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return { root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: { ...process.env, ...currentTest().env } };
}
