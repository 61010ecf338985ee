// What a command learns of feiyu's own environment through the real CLI, without the sandbox:
// neither its own environment, nor /proc/$PPID/environ, nor `ps e` shows a secret the user's
// environment holds, by name (GH_PAT, NPM_CONFIG__AUTH, *_PASSPHRASE, *_PW) or by value (a Slack
// webhook, a DSN, a JWT); and git status run by the model does not rewrite the index.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { toolResults, useCliFixture } from './fixtures.js';

const { server, home, work, run } = await useCliFixture('feiyu-environ', {});

const SECRETS: Record<string, string> = {
  GH_PAT: 'pat-value-0001',
  NPM_CONFIG__AUTH: 'auth-value-0002',
  npm_config__authToken: 'auth-value-0003',
  GPG_PASSPHRASE: 'passphrase-value-0004',
  DB_PW: 'pw-value-0005',
  SENTRY_DSN: 'https://dsn-value-0006@o1.ingest.sentry.io/2',
  SLACK_URL: 'https://hooks.slack.com/services/T000/B000/webhook-value-0007',
  DISCORD: 'https://discord.com/api/webhooks/1/webhook-value-0008',
  SESSION: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.jwt-value-0009',
  MIRROR: 'https://user:basic-value-0010@mirror.example/',
};

it("a command outside the sandbox sees none of feiyu's secrets: env, /proc/$PPID/environ, ps e", async () => {
  const probe = 'env; echo ---; tr "\\0" "\\n" < /proc/$PPID/environ; echo ---; ps e -p $PPID -o args=; echo ---; ps ewwax -o args=';
  server.enqueue({ toolCalls: [{ name: 'bash', input: { command: probe } }] }, { text: 'done' });
  const result = await run(['-p', 'look', '--mode', 'auto', '--sandbox', 'off'], { env: { ...SECRETS, VISIBLE_MARK: 'mark-value-0000' } });
  expect(result.code).toBe(0);
  const [output] = toolResults(server);
  // The probe did run and saw the parent's environment: the harmless variable is there, in all four places.
  expect(output!.split('mark-value-0000').length - 1).toBeGreaterThanOrEqual(3);
  const leaked = Object.entries(SECRETS).filter(([, v]) => JSON.stringify(server.requests).includes(v.match(/[a-z]+-value-\d+/)![0]));
  expect(leaked).toEqual([]);
});

it('git status run by the model leaves the index alone (GIT_OPTIONAL_LOCKS=0)', async () => {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home } });
  git('init', '-q');
  await writeFile(join(work, 'a.txt'), 'one\n');
  git('add', 'a.txt');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one');
  // A new mtime makes the index entry stale: a plain git status would refresh and rewrite it.
  await writeFile(join(work, 'a.txt'), 'one\n');
  const index = join(work, '.git', 'index');
  const before = statSync(index).mtimeMs;
  await new Promise((r) => setTimeout(r, 20));
  server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'git status --short' } }] }, { text: 'done' });
  expect((await run(['-p', 'status', '--mode', 'plan', '--sandbox', 'off'])).code).toBe(0);
  expect(toolResults(server)[0]).toContain('exit code 0');
  expect(statSync(index).mtimeMs).toBe(before);
});
