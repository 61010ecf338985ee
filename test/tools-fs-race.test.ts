// The file tools against a racing attacker: a process swapping a folder (or the file itself) for
// a symbolic link to a folder outside the workspace, as fast as it can, while read_file,
// write_file and edit_file run hundreds of times. Nothing outside may be read or written. And
// confinement by inode: a hard link to a file outside the workspace is not read.
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool, readFileTool, writeFileTool } from '../src/tools/fs.js';
import { workspace } from './tools-helpers.js';
import { swapper } from './attacks.js';

const ROUNDS = 200;

/** As runTool runs a tool: a throw (a file vanishing mid-swap) is an error result. */
const safely = (p: Promise<{ output: string; isError?: boolean }>) => p.catch((err: Error) => ({ output: `failed: ${err.message}`, isError: true }));

async function outsideOf(root: string): Promise<string> {
  const outside = join(dirname(root), 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'f.txt'), 'OUTSIDE_SECRET\n');
  return outside;
}

describe('file tools under a symlink race', () => {
  it('read_file never returns a file outside, through a swapped folder or a swapped file', async () => {
    const ctx = await workspace({ 'dir/f.txt': 'public\n', 'g.txt': 'public\n' });
    const outside = await outsideOf(ctx.root);
    const stops = [swapper(join(ctx.root, 'dir'), outside), swapper(join(ctx.root, 'g.txt'), join(outside, 'f.txt'))];
    const outputs: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      outputs.push((await safely(readFileTool.run({ path: 'dir/f.txt' }, ctx))).output, (await safely(readFileTool.run({ path: 'g.txt' }, ctx))).output);
    }
    for (const stop of stops) await stop();
    expect(outputs.filter((o) => o.includes('OUTSIDE_SECRET'))).toEqual([]);
    // The race was real: some reads went through, some saw the link and said so.
    expect(outputs.some((o) => o.includes('public'))).toBe(true);
  });

  it('write_file and edit_file never write outside, through a swapped folder or a swapped file', async () => {
    const ctx = await workspace({ 'dir/keep.txt': 'x\n', 'g.txt': 'public\n' });
    const outside = await outsideOf(ctx.root);
    await readFileTool.run({ path: 'g.txt' }, ctx);
    const stops = [swapper(join(ctx.root, 'dir'), outside), swapper(join(ctx.root, 'g.txt'), join(outside, 'f.txt'))];
    let wrote = 0;
    const edits: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (!(await safely(writeFileTool.run({ path: `dir/new-${i}.txt`, content: 'PLANTED\n' }, ctx))).isError) wrote++;
      const forth = await safely(editFileTool.run({ path: 'g.txt', old_string: 'public\n', new_string: 'public \n' }, ctx));
      const back = await safely(editFileTool.run({ path: 'g.txt', old_string: 'public \n', new_string: 'public\n' }, ctx));
      edits.push(forth.output, back.output);
    }
    for (const stop of stops) await stop();
    expect(readdirSync(outside)).toEqual(['f.txt']);
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE_SECRET\n');
    // A failed match quotes the file: it must never be the file outside.
    expect(edits.filter((o) => o.includes('OUTSIDE_SECRET'))).toEqual([]);
    expect(wrote).toBeGreaterThan(0);
  });
});

describe('confinement by inode', () => {
  it('a hard link to a file outside the workspace is neither read nor edited', async () => {
    const ctx = await workspace();
    const outside = await outsideOf(ctx.root);
    linkSync(join(outside, 'f.txt'), join(ctx.root, 'h.txt'));
    const refusal = 'h.txt has 2 hard links; another name of the same file may be outside the workspace, so file tools do not read it. Ask the user if you need it.';
    expect(await readFileTool.run({ path: 'h.txt' }, ctx)).toEqual({ output: refusal, isError: true });
    expect(await editFileTool.run({ path: 'h.txt', old_string: 'OUTSIDE', new_string: 'x' }, ctx)).toEqual({ output: refusal, isError: true });
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE_SECRET\n');
    expect(existsSync(join(ctx.root, 'h.txt'))).toBe(true);
  });
});
