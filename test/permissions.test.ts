// The permission policy over real files: each mode against each kind of tool, rules (deny beats
// allow, bash compounds, path globs, hosts), the app's approval step over it (answers, "always"
// saved to approvals.json, "auto" through setMode), the pure verdicts alone, and the refusals the
// model reads. What holds in every mode is permissions-always.test.ts.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApprovalDesk } from '../src/app/approval.js';
import { judge, type PolicyInput } from '../src/safety/policy.js';
import { parseRule, ruleMatches, suggestCommandRule } from '../src/safety/rules.js';
import type { AgentEvent } from '../src/types/events.js';
import type { AskRequest, PermissionMode } from '../src/types/permissions.js';
import { asker, base, call, home, root, setup, TOOLS, type ToolName } from './policy-fixture.js';

const CALLS: [string, ToolName, Record<string, unknown>][] = [
  ['read', 'read_file', { path: 'src/a.ts' }],
  ['write', 'write_file', { path: 'src/a.ts', content: 'y' }],
  ['safe bash', 'bash', { command: 'ls -la src | wc -l' }],
  ['other bash', 'bash', { command: 'npm test' }],
  ['network', 'web_fetch', { url: 'https://docs.python.org/3/' }],
  ['meta', 'todo', { items: [] }],
  ['exit_plan', 'exit_plan', { plan: 'x' }],
  ['remember', 'remember', { note: 'x', scope: 'project' }],
];

describe('the policy alone', () => {
  it('answers a call it would ask about with the request, asking no one and changing nothing', async () => {
    const approvalsFile = join(base, 'pure', 'approvals.json');
    const { verdict, modeChanges } = setup({ approvalsFile });
    expect(await verdict('bash', { command: 'npm test' })).toEqual({
      decision: 'ask',
      request: { tool: 'bash', input: { command: 'npm test' }, display: 'npm test', reasonCode: 'not_allowlisted', reasonParams: { program: 'npm' }, suggestedRules: ['bash(npm test *)'], destructive: false },
      // What a yes would grant: the command may write the workspace.
      sandbox: 'write',
    });
    expect(modeChanges).toEqual([]);
    expect(() => statSync(join(base, 'pure'))).toThrow();
  });

  it('a question carries what the call would change, as the call describes itself', async () => {
    const { verdict } = setup();
    const edit = await verdict('edit_file', { path: 'src/a.ts', old_string: 'x', new_string: 'y' });
    const write = await verdict('write_file', { path: 'new.md', content: '# New' });
    expect([edit, write].map((v) => v.decision === 'ask' && v.request.preview)).toEqual([
      { kind: 'edit', path: 'src/a.ts', before: 'x', after: 'y' },
      { kind: 'write', path: 'new.md', content: '# New' },
    ]);
  });

  it('judges a known subject from plain inputs, without the file system', () => {
    const nowhere = '/nonexistent-feiyu';
    const input = (mode: PermissionMode): PolicyInput => ({
      mode,
      rules: { allow: [parseRule('edit_file(src/**)')], deny: [parseRule('edit_file(src/gen/**)')] },
      root: `${nowhere}/ws`,
      home: `${nowhere}/home`,
      configDir: `${nowhere}/home/.config/feiyu`,
      cwd: `${nowhere}/ws`,
    });
    const edit = (path: string, mode: PermissionMode = 'default') => {
      const v = judge(call('edit_file', { path }), TOOLS.edit_file, { kind: 'path', abs: `${nowhere}/ws/${path}`, shown: path, protects: null }, input(mode));
      return v.decision === 'ask' ? ['ask', v.request.reasonCode, v.request.suggestedRules] : [v.decision, v.code];
    };
    expect([edit('src/a.ts'), edit('src/gen/x.ts'), edit('README.md'), edit('.env'), edit('README.md', 'plan'), edit('README.md', 'auto')]).toEqual([
      ['allow', 'rule'],
      ['deny', 'deny_rule'],
      ['ask', 'write', ['edit_file(README.md)']],
      ['deny', 'secret'],
      ['deny', 'plan_mode'],
      ['allow', 'auto_mode'],
    ]);
  });
});

describe('modes × tool kinds (headless)', () => {
  const expected: Record<PermissionMode, string[]> = {
    default: ['read', 'headless', 'allowlist', 'headless', 'headless', 'meta', 'meta', 'meta'],
    auto: ['read', 'auto_mode', 'allowlist', 'auto_mode', 'auto_mode', 'meta', 'meta', 'meta'],
    plan: ['read', 'plan_mode', 'allowlist', 'plan_mode', 'plan_mode', 'meta', 'meta', 'plan_mode'],
    readonly: ['read', 'readonly_mode', 'allowlist', 'readonly_mode', 'readonly_mode', 'meta', 'readonly_mode', 'readonly_mode'],
  };
  it.each(Object.keys(expected) as PermissionMode[])('%s', async (mode) => {
    const { decide, modeChanges } = setup({ mode });
    const codes = [];
    for (const [, name, input] of CALLS) codes.push((await decide(name, input)).code);
    expect(codes).toEqual(expected[mode]);
    expect(modeChanges).toEqual([]);
  });
});

describe('rules', () => {
  it('bash(npm test) matches exactly; bash(git commit *) matches the words and anything after', async () => {
    const { decide } = setup({ rules: { allow: ['bash(npm test)', 'bash(git commit *)'], deny: [] } });
    const results = [];
    for (const command of ['npm test', 'npm test --watch', 'git commit', 'git commit -m "fix it"', 'git commit-tree x', 'git status && git commit -am wip', 'npm test && curl example.com', 'git commit -m "$(date)"', 'npm test > log.txt']) {
      const d = await decide('bash', { command });
      results.push([command, d.code]);
    }
    expect(results).toEqual([
      ['npm test', 'rule'],
      ['npm test --watch', 'headless'],
      ['git commit', 'rule'],
      ['git commit -m "fix it"', 'rule'],
      ['git commit-tree x', 'headless'],
      ['git status && git commit -am wip', 'rule'],
      ['npm test && curl example.com', 'headless'],
      ['git commit -m "$(date)"', 'headless'],
      ['npm test > log.txt', 'headless'],
    ]);
  });

  it('a rule allows wrapped commands by what they run', async () => {
    const { decide } = setup({ rules: { allow: ['bash(npm test)'], deny: [] } });
    expect(await decide('bash', { command: 'timeout 600 npm test' })).toEqual({ decision: 'allow', code: 'rule', reason: 'allowed by bash(npm test)', sandbox: 'write' });
  });

  it('deny beats allow, in every mode, and reaches into sh -c and unknown words', async () => {
    const rules = { allow: ['bash(git *)', 'bash'], deny: ['bash(git push *)'] };
    for (const mode of ['default', 'auto'] as PermissionMode[]) {
      const { decide } = setup({ mode, rules });
      for (const command of ['git push origin main', 'git status; git push', 'sh -c "git push -f"', 'git $SUB origin']) {
        expect(await decide('bash', { command })).toEqual({
          decision: 'deny',
          code: 'deny_rule',
          reason: "The user's rule bash(git push *) forbids this call. Do not try to get around it.",
        });
      }
      expect((await decide('bash', { command: 'git pull' })).decision).toBe('allow');
    }
  });

  it('in auto mode a command that cannot be seen whole asks when bash deny rules exist', async () => {
    const { ask, requests } = asker({ answer: 'no' });
    const { decide } = setup({ mode: 'auto', ask, rules: { allow: [], deny: ['bash(git push *)'] } });
    expect((await decide('bash', { command: 'eval "$CMD"' })).code).toBe('user_no');
    expect(requests.map((r) => r.reasonCode)).toEqual(['unchecked_deny_rule']);
    expect((await decide('bash', { command: 'npm test' })).code).toBe('auto_mode');
  });

  it('path globs for file tools are relative to the workspace; absolute and ~ patterns too', async () => {
    const { decide } = setup({ rules: { allow: ['edit_file(src/**)', `write_file(${root}/*.md)`], deny: ['edit_file(src/lib/**)'] } });
    const codes = [];
    for (const [name, path] of [
      ['edit_file', 'src/a.ts'],
      ['edit_file', 'src/lib/b.ts'],
      ['edit_file', 'README.md'],
      ['write_file', 'src/a.ts'],
      ['write_file', 'README.md'],
      ['edit_file', '../ws/src/a.ts'],
      ['edit_file', `${base}/elsewhere/src/a.ts`],
    ] as [ToolName, string][]) {
      codes.push((await decide(name, { path })).code);
    }
    expect(codes).toEqual(['rule', 'deny_rule', 'headless', 'headless', 'rule', 'rule', 'headless']);
  });

  it('web_fetch rules match the host', async () => {
    const { decide } = setup({ rules: { allow: ['web_fetch(docs.python.org)', 'web_fetch(*.rust-lang.org)'], deny: [] } });
    const codes = [];
    for (const url of ['https://docs.python.org/3/library/', 'https://docs.python.org.evil.com/', 'https://doc.rust-lang.org/std/', 'https://rust-lang.org/', 'not a url']) {
      codes.push((await decide('web_fetch', { url })).code);
    }
    expect(codes).toEqual(['rule', 'headless', 'rule', 'headless', 'headless']);
  });

  it('rules do not apply in plan and readonly modes', async () => {
    for (const mode of ['plan', 'readonly'] as PermissionMode[]) {
      const { decide } = setup({ mode, rules: { allow: ['bash(npm test)', 'edit_file'], deny: [] } });
      expect((await decide('bash', { command: 'npm test' })).code).toBe(`${mode}_mode`);
      expect((await decide('edit_file', { path: 'src/a.ts' })).code).toBe(`${mode}_mode`);
    }
  });

  it('an invalid rule or a broken approvals file stops start-up, naming it', () => {
    expect(() => setup({ rules: { allow: ['bash(npm test'], deny: [] } })).toThrow('"bash(npm test" is not a rule');
    const broken = join(base, 'broken-approvals.json');
    writeFileSync(broken, '{"projects": [');
    expect(() => setup({ approvalsFile: broken })).toThrow(broken);
  });
});

describe('asking the user', () => {
  it('shows exactly what will run, why, and the rule "always" would save', async () => {
    const { ask, requests } = asker({ answer: 'yes' }, { answer: 'yes' }, { answer: 'yes' }, { answer: 'yes' }, { answer: 'yes' });
    const { decide } = setup({ ask });
    expect(await decide('bash', { command: 'git commit -m "fix the bug"' })).toEqual({ decision: 'allow', code: 'user_yes', reason: 'approved by the user', sandbox: 'write_git' });
    await decide('bash', { command: 'npm install && npm test' });
    await decide('bash', { command: 'ls\u00a0-la' });
    await decide('edit_file', { path: 'src/lib/b.ts' });
    await decide('web_fetch', { url: 'https://example.com/x' });
    expect(requests).toEqual([
      { tool: 'bash', input: { command: 'git commit -m "fix the bug"' }, display: 'git commit -m "fix the bug"', reasonCode: 'not_allowlisted', reasonParams: { program: 'git' }, suggestedRules: ['bash(git commit *)'], destructive: false },
      { tool: 'bash', input: { command: 'npm install && npm test' }, display: 'npm install && npm test', reasonCode: 'not_allowlisted', reasonParams: { program: 'npm' }, suggestedRules: ['bash(npm install *)', 'bash(npm test *)'], destructive: false },
      { tool: 'bash', input: { command: 'ls\u00a0-la' }, display: 'ls⟨U+00A0⟩-la', reasonCode: 'hidden_chars', reasonParams: { part: '⟨U+00A0⟩' }, suggestedRules: [], destructive: false },
      { tool: 'edit_file', input: { path: 'src/lib/b.ts' }, display: 'src/lib/b.ts', reasonCode: 'write', reasonParams: { path: 'src/lib/b.ts', tool: 'edit_file' }, suggestedRules: ['edit_file(src/lib/**)'], destructive: false },
      { tool: 'web_fetch', input: { url: 'https://example.com/x' }, display: 'https://example.com/x', reasonCode: 'network', reasonParams: { host: 'example.com' }, suggestedRules: ['web_fetch(example.com)'], destructive: false },
    ]);
  });

  it('"no" refuses with the user\'s reason for the model', async () => {
    const { ask } = asker({ answer: 'no', reason: 'use pnpm' });
    const { decide } = setup({ ask });
    expect(await decide('bash', { command: 'npm install' })).toEqual({
      decision: 'deny',
      code: 'user_no',
      reason: 'The user declined this call. Their reason: use pnpm. Do not retry it as it is; change your approach or ask the user.',
    });
  });

  it('"always" saves command + subcommand + * in approvals.json (0600), per project, and stops asking', async () => {
    const approvalsFile = join(base, 'cfg', 'approvals.json');
    const first = asker({ answer: 'always' });
    const { decide } = setup({ ask: first.ask, approvalsFile });
    expect((await decide('bash', { command: 'git commit -m "one"' })).code).toBe('user_always');
    expect((await decide('bash', { command: 'git commit --no-edit -m two' })).code).toBe('rule');
    expect(first.requests.map((r) => r.suggestedRules)).toEqual([['bash(git commit *)']]);
    expect(JSON.parse(readFileSync(approvalsFile, 'utf8'))).toEqual({ version: 1, projects: { [root]: { allow: ['bash(git commit *)'] } } });
    expect(statSync(approvalsFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, 'cfg')).mode & 0o777).toBe(0o700);

    const again = asker();
    expect((await setup({ ask: again.ask, approvalsFile }).decide('bash', { command: 'git commit -m "two"' })).code).toBe('rule');
    const other = asker({ answer: 'yes' });
    expect((await setup({ ask: other.ask, approvalsFile, root: base }).decide('bash', { command: 'git commit -m x' })).code).toBe('user_yes');
    expect(again.requests).toEqual([]);
  });

  it('"always" sticks: the rule saved matches the command it was saved for, and the same command does not ask again', async () => {
    const commands = ['npm test 2>&1 | tail -n 25', 'python3 -m pytest -x 2>&1 | tail -n 25', 'cargo +nightly test --all', 'make', 'docker compose -f ci.yml up -d'];
    const approvalsFile = join(base, 'sticks', 'approvals.json');
    const first = asker(...commands.map(() => ({ answer: 'always' }) as const));
    const { decide } = setup({ ask: first.ask, approvalsFile });
    for (const command of commands) expect((await decide('bash', { command })).code).toBe('user_always');
    const shown = first.requests.map((r) => r.suggestedRules);
    expect(shown).toEqual([['bash(npm test *)'], ['bash(python3 -m pytest *)'], ['bash(cargo +nightly *)'], ['bash(make)'], ['bash(docker compose *)']]);
    // The rules shown are the rules saved.
    expect(JSON.parse(readFileSync(approvalsFile, 'utf8')).projects[root].allow).toEqual(shown.flat());
    // The same commands, in this run and the next, ask nothing.
    const again = asker();
    const next = setup({ ask: again.ask, approvalsFile });
    for (const command of commands) {
      expect((await decide('bash', { command })).code).toBe('rule');
      expect((await next.decide('bash', { command })).code).toBe('rule');
    }
    expect(again.requests).toEqual([]);
  });

  it('a suggested rule always matches its command, options with values before the subcommand included', () => {
    const cases: string[][] = [['tail', '-n', '25'], ['python', '-m', 'pytest', '-x'], ['git', '-C', 'sub dir', 'status'], ['make'], ['ls', '-la'], ['say', 'it\'s "quoted"']];
    expect(cases.map((argv) => suggestCommandRule('bash', argv))).toEqual(['bash(tail -n 25 *)', 'bash(python -m pytest *)', 'bash(git -C "sub dir" *)', 'bash(make)', 'bash(ls -la)', null]);
    for (const argv of cases) {
      const rule = suggestCommandRule('bash', argv);
      if (rule) expect(ruleMatches(parseRule(rule), 'bash', { kind: 'command', argv }, { root, home })).toBe(true);
    }
  });

  it('"auto" switches the mode, through setMode, and the next call runs without asking', async () => {
    const { ask, requests } = asker({ answer: 'auto' });
    const { decide, modeChanges, getMode } = setup({ ask });
    expect((await decide('bash', { command: 'npm test' })).code).toBe('user_auto');
    expect((await decide('write_file', { path: 'src/a.ts' })).code).toBe('auto_mode');
    expect([modeChanges, getMode(), requests.length]).toEqual([['auto'], 'auto', 1]);
  });

  it('an abort while asking cancels the call', async () => {
    const controller = new AbortController();
    const { decide } = setup({
      ask: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    expect(await decide('bash', { command: 'npm test' }, controller.signal)).toEqual({ decision: 'deny', code: 'cancelled', reason: 'Cancelled by the user before it ran.' });
  });

  it('questions wait by id: an answer of the other kind or for no question is refused', async () => {
    const events: AgentEvent[] = [];
    const desk = new ApprovalDesk((e) => events.push(e));
    const request: AskRequest = { tool: 'bash', input: { command: 'make' }, display: 'make', reasonCode: 'exec', reasonParams: {}, suggestedRules: [], destructive: false };
    const call = desk.ask({ kind: 'call', callId: 'c1', request }, new AbortController().signal);
    const plan = desk.ask({ kind: 'plan', plan: '1. do it' }, new AbortController().signal);
    expect(events).toEqual([
      { type: 'approval', id: 'approval-1', approval: { kind: 'call', callId: 'c1', request } },
      { type: 'approval', id: 'approval-2', approval: { kind: 'plan', plan: '1. do it' } },
    ]);
    expect([desk.answer('approval-1', { approved: true }), desk.answer('approval-2', { answer: 'yes' }), desk.answer('approval-9', { answer: 'yes' })]).toEqual([false, false, false]);
    expect([desk.answer('approval-2', { approved: false, feedback: 'smaller' }), desk.answer('approval-1', { answer: 'no' }), desk.answer('approval-1', { answer: 'yes' })]).toEqual([true, true, false]);
    expect(await Promise.all([call, plan])).toEqual([{ answer: 'no' }, { approved: false, feedback: 'smaller' }]);
  });
});

describe('refusals the model reads', () => {
  it('headless: says how the user can allow it (--mode auto, or an allow rule)', async () => {
    const { decide } = setup();
    expect(await decide('bash', { command: 'npm test' })).toEqual({
      decision: 'deny',
      code: 'headless',
      reason:
        "bash npm test needs the user's approval, and feiyu is running headless with no one to ask. Do not retry it. " +
        'The user can allow it by running feiyu with --mode auto, or with an allow rule in settings.json: "permissions": {"allow": ["bash(npm test *)"]}.',
    });
    const construct = await decide('bash', { command: 'npm test > log.txt' });
    expect(construct.reason).toContain('No allow rule can cover it (it cannot be checked as written); the user can run feiyu with --mode auto');
    expect(construct.reason).toContain('bash(npm test)');
  });

  it('plan mode: says so and points at exit_plan', async () => {
    const { decide } = setup({ mode: 'plan' });
    expect(await decide('bash', { command: 'npm test' })).toEqual({
      decision: 'deny',
      code: 'plan_mode',
      reason:
        'feiyu is in plan mode, where nothing may change: only read tools and read-only allowlisted commands run (npm is not on the read-only allowlist). ' +
        'Keep investigating with those; when your plan is ready, call exit_plan with it, and the user reviews it before anything changes.',
    });
    expect((await decide('write_file', { path: 'src/a.ts' })).reason).toContain('(write_file changes files)');
  });

  it('readonly mode: exit_plan is refused too', async () => {
    const { decide } = setup({ mode: 'readonly' });
    expect(await decide('exit_plan', { plan: 'x' })).toEqual({
      decision: 'deny',
      code: 'readonly_mode',
      reason: 'feiyu is in read-only mode: only read tools and read-only allowlisted commands run (exit_plan only works in plan mode). Only the user can change the mode; tell them what you would do instead.',
    });
  });
});
