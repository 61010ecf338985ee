// What holds in every mode, auto included, through the app's approval step over the policy: the
// hard denies, destructive commands (they ask even where a rule allows them, and say what would be
// lost), protected paths and git commands that write the repository, and the sandbox profile each
// allowed bash command runs with.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionMode } from '../src/types/permissions.js';
import { asker, configDir, home, root, setup, type ToolName } from './policy-fixture.js';

describe('hard denies hold in every mode', () => {
  const calls: [ToolName, Record<string, unknown>][] = [
    ['bash', { command: 'cat .env' }],
    ['bash', { command: 'cat ~/.ssh/id_rsa' }],
    ['read_file', { path: '.env' }],
    ['read_file', { path: 'innocent.txt' }],
    ['write_file', { path: '.env.local', content: 'x' }],
    ['edit_file', { path: '~/.ssh/config' }],
    ['read_file', { path: join(configDir, 'keys.json') }],
  ];
  it.each(['default', 'auto', 'plan', 'readonly'] as PermissionMode[])('%s', async (mode) => {
    const { ask, requests } = asker();
    const { decide } = setup({ mode, ask, rules: { allow: ['bash', 'read_file', 'write_file', 'edit_file'], deny: [] } });
    const decisions = await Promise.all(calls.map(([name, input]) => decide(name, input)));
    expect(decisions.map((d) => [d.decision, d.code])).toEqual(calls.map(() => ['deny', 'secret']));
    expect(requests).toEqual([]);
  });

  it('the refusal names the path and what it is', async () => {
    const { decide } = setup({ mode: 'auto' });
    expect(await decide('read_file', { path: 'innocent.txt' })).toEqual({
      decision: 'deny',
      code: 'secret',
      reason:
        'innocent.txt touches an environment file with secrets (.env). feiyu never reads, writes, copies, moves, lists or sources secrets, in any mode. ' +
        'If you only need to mention the name (for example in .gitignore), edit that file with edit_file instead of a shell command; otherwise ask the user to do this step themselves.',
    });
  });
});

describe('destructive commands', () => {
  it('ask even where a rule allows them, and say why and what would be lost; "always" is not offered', async () => {
    const { ask, requests } = asker({ answer: 'yes' });
    const { decide } = setup({ ask, rules: { allow: ['bash(git reset *)', 'bash(rm *)'], deny: [] } });
    expect((await decide('bash', { command: 'git reset --soft HEAD~1' })).code).toBe('rule');
    expect((await decide('bash', { command: 'git reset --hard' })).code).toBe('user_yes');
    expect(requests).toEqual([
      {
        tool: 'bash',
        input: { command: 'git reset --hard' },
        display: 'git reset --hard',
        reasonCode: 'destructive',
        reasonParams: { what: 'git reset --hard (uncommitted changes are lost)' },
        lost: ['(uncommitted changes, if any)'],
        suggestedRules: [],
        destructive: true,
      },
    ]);
  });

  it('ask in auto mode too: headless, they are refused with the reason and what would be lost', async () => {
    const { decide } = setup({ mode: 'auto' });
    const rm = await decide('bash', { command: 'rm -rf ~ src' });
    expect(rm).toEqual({
      decision: 'deny',
      code: 'headless',
      reason:
        "bash rm -rf ~ src needs the user's approval, and feiyu is running headless with no one to ask. Do not retry it. It destroys work (rm -r outside build and temporary folders), " +
        `which asks the user in every mode, auto included. What would be lost: ${home}, src. Tell the user what you wanted to do and why; they can run it themselves.`,
    });
    for (const command of ['git push', 'git clean -fdx', 'find . -delete', 'dd if=/dev/zero of=x', 'mkfs.ext4 /dev/sdb', 'chmod -R 777 .', 'truncate -s0 a', 'git stash clear']) {
      expect([command, (await decide('bash', { command })).code]).toEqual([command, 'headless']);
    }
    expect(await decide('bash', { command: 'rm -rf build' })).toEqual({ decision: 'allow', code: 'auto_mode', reason: 'auto mode', sandbox: 'write' });
  });
});

describe('sandbox profiles and what always asks', () => {
  it('read-only commands are allowed with the read-only sandbox; others with a writable one', async () => {
    const { decide } = setup({ mode: 'auto' });
    expect(await decide('bash', { command: 'ls -la src | wc -l' })).toEqual({ decision: 'allow', code: 'allowlist', reason: 'read-only command on the allowlist', sandbox: 'read' });
    expect(await decide('bash', { command: 'npm test' })).toEqual({ decision: 'allow', code: 'auto_mode', reason: 'auto mode', sandbox: 'write' });
    expect(await setup({ mode: 'plan' }).decide('bash', { command: 'git log --oneline' })).toEqual({ decision: 'allow', code: 'allowlist', reason: 'read-only command on the allowlist', sandbox: 'read' });
  });

  it('git commands that write the repository ask in auto mode unless a rule allows them, then run with .git writable', async () => {
    const headless = await setup({ mode: 'auto' }).decide('bash', { command: 'git add -A && git commit -m wip' });
    expect(headless).toEqual({
      decision: 'deny',
      code: 'headless',
      reason:
        "bash git add -A && git commit -m wip needs the user's approval, and feiyu is running headless with no one to ask. Do not retry it. It writes the repository's .git, which asks the user even in auto mode; " +
        'the user can allow it with an allow rule in settings.json: "permissions": {"allow": ["bash(git add *)", "bash(git commit *)"]}.',
    });
    const ruled = setup({ mode: 'auto', rules: { allow: ['bash(git add *)', 'bash(git commit *)'], deny: [] } });
    expect(await ruled.decide('bash', { command: 'git add -A && git commit -m wip' })).toEqual({ decision: 'allow', code: 'rule', reason: 'allowed by bash(git add *), bash(git commit *)', sandbox: 'write_git' });
    const { ask, requests } = asker({ answer: 'yes' });
    expect(await setup({ mode: 'auto', ask }).decide('bash', { command: 'git checkout -b feature' })).toEqual({ decision: 'allow', code: 'user_yes', reason: 'approved by the user', sandbox: 'write_git' });
    expect(requests.map((r) => [r.reasonCode, r.reasonParams])).toEqual([['git_write', { command: 'git checkout -b feature' }]]);
    expect((await setup({ mode: 'auto' }).decide('bash', { command: 'git clone https://x/y.git sub' })).code).toBe('auto_mode');
  });

  it('file tools writing a protected path ask in every mode, and no rule or "always" covers it', async () => {
    const git = join(root, '.git');
    mkdirSync(join(git, 'hooks'), { recursive: true });
    writeFileSync(join(git, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(git, 'config'), '[core]\n\thooksPath = tools/hooks\n');
    try {
      const rules = { allow: ['write_file', 'edit_file'], deny: [] };
      const { decide } = setup({ mode: 'auto', rules });
      const paths = ['.git/hooks/pre-commit', '.git/config', '.vscode/tasks.json', '.envrc', '.feiyu/settings.json', '.claude/settings.json', '.husky/pre-push', 'tools/hooks/pre-commit', 'vendor/lib/.git/config'];
      for (const path of paths) expect([path, (await decide('write_file', { path, content: 'x' })).code]).toEqual([path, 'headless']);
      expect((await decide('write_file', { path: 'src/ok.ts', content: 'x' })).code).toBe('auto_mode');
      expect((await decide('read_file', { path: '.git/config' })).code).toBe('read');
      const { ask, requests } = asker({ answer: 'yes' });
      expect((await setup({ mode: 'auto', ask, rules }).decide('edit_file', { path: '.vscode/settings.json' })).code).toBe('user_yes');
      expect(requests).toEqual([
        { tool: 'edit_file', input: { path: '.vscode/settings.json' }, display: '.vscode/settings.json', reasonCode: 'protected', reasonParams: { path: '.vscode/settings.json', tool: 'edit_file', what: '.vscode, which configures tools that run programs' }, suggestedRules: [], destructive: false },
      ]);
    } finally {
      rmSync(git, { recursive: true, force: true });
    }
  });
});
