// Files feiyu reads by itself, end to end: a keys.json, settings.json, FEIYU.md or history that
// is a device, a FIFO or huge is not read (nothing hangs, no memory is eaten) and the message
// names it; a UTF-8 BOM is accepted; maxOutputTokens 0 is refused; a keys.json holding keys that
// others can read is made private, with a warning.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';

const cli = await useCliFixture('feiyu-files', {});
const { server, home, work } = cli;

const run = (args: string[], input?: string) => cli.run(args, { input });
const keysFile = () => join(home, 'config', 'feiyu', 'keys.json');
const fifo = (path: string) => expect(spawnSync('mkfifo', [path]).status).toBe(0);

describe('files that are not regular files, or are huge', () => {
  it('refuses a keys.json that is /dev/zero, and a settings.json that is a FIFO, naming each, with exit 2', async () => {
    const keys = keysFile();
    const saved = await readFile(keys);
    spawnSync('rm', [keys]);
    symlinkSync('/dev/zero', keys);
    const zero = await run(['-p', 'hi']);
    expect(zero).toMatchObject({ code: 2, stdout: '' });
    expect(zero.stderr).toBe(`Configuration error: ${keys} is a device, not a regular file: feiyu did not read it.\n`);

    spawnSync('rm', [keys]);
    writeFileSync(keys, saved, { mode: 0o600 });
    const settings = join(home, 'config', 'feiyu', 'settings.json');
    fifo(settings);
    const piped = await run(['-p', 'hi']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe(`Configuration error: ${settings} is a named pipe (FIFO), not a regular file: feiyu did not read it.\n`);
    expect(server.requests).toEqual([]);
  });

  it('runs without a FEIYU.md that is a FIFO, and without one that is huge, saying so', async () => {
    fifo(join(work, 'FEIYU.md'));
    writeFileSync(join(work, 'AGENTS.md'), 'x'.repeat(2 << 20));
    server.enqueue({ text: 'Fine.' });
    const r = await run(['-p', 'hi']);
    expect(r).toMatchObject({ code: 0, stdout: 'Fine.\n' });
    // Named as every instruction file is: relative to the workspace.
    expect(r.stderr).toBe(
      'FEIYU.md is a named pipe (FIFO), not a regular file: feiyu did not read it.\n' + 'AGENTS.md is 2.0 MB, more than the 1.0 MB feiyu reads there: it was not read.\n',
    );
  });

  it('leaves a history that is /dev/zero alone, says so, and the REPL works', async () => {
    mkdirSync(join(home, 'state', 'feiyu'), { recursive: true });
    symlinkSync('/dev/zero', join(home, 'state', 'feiyu', 'history'));
    server.enqueue({ text: 'Hello.' });
    const r = await run([], 'hi\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`The input history is off this session: ${join(home, 'state', 'feiyu', 'history')} is a device, not a regular file: feiyu did not read it.`);
    expect(r.stdout).toContain('Hello.');
  });
});

describe('keys.json', () => {
  it('accepts a UTF-8 byte order mark', async () => {
    const keys = keysFile();
    writeFileSync(keys, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), await readFile(keys)]), { mode: 0o600 });
    server.enqueue({ text: 'Read it.' });
    expect(await run(['-p', 'hi'])).toMatchObject({ code: 0, stdout: 'Read it.\n', stderr: '' });
  });

  it('refuses maxOutputTokens 0 with a clear message', async () => {
    const data = JSON.parse(await readFile(keysFile(), 'utf8'));
    data.models[0].maxOutputTokens = 0;
    writeFileSync(keysFile(), JSON.stringify(data), { mode: 0o600 });
    const r = await run(['-p', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`Configuration error: ${keysFile()}: models[0].maxOutputTokens must be a whole number of tokens ≥ 1\n`);
    expect(server.requests).toEqual([]);
  });

  it('makes a keys.json that holds keys private when others could read it, and says so', async () => {
    chmodSync(keysFile(), 0o644);
    server.enqueue({ text: 'ok' });
    const r = await run(['-p', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`${keysFile()} holds API keys but others could read it (mode 0644): feiyu made it private (0600).\n`);
    expect(statSync(keysFile()).mode & 0o777).toBe(0o600);
  });
});
