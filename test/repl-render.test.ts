// The REPL's pieces on their own: Markdown cut into blocks as it streams, the compact diff, the
// plain-text rendering of an event stream, look-alike characters made visible, slash-command
// parsing and completion, and the persisted input history.
import { mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CustomCommand } from '../src/config/commands.js';
import { completer, findCommand } from '../src/ui/commands/index.js';
import { shown } from '../src/ui/confirm.js';
import { diffLines } from '../src/ui/diff.js';
import { History } from '../src/ui/history.js';
import { setLang } from '../src/i18n/index.js';
import type { AgentEvent } from '../src/types/events.js';
import type { ModelConfig } from '../src/types/providers.js';
import { Renderer } from '../src/ui/render.js';
import { waitFor } from './scope.js';

afterEach(() => setLang('en'));

describe('diffLines', () => {
  it('shows changed lines with two lines of context, gaps between hunks, numbered', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 3\n', 'line three\n').replace('line 15\n', '');
    expect(diffLines(before, after)).toEqual({
      added: 1,
      removed: 2,
      lines: [
        { kind: 'same', n: 1, text: 'line 1' },
        { kind: 'same', n: 2, text: 'line 2' },
        { kind: 'del', n: 3, text: 'line 3' },
        { kind: 'add', n: 3, text: 'line three' },
        { kind: 'same', n: 4, text: 'line 4' },
        { kind: 'same', n: 5, text: 'line 5' },
        { kind: 'gap', count: 7 },
        { kind: 'same', n: 13, text: 'line 13' },
        { kind: 'same', n: 14, text: 'line 14' },
        { kind: 'del', n: 15, text: 'line 15' },
        { kind: 'same', n: 15, text: 'line 16' },
        { kind: 'same', n: 16, text: 'line 17' },
      ],
    });
  });

  it('caps a new file and says how many changed lines are left out', () => {
    const diff = diffLines(null, Array.from({ length: 30 }, (_, i) => `${i}`).join('\r\n'), 2, 4);
    expect(diff.lines).toEqual([
      { kind: 'add', n: 1, text: '0' },
      { kind: 'add', n: 2, text: '1' },
      { kind: 'add', n: 3, text: '2' },
      { kind: 'add', n: 4, text: '3' },
      { kind: 'more', count: 26 },
    ]);
    expect(diff.added).toBe(30);
  });
});

describe('Renderer without a terminal', () => {
  const model = { name: 'm', provider: 'anthropic', model: 'x', contextWindow: 1000, maxOutputTokens: 100 } as ModelConfig;
  const render = (events: AgentEvent[]) => {
    let out = '';
    const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0.5, costUnknown: false, requests: 1 };
    const ui = new Renderer({ write: (s: string) => (out += s), isTTY: false }, { model: () => model, totals: () => totals }, {});
    for (const e of events) ui.handle(e);
    return out;
  };
  const turn: AgentEvent[] = [
    { type: 'turn_start', text: 'go' },
    { type: 'request_start', round: 1, model: 'm' },
    { type: 'thinking_delta', text: 'Let me   look\nat it.' },
    { type: 'text_delta', text: 'Hello ' },
    { type: 'text_delta', text: 'world' },
    { type: 'tool_call', id: 'c1', name: 'bash', input: {}, title: 'rm -rf build' },
    { type: 'permission', id: 'c1', name: 'bash', decision: 'deny', code: 'user_no', reason: 'The user declined this call.' },
    { type: 'tool_result', id: 'c1', name: 'bash', output: 'Permission denied: The user declined this call.', isError: true, durationMs: 12 },
    { type: 'tool_call', id: 'c2', name: 'edit_file', input: {}, title: 'a.txt' },
    { type: 'tool_result', id: 'c2', name: 'edit_file', output: 'Edited', summary: { key: 'edited', n: 1 }, isError: false, durationMs: 1500, change: { path: 'a.txt', before: 'one\ntwo\n', after: 'one\n2\n' } },
    { type: 'retry', attempt: 2, maxAttempts: 5, delayMs: 4000, error: { kind: 'rate_limit', status: 429, message: 'slow down' } },
    { type: 'compaction', before: 1000, after: 800, method: 'elide', elided: 3, removed: 0, error: 'aborted' },
    { type: 'usage', model: 'm', input: 100, output: 50, cacheRead: 300, cacheWrite: 0, cost: 0.01, estimated: false },
    { type: 'turn_end', stopReason: 'end', text: 'Hello world', rounds: 2 },
  ];

  it('prints one line per call and result, the diff, retries, compactions and the status line, in plain text', () => {
    expect(render(turn)).toBe(
      [
        '✻ Let me look at it.',
        'Hello world',
        '● bash rm -rf build',
        '  ⎿ refused: declined (0.0 s)',
        '● edit_file a.txt',
        '  ⎿ 1 replaced (1.5 s)',
        '    +1 -1 a.txt',
        '    1   one',
        '    2 - two',
        '    2 + 2',
        '  ↻ rate limited, retrying in 4 s (attempt 3 of 5)',
        '⇣ Compaction cancelled; only 3 old tool results were cut (1,000 → 800 tokens).',
        '400 in · 50 out · cache 75% · $0.01 this turn · $0.50 session · context 45%',
        '',
      ].join('\n'),
    );
  });

  it('names the call on a result that does not follow it (reads run together)', () => {
    const out = render([
      { type: 'turn_start', text: 'look' },
      { type: 'tool_call', id: 'r1', name: 'read_file', input: {}, title: 'a.py' },
      { type: 'tool_call', id: 'r2', name: 'search', input: {}, title: 'def ' },
      { type: 'tool_result', id: 'r2', name: 'search', output: '', summary: { key: 'matches', n: 3 }, isError: false, durationMs: 100 },
      { type: 'tool_result', id: 'r1', name: 'read_file', output: '', summary: { key: 'lines', n: 2 }, isError: false, durationMs: 100 },
    ]);
    expect(out).toBe('● read_file a.py\n● search def \n  ⎿ 3 matches (0.1 s)\n  ⎿ read_file a.py: 2 lines (0.1 s)\n');
  });

  it('never passes terminal controls from the model or tools through to the screen', () => {
    const out = render([
      { type: 'turn_start', text: 'go' },
      { type: 'text_delta', text: 'Done \x1b]0;PWNED\x07 \u202eevil\n' },
      { type: 'tool_call', id: 'c1', name: 'bash', input: {}, title: 'ls \x1b[41mRED\x1b[0m' },
      { type: 'tool_result', id: 'c1', name: 'bash', output: 'boom \x1b[2J', isError: true, durationMs: 1 },
    ]);
    expect(out).not.toMatch(/[\x1b\x07\u202e]/);
    expect(out).toContain('Done ⟨U+001B⟩]0;PWNED⟨U+0007⟩ ⟨U+202E⟩evil');
    expect(out).toContain('● bash ls ⟨U+001B⟩[41mRED⟨U+001B⟩[0m');
    expect(out).toContain('  ⎿ boom ⟨U+001B⟩[2J');
  });

  it('keeps the context fill of the last answered request when a turn fails', () => {
    const out = render([
      { type: 'turn_start', text: 'one' },
      { type: 'usage', model: 'm', input: 400, output: 50, cacheRead: 0, cacheWrite: 0, cost: 0.001, estimated: false },
      { type: 'turn_end', stopReason: 'end', text: 'ok', rounds: 0 },
      { type: 'turn_start', text: 'two' },
      { type: 'turn_end', stopReason: 'error', text: '', rounds: 0 },
    ]);
    expect(out.trim().split('\n').map((l) => l.split(' · ').at(-1))).toEqual(['context 45%', 'context 45%']);
  });

  it('shows what sub-agents spent apart from the main context', () => {
    const out = render([
      { type: 'turn_start', text: 'research' },
      { type: 'usage', model: 'm', input: 100, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0.001, estimated: false },
      { type: 'usage', model: 'm', input: 3000, output: 200, cacheRead: 0, cacheWrite: 0, cost: 0.012, estimated: false, side: true },
      { type: 'turn_end', stopReason: 'end', text: 'done', rounds: 1 },
    ]);
    expect(out).toBe('3,100 in · 220 out · cache 0% · $0.01 this turn · $0.50 session · context 12% · side requests (sub-agents, web questions): 3,200 tokens · $0.01\n');
  });

  it("prints each specialist's tool calls and end, and its spend on the status line", () => {
    const out = render([
      { type: 'turn_start', text: 'research' },
      { type: 'specialist', run: 1, agent: 'explore', phase: 'start', title: 'find alpha' },
      { type: 'specialist', run: 1, agent: 'explore', phase: 'tool', tool: 'read_file', title: 'notes.txt' },
      { type: 'usage', model: 'side', input: 3000, output: 200, cacheRead: 0, cacheWrite: 0, cost: 0.012, estimated: false, side: true, by: 'explore' },
      { type: 'specialist', run: 1, agent: 'explore', phase: 'end', status: 'done', note: 'n1', tokens: 3200, cost: 0.012 },
      { type: 'usage', model: 'm', input: 100, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0.001, estimated: false },
      { type: 'turn_end', stopReason: 'end', text: 'done', rounds: 1 },
    ]);
    expect(out).toBe(
      '  ↳ explore · read_file notes.txt\n' +
        '↳ explore done · note n1 · 3,200 tokens · $0.01\n' +
        '3,100 in · 220 out · cache 0% · $0.01 this turn · $0.50 session · context 12% · explore 3,200 tokens $0.01\n',
    );
  });

  it('speaks Chinese when the language is switched', () => {
    setLang('zh');
    const out = render(turn);
    expect(out).toContain('  ⎿ 已拒绝：你选择了拒绝 (0.0 秒)');
    expect(out).toContain('输入 400 · 输出 50 · 缓存命中 75% · 本轮 $0.01 · 会话 $0.50 · 上下文 45%');
  });

  it('says when a turn was cancelled', () => {
    const out = render([
      { type: 'turn_start', text: 'go' },
      { type: 'permission', id: 'c1', name: 'bash', decision: 'allow', code: 'auto_mode', sandbox: 'write' },
      { type: 'turn_end', stopReason: 'aborted', text: '', rounds: 0 },
    ]);
    expect(out).toBe('Cancelled.\n0 in · 0 out · cache 0% · $0.00 this turn · $0.50 session · context 0%\n');
  });
});

describe('what a confirmation shows', () => {
  it('makes hidden characters and look-alikes visible, and leaves Chinese alone', () => {
    expect(shown('rm\u00a0-rf /tmp/x')).toBe('rm⟨U+00A0⟩-rf /tmp/x');
    expect(shown('cat раss.txt')).toBe('cat ⟨U+0440⟩⟨U+0430⟩ss.txt');
    expect(shown('rm −rf ／etc')).toBe('rm ⟨U+2212⟩rf ⟨U+FF0F⟩etc');
    expect(shown('echo "你好，世界（一）"')).toBe('echo "你好，世界（一）"');
  });
});

describe('slash commands', () => {
  it('finds a command and its argument; an unknown /word alone is reported, a sentence is a message', () => {
    expect(findCommand('/model  fake-openai ')).toMatchObject({ command: { name: '/model' }, arg: 'fake-openai' });
    expect(findCommand('/bogus')).toEqual({ unknown: '/bogus' });
    expect(findCommand('/tmp is full')).toBeNull();
    expect(findCommand('hello /help')).toBeNull();
  });

  it("finds the user's and the project's commands after the built-in ones, and completes their names", async () => {
    const custom = ['review-pr', 'frontend:component', 'help', 'commit'].map((name) => ({ name, source: 'project', from: '.claude/commands', file: '', description: '', allowedTools: [], body: '', shell: [] }) as CustomCommand);
    expect(findCommand('/review-pr 456 high', custom)).toMatchObject({ custom: { name: 'review-pr' }, arg: '456 high' });
    expect(findCommand('/component Button', custom)).toMatchObject({ custom: { name: 'frontend:component' }, arg: 'Button' });
    expect(findCommand('/help', custom)).toMatchObject({ command: { name: '/help' }, arg: '' });
    // A commit.md written for Claude Code (which has no /commit) runs as written; without one, the built-in.
    expect(findCommand('/commit now', custom)).toMatchObject({ custom: { name: 'commit' }, arg: 'now' });
    expect(findCommand('/commit now', [])).toMatchObject({ command: { name: '/commit' }, arg: 'now' });
    expect(findCommand('/review-pr', [])).toEqual({ unknown: '/review-pr' });
    const complete = completer(tmpdir(), () => custom) as (line: string) => [string[], string];
    expect(complete('/re')).toEqual([['/resume', '/rewind', '/rename', '/review-pr'], '/re']);
    expect(complete('/frontend:')).toEqual([['/frontend:component'], '/frontend:']);
    expect(complete('/he')).toEqual([['/help'], '/he']);
  });

  it('completes /commands and @paths', async () => {
    const root = await mkdtemp(join(tmpdir(), 'feiyu-complete-'));
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src', 'main.ts'), '');
    await writeFile(join(root, 'README.md'), '');
    await writeFile(join(root, '.hidden'), '');
    const complete = completer(root, () => []) as (line: string) => [string[], string];
    expect(complete('/mo')).toEqual([['/mode', '/model'], '/mo']);
    expect(complete('look at @')).toEqual([['@README.md', '@src/'], '@']);
    expect(complete('look at @src/m')).toEqual([['@src/main.ts'], '@src/m']);
    expect(complete('plain words')).toEqual([[], 'plain words']);
  });
});

describe('History', () => {
  it('keeps whole messages across sessions in a 0600 file, capped, without repeats', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feiyu-history-'));
    const file = join(dir, 'state', 'history');
    const h = new History(file, 4);
    for (const entry of ['one', 'two\nlines', 'two\nlines', 'three', '', 'four', 'five', 'six', 'seven']) h.add(entry);
    expect(h.entries).toEqual(['four', 'five', 'six', 'seven']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(new History(file, 4).entries).toEqual(['four', 'five', 'six', 'seven']);
    await writeFile(file, (await readFile(file, 'utf8')) + 'not json\n"multi\\nline"\n');
    expect(new History(file, 4).entries).toEqual(['five', 'six', 'seven', 'multi\nline']);
  });
});

describe('the waiting line on a terminal', () => {
  const model = { name: 'm', provider: 'anthropic', model: 'x', contextWindow: 1000, maxOutputTokens: 100 } as ModelConfig;
  const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, costUnknown: false, requests: 0 };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A renderer on a fake terminal whose model counts as silent after 200 ms; `since()` is what was drawn after the mark. */
  function terminal() {
    let out = '';
    let mark = 0;
    const ui = new Renderer({ write: (s: string) => (out += s), isTTY: true, columns: 120 }, { model: () => model, totals: () => totals }, { NO_COLOR: '1' }, { stallNoticeMs: 200 });
    return { ui, mark: () => void (mark = out.length), since: () => out.slice(mark) };
  }

  it('says how long the model has sent nothing, and stops saying it once data comes', async () => {
    const t = terminal();
    t.ui.handle({ type: 'turn_start', text: 'go' });
    t.ui.handle({ type: 'request_start', round: 1, model: 'm' });
    await waitFor(() => /waiting for the model \(no data for \d+ s\) · \d+ s · 0 tokens/.test(t.since()), () => `the stalled line in ${JSON.stringify(t.since())}`);
    t.ui.handle({ type: 'thinking_delta', text: 'hmm' });
    t.mark();
    await waitFor(() => t.since().includes('thinking ·'), () => `the thinking line in ${JSON.stringify(t.since())}`);
    expect(t.since()).not.toContain('no data');
    t.ui.handle({ type: 'turn_end', stopReason: 'end', text: '', rounds: 0 });
  });

  it('names a retry after the idle timeout', () => {
    let out = '';
    const ui = new Renderer({ write: (s: string) => (out += s), isTTY: false }, { model: () => model, totals: () => totals }, {});
    ui.handle({ type: 'retry', attempt: 1, maxAttempts: 5, delayMs: 1000, error: { kind: 'timeout', message: 'no data from the server for 20 s', idleMs: 20_000 } });
    expect(out).toBe('  ↻ no data from the server, retrying in 1 s (attempt 2 of 5)\n');
  });

  it('does not blame the model while a tool runs', async () => {
    const t = terminal();
    t.ui.handle({ type: 'turn_start', text: 'go' });
    t.ui.handle({ type: 'request_start', round: 1, model: 'm' });
    t.ui.handle({ type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'sleep 1' }, title: 'sleep 1' });
    t.ui.handle({ type: 'permission', id: 'c1', name: 'bash', decision: 'allow', code: 'auto_mode' });
    await sleep(400); // past the 200 ms after which a silent model would be named
    t.mark();
    await waitFor(() => t.since().includes('running bash'), () => `the running line in ${JSON.stringify(t.since())}`);
    expect(t.since()).not.toContain('no data');
    t.ui.handle({ type: 'turn_end', stopReason: 'end', text: '', rounds: 0 });
  });
});
