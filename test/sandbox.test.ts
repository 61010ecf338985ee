// The bwrap sandbox: the argv builder as a pure function (whole argv compared, per profile and
// level), the probe (missing, failing, not confining, no user namespace), then the real bwrap
// through the launcher: what each profile lets a command write, secret files and credential
// folders looking empty, placeholders of missing protected paths that come and go, strict and
// read-only commands reaching no host socket, background processes dying with the call.
import { spawn } from 'node:child_process';
import { runLaunch } from './attacks.js';
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBwrapArgv, type BwrapPlan } from '../src/safety/sandbox.js';
import { createLauncher } from '../src/safety/sandboxhost.js';
import { probeSandbox } from '../src/safety/sandboxprobe.js';
import type { SandboxLevel } from '../src/types/permissions.js';
import type { SandboxProfile } from '../src/types/tools.js';
import { currentTest, waitFor } from './scope.js';

describe('buildBwrapArgv (pure)', () => {
  const plan: BwrapPlan = {
    level: 'workspace',
    profile: 'write',
    network: false,
    root: '/home/u/proj',
    cwd: '/home/u/proj/pkg',
    command: 'npm test && echo "done"',
    features: { userns: true, disableUserns: true },
    emptyFile: '/tmp/e/empty',
    secretFiles: ['/home/u/proj/.env', '/home/u/.netrc'],
    hiddenDirs: ['/home/u/.ssh', '/home/u/.config/feiyu'],
    socketDirs: ['/run', '/run/user/1000'],
    protect: ['/home/u/proj/.git', '/home/u/proj/.vscode'],
    gitWritable: [],
  };
  const proc = ['--ro-bind', '/proc/sys', '/proc/sys', '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger', '--ro-bind-try', '/proc/mtrr', '/proc/mtrr'];
  const head = ['/usr/bin/bwrap', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...proc, '--tmpfs', '/tmp'];
  const masks = [
    '--ro-bind', '/tmp/e/empty', '/home/u/proj/.env',
    '--ro-bind', '/tmp/e/empty', '/home/u/.netrc',
    '--tmpfs', '/home/u/.ssh', '--remount-ro', '/home/u/.ssh',
    '--tmpfs', '/home/u/.config/feiyu', '--remount-ro', '/home/u/.config/feiyu',
  ];
  const sockets = ['--tmpfs', '/run', '--remount-ro', '/run', '--tmpfs', '/run/user/1000', '--remount-ro', '/run/user/1000', '--unsetenv', 'SSH_AUTH_SOCK'];
  const tail = ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--new-session', '--die-with-parent', '--chdir', '/home/u/proj/pkg', '--', '/bin/bash', '-c', 'npm test && echo "done"'];
  const workspace = ['--bind', '/home/u/proj', '/home/u/proj', '--ro-bind', '/home/u/proj/.git', '/home/u/proj/.git', '--ro-bind', '/home/u/proj/.vscode', '/home/u/proj/.vscode'];

  it('write at the workspace level: the workspace writable but its protected paths, masks, a loopback of its own', () => {
    expect(buildBwrapArgv(plan)).toEqual([...head, ...workspace, ...masks, '--unshare-net', ...tail]);
  });

  it('write with the network the user opted into: no network namespace, host sockets still there', () => {
    expect(buildBwrapArgv({ ...plan, network: true })).toEqual([...head, ...workspace, ...masks, ...tail]);
  });

  it('strict: no network whatever the opt-in, no host unix sockets, no agent socket', () => {
    expect(buildBwrapArgv({ ...plan, level: 'strict', network: true })).toEqual([...head, ...workspace, ...masks, ...sockets, '--unshare-net', ...tail]);
  });

  it('read: nothing bound writable, no network, no host sockets, at either level', () => {
    const read = [...head, '--ro-bind', '/home/u/proj', '/home/u/proj', ...masks, ...sockets, '--unshare-net', ...tail];
    expect(buildBwrapArgv({ ...plan, profile: 'read', network: true })).toEqual(read);
    expect(buildBwrapArgv({ ...plan, profile: 'read', level: 'strict' })).toEqual(read);
  });

  it("write_git: the worktree's git dir outside the workspace bound writable", () => {
    const p = { ...plan, profile: 'write_git' as const, protect: ['/home/u/proj/.vscode'], gitWritable: ['/home/u/main/.git'] };
    expect(buildBwrapArgv(p)).toEqual([
      ...head, '--bind', '/home/u/proj', '/home/u/proj', '--ro-bind', '/home/u/proj/.vscode', '/home/u/proj/.vscode',
      '--bind', '/home/u/main/.git', '/home/u/main/.git', ...masks, '--unshare-net', ...tail,
    ]);
  });

  it('without a user namespace (root, or a setuid bwrap) capabilities are still dropped', () => {
    const argv = buildBwrapArgv({ ...plan, features: { userns: false, disableUserns: false } });
    expect(argv.slice(0, 3)).toEqual(['/usr/bin/bwrap', '--cap-drop', 'ALL']);
    expect(argv).not.toContain('--unshare-user');
  });
});

const probe = await probeSandbox();
// Outside /tmp, which the sandbox replaces: a folder the sandbox can see but must not write.
const scratchBase = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
const asRoot = process.getuid?.() === 0;

describe('probeSandbox', () => {
  const fakes = realpathSync(mkdtempSync(join(scratchBase, 'feiyu-fakebwrap-')));
  afterAll(() => rmSync(fakes, { recursive: true, force: true }));
  const fake = (name: string, body: string): string => {
    const file = join(fakes, name);
    writeFileSync(file, `#!/bin/bash\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };

  it('a missing bwrap is reported, not thrown', async () => {
    expect(await probeSandbox('/nonexistent/bwrap')).toEqual({ ok: false, reasonCode: 'bwrap_missing', detail: '/nonexistent/bwrap: spawn /nonexistent/bwrap ENOENT', contain: false });
  });

  it('a bwrap that cannot start is reported with what it said', async () => {
    expect(await probeSandbox('/bin/false')).toEqual({ ok: false, reasonCode: 'bwrap_failed', detail: 'exit code 1', contain: false });
  });

  it('a bwrap that runs the command without confining it (host /proc) is unavailable, not trusted', async () => {
    // Runs the command as given, outside any namespace: what a broken or fake bwrap would do.
    const unconfined = fake('unconfined', 'while [ "$1" != -- ]; do shift; done; shift; exec "$@"');
    const r = await probeSandbox(unconfined);
    // It runs the containment's command too, but on the host: no PID namespace, so no containment.
    expect(r).toMatchObject({ ok: false, reasonCode: 'bwrap_unconfined', contain: false });
    expect((r as { detail: string }).detail).toMatch(/^effective capabilities [0-9a-f]{16}, \d+ processes visible in \/proc, kernel settings writable: (yes|no)$/);
  });

  it('refused user namespaces: userns_disabled, with what bwrap said', async () => {
    const refuses = fake('nouserns', 'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1');
    expect(await probeSandbox(refuses)).toEqual({ ok: false, reasonCode: 'userns_disabled', detail: 'bwrap: setting up uid map: Permission denied', contain: false });
  });

  it.runIf(probe.ok && asRoot)('as root without user namespaces: the sandbox without one, capabilities dropped all the same', async () => {
    const noUserns = fake('rootonly', 'for a; do [ "$a" = --unshare-user ] && { echo "bwrap: No permissions to create new namespace" >&2; exit 1; }; done; exec /usr/bin/bwrap "$@"');
    expect(await probeSandbox(noUserns)).toEqual({ ok: true, features: { userns: false, disableUserns: false }, contain: true });
  });

  it.runIf(probe.ok)('here: a user namespace that cannot make more', () => {
    expect(probe).toEqual({ ok: true, features: { userns: true, disableUserns: true }, contain: true });
  });
});

describe.skipIf(!probe.ok)('the real bwrap', () => {
  // Made when the tests run, not when they are collected: a skipped suite leaves nothing behind.
  let base: string, root: string, home: string, outside: string, configDir: string, stateDir: string;
  beforeAll(() => {
    base = realpathSync(mkdtempSync(join(scratchBase, 'feiyu-sandbox-')));
    [root, home, outside, stateDir] = [join(base, 'ws'), join(base, 'home'), join(base, 'outside'), join(base, 'state')];
    configDir = join(home, '.config', 'feiyu');
    for (const d of [join(root, '.git', 'hooks'), join(root, '.feiyu'), join(root, 'src', 'deep'), join(home, '.ssh'), outside, configDir, stateDir]) mkdirSync(d, { recursive: true });
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, '.feiyu', 'settings.json'), '{}');
    writeFileSync(join(root, '.env'), 'WS_ENV_SECRET');
    writeFileSync(join(root, '.env.example'), 'API_KEY=');
    writeFileSync(join(root, 'src', 'deep', 'server.pem'), 'WS_PEM_SECRET');
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE');
    writeFileSync(join(home, '.netrc'), 'machine x password y');
    writeFileSync(join(home, '.bash_history'), 'export TOKEN=HISTORY_SECRET');
    writeFileSync(join(configDir, 'keys.json'), '{"models":[]}');
    writeFileSync(join(stateDir, 'session.jsonl'), 'CONVERSATION');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const features = probe.ok ? probe.features : { userns: false, disableUserns: false };

  // `off` without the containment: the contrast these tests draw is with a command run as it is.
  function run(command: string, profile: SandboxProfile = 'write', level: SandboxLevel = 'workspace', network = false) {
    const launch = createLauncher({ level, root, home, configDir, stateDir, network, features, contain: false });
    return runLaunch(launch({ command, cwd: root, profile, env: { PATH: process.env.PATH, HOME: home, ...currentTest().env } }), root);
  }

  it('write: the workspace is writable', async () => {
    expect(await run('echo hi > made.txt && cat made.txt')).toEqual({ code: 0, out: 'hi\n' });
    expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('hi\n');
  });

  it('read: nothing is writable, the workspace included, and /tmp is private', async () => {
    const r = await run(`echo x > ro.txt; echo x > ${outside}/f; echo t > /tmp/t && cat /tmp/t`, 'read');
    expect(r.out).toMatch(/ro\.txt: Read-only file system\n.*\/f: Read-only file system\nt\n$/);
    expect([existsSync(join(root, 'ro.txt')), readdirSync(outside)]).toEqual([false, []]);
  });

  it('writes outside the workspace fail', async () => {
    const r = await run(`echo x > ${outside}/f; touch ${home}/g; mkdir ${base}/h; echo codes`);
    expect(r.out).toMatch(/Read-only file system[\s\S]*Read-only file system[\s\S]*Read-only file system[\s\S]*codes/);
    expect(readdirSync(outside)).toEqual([]);
    expect([existsSync(join(home, 'g')), existsSync(join(base, 'h'))]).toEqual([false, false]);
  });

  it('secret files of the workspace (ignored ones too) and of home read as empty; credential folders and feiyu state look empty', async () => {
    const show = `for f in .env src/deep/server.pem .env.example $HOME/.netrc $HOME/.bash_history; do printf "[%s]" "$(cat $f)"; done; echo; find $HOME/.ssh $HOME/.config/feiyu ${stateDir} -mindepth 1 | wc -l`;
    for (const profile of ['read', 'write'] as const) expect(await run(show, profile)).toEqual({ code: 0, out: '[][][API_KEY=][][]\n0\n' });
    // Unsandboxed, the same command sees them all: the check above can fail.
    expect((await run(show, 'write', 'off')).out).toBe('[WS_ENV_SECRET][WS_PEM_SECRET][API_KEY=][machine x password y][export TOKEN=HISTORY_SECRET]\n3\n');
  });

  it('a hard link in the workspace to a secret outside it reads as empty too (masked by inode)', async () => {
    linkSync(join(home, '.netrc'), join(root, 'src', 'notes.txt'));
    try {
      expect((await run('cat src/notes.txt; echo', 'read')).out).toBe('\n');
      expect((await run('cat src/notes.txt', 'write', 'off')).out).toBe('machine x password y');
    } finally {
      rmSync(join(root, 'src', 'notes.txt'));
    }
  });

  it('a secret file created after the first listing is masked from the next command on', async () => {
    await run('true');
    writeFileSync(join(root, 'src', 'deep', 'credentials.json'), '{"token":"LATE_SECRET"}');
    expect((await run('cat src/deep/credentials.json', 'read')).out).toBe('');
  });

  it('write: protected paths stay read-only; missing ones cannot be created, and their placeholders go afterwards', async () => {
    const r = await run('echo evil > .git/hooks/pre-commit; echo x >> .git/config; echo "{}" > .feiyu/settings.json; mkdir -p .vscode && echo "{}" > .vscode/tasks.json; echo "curl x|sh" > .envrc; mkdir .husky/x; echo wrote');
    expect(r.out.match(/Read-only file system/g)).toHaveLength(6);
    expect(r.out.endsWith('wrote\n')).toBe(true);
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(readdirSync(root).filter((n) => n.startsWith('.')).sort()).toEqual(['.env', '.env.example', '.feiyu', '.git']);
  });

  it('write: protected paths cannot be renamed away and replaced', async () => {
    const r = await run('mv .git .git-old; mv .feiyu .feiyu-old; rm -rf .vscode; mkdir -p .git/hooks; echo evil > .git/hooks/post-checkout; echo done');
    expect(r.out).toMatch(/busy[\s\S]*busy[\s\S]*busy[\s\S]*done/);
    expect(readdirSync(root).filter((n) => n.startsWith('.')).sort()).toEqual(['.env', '.env.example', '.feiyu', '.git']);
    expect(existsSync(join(root, '.git', 'hooks', 'post-checkout'))).toBe(false);
  });

  it('write_git: the repository data is writable, the other protected paths are not', async () => {
    const r = await run('echo ok > .git/COMMIT_EDITMSG && cat .git/COMMIT_EDITMSG; echo x > .feiyu/x', 'write_git');
    expect(r.out).toMatch(/^ok\n.*\.feiyu\/x: Read-only file system\n$/);
    rmSync(join(root, '.git', 'COMMIT_EDITMSG'));
  });

  it('a placeholder held by a running command stays until the last holder ends', async () => {
    const launcher = createLauncher({ level: 'workspace', root, home, configDir, stateDir, network: false, features, contain: false });
    const env = { PATH: process.env.PATH, HOME: home, ...currentTest().env };
    const long = runLaunch(launcher({ command: 'sleep 0.6; test -d .idea && echo still', cwd: root, profile: 'write', env }), root);
    await new Promise((r) => setTimeout(r, 150));
    expect((await runLaunch(launcher({ command: 'test -d .idea && echo held', cwd: root, profile: 'write', env }), root)).out).toBe('held\n');
    expect(existsSync(join(root, '.idea'))).toBe(true);
    expect((await long).out).toBe('still\n');
    expect(existsSync(join(root, '.idea'))).toBe(false);
  });

  it("a child cannot read the agent's environment through /proc", async () => {
    const agent = spawn('sleep', ['30'], { env: { PATH: process.env.PATH, FEIYU_TEST_AGENT_KEY: 'sk-7c1f', ...currentTest().env }, stdio: 'ignore' });
    const grep = "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '^FEIYU_TEST_AGENT_KEY=' || true";
    try {
      expect((await run(grep)).out).toBe('0\n');
      expect((await run(grep, 'write', 'off')).out).toBe('1\n');
    } finally {
      agent.kill();
    }
  });

  it("the host's 127.0.0.1 is reached only with the network opted into, and never by read-only or strict commands", async () => {
    const server = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && tail -n 1 <&3`;
    try {
      expect(await run(connect, 'write', 'workspace', true)).toEqual({ code: 0, out: 'hello' });
      const cases = [['write', 'workspace', false], ['read', 'workspace', true], ['read', 'strict', true], ['write', 'strict', true]] as const;
      for (const [profile, level, network] of cases) {
        const r = await run(connect, profile, level, network);
        expect(r.code).not.toBe(0);
        expect(r.out).not.toContain('hello');
      }
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
    const pid = Number((await run('sleep 987652 >/dev/null 2>&1 & echo $!', 'write', 'off')).out);
    // Polled: while the forked shell turns into sleep (exec), its command line can read empty.
    await waitFor(() => alive('987652'), 'the unsandboxed sleep to run');
    process.kill(pid);
  });
});
