// The repository facts' git runs: a run that hangs past its time is ended with everything it
// started (its whole process group), and the facts are then unknown rather than guessed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createGitFacts } from '../src/app/gitfacts.js';
import { alive, currentTest, waitFor } from './scope.js';

const dir = mkdtempSync(join(tmpdir(), 'feiyu-gitfacts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a git run past its time is ended with its children, and the answer is unknown', async () => {
  const pidFile = join(dir, 'grandchild');
  let released = 0;
  // Stands in for a git that started a helper and hangs: the shell waits on a sleep of its own.
  const launch = () => ({
    file: '/bin/bash',
    args: ['-c', `sleep 300 & echo $! > ${pidFile}; wait`],
    env: { ...process.env, ...currentTest().env },
    release: () => void released++,
  });
  const facts = createGitFacts(launch, process.env, 300);
  expect(await facts.changed(dir)).toBeNull();
  const grandchild = Number(readFileSync(pidFile, 'utf8'));
  await waitFor(() => !alive(grandchild), 'the hanging helper to be gone');
  expect(released).toBe(1);
});
