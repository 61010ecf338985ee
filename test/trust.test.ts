// Project trust: what a project's files would run or allow, trusted.json by path and hash (0600),
// any change asking again, and the subset of project settings that applies without trust.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Settings } from '../src/config/settings.js';
import { effectiveSettings, projectTrustState, trustProject, untrustedProjectSettings } from '../src/config/trust.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-trust-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = join(base, String(++n));
  mkdirSync(dir);
  return { root: join(dir, 'ws'), configDir: join(dir, 'config', 'feiyu') };
};

const settings: Settings = {
  hooks: { PreToolUse: [{ matcher: 'bash', command: './scripts/check.sh' }], Stop: [{ command: 'notify-send done' }] },
  permissions: { allow: ['bash(npm test)'], deny: ['bash(git push *)'] },
  mode: 'auto',
  sandbox: 'off',
  lang: 'zh',
};

describe('project trust', () => {
  it('lists what would run, is untrusted until trusted, then trusted; trusted.json is 0600', () => {
    const { root, configDir } = fresh();
    const project = { settings, verify: ['npm run lint'] };
    const before = projectTrustState(root, configDir, project);
    expect({ ...before, hash: typeof before.hash }).toEqual({
      trusted: false,
      hash: 'string',
      whatWouldRun: [
        'hooks.PreToolUse (bash): ./scripts/check.sh',
        'hooks.Stop: notify-send done',
        'verify: npm run lint',
        'permissions.allow: bash(npm test)',
        'mode: auto',
        'sandbox: off',
      ],
    });
    trustProject(root, configDir, before.hash);
    expect(projectTrustState(root, configDir, project)).toEqual({ ...before, trusted: true });
    const file = join(configDir, 'trusted.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, projects: { [root]: { hash: before.hash, trustedAt: expect.any(String) } } });
  });

  it('any change to what would run asks again; key order does not matter', () => {
    const { root, configDir } = fresh();
    const project = { settings, verify: [] as string[] };
    trustProject(root, configDir, projectTrustState(root, configDir, project).hash);
    const reordered = { settings: { lang: 'zh' as const, sandbox: 'off' as const, mode: 'auto' as const, permissions: settings.permissions, hooks: { Stop: settings.hooks!.Stop, PreToolUse: settings.hooks!.PreToolUse } }, verify: [] };
    expect(projectTrustState(root, configDir, reordered).trusted).toBe(true);
    const changes: { settings: Settings; verify: string[] }[] = [
      { settings: { ...settings, hooks: { PreToolUse: [{ matcher: 'bash', command: './scripts/check.sh; curl evil' }] } }, verify: [] },
      { settings, verify: ['npm test'] },
      { settings: { ...settings, permissions: { allow: ['bash(npm test)', 'bash'] } }, verify: [] },
      { settings: { ...settings, webFetch: { allowPrivate: ['127.0.0.1'] } }, verify: [] },
    ];
    expect(changes.map((c) => projectTrustState(root, configDir, c).trusted)).toEqual([false, false, false, false]);
  });

  it('trust is per workspace path', () => {
    const a = fresh();
    const project = { settings, verify: [] };
    trustProject(a.root, a.configDir, projectTrustState(a.root, a.configDir, project).hash);
    expect(projectTrustState(`${a.root}-other`, a.configDir, project).trusted).toBe(false);
  });

  it('nothing to trust when the project only tightens things', () => {
    const { root, configDir } = fresh();
    const tight = { settings: { lang: 'en', mode: 'plan', sandbox: 'strict', permissions: { deny: ['bash(rm *)'] }, hooks: { Stop: [] } } as Settings, verify: [] };
    const state = projectTrustState(root, configDir, tight);
    expect([state.trusted, state.whatWouldRun]).toEqual([true, []]);
  });

  it('untrusted, only deny rules and tightening settings apply (a project\'s lang never does)', () => {
    expect(untrustedProjectSettings(settings)).toEqual({ permissions: { deny: ['bash(git push *)'] } });
    expect(untrustedProjectSettings({ mode: 'readonly', sandbox: 'strict', verify: 'x' })).toEqual({ mode: 'readonly', sandbox: 'strict' });
  });

  it('a broken trusted.json stops start-up, naming it', () => {
    const { root, configDir } = fresh();
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'trusted.json'), '{"projects": 3}');
    expect(() => projectTrustState(root, configDir, { settings, verify: [] })).toThrow(`${join(configDir, 'trusted.json')}: "projects" must be an object`);
  });

  it('a Claude Code settings file’s hooks and allow rules need trust too, and the question names the file', () => {
    const { root, configDir } = fresh();
    const claudeFile = join(root, '.claude', 'settings.json');
    const claude = [
      {
        file: claudeFile,
        settings: {
          hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py' }] }] },
          permissions: { allow: ['Bash(npm test:*)'], deny: ['Bash(git push:*)'] },
        },
      },
    ];
    const project = { settings: {}, verify: [], claude };
    const state = projectTrustState(root, configDir, project);
    expect([state.trusted, state.whatWouldRun]).toEqual([
      false,
      ['.claude/settings.json: hooks.PreToolUse (Bash): "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py', '.claude/settings.json: permissions.allow: Bash(npm test:*)'],
    ]);
    // A project without Claude Code files keeps the hash it had.
    expect(projectTrustState(root, configDir, { settings, verify: [] }).hash).toBe(projectTrustState(root, configDir, { settings, verify: [], claude: [] }).hash);

    const loaded = { user: {}, project: {}, userFile: join(configDir, 'settings.json'), projectFile: join(root, '.feiyu', 'settings.json'), claude };
    const untrusted = effectiveSettings(loaded, false);
    expect([untrusted.hooks, untrusted.allow, untrusted.deny]).toEqual([{}, [], ['Bash(git push:*)']]);
    const trusted = effectiveSettings(loaded, true);
    expect([trusted.hooks, trusted.allow, trusted.deny]).toEqual([
      { PreToolUse: [{ matcher: 'Bash', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py' }] },
      ['Bash(npm test:*)'],
      ['Bash(git push:*)'],
    ]);
  });

  it('hooks of every file that applies join per event; what feiyu cannot run is listed with its file', () => {
    const userFile = '/home/u/.config/feiyu/settings.json';
    const loaded = {
      user: { hooks: { Stop: [{ command: 'say done' }], TeammateIdle: [{ hooks: [{ type: 'command', command: 'x' }] }] } },
      project: { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'npm run check' }, { type: 'prompt', prompt: 'Done?' }] }] } },
      userFile,
      projectFile: '/ws/.feiyu/settings.json',
      claude: [],
    };
    const effective = effectiveSettings(loaded, true);
    expect(effective.hooks).toEqual({ Stop: [{ command: 'say done', flat: true }, { command: 'npm run check' }] });
    expect(effective.skipped).toEqual([
      { file: userFile, event: 'TeammateIdle' },
      { file: '/ws/.feiyu/settings.json', event: 'Stop', type: 'prompt' },
    ]);
  });
});
