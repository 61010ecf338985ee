// Permission rules in Claude Code's spelling (settings and --allowedTools): what each reads as in
// feiyu's terms, and what they allow and deny through the app's approval step over real files;
// and a PreToolUse hook's allow or ask weighed by the policy (what it may and may not answer).
import { describe, expect, it } from 'vitest';
import { coversTool, parseRule, ruleError } from '../src/safety/rules.js';
import { asker, home, root, setup } from './policy-fixture.js';

describe('Claude Code’s rule syntax', () => {
  it('reads each kind of rule in feiyu’s terms', () => {
    expect(['Bash', 'Bash(npm test:*)', 'Bash(git diff *)', 'Read(./src/**)', 'Edit', 'Edit(/docs/**)', 'Read(//etc/hosts)', 'Read(~/.zshrc)', 'Read(*.env)', 'Write(build/)', 'WebFetch(domain:docs.python.org)', 'mcp__github', 'TodoWrite', 'bash(npm test *)'].map(parseRule)).toEqual([
      { text: 'Bash', tools: ['bash'], pattern: null },
      { text: 'Bash(npm test:*)', tools: ['bash'], pattern: 'npm test *' },
      { text: 'Bash(git diff *)', tools: ['bash'], pattern: 'git diff *' },
      { text: 'Read(./src/**)', tools: ['read_file', 'list_files', 'search'], pattern: 'src/**', under: true },
      { text: 'Edit', tools: ['edit_file', 'write_file'], pattern: null },
      { text: 'Edit(/docs/**)', tools: ['edit_file', 'write_file'], pattern: 'docs/**', under: true },
      { text: 'Read(//etc/hosts)', tools: ['read_file', 'list_files', 'search'], pattern: '/etc/hosts', under: true },
      { text: 'Read(~/.zshrc)', tools: ['read_file', 'list_files', 'search'], pattern: '~/.zshrc', under: true },
      { text: 'Read(*.env)', tools: ['read_file', 'list_files', 'search'], pattern: '**/*.env', under: true },
      { text: 'Write(build/)', tools: ['write_file'], pattern: '**/build', under: true },
      { text: 'WebFetch(domain:docs.python.org)', tools: ['web_fetch'], pattern: 'docs.python.org' },
      { text: 'mcp__github', tools: ['mcp__github'], pattern: null },
      { text: 'TodoWrite', tools: ['todo'], pattern: null },
      { text: 'bash(npm test *)', tools: ['bash'], pattern: 'npm test *' },
    ]);
    expect(['mcp__github__create_issue', 'mcp__githubx__y', 'bash'].map((t) => coversTool(parseRule('mcp__github'), t))).toEqual([true, false, false]);
    expect([ruleError('Bash(npm test'), ruleError('Bash( )'), ruleError('Bash(echo "hi)')].map((p) => p?.key)).toEqual(['rule.syntax', 'rule.empty', 'rule.quote']);
  });

  it('Bash(x:*) allows x and anything after it, word by word; Bash alone allows every command it can check', async () => {
    const { decide } = setup({ rules: { allow: ['Bash(npm test:*)', 'Bash(git diff:*)'], deny: [] } });
    const codes = async (...commands: string[]) => Promise.all(commands.map(async (command) => (await decide('bash', { command })).code));
    expect(await codes('npm test', 'npm test -- --watch', 'git diff HEAD~1 && npm test', 'npm testx', 'npm install')).toEqual(['rule', 'rule', 'rule', 'headless', 'headless']);
    const all = setup({ rules: { allow: ['Bash'], deny: [] } });
    expect((await all.decide('bash', { command: 'make -j4' })).code).toBe('rule');
  });

  it('path rules follow gitignore: ./ and / from the project, no slash at any depth, a folder covers what is inside; Edit covers writes', async () => {
    const { decide } = setup({ rules: { allow: ['Edit(/src/lib)', 'Write(*.md)'], deny: ['Read(./src/lib)'] } });
    const d = async (name: 'edit_file' | 'write_file' | 'read_file', path: string) => (await decide(name, { path, old_string: 'x', new_string: 'y', content: 'y' })).code;
    expect(await d('edit_file', 'src/lib/b.ts')).toBe('rule');
    expect(await d('write_file', 'src/lib/new/c.ts')).toBe('rule');
    expect(await d('edit_file', 'src/a.ts')).toBe('headless');
    expect(await d('write_file', 'docs/deep/notes.md')).toBe('rule');
    expect([await d('read_file', 'src/lib/b.ts'), await d('read_file', 'src/a.ts')]).toEqual(['deny_rule', 'read']);
  });

  it('deny rules win, in either spelling, and a home or absolute pattern reaches outside the workspace', async () => {
    const { decide } = setup({ mode: 'auto', rules: { allow: ['Edit'], deny: ['Bash(git push:*)', `Edit(/${home}/.ssh/**)`, 'WebFetch(domain:evil.example)'] } });
    expect((await decide('bash', { command: 'git push origin main' })).code).toBe('deny_rule');
    expect((await decide('web_fetch', { url: 'https://evil.example/x' })).code).toBe('deny_rule');
    expect((await decide('web_fetch', { url: 'https://docs.python.org/' })).code).toBe('auto_mode');
    expect((await decide('write_file', { path: `${home}/.ssh/config`, content: 'x' })).decision).toBe('deny');
  });
});

describe('a PreToolUse hook’s verdict', () => {
  it('allow answers what would ask; it does not lift a deny rule, the mode or a destructive command', async () => {
    const { decide } = setup({ rules: { allow: [], deny: ['Bash(curl:*)'] } });
    expect(await decide('write_file', { path: 'src/a.ts', content: 'y' }, undefined, { decision: 'allow', reason: 'house formatter' })).toEqual({ decision: 'allow', code: 'hook', reason: 'house formatter' });
    expect((await decide('bash', { command: 'npm test' }, undefined, { decision: 'allow' })).code).toBe('hook');
    expect((await decide('bash', { command: 'curl https://x.example' }, undefined, { decision: 'allow' })).code).toBe('deny_rule');
    expect((await decide('bash', { command: `rm -rf ${root}/src` }, undefined, { decision: 'allow' })).code).toBe('headless');
    const plan = setup({ mode: 'plan' });
    expect((await plan.decide('write_file', { path: 'src/a.ts', content: 'y' }, undefined, { decision: 'allow' })).code).toBe('plan_mode');
  });

  it('ask puts even a read to the user, who sees the hook’s reason; headless refuses it and says why', async () => {
    const { ask, requests } = asker({ answer: 'yes' });
    const { decide } = setup({ ask });
    expect((await decide('read_file', { path: 'README.md' }, undefined, { decision: 'ask', reason: 'README is owned by docs team' })).code).toBe('user_yes');
    expect(requests).toEqual([
      { tool: 'read_file', input: { path: 'README.md' }, display: 'README.md', reasonCode: 'hook', reasonParams: { reason: 'README is owned by docs team' }, suggestedRules: [], destructive: false },
    ]);
    const headless = setup();
    expect(await headless.decide('bash', { command: 'ls' }, undefined, { decision: 'ask' })).toEqual({
      decision: 'deny',
      code: 'headless',
      reason: "bash ls needs the user's approval, and feiyu is running headless with no one to ask. Do not retry it. A PreToolUse hook of the user's asks the user to confirm it; tell the user what you wanted to do, they can run it themselves.",
    });
  });
});
