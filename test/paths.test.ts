import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileVersion, inside, relPath, resolveInWorkspace, writeInside } from '../src/util/paths.js';
import { workspace } from './tools-helpers.js';

describe('resolveInWorkspace', () => {
  it('resolves relative and absolute paths inside the workspace', async () => {
    const { root } = await workspace({ 'src/a.ts': 'x' });
    expect(await resolveInWorkspace(root, 'src/a.ts')).toEqual({ ok: true, abs: join(root, 'src/a.ts'), real: join(root, 'src/a.ts'), exists: true, isDir: false });
    expect(await resolveInWorkspace(root, join(root, 'src'))).toEqual({ ok: true, abs: join(root, 'src'), real: join(root, 'src'), exists: true, isDir: true });
    expect(await resolveInWorkspace(root, '.')).toEqual({ ok: true, abs: root, real: root, exists: true, isDir: true });
  });

  it('resolves a missing file through its deepest existing ancestor', async () => {
    const { root } = await workspace({ 'src/a.ts': 'x' });
    await symlink(join(root, 'src'), join(root, 'link'));
    expect(await resolveInWorkspace(root, 'link/new/deep.ts')).toEqual({
      ok: true, abs: join(root, 'link/new/deep.ts'), real: join(root, 'src/new/deep.ts'), exists: false, isDir: false,
    });
  });

  it('refuses paths that leave the workspace', async () => {
    const { root } = await workspace();
    const base = dirname(root);
    await mkdir(join(base, 'ws2'));
    await writeFile(join(base, 'secret'), 'x');
    expect(await resolveInWorkspace(root, '../x')).toEqual({ ok: false, error: `path ../x is outside the workspace ${root}` });
    expect(await resolveInWorkspace(root, '/etc/passwd')).toEqual({ ok: false, error: `path /etc/passwd is outside the workspace ${root}` });
    // A sibling whose name starts with the root's name is still outside.
    const sibling = join(base, 'ws2', 'x');
    expect(await resolveInWorkspace(root, sibling)).toEqual({ ok: false, error: `path ${sibling} is outside the workspace ${root}` });
    expect(await resolveInWorkspace(root, '../ws2/x')).toEqual({ ok: false, error: `path ../ws2/x is outside the workspace ${root}` });
  });

  it('refuses symbolic links that point out, to files, folders and missing targets', async () => {
    const { root } = await workspace();
    const base = dirname(root);
    await writeFile(join(base, 'secret'), 'x');
    await symlink(join(base, 'secret'), join(root, 'out-file'));
    await symlink(base, join(root, 'out-dir'));
    await symlink(join(base, 'nowhere'), join(root, 'dangling'));
    expect(await resolveInWorkspace(root, 'out-file')).toEqual({
      ok: false, error: `path out-file resolves to ${join(base, 'secret')} (through a symbolic link), outside the workspace ${root}`,
    });
    expect(await resolveInWorkspace(root, 'out-dir/new.txt')).toEqual({
      ok: false, error: `path out-dir/new.txt resolves to ${join(base, 'new.txt')} (through a symbolic link), outside the workspace ${root}`,
    });
    expect(await resolveInWorkspace(root, 'dangling')).toEqual({
      ok: false, error: `path dangling: ${join(root, 'dangling')} is a symbolic link to a missing target`,
    });
  });

  it('refuses FIFOs, ~ paths, and a file used as a folder', async () => {
    const { root } = await workspace({ 'a.txt': 'x' });
    execFileSync('mkfifo', [join(root, 'pipe')]);
    expect(await resolveInWorkspace(root, 'pipe')).toEqual({ ok: false, error: 'path pipe is a FIFO (named pipe); only regular files and folders can be used' });
    expect(await resolveInWorkspace(root, '/dev/null')).toMatchObject({ ok: false });
    expect(await resolveInWorkspace(root, '~/x')).toEqual({
      ok: false, error: `path ~/x: ~ is not expanded; give a path relative to the workspace ${root} or an absolute path inside it`,
    });
    expect(await resolveInWorkspace(root, 'a.txt/b')).toEqual({ ok: false, error: 'path a.txt/b: a part of it is a file, not a folder' });
    expect(await resolveInWorkspace(root, '')).toEqual({ ok: false, error: 'path is empty' });
  });
});

describe('helpers', () => {
  it('inside compares whole path segments', () => {
    expect([inside('/a/ws', '/a/ws'), inside('/a/ws', '/a/ws/x'), inside('/a/ws', '/a/ws2/x'), inside('/a/ws', '/a'), inside('/', '/x')]).toEqual([
      true, true, false, false, true,
    ]);
    expect([relPath('/a/ws', '/a/ws'), relPath('/a/ws', '/a/ws/src/b.ts')]).toEqual(['.', 'src/b.ts']);
  });

  it('fileVersion hashes the bytes', async () => {
    const { root } = await workspace({ 'a.txt': 'hello' });
    const st = await stat(join(root, 'a.txt'));
    expect(await fileVersion(join(root, 'a.txt'))).toEqual({
      hash: createHash('sha256').update('hello').digest('hex'), size: 5, mtimeMs: st.mtimeMs,
    });
  });

  it('writeInside keeps the file mode (the executable bits set or cleared when asked) and leaves no temporary file', async () => {
    const { root } = await workspace({ 'run.sh': 'echo old' });
    await chmod(join(root, 'run.sh'), 0o750);
    const version = await writeInside(root, join(root, 'run.sh'), Buffer.from('echo new'));
    expect((await stat(join(root, 'run.sh'))).mode & 0o777).toBe(0o750);
    expect(version).toEqual(await fileVersion(join(root, 'run.sh')));
    expect(await readdir(root)).toEqual(['run.sh']);
    await writeInside(root, join(root, 'run.sh'), Buffer.from('echo new'), { executable: false });
    expect((await stat(join(root, 'run.sh'))).mode & 0o777).toBe(0o640);
    await writeInside(root, join(root, 'run.sh'), Buffer.from('echo new'), { executable: true });
    expect((await stat(join(root, 'run.sh'))).mode & 0o777).toBe(0o750);
    await writeInside(root, join(root, 'new/dir/f.txt'), Buffer.from('x'));
    expect(await readdir(join(root, 'new/dir'))).toEqual(['f.txt']);
  });
});
