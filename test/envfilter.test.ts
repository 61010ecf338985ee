// The environment filter: secret-looking names, password-carrying and secret-path URLs, token
// shapes and shell settings are dropped; the rest, PWD, OLDPWD and SSH_AUTH_SOCK included,
// reaches child processes unchanged, with GIT_OPTIONAL_LOCKS=0 added.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { filterEnv } from '../src/safety/envfilter.js';

describe('filterEnv', () => {
  it('drops secrets by name and by value, keeps everything else', () => {
    const env = {
      PATH: '/usr/bin:/bin',
      HOME: '/home/u',
      LANG: 'zh_CN.UTF-8',
      PWD: '/home/u/proj',
      OLDPWD: '/home/u',
      SSH_AUTH_SOCK: '/run/user/1000/ssh-agent.sock',
      ANTHROPIC_API_KEY: 'sk-ant-1',
      OPENAI_API_KEY: 'sk-2',
      GITHUB_TOKEN: 'ghp_3',
      npm_config__authToken: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
      CLIENT_SECRET: 'x',
      DB_PASSWORD: 'x',
      MYSQL_PASSWD: 'x',
      GOOGLE_APPLICATION_CREDENTIALS: '/path/creds.json',
      SMTP_PASS: 'x',
      FTP_PWD: 'x',
      PASSPHRASE_HINT: 'dropped: a passphrase hint is close enough',
      DATABASE_URL: 'postgres://app:s3cret@db.internal:5432/app',
      HTTPS_PROXY: 'http://user:pw@proxy:8080',
      HTTP_PROXY: 'http://proxy:8080',
      REDIS_URL: 'redis://:onlypassword@cache:6379',
      REPO_URL: 'https://user@github.com/x/y.git',
      NOTE: 'see https://example.com/a:b@c',
      EDITOR: 'vim',
    };
    expect(filterEnv(env)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/u',
      LANG: 'zh_CN.UTF-8',
      PWD: '/home/u/proj',
      OLDPWD: '/home/u',
      SSH_AUTH_SOCK: '/run/user/1000/ssh-agent.sock',
      HTTP_PROXY: 'http://proxy:8080',
      REPO_URL: 'https://user@github.com/x/y.git',
      NOTE: 'see https://example.com/a:b@c',
      EDITOR: 'vim',
      GIT_OPTIONAL_LOCKS: '0',
    });
  });

  it('issue 11: the names and values it used to miss', () => {
    const kept = {
      PATH: '/usr/bin',
      NODE_PATH: '/usr/lib/node',
      XAUTHORITY: '/home/u/.Xauthority',
      GIT_AUTHOR_NAME: 'A',
      OLDPWD: '/home/u',
      SSH_AUTH_SOCK: '/run/agent',
      SITE: 'https://example.com/docs?page=2',
    };
    const dropped = {
      GPG_PASSPHRASE: 'x',
      PASSPHRASE: 'x',
      SENTRY_DSN: 'https://abc@o1.ingest.sentry.io/2',
      AUTH_JWT: 'x',
      DB_PW: 'x',
      PW: 'x',
      SLACK_WEBHOOK: 'x',
      GH_PAT: 'x',
      NPM_CONFIG__AUTH: 'dXNlcjpwYXNz',
      npm_config__auth: 'dXNlcjpwYXNz',
      npm_config__authToken: 'x',
      NOTIFY_URL: 'https://hooks.slack.com/services/T0/B0/xyz',
      CHAT: 'https://discord.com/api/webhooks/1/abc',
      TEAMS: 'https://acme.webhook.office.com/webhookb2/abc',
      BOT: 'https://api.telegram.org/bot123:abc/sendMessage',
      SIGNED: 'https://bucket.s3.amazonaws.com/f?X-Amz-Signature=abc',
      MIRROR: 'https://user:pass@mirror.example/',
      ANYTHING: 'ghp_0123456789abcdefghijABCDEFGHIJ',
      OTHER: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
      PEM: '-----BEGIN OPENSSH PRIVATE KEY-----\nx',
      CDPATH: '/etc',
      GLOBIGNORE: '*',
      BASHOPTS: 'dotglob',
      SHELLOPTS: 'noglob',
      BASH_ENV: '/tmp/x',
      'BASH_FUNC_ls%%': '() { rm -rf ~; }',
    };
    expect(filterEnv({ ...dropped, ...kept })).toEqual({ ...kept, GIT_OPTIONAL_LOCKS: '0' });
  });

  it('returns a copy and skips undefined values', () => {
    const env: NodeJS.ProcessEnv = { A: '1', B: undefined };
    const out = filterEnv(env);
    expect(out).toEqual({ A: '1', GIT_OPTIONAL_LOCKS: '0' });
    expect(out).not.toBe(env);
  });
});

describe('hideFromEnviron', () => {
  it("zeroes the chosen variables in the process's own environ block, keeping them in process.env", () => {
    const dir = mkdtempSync(join(tmpdir(), 'feiyu-environ-'));
    const source = readFileSync(join(import.meta.dirname, '..', 'src', 'util', 'environ.ts'), 'utf8');
    writeFileSync(join(dir, 'environ.mjs'), transformSync(source, { loader: 'ts', format: 'esm' }).code);
    const script = [
      "import { hideFromEnviron } from './environ.mjs';",
      "import { readFileSync } from 'node:fs';",
      "const n = hideFromEnviron((name) => name === 'HIDE_ME');",
      "const block = readFileSync('/proc/self/environ', 'utf8');",
      "process.stdout.write(JSON.stringify({ n, inBlock: block.includes('hidden-value'), kept: block.includes('kept-value'), env: process.env.HIDE_ME }));",
    ].join('\n');
    writeFileSync(join(dir, 'main.mjs'), script);
    try {
      const out = execFileSync(process.execPath, [join(dir, 'main.mjs')], { env: { PATH: process.env.PATH, HIDE_ME: 'hidden-value', KEEP_ME: 'kept-value' } });
      expect(JSON.parse(out.toString())).toEqual({ n: 1, inBlock: false, kept: true, env: 'hidden-value' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
