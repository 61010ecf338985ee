// /rewind, /undo, /diff, /commit and /export as a person sees them: the built CLI in a real
// pseudo-terminal (tmux) against the fake model server, in English and in Chinese. What is on the
// screen (its colours too), what reached the model, what is on disk and in git.
import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitRepo } from './attacks.js';
import { useCliFixture } from './fixtures.js';
import { hasTmux, stopTerminals, Terminal } from './tmux.js';

const { server, home, work } = await useCliFixture('feiyu-rewind-tty', { price: { input: 3, output: 15 } });
afterAll(() => stopTerminals());

const start = (env: Record<string, string> = {}) => Terminal.start(['--mode', 'auto'], { cwd: work, home, env, cols: 110 });
const PROMPT = /^auto ›$/m;
const bash = (command: string) => ({ toolCalls: [{ name: 'bash', input: { command } }] });

/** The text blocks of the user messages of the model's last request. */
const userTexts = () =>
  (server.requests.at(-1)!.body.messages as { role: string; content: { type: string; text?: string }[] }[])
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content.filter((b) => b.type === 'text').map((b) => b.text));

const send = async (t: Terminal, text: string, done: string | RegExp) => {
  t.type(text);
  t.keys('Enter');
  return t.waitFor(done);
};

describe.skipIf(!hasTmux)('rewind on a terminal', () => {
  it('rewinds files and conversation with single keys, puts the request back at the prompt, and shows /diff in colour', async () => {
    await writeFile(join(work, 'notes.txt'), 'one\ntwo\n');
    server.enqueue(bash("printf 'one\\n2\\n' > notes.txt"), { text: 'First done.' }, bash('echo x > extra.txt'), { text: 'Second done.' }, { text: 'Instead.' });
    const t = start();
    await t.waitFor(PROMPT);
    await send(t, 'change the notes', 'First done.');
    await send(t, 'add an extra file', 'Second done.');
    await send(t, '/diff', '+++ b/extra.txt');
    const colours = t.screen(true);
    // The REPL's diff colours: additions green, removals red, hunks cyan.
    const sgr = '(?:\\x1b\\[[\\d;]*m)*';
    expect(colours).toMatch(new RegExp(`\\x1b\\[32m${sgr}\\+2\\n`));
    expect(colours).toMatch(new RegExp(`\\x1b\\[31m${sgr}-two\\n`));
    expect(colours).toMatch(new RegExp(`\\x1b\\[36m${sgr}@@ -1,2 \\+1,2 @@`));
    let screen = await send(t, '/rewind', '(a number; Enter cancels)');
    expect(screen).toMatch(/ {2}1\. \d\d:\d\d {2}change the notes {2}files: 1\n {2}2\. \d\d:\d\d {2}add an extra file {2}files: 1\n/);
    t.type('2');
    t.keys('Enter');
    screen = await t.waitFor('other keys: cancel ›');
    expect(screen).toContain('Before “add an extra file”:\n  made since, removed (1): extra.txt\n');
    t.type('b');
    screen = await t.waitFor('Its request is at the prompt');
    expect(screen).toContain('Removed (made since): extra.txt\nThe conversation is back to before that turn.\n');
    // The request is back on the prompt line, to edit and send.
    await t.waitFor(/^auto › add an extra file$/m);
    await expect(stat(join(work, 'extra.txt'))).rejects.toThrow();
    t.keys('C-u');
    await send(t, 'do something else', 'Instead.');
    expect(userTexts()).toEqual(['change the notes', 'do something else']);
    expect(await readFile(join(work, 'notes.txt'), 'utf8')).toBe('one\n2\n');
  });

  it('speaks Chinese: /rewind, /undo with a conflict, /diff, /export and /commit', async () => {
    const { env } = gitRepo(work, home, { 'a.txt': 'a0\n' });
    await writeFile(join(home, '.gitconfig'), '[user]\n\tname = 李雷\n\temail = li@example.com\n');
    server.enqueue(bash('echo a1 > a.txt && echo 新 > 新文件.txt'), { text: '改好了。' }, { text: '更新 a.txt 并新增文件' });
    const t = start({ LANG: 'zh_CN.UTF-8' });
    await t.waitFor(PROMPT);
    await send(t, '改一下', '改好了。');
    let screen = await send(t, '/diff', '+++ b/新文件.txt');
    expect(screen).toContain('会话开始以来的改动（2 个文件）：\n  +1 -1 a.txt\n  +1 -0 新文件.txt\n');
    screen = await send(t, '/rewind', '（输入编号；直接回车取消）');
    expect(screen).toMatch(/本次会话的各轮（从早到晚）：\n {2}1\. \d\d:\d\d {2}改一下 {2}文件：2\n/);
    t.keys('Enter');
    // Someone edits a.txt after the turn: /undo asks before overwriting it.
    await writeFile(join(work, 'a.txt'), '我的\n');
    screen = await send(t, '/undo', '[o] 一并覆盖 · [k] 保持不动 · 其他键：取消 ›');
    expect(screen).toContain('之后被飞鱼以外的程序或人改过（1）：a.txt');
    t.type('k');
    screen = await t.waitFor('保持不动：a.txt');
    expect(screen).toContain('已删除（之后新建的）：新文件.txt');
    expect(await readFile(join(work, 'a.txt'), 'utf8')).toBe('我的\n');
    screen = await send(t, '/commit', '[y] 提交 · [e] 编辑说明 · 其他键：取消 ›');
    expect(screen).toContain('提交这些文件（1）：a.txt\n    更新 a.txt 并新增文件');
    t.type('y');
    screen = await t.waitFor('已提交：更新 a.txt 并新增文件');
    // git's own output reached the terminal: it ran as the user's command.
    expect(screen).toMatch(/\[main [0-9a-f]+\] 更新 a\.txt 并新增文件/);
    expect(execFileSync('git', ['log', '-1', '--format=%an %s'], { cwd: work, env }).toString()).toBe('李雷 更新 a.txt 并新增文件\n');
    screen = await send(t, '/export', /已把 4 条消息写入 .*feiyu-[\w-]+\.md/);
    const file = /已把 4 条消息写入 (\S+)/.exec(screen)![1]!;
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
