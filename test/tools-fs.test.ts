import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sniffType } from '../src/content/filetype.js';
import { editFileTool, readFileTool, writeFileTool } from '../src/tools/fs.js';
import { bash } from '../src/tools/bash.js';
import { listFiles } from '../src/tools/find.js';
import type { ToolContext } from '../src/types/tools.js';
import { workspace } from './tools-helpers.js';

const read = (ctx: ToolContext, args: { path: string; offset?: number; limit?: number }) => readFileTool.run(args, ctx);
const write = (ctx: ToolContext, path: string, content: string) => writeFileTool.run({ path, content }, ctx);
const edit = (ctx: ToolContext, args: { path: string; old_string: string; new_string: string; replace_all?: boolean }) => editFileTool.run(args, ctx);

const numbered = (from: number, lines: string[]) => lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}`).join('\n');

describe('read_file', () => {
  it('numbers lines like cat -n and records the version', async () => {
    const ctx = await workspace({ 'a.ts': 'one\r\ntwo\n\tthree\n' });
    expect(await read(ctx, { path: 'a.ts' })).toEqual({ output: '     1\tone\n     2\ttwo\n     3\t\tthree', summary: { key: 'lines', n: 3 } });
    expect([...ctx.files.keys()]).toEqual([join(ctx.root, 'a.ts')]);
  });

  it('pages with offset and limit, at most 2000 lines, and says how to go on', async () => {
    const lines = Array.from({ length: 5234 }, (_, i) => `${i + 1}`);
    const ctx = await workspace({ 'big.txt': lines.join('\n') + '\n' });
    const first = await read(ctx, { path: 'big.txt' });
    expect(first.output).toBe(numbered(1, lines.slice(0, 2000)) + '\n[lines 1–2000 of 5234; call read_file with offset 2001 to continue]');
    expect(first.summary).toEqual({ key: 'lines', n: 2000 });
    expect((await read(ctx, { path: 'big.txt', offset: 5230 })).output).toBe(numbered(5230, lines.slice(5229)));
    expect((await read(ctx, { path: 'big.txt', offset: 10, limit: 3 })).output).toBe(
      numbered(10, lines.slice(9, 12)) + '\n[lines 10–12 of 5234; call read_file with offset 13 to continue]',
    );
    expect(await read(ctx, { path: 'big.txt', offset: 6000 })).toEqual({ output: 'big.txt has 5234 lines; offset 6000 is past the end', isError: true });
  });

  it('cuts long lines, and stops early rather than overflow the output cap', async () => {
    const long = 'x'.repeat(2500);
    const wide = Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(100, '.'));
    const ctx = await workspace({ 'long.txt': long + '\n', 'wide.txt': wide.join('\n') });
    expect((await read(ctx, { path: 'long.txt' })).output).toBe(`     1\t${'x'.repeat(2000)} [… 500 more characters on this line]`);
    const out = (await read(ctx, { path: 'wide.txt' })).output;
    expect(out.length).toBeLessThan(30_000);
    const last = Number(/offset (\d+) to continue/.exec(out)?.[1]);
    expect(out).toBe(numbered(1, wide.slice(0, last - 1)) + `\n[lines 1–${last - 1} of 1000; call read_file with offset ${last} to continue]`);
  });

  it('refuses binary files with their type, huge files with their size, and folders', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100)]);
    const ctx = await workspace({ 'img.dat': png, 'big.log': Buffer.alloc(12 * 1024 * 1024, 'a\n'), 'empty.txt': '', 'dir/x': 'x' });
    expect(await read(ctx, { path: 'img.dat' })).toEqual({ output: 'img.dat is a PNG image (image/png), 108 bytes; read_file only reads text files.', isError: true });
    expect(await read(ctx, { path: 'big.log' })).toEqual({
      output: "big.log is 12.0 MB (text); read_file reads files up to 10 MB. Use search to find lines in it, or bash (head, tail, sed -n 'A,Bp') to read parts.",
      isError: true,
    });
    expect(await read(ctx, { path: 'empty.txt' })).toEqual({ output: 'empty.txt is empty (0 bytes)', summary: { key: 'lines', n: 0 } });
    expect(await read(ctx, { path: 'dir' })).toEqual({ output: 'dir is a folder; use list_files to see its files', isError: true });
    expect(await read(ctx, { path: 'nope.txt' })).toEqual({ output: 'nope.txt does not exist', isError: true });
  });

  it('decodes UTF-16 and UTF-8 with a BOM', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\n世界\n', 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('héllo\n', 'utf16le').swap16()]);
    const ctx = await workspace({ 'le.txt': le, 'be.txt': be, 'bom.txt': '\ufeffbom\n' });
    expect((await read(ctx, { path: 'le.txt' })).output).toBe('     1\théllo\n     2\t世界');
    expect((await read(ctx, { path: 'be.txt' })).output).toBe('     1\théllo');
    expect((await read(ctx, { path: 'bom.txt' })).output).toBe('     1\tbom');
  });
});

describe('sniffType', () => {
  it('names binary types by magic bytes and text encodings by BOM', () => {
    const zipWith = (name: string) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from(name)]);
    const cases: [Buffer, ReturnType<typeof sniffType>][] = [
      [Buffer.from('%PDF-1.7\n'), { kind: 'binary', type: 'PDF document', mediaType: 'application/pdf' }],
      [Buffer.from([0xff, 0xd8, 0xff, 0xe0]), { kind: 'binary', type: 'JPEG image', mediaType: 'image/jpeg' }],
      [Buffer.from('RIFF\0\0\0\0WEBPVP8 '), { kind: 'binary', type: 'WEBP image', mediaType: 'image/webp' }],
      [zipWith('word/document.xml'), { kind: 'binary', type: 'Word document (.docx, a ZIP archive)', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }],
      [zipWith('a.txt'), { kind: 'binary', type: 'ZIP archive', mediaType: 'application/zip' }],
      [Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]), { kind: 'binary', type: 'ELF executable' }],
      [Buffer.from('SQLite format 3\0'), { kind: 'binary', type: 'SQLite database' }],
      [Buffer.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), { kind: 'binary', type: 'WebAssembly module' }],
      [Buffer.from([0x1f, 0x8b, 8, 0]), { kind: 'binary', type: 'gzip archive' }],
      [Buffer.from('MZ\x90\0\x03\0'), { kind: 'binary', type: 'Windows executable' }],
      [Buffer.from('MZ is a text file\n'), { kind: 'text', encoding: 'utf8' }],
      [Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), { kind: 'binary', type: 'text file not in UTF-8 (e.g. Latin-1 or GBK)' }],
      [Buffer.from('a\0b'), { kind: 'binary', type: 'binary file' }],
      [Buffer.from('plain 文字\n'), { kind: 'text', encoding: 'utf8' }],
      [Buffer.from('\ufeffx'), { kind: 'text', encoding: 'utf8-bom' }],
      [Buffer.from([0xff, 0xfe, 0x61, 0x00]), { kind: 'text', encoding: 'utf16le' }],
      [Buffer.from([0xfe, 0xff, 0x00, 0x61]), { kind: 'text', encoding: 'utf16be' }],
    ];
    expect(cases.map(([buf]) => sniffType(buf))).toEqual(cases.map(([, want]) => want));
  });

  it('does not call text binary when the sniffed window ends inside a character', () => {
    const buf = Buffer.from('é'.repeat(5000));
    expect(sniffType(buf.subarray(0, 8191))).toEqual({ kind: 'text', encoding: 'utf8' });
  });
});

describe('write_file', () => {
  it('creates a file and its folders, and returns the change', async () => {
    const ctx = await workspace();
    expect(await write(ctx, 'src/deep/a.ts', 'a\nb\n')).toEqual({
      output: 'Wrote 2 lines to src/deep/a.ts (new file)', summary: { key: 'wrote', n: 2 },
      change: { path: 'src/deep/a.ts', before: null, after: 'a\nb\n' },
    });
    expect(await readFile(join(ctx.root, 'src/deep/a.ts'), 'utf8')).toBe('a\nb\n');
  });

  it('refuses to overwrite a file never read, or changed since it was read', async () => {
    const ctx = await workspace({ 'a.txt': 'old\n' });
    expect(await write(ctx, 'a.txt', 'new\n')).toEqual({ output: 'a.txt already exists and you have not read it; read it first with read_file', isError: true });
    await read(ctx, { path: 'a.txt' });
    await writeFile(join(ctx.root, 'a.txt'), 'changed\n');
    expect(await write(ctx, 'a.txt', 'new\n')).toEqual({
      output: 'a.txt changed since you read it (edited outside this conversation?); read it again with read_file', isError: true,
    });
    // Same size, different bytes: the hash decides.
    await read(ctx, { path: 'a.txt' });
    await writeFile(join(ctx.root, 'a.txt'), 'CHANGED\n');
    expect((await write(ctx, 'a.txt', 'new\n')).isError).toBe(true);
    expect(await readFile(join(ctx.root, 'a.txt'), 'utf8')).toBe('CHANGED\n');
  });

  it('overwrites a read file keeping CRLF, BOM and mode, and allows edits after its own write', async () => {
    const ctx = await workspace({ 'w.txt': '\ufeffone\r\ntwo\r\n' });
    await (await import('node:fs/promises')).chmod(join(ctx.root, 'w.txt'), 0o640);
    await read(ctx, { path: 'w.txt' });
    expect(await write(ctx, 'w.txt', 'uno\ndos\n')).toEqual({
      output: 'Wrote 2 lines to w.txt', summary: { key: 'wrote', n: 2 }, change: { path: 'w.txt', before: 'one\r\ntwo\r\n', after: 'uno\r\ndos\r\n' },
    });
    expect(await readFile(join(ctx.root, 'w.txt'), 'utf8')).toBe('\ufeffuno\r\ndos\r\n');
    expect((await stat(join(ctx.root, 'w.txt'))).mode & 0o777).toBe(0o640);
    expect((await edit(ctx, { path: 'w.txt', old_string: 'dos', new_string: 'tres' })).isError).toBeUndefined();
  });

  it('refuses folders and paths outside the workspace', async () => {
    const ctx = await workspace();
    await mkdir(join(ctx.root, 'd'));
    expect(await write(ctx, 'd', 'x')).toEqual({ output: 'd is a folder', isError: true });
    expect(await write(ctx, '../x', 'x')).toEqual({ output: `path ../x is outside the workspace ${ctx.root}`, isError: true });
  });
});

describe('a workspace folder that was deleted', () => {
  it('is refused by every tool, and write_file does not create it again', async () => {
    const ctx = await workspace({ 'a.txt': 'x\n' });
    await rm(ctx.root, { recursive: true });
    const gone = `the workspace folder ${ctx.root} no longer exists (deleted or moved); nothing was done. Tell the user: feiyu must be restarted in an existing folder`;
    expect(await write(ctx, 'src/new.ts', 'x')).toEqual({ output: gone, isError: true });
    expect(await read(ctx, { path: 'a.txt' })).toEqual({ output: gone, isError: true });
    expect(await listFiles.run({}, ctx)).toEqual({ output: gone, isError: true });
    expect(await bash.run({ command: 'echo hi' }, ctx)).toEqual({ output: gone, isError: true });
    expect(existsSync(ctx.root)).toBe(false);
  });
});

describe('temporary files of a write', () => {
  it('are removed by the next write in their folder when the process that made them is gone', async () => {
    const ctx = await workspace({ 'keep.feiyu-1-abcdefab.tmp': 'not ours: no leading dot' });
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const stale = `.a.txt.feiyu-${dead}-0123abcd.tmp`;
    const live = `.b.txt.feiyu-${process.ppid}-0123abcd.tmp`;
    await writeFile(join(ctx.root, stale), 'half a file');
    await writeFile(join(ctx.root, live), 'another feiyu is writing this one');
    await write(ctx, 'c.txt', 'c\n');
    expect((await readdir(ctx.root)).sort()).toEqual([live, 'c.txt', 'keep.feiyu-1-abcdefab.tmp'].sort());
  });
});

describe('edit_file', () => {
  const source = ['function a() {', '  return 1;', '}', '', 'function b() {', '  return 1;', '}', ''].join('\n');

  it('replaces a unique match and reports the lines changed', async () => {
    const ctx = await workspace({ 'a.js': source });
    await read(ctx, { path: 'a.js' });
    const after = source.replace('function b() {\n  return 1;', 'function b() {\n  // two\n  return 2;');
    expect(await edit(ctx, { path: 'a.js', old_string: 'function b() {\n  return 1;', new_string: 'function b() {\n  // two\n  return 2;' })).toEqual({
      output: 'Edited a.js: lines 5–7', summary: { key: 'edited', n: 1 }, change: { path: 'a.js', before: source, after },
    });
    expect(await readFile(join(ctx.root, 'a.js'), 'utf8')).toBe(after);
  });

  it('lists the lines of a non-unique match, and replace_all changes them all', async () => {
    const ctx = await workspace({ 'a.js': source });
    await read(ctx, { path: 'a.js' });
    expect(await edit(ctx, { path: 'a.js', old_string: 'return 1;', new_string: 'return 2;' })).toEqual({
      output: 'old_string occurs 2 times in a.js (lines 2, 6); include more surrounding lines to make it unique, or set replace_all to change every one',
      isError: true,
    });
    expect((await edit(ctx, { path: 'a.js', old_string: 'return 1;', new_string: 'return 2;', replace_all: true })).output).toBe(
      'Edited a.js: 2 replacements, at lines 2, 6',
    );
    expect(await readFile(join(ctx.root, 'a.js'), 'utf8')).toBe(source.replaceAll('return 1;', 'return 2;'));
  });

  it('shows the most similar region when nothing matches, with a whitespace hint', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`);
    lines[20] = 'if (ready) {';
    lines[21] = '    start(now);';
    lines[22] = '}';
    const ctx = await workspace({ 'm.js': lines.join('\n') + '\n' });
    await read(ctx, { path: 'm.js' });
    expect(await edit(ctx, { path: 'm.js', old_string: 'if (ready) {\n  start(later);\n}', new_string: 'x' })).toEqual({
      output: ['old_string was not found in m.js.', 'The most similar part of the file (lines 19–25):', numbered(19, lines.slice(18, 25))].join('\n'),
      isError: true,
    });
    expect((await edit(ctx, { path: 'm.js', old_string: 'if (ready) {\n  start(now);\n}', new_string: 'x' })).output).toBe(
      ['old_string was not found in m.js.', 'It would match if whitespace were ignored: copy indentation, spaces and line breaks exactly.',
        'The most similar part of the file (lines 19–25):', numbered(19, lines.slice(18, 25))].join('\n'),
    );
    expect((await edit(ctx, { path: 'm.js', old_string: '    22\t    start(now);', new_string: 'x' })).output).toContain(
      "old_string seems to include read_file's line-number prefixes; leave them out.",
    );
  });

  it('refuses same strings, a file never read, and a file changed since read', async () => {
    const ctx = await workspace({ 'a.js': source });
    expect(await edit(ctx, { path: 'a.js', old_string: 'x', new_string: 'x' })).toEqual({ output: 'old_string and new_string are the same; nothing would change', isError: true });
    expect((await edit(ctx, { path: 'a.js', old_string: 'function a', new_string: 'function z' })).output).toBe(
      'a.js already exists and you have not read it; read it first with read_file',
    );
    await read(ctx, { path: 'a.js' });
    await writeFile(join(ctx.root, 'a.js'), source + '// more\n');
    expect((await edit(ctx, { path: 'a.js', old_string: 'function a', new_string: 'function z' })).output).toBe(
      'a.js changed since you read it (edited outside this conversation?); read it again with read_file',
    );
    expect(await edit(ctx, { path: 'new.js', old_string: 'a', new_string: 'b' })).toEqual({ output: 'new.js does not exist; create it with write_file', isError: true });
  });

  it('keeps CRLF line endings and the absence of a final newline', async () => {
    const ctx = await workspace({ 'w.txt': 'one\r\ntwo\r\nthree' });
    await read(ctx, { path: 'w.txt' });
    const result = await edit(ctx, { path: 'w.txt', old_string: 'two\nthree', new_string: '2\n3\n' });
    expect(result.output).toBe('Edited w.txt: lines 2–3');
    expect(await readFile(join(ctx.root, 'w.txt'), 'utf8')).toBe('one\r\n2\r\n3');
  });

  it('keeps the final newline when the replacement drops it', async () => {
    const ctx = await workspace({ 'f.txt': 'a\nb\n' });
    await read(ctx, { path: 'f.txt' });
    await edit(ctx, { path: 'f.txt', old_string: 'b\n', new_string: 'c' });
    expect(await readFile(join(ctx.root, 'f.txt'), 'utf8')).toBe('a\nc\n');
  });

  it('round-trips a UTF-16 LE file with its BOM', async () => {
    const encode = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
    const ctx = await workspace({ 'u.txt': encode('名前 = "x"\r\nvalue = 1\r\n') });
    await read(ctx, { path: 'u.txt' });
    const result = await edit(ctx, { path: 'u.txt', old_string: 'value = 1', new_string: 'value = 2\n名 = 3' });
    expect(result.change).toEqual({ path: 'u.txt', before: '名前 = "x"\r\nvalue = 1\r\n', after: '名前 = "x"\r\nvalue = 2\r\n名 = 3\r\n' });
    expect(await readFile(join(ctx.root, 'u.txt'))).toEqual(encode('名前 = "x"\r\nvalue = 2\r\n名 = 3\r\n'));
  });

  it('refuses to edit a file that is not valid text, leaving it as it was', async () => {
    const latin1 = Buffer.from('caf\xe9 = 1\n', 'latin1');
    const ctx = await workspace({ 'l.txt': latin1 });
    expect(await edit(ctx, { path: 'l.txt', old_string: 'caf', new_string: 'tea' })).toEqual({
      output: 'l.txt is a text file not in UTF-8 (e.g. Latin-1 or GBK); write_file and edit_file only change text files',
      isError: true,
    });
    expect(await readFile(join(ctx.root, 'l.txt'))).toEqual(latin1);
  });
});
