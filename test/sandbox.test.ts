// The bwrap sandbox: the argv builder as a pure function (whole argv compared), then the real
// bwrap: writes outside the workspace fail, masked folders look empty, strict reaches nothing on
// the host's 127.0.0.1, /proc does not show the agent's environment, background processes die
// with the call, .git/hooks and .feiyu cannot be written, the workspace and /tmp work; and the
// probe's answer when bwrap is missing or cannot start.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBwrapArgv, makeWrapCommand, probeSandbox, type BwrapOptions } from '../src/safety/sandbox.js';
import { currentTest, waitFor } from './scope.js';

describe('buildBwrapArgv (pure)', () => {
  const present: Record<string, 'dir' | 'file'> = {
    '/home/u/.ssh': 'dir',
    '/home/u/.aws': 'dir',
    '/home/u/.config/gh': 'dir',
    '/home/u/.config/feiyu': 'dir',
    '/home/u/.netrc': 'file',
    '/home/u/.npmrc': 'file',
    '/home/u/.kube': 'file', // not a folder: left alone rather than masked wrongly
    '/run/user/1000': 'dir',
    '/home/u/proj/.git': 'dir',
    '/home/u/proj/.git/hooks': 'dir',
    '/home/u/proj/.git/config': 'file',
    '/home/u/proj/.feiyu': 'dir',
  };
  const opts: BwrapOptions = {
    level: 'workspace',
    root: '/home/u/proj',
    home: '/home/u',
    configDir: '/home/u/.config/feiyu',
    uid: 1000,
    existing: (p) => present[p] ?? null,
    command: 'npm test && echo "done"',
    cwd: '/home/u/proj/pkg',
  };
  const expected = [
    '/usr/bin/bwrap',
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    '--bind', '/home/u/proj', '/home/u/proj',
    '--tmpfs', '/home/u/.ssh',
    '--tmpfs', '/home/u/.aws',
    '--tmpfs', '/home/u/.config/gh',
    '--tmpfs', '/home/u/.config/feiyu',
    '--tmpfs', '/run/user/1000',
    '--ro-bind', '/dev/null', '/home/u/.netrc',
    '--ro-bind', '/dev/null', '/home/u/.npmrc',
    '--bind', '/home/u/proj/.git', '/home/u/proj/.git',
    '--ro-bind', '/home/u/proj/.git/hooks', '/home/u/proj/.git/hooks',
    '--ro-bind', '/home/u/proj/.git/config', '/home/u/proj/.git/config',
    '--ro-bind', '/home/u/proj/.feiyu', '/home/u/proj/.feiyu',
    '--unshare-pid', '--new-session', '--die-with-parent',
    '--chdir', '/home/u/proj/pkg',
    '--', '/bin/bash', '-c', 'npm test && echo "done"',
  ];

  it('workspace level', () => {
    expect(buildBwrapArgv(opts)).toEqual(expected);
  });

  it('strict adds --unshare-net', () => {
    const strict = [...expected];
    strict.splice(strict.indexOf('--die-with-parent') + 1, 0, '--unshare-net');
    expect(buildBwrapArgv({ ...opts, level: 'strict' })).toEqual(strict);
  });

  it('nothing to mask: just the skeleton', () => {
    expect(buildBwrapArgv({ ...opts, existing: () => null, command: 'ls', cwd: '/home/u/proj' })).toEqual([
      '/usr/bin/bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp',
      '--bind', '/home/u/proj', '/home/u/proj', '--unshare-pid', '--new-session', '--die-with-parent',
      '--chdir', '/home/u/proj', '--', '/bin/bash', '-c', 'ls',
    ]);
  });

  it('a repository without hooks gets an empty read-only hooks folder', () => {
    const existing = (p: string) => (p === '/w/.git' ? 'dir' : null);
    expect(buildBwrapArgv({ ...opts, root: '/w', existing, command: 'ls', cwd: '/w' })).toEqual([
      '/usr/bin/bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp',
      '--bind', '/w', '/w', '--bind', '/w/.git', '/w/.git', '--tmpfs', '/w/.git/hooks', '--remount-ro', '/w/.git/hooks',
      '--unshare-pid', '--new-session', '--die-with-parent', '--chdir', '/w', '--', '/bin/bash', '-c', 'ls',
    ]);
  });

  it('makeWrapCommand: undefined when off, else bwrap and its arguments', () => {
    expect(makeWrapCommand('off', { root: '/w', configDir: '/c' })).toBeUndefined();
    const wrap = makeWrapCommand('strict', { root: '/w', home: '/h', configDir: '/c', uid: 5, existing: () => null })!;
    expect(wrap('ls', '/w')).toEqual({
      file: '/usr/bin/bwrap',
      args: ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', '/w', '/w', '--unshare-pid', '--new-session', '--die-with-parent', '--unshare-net', '--chdir', '/w', '--', '/bin/bash', '-c', 'ls'],
    });
  });
});

describe('probeSandbox', () => {
  it('a missing bwrap is reported, not thrown', async () => {
    expect(await probeSandbox('/nonexistent/bwrap')).toEqual({ ok: false, reasonCode: 'bwrap_missing', detail: '/nonexistent/bwrap: spawn /nonexistent/bwrap ENOENT' });
  });

  it('a bwrap that cannot start is reported with what it said', async () => {
    expect(await probeSandbox('/bin/false')).toEqual({ ok: false, reasonCode: 'bwrap_failed', detail: 'exit code 1' });
  });
});

const probe = await probeSandbox();
// Outside /tmp, which the sandbox replaces: a folder the sandbox can see but must not write.
const scratchBase = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();

describe.skipIf(!probe.ok)('the real bwrap', () => {
  const base = realpathSync(mkdtempSync(join(scratchBase, 'feiyu-sandbox-')));
  const root = join(base, 'ws');
  const home = join(base, 'home');
  const outside = join(base, 'outside');
  const configDir = join(home, '.config', 'feiyu');
  for (const d of [join(root, '.git', 'hooks'), join(root, '.feiyu'), join(home, '.ssh'), outside, configDir]) mkdirSync(d, { recursive: true });
  writeFileSync(join(root, '.git', 'config'), '[core]\n');
  writeFileSync(join(root, '.feiyu', 'settings.json'), '{}');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE');
  writeFileSync(join(home, '.netrc'), 'machine x password y');
  writeFileSync(join(configDir, 'keys.json'), '{"models":[]}');
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  type Result = { code: number | null; out: string };
  /** Runs a command as the bash tool would: wrapped, in its own process group, with a small environment. */
  function run(command: string, level: 'workspace' | 'strict' | 'off' = 'workspace'): Promise<Result> {
    const wrap = makeWrapCommand(level, { root, home, configDir });
    const { file, args } = wrap ? wrap(command, root) : { file: '/bin/bash', args: ['-c', command] };
    return new Promise((resolve) => {
      const child = spawn(file, args, { cwd: root, env: { PATH: process.env.PATH, HOME: home, ...currentTest().env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (out += d));
      child.on('exit', (code) => resolve({ code, out }));
    });
  }

  it('the workspace is writable', async () => {
    expect(await run('echo hi > made.txt && cat made.txt')).toEqual({ code: 0, out: 'hi\n' });
    expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('hi\n');
  });

  it('writes outside the workspace fail', async () => {
    const r = await run(`echo x > ${outside}/f; touch ${home}/g; mkdir ${base}/h; echo codes`);
    expect(r.out).toMatch(/Read-only file system[\s\S]*Read-only file system[\s\S]*Read-only file system[\s\S]*codes/);
    expect(readdirSync(outside)).toEqual([]);
    expect([existsSync(join(home, 'g')), existsSync(join(base, 'h'))]).toEqual([false, false]);
  });

  it('/tmp works and is private', async () => {
    const marker = `feiyu-sandbox-${process.pid}`;
    expect(await run(`echo t > /tmp/${marker} && cat /tmp/${marker} && ls -A /tmp`)).toEqual({ code: 0, out: `t\n${marker}\n` });
    expect(existsSync(join('/tmp', marker))).toBe(false);
  });

  it('masked secret folders look empty and secret files give nothing away', async () => {
    expect(await run(`ls -A ${home}/.ssh ${configDir}; cat ${home}/.netrc 2>&1 | sed "s#${home}#~#"`)).toEqual({
      code: 0,
      out: `${configDir}:\n\n${home}/.ssh:\ncat: ~/.netrc: Permission denied\n`,
    });
    expect(await run(`ls -A ${home}/.ssh; cat ${home}/.netrc`, 'off')).toEqual({ code: 0, out: 'id_rsa\nmachine x password y' });
  });

  it('.git/hooks, .git/config and .feiyu cannot be written; the rest of .git can', async () => {
    const r = await run('echo evil > .git/hooks/pre-commit; echo x >> .git/config; echo "{}" > .feiyu/settings.json; echo ok > .git/HEAD.test && echo wrote');
    expect(r.out).toMatch(/Read-only file system[\s\S]*Read-only file system[\s\S]*Read-only file system[\s\S]*wrote\n$/);
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('.git and .feiyu cannot be renamed away and replaced', async () => {
    const r = await run('mv .git .git-old; mv .feiyu .feiyu-old; mkdir -p .git/hooks; echo evil > .git/hooks/post-checkout; echo done');
    expect(r.out).toMatch(/busy[\s\S]*busy[\s\S]*Read-only file system[\s\S]*done/);
    expect(readdirSync(root).filter((n) => n.startsWith('.')).sort()).toEqual(['.feiyu', '.git']);
    expect(existsSync(join(root, '.git', 'hooks', 'post-checkout'))).toBe(false);
  });

  it("a child cannot read the agent's environment through /proc", async () => {
    // A stand-in for the agent: a process outside the sandbox whose environment holds a key.
    const agent = spawn('sleep', ['30'], { env: { PATH: process.env.PATH, FEIYU_TEST_AGENT_KEY: 'sk-7c1f' }, stdio: 'ignore' });
    const grep = "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '^FEIYU_TEST_AGENT_KEY=' || true";
    try {
      expect((await run(grep)).out).toBe('0\n');
      // The same command unsandboxed does see it: the check above can fail.
      expect((await run(grep, 'off')).out).toBe('1\n');
    } finally {
      agent.kill();
    }
  });

  it('strict reaches no server on the host 127.0.0.1; workspace does', async () => {
    const server = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && tail -n 1 <&3`;
    try {
      expect(await run(connect, 'workspace')).toEqual({ code: 0, out: 'hello' });
      const strict = await run(connect, 'strict');
      expect(strict.code).not.toBe(0);
      expect(strict.out).not.toContain('hello');
    } finally {
      server.close();
    }
  });

  it('background processes die with the call', async () => {
    const alive = (tag: string): boolean =>
      readdirSync('/proc').some((pid) => {
        try {
          return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(tag);
        } catch {
          return false;
        }
      });
    expect(await run('sleep 987651 >/dev/null 2>&1 & echo started')).toEqual({ code: 0, out: 'started\n' });
    await waitFor(() => !alive('987651'), 'the sandboxed sleep to die');
    // Unsandboxed, the same command leaves the sleep behind: the check above can fail.
    const pid = Number((await run('sleep 987652 >/dev/null 2>&1 & echo $!', 'off')).out);
    // Polled: while the forked shell turns into sleep (exec), its command line can read empty.
    await waitFor(() => alive('987652'), 'the unsandboxed sleep to run');
    process.kill(pid);
  });
});
