// Live output in a real terminal (tmux) against the fake model server, in English and Chinese: the
// answer appears as it streams (a long paragraph's rows before it ends), a running command's last
// lines live and then replaced by its result line, a failure's last lines, the exit code always,
// Ctrl+O and /last for the whole output, results of parallel calls named, background jobs running.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { hasTmux, stopTerminals, Terminal } from './tmux.js';

const { server, home, work } = await useCliFixture('feiyu-live', {});
afterAll(() => stopTerminals());

const LANGS = {
  en: { env: { LANG: 'en_US.UTF-8' }, status: /context \d+%/, exit: (code: number) => `exit ${code}`, secs: 's', job: 'job 1 started, running in the background', cancelled: 'Cancelled.', last: 'the last output: bash' },
  zh: { env: { LANG: 'zh_CN.UTF-8' }, status: /上下文 \d+%/, exit: (code: number) => `退出码 ${code}`, secs: '秒', job: '后台任务 1 已启动，正在运行', cancelled: '已取消。', last: '最近一次输出：bash' },
};
type Lang = keyof typeof LANGS;

const start = (lang: Lang, args: string[] = ['--mode', 'auto', '--sandbox', 'off'], cols = 60) => Terminal.start(args, { cwd: work, home, env: LANGS[lang].env, cols });
const PROMPT = /›$/m;

describe.skipIf(!hasTmux)('live output', () => {
  it.each(['en', 'zh'] as Lang[])('a long paragraph shows its rows while it streams, word-wrapped, never mid-word (%s)', async (lang) => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(' ');
    server.enqueue({ text: `${words} 中文也会按字换行，不会在词中间断开。 and the end never comes`, chunkDelayMs: 15, hang: true });
    const t = start(lang);
    await t.waitFor(PROMPT);
    t.type('talk');
    t.keys('Enter');
    // The stream has not ended (it hangs), yet its first rows are printed, whole words each.
    const screen = await t.waitFor(/word1 word2 word3 .*\n.*\n.*word\d+/);
    const rows = screen.slice(screen.indexOf('› talk') + 7).split('\n');
    for (const row of rows.slice(0, 2)) {
      expect(row.length).toBeLessThanOrEqual(59);
      expect(row).toMatch(/^(word\d+ )*word\d+$/);
    }
    await t.waitFor('never');
    t.keys('C-c');
    const end = await t.waitFor(LANGS[lang].status);
    expect(end).toMatch(/word39 word40 中文也会按\n字换行，不会在词中间断开。 and the end never comes\n/);
    expect(end).toContain(LANGS[lang].cancelled);
  });

  it.each(['en', 'zh'] as Lang[])('a running command shows its last lines live, replaced by the result line with the exit code (%s)', async (lang) => {
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'for w in first second; do echo out-$w; done; sleep 2; echo out-third' } }] }, { text: 'Ran it.' });
    const t = start(lang);
    await t.waitFor(PROMPT);
    t.type('run');
    t.keys('Enter');
    const live = await t.waitFor(/^ {4}out-second$/m);
    expect(live).toMatch(/^ {4}out-first\n {4}out-second\n/m);
    const screen = await t.waitFor('Ran it.');
    // The live lines are gone; the result line says how it ended.
    expect(screen.slice(screen.indexOf('⎿'))).not.toContain('out-');
    expect(screen).toMatch(new RegExp(`⎿ ${LANGS[lang].exit(0)} \\([\\d.]+ ${LANGS[lang].secs}\\)`));
  });

  it.each(['en', 'zh'] as Lang[])('a failure shows the end of its output, not the banner; Ctrl+O and /last show all of it (%s)', async (lang) => {
    const command = 'echo "> banner 1"; echo "> banner 2"; echo step; echo "npm ERR! Test failed"; echo "Error: boom"; exit 3';
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command } }] }, { text: 'It failed.' });
    const t = start(lang);
    await t.waitFor(PROMPT);
    t.type('test');
    t.keys('Enter');
    let screen = await t.waitFor('It failed.');
    expect(screen).toMatch(new RegExp(`⎿ ${LANGS[lang].exit(3)} \\([\\d.]+ ${LANGS[lang].secs}\\)\\n {4}step\\n {4}npm ERR! Test failed\\n {4}Error: boom\\n`));
    expect(screen.slice(screen.indexOf('⎿'))).not.toContain('banner');
    await t.waitFor(PROMPT);
    t.keys('C-o');
    screen = await t.waitFor(LANGS[lang].last);
    expect(screen).toMatch(/> banner 1\n> banner 2\nstep\nnpm ERR! Test failed\nError: boom\nexit code 3\n──/);
    t.type('/last');
    t.keys('Enter');
    await t.waitFor(LANGS[lang].last, { nth: 2 });
  });

  it.each(['en', 'zh'] as Lang[])('results of parallel reads name their call, and a background job says it is running (%s)', async (lang) => {
    await writeFile(join(work, 'a.txt'), 'a\n');
    await writeFile(join(work, 'b.txt'), 'b\n');
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }, { name: 'read_file', input: { path: 'b.txt' } }] },
      { toolCalls: [{ name: 'bash', input: { command: 'sleep 30', background: true } }] },
      { text: 'Both read, server started.' },
    );
    const t = start(lang);
    await t.waitFor(PROMPT);
    t.type('read');
    t.keys('Enter');
    const screen = await t.waitFor('Both read, server started.');
    expect(screen).toMatch(/⎿ read_file [ab]\.txt: 1 /);
    expect(screen).toContain(`⎿ ${LANGS[lang].job}`);
  });
});
