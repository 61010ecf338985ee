// settings.json at user and project level: where they live (XDG), validation errors that name
// the file, the field and the problem (in the interface language), and saving the user's file
// merged, 0600 and atomically.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings, saveUserSettings, type Settings } from '../src/config/settings.js';
import { createHookRunner } from '../src/hooks/runner.js';
import { Problem, problemText, setLang } from '../src/i18n/index.js';
import { parseRule } from '../src/safety/rules.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'feiyu-settings-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
/** A fresh workspace and config home; `user`/`project` are written as given (strings verbatim). */
function fixture(files: { user?: unknown; project?: unknown; claude?: unknown; claudeLocal?: unknown } = {}) {
  const dir = join(base, String(++n));
  const root = join(dir, 'ws');
  const xdg = join(dir, 'config');
  mkdirSync(root, { recursive: true });
  const env = { HOME: join(dir, 'home'), XDG_CONFIG_HOME: xdg };
  const write = (file: string, data: unknown) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  };
  const userFile = join(xdg, 'feiyu', 'settings.json');
  const projectFile = join(root, '.feiyu', 'settings.json');
  if (files.user !== undefined) write(userFile, files.user);
  if (files.project !== undefined) write(projectFile, files.project);
  const claudeFile = join(root, '.claude', 'settings.json');
  const claudeLocal = join(root, '.claude', 'settings.local.json');
  if (files.claude !== undefined) write(claudeFile, files.claude);
  if (files.claudeLocal !== undefined) write(claudeLocal, files.claudeLocal);
  return { root, env, userFile, projectFile, claudeFile, claudeLocal };
}

describe('loadSettings', () => {
  it('missing files are empty settings; the paths follow XDG_CONFIG_HOME', () => {
    const f = fixture();
    expect(loadSettings(f.root, f.env)).toEqual({ user: {}, project: {}, userFile: f.userFile, projectFile: f.projectFile, claude: [] });
  });

  it('without XDG_CONFIG_HOME the user file is ~/.config/feiyu/settings.json', () => {
    const f = fixture();
    expect(loadSettings(f.root, { HOME: '/home/someone' }).userFile).toBe('/home/someone/.config/feiyu/settings.json');
  });

  it('reads both levels as written', () => {
    const user: Settings = {
      mode: 'default',
      sandbox: 'workspace',
      lang: 'zh',
      permissions: { allow: ['bash(npm test)', 'bash(git commit *)'], deny: ['bash(git push *)'] },
      hooks: { PreToolUse: [{ matcher: 'bash|edit_file', command: './scripts/check.sh', timeout: 30 }], PostToolUse: [], UserPromptSubmit: [], Stop: [] },
      webFetch: { allowPrivate: ['10.0.0.5'] },
      tools: { hot: ['web_fetch', 'mcp__github__*'], cold: ['bash'], budgetTokens: 900, loadInto: 'tools' },
      deferTools: true,
    };
    const project = { verify: 'npm test', permissions: { deny: ['web_fetch'] }, futureKey: { any: 1 } };
    const f = fixture({ user, project });
    expect(loadSettings(f.root, f.env)).toEqual({ user, project, userFile: f.userFile, projectFile: f.projectFile, claude: [] });
  });

  it('reads Claude Code’s hook form and feiyu’s flat one; an event or hook type feiyu does not know is no error', () => {
    const hooks = {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py', timeout: 10 }] }],
      Stop: [{ hooks: [{ type: 'prompt', prompt: 'Is the task done?' }] }, { command: 'notify-send done' }],
      PermissionRequest: [{ matcher: '*', hooks: [{ type: 'command', command: 'x' }] }],
    };
    const f = fixture({ user: { hooks } });
    expect(loadSettings(f.root, f.env).user).toEqual({ hooks });
  });

  it('reads the hooks and the allow and deny rules of a project’s Claude Code settings, and nothing else of them', () => {
    const hooks = { PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"' }] }] };
    const claude = {
      model: 'opus',
      sandbox: { enabled: true },
      env: { DEBUG: '1' },
      permissions: { allow: ['Bash(npm run lint)', 'Bash(npm test:*)', 'Edit'], deny: ['Read(./.env)', 'WebFetch(domain:evil.example)'], ask: ['Bash(git push:*)'], defaultMode: 'acceptEdits' },
      hooks,
    };
    const local = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] }, permissions: { additionalDirectories: ['../lib'] } };
    const f = fixture({ claude, claudeLocal: local });
    expect(loadSettings(f.root, f.env).claude).toEqual([
      { file: f.claudeFile, settings: { hooks, permissions: { allow: claude.permissions.allow, deny: claude.permissions.deny } } },
      { file: f.claudeLocal, settings: { hooks: local.hooks, permissions: {} } },
    ]);
  });

  it('a problem in a Claude Code settings file names that file', () => {
    const f = fixture({ claude: { permissions: { allow: ['Bash(npm test'] } } });
    expect(() => loadSettings(f.root, f.env)).toThrow(`${f.claudeFile}: "permissions.allow[0]": "Bash(npm test" is not a rule`);
  });

  it('an empty file is empty settings', () => {
    const f = fixture({ user: '  \n' });
    expect(loadSettings(f.root, f.env).user).toEqual({});
  });

  const broken: [string, unknown, string][] = [
    ['broken JSON', '{"mode": "auto",', 'not valid JSON'],
    ['not an object', '[1, 2]', 'the file must hold a JSON object'],
    ['a bad mode', { mode: 'yolo' }, '"mode" must be one of "default", "auto", "plan", "readonly", not "yolo"'],
    ['a bad sandbox', { sandbox: true }, '"sandbox" must be one of "off", "workspace", "strict", not true'],
    ['a bad lang', { lang: 'fr' }, '"lang" must be one of "en", "zh", not "fr"'],
    ['a bad codeIndex', { codeIndex: 'yes' }, '"codeIndex" must be one of "auto", "on", "off", not "yes"'],
    ['permissions not an object', { permissions: ['bash'] }, '"permissions" must be an object'],
    ['allow not a list', { permissions: { allow: 'bash(ls)' } }, '"permissions.allow" must be a list of strings'],
    ['a rule not a string', { permissions: { allow: ['bash(ls)', 3] } }, '"permissions.allow[1]" must be a string'],
    ['a malformed rule', { permissions: { deny: ['bash(git push'] } }, '"permissions.deny[0]": "bash(git push" is not a rule; write tool or tool(pattern)'],
    ['a hook without command', { hooks: { Stop: [{ matcher: 'x' }] } }, '"hooks.Stop[0]" must be an object with "hooks" (or a "command")'],
    ['a flat hook with an empty command', { hooks: { Stop: [{ command: ' ' }] } }, '"hooks.Stop[0].command" must be a non-empty string'],
    ['a command hook without command', { hooks: { Stop: [{ hooks: [{ type: 'command' }] }] } }, '"hooks.Stop[0].hooks[0].command" must be a non-empty string'],
    ['hooks not a list', { hooks: { Stop: [{ hooks: { type: 'command', command: 'x' } }] } }, '"hooks.Stop[0].hooks" must be a list of hooks'],
    ['a bad matcher', { hooks: { PreToolUse: [{ matcher: '(', command: 'x' }] } }, '"hooks.PreToolUse[0].matcher" must be a valid regular expression'],
    ['a bad timeout', { hooks: { PreToolUse: [{ command: 'x', timeout: -1 }] } }, '"hooks.PreToolUse[0].timeout" must be a positive number of seconds'],
    ['verify not a string', { verify: ['npm test'] }, '"verify" must be a string (a command)'],
    ['allowPrivate not a list', { webFetch: { allowPrivate: '10.0.0.1' } }, '"webFetch.allowPrivate" must be a list of strings'],
    ['a negative idle timeout', { streamIdleTimeout: -5 }, '"streamIdleTimeout" must be a number of seconds (0 turns it off), not -5'],
    ['an idle timeout as text', { streamIdleTimeout: '120' }, '"streamIdleTimeout" must be a number of seconds (0 turns it off), not "120"'],
    ['tools not an object', { tools: ['bash'] }, '"tools" must be an object'],
    ['hot tools not a list', { tools: { hot: 'bash' } }, '"tools.hot" must be a list of strings'],
    ['a cold tool not a string', { tools: { cold: [1] } }, '"tools.cold[0]" must be a string'],
    ['a negative budget', { tools: { budgetTokens: -1 } }, '"tools.budgetTokens" must be a number ≥ 0'],
    ['an unknown placement', { tools: { loadInto: 'system' } }, '"tools.loadInto" must be one of "conversation", "tools", not "system"'],
    ['deferTools not a boolean', { deferTools: 'no' }, '"deferTools" must be a boolean'],
  ];
  it.each(broken)('%s in the user file names the file, the field and the problem', (_name, user, message) => {
    const f = fixture({ user });
    expect(() => loadSettings(f.root, f.env)).toThrow(`${f.userFile}: ${message}`);
  });

  it('a problem in the project file names the project file', () => {
    const f = fixture({ project: { mode: 'yolo' } });
    expect(() => loadSettings(f.root, f.env)).toThrow(`${f.projectFile}: "mode" must be one of`);
  });
});

describe('problems in the interface language', () => {
  /** The problem `fn` throws, worded in Chinese. */
  function inChinese(fn: () => unknown): string {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(Problem);
      setLang('zh');
      try {
        return problemText(e as Problem);
      } finally {
        setLang('en');
      }
    }
    throw new Error('nothing was thrown');
  }

  it('settings, rule and hook-matcher problems come from the catalogue, nested problems too', () => {
    const f = fixture({ user: { permissions: { deny: ['bash(git push'] } } });
    const g = fixture({ project: { hooks: { Stop: [{ command: 'x', timeout: 0 }] } } });
    expect([
      inChinese(() => loadSettings(f.root, f.env)),
      inChinese(() => loadSettings(g.root, g.env)),
      inChinese(() => parseRule('edit_file()')),
      inChinese(() => createHookRunner({ hooks: { PostToolUse: [{ matcher: 'a)', command: 'true' }] }, root: '/', session: () => ({ id: 's', file: '' }), env: {} })),
    ]).toEqual([
      `${f.userFile}："permissions.deny[0]"："bash(git push" 不是规则；请写成 工具 或 工具(模式)，例如 bash(npm test) 或 edit_file(src/**)`,
      `${g.projectFile}："hooks.Stop[0].timeout" 应为正的秒数`,
      '"edit_file()" 不是规则；请写成 工具 或 工具(模式)，例如 bash(npm test) 或 edit_file(src/**)',
      expect.stringMatching(/^hooks\.PostToolUse\[0\]\.matcher "a\)" 不是有效的正则表达式：/),
    ]);
  });
});

describe('saveUserSettings', () => {
  it('merges into the existing file, keeps unknown keys, removes undefined ones; 0600 in a 0700 folder', () => {
    const f = fixture({ user: { lang: 'en', mode: 'plan', futureKey: 1 } });
    const saved = saveUserSettings({ lang: 'zh', mode: undefined, sandbox: 'strict' }, f.env);
    const expected = { lang: 'zh', futureKey: 1, sandbox: 'strict' };
    expect(saved).toEqual(expected);
    expect(JSON.parse(readFileSync(f.userFile, 'utf8'))).toEqual(expected);
    expect(statSync(f.userFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(f.userFile, '..'))).toEqual(['settings.json']);
  });

  it('creates the file and its folder 0700 when there is none', () => {
    const f = fixture();
    saveUserSettings({ lang: 'zh' }, f.env);
    expect(JSON.parse(readFileSync(f.userFile, 'utf8'))).toEqual({ lang: 'zh' });
    expect(statSync(join(f.userFile, '..')).mode & 0o777).toBe(0o700);
  });

  it('refuses an invalid patch and never overwrites a broken file', () => {
    const f = fixture({ user: '{"mode": ' });
    expect(() => saveUserSettings({ lang: 'zh' }, f.env)).toThrow('not valid JSON');
    expect(readFileSync(f.userFile, 'utf8')).toBe('{"mode": ');
    const g = fixture({ user: { lang: 'en' } });
    expect(() => saveUserSettings({ mode: 'fast' as never }, g.env)).toThrow('"mode" must be one of');
    expect(JSON.parse(readFileSync(g.userFile, 'utf8'))).toEqual({ lang: 'en' });
  });
});
