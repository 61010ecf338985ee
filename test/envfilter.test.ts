// The environment filter: secret-looking names and password-carrying URLs are dropped; the rest,
// PWD, OLDPWD and SSH_AUTH_SOCK included, reaches child processes unchanged.
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
      PASSPHRASE_HINT: 'kept: no rule matches',
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
      PASSPHRASE_HINT: 'kept: no rule matches',
      HTTP_PROXY: 'http://proxy:8080',
      REPO_URL: 'https://user@github.com/x/y.git',
      NOTE: 'see https://example.com/a:b@c',
      EDITOR: 'vim',
    });
  });

  it('returns a copy and skips undefined values', () => {
    const env: NodeJS.ProcessEnv = { A: '1', B: undefined };
    const out = filterEnv(env);
    expect(out).toEqual({ A: '1' });
    expect(out).not.toBe(env);
  });
});
