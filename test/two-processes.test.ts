// Two real processes running feiyu's code on the same shared file: saved approvals
// (approvals.json, read-modify-write, both at the same moment) and the REPL's input history
// (appended by both, cut back to its cap by one). Neither may lose what the other wrote.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleForChildren } from './child-bundle.js';
import { currentTest } from './scope.js';

let bundle: string;
let dir: string;

beforeAll(async () => {
  bundle = await bundleForChildren(["export { saveApprovals, loadApprovals } from './src/safety/approvals.ts';", "export { History } from './src/ui/history.ts';"]);
});

/** Runs `code` in two node processes at once (`m` is the bundle, `who` is 'A' or 'B'), both starting at the same moment. */
async function inTwoProcesses(code: string): Promise<void> {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-two-')));
  const start = Date.now() + 400;
  const runs = ['A', 'B'].map((who) => {
    const script = `const m = await import(${JSON.stringify(bundle)}); const who = '${who}'; const dir = ${JSON.stringify(dir)};
      while (Date.now() < ${start}); ${code}`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...currentTest().env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    return new Promise<void>((resolve, reject) => child.on('close', (c) => (c === 0 ? resolve() : reject(new Error(`child ${who} failed: ${stderr}`)))));
  });
  await Promise.all(runs);
}

describe('two feiyu processes at once', () => {
  it('save 100 approval rules between them, and all 100 are kept', async () => {
    await inTwoProcesses(`for (let i = 0; i < 50; i++) m.saveApprovals(dir + '/approvals.json', '/work/project', ['bash(make ' + who + i + ')']);`);
    const rules = (JSON.parse(await readFile(join(dir, 'approvals.json'), 'utf8')) as { projects: Record<string, { allow: string[] }> }).projects['/work/project']!.allow;
    expect(rules.length).toBe(100);
    expect(new Set(rules).size).toBe(100);
  });

  it('share the input history: cutting it back to its cap keeps the other process\'s latest entries', async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-two-')));
    const file = join(dir, 'history');
    // A loads the history and types 75 lines; B, started meanwhile, types 20; then A types one more,
    // which makes A cut the file back to its last 50 entries.
    const a = spawn(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(bundle)});
      const h = new m.History(${JSON.stringify(file)}, 50);
      for (let i = 0; i < 75; i++) h.add('A' + i);
      console.log('ready');
      process.stdin.once('data', () => { h.add('A75'); process.exit(0); });`], { env: { ...process.env, ...currentTest().env }, stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise((r) => a.stdout.once('data', r));
    const b = spawn(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(bundle)});
      const h = new m.History(${JSON.stringify(file)}, 50);
      for (let i = 0; i < 20; i++) h.add('B' + i);`], { env: { ...process.env, ...currentTest().env }, stdio: 'inherit' });
    expect(await new Promise((r) => b.on('close', r))).toBe(0);
    a.stdin.write('go\n');
    expect(await new Promise((r) => a.on('close', r))).toBe(0);
    const lines = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as string);
    const range = (who: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${who}${from + i}`);
    expect(lines).toEqual([...range('A', 46, 74), ...range('B', 0, 19), 'A75']);
  });
});
