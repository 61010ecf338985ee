// Typing at the prompt in a real terminal (tmux), in English and Chinese: several characters
// inserted at once mid-line (an input method's commit, a paste), history search, newlines in a
// message, Esc, large pastes collapsed, @ completion. What reached the model is checked too.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { hasTmux, stopTerminals, Terminal } from './tmux.js';

const { server, home, work } = await useCliFixture('feiyu-input', {});
afterAll(() => stopTerminals());

const start = (args: string[] = [], env: Record<string, string> = {}, cols = 100) => Terminal.start(args, { cwd: work, home, env, cols });
const LANGS = {
  en: { env: { LANG: 'en_US.UTF-8' }, pasted: '[pasted 4,400 lines]', search: '(history search) alp › first alpha', cancelled: 'Cancelled.' },
  zh: { env: { LANG: 'zh_CN.UTF-8' }, pasted: '[粘贴了 4,400 行]', search: '（搜索历史）alp › first alpha', cancelled: '已取消。' },
};
type Lang = keyof typeof LANGS;
const PROMPT = /›$/m;

/** The text of the last user message the model received. */
const lastText = () => {
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: { type: string; text?: string }[] }[];
  return messages.filter((m) => m.role === 'user').at(-1)!.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
};

describe.skipIf(!hasTmux)('typing at the prompt', () => {
  it.each([
    ['en', {}],
    ['zh', { LANG: 'zh_CN.UTF-8' }],
  ])('an input method committing two characters mid-line inserts them in place (%s)', async (_lang, env) => {
    server.enqueue({ text: 'ok' });
    const t = start([], env);
    await t.waitFor(PROMPT);
    t.type('我想修改折扣');
    await t.waitFor('我想修改折扣');
    t.keys('Left', 'Left');
    t.type('一下');
    await t.waitFor('我想修改一下折扣');
    t.keys('Enter');
    await t.waitFor(/^ok$/m);
    expect(lastText()).toBe('我想修改一下折扣');
  });

  it.each(['en', 'zh'] as Lang[])('a large paste shows as one placeholder, stays one in the history, and is sent whole (%s)', async (lang) => {
    server.enqueue({ text: 'Got the log.' });
    const lines = Array.from({ length: 4400 }, (_, i) => `log ${i + 1}`);
    const t = start([], LANGS[lang].env);
    await t.waitFor(PROMPT);
    t.type('explain ');
    t.paste(lines.join('\n'));
    await t.waitFor(`› explain ${LANGS[lang].pasted}`);
    t.type(' please');
    t.keys('Enter');
    await t.waitFor('Got the log.');
    expect(lastText()).toBe(`explain ${lines.join('\n')} please`);
    const history = (await readFile(join(home, 'state', 'feiyu', 'history'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(history).toEqual([`explain ${LANGS[lang].pasted} please`]);
    expect(t.screen()).not.toContain('log 4400');
  });

  it.each(['en', 'zh'] as Lang[])('Ctrl+R searches the history; Alt+Enter and Ctrl+J put a newline in the message (%s)', async (lang) => {
    server.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
    const t = start([], LANGS[lang].env);
    await t.waitFor(PROMPT);
    t.type('first alpha');
    t.keys('Enter');
    await t.waitFor(/^one$/m);
    t.type('second beta');
    t.keys('Enter');
    await t.waitFor(/^two$/m);
    t.keys('C-r');
    t.type('alp');
    await t.waitFor(LANGS[lang].search);
    t.keys('Enter');
    await t.waitFor(/› first alpha$/m);
    t.keys('M-Enter');
    t.type('line two');
    t.keys('C-j');
    t.type('line three');
    t.keys('Enter');
    await t.waitFor(/^three$/m);
    expect(lastText()).toBe('first alpha\nline two\nline three');
  });

  it.each(['en', 'zh'] as Lang[])('Esc cancels the running turn as Ctrl+C does (%s)', async (lang) => {
    server.enqueue({ text: 'An answer that never ends', chunkDelayMs: 50, hang: true }, { text: 'Next.' });
    const t = start([], LANGS[lang].env);
    await t.waitFor(PROMPT);
    t.type('go');
    t.keys('Enter');
    await t.waitFor('never');
    t.keys('Escape');
    await t.waitFor(LANGS[lang].cancelled);
    t.type('again');
    t.keys('Enter');
    await t.waitFor(/^Next\.$/m);
  });

  it('@ and one Tab list the candidates; a unique one completes', async () => {
    await mkdir(join(work, 'src'));
    await writeFile(join(work, 'src', 'main.ts'), '');
    await writeFile(join(work, 'README.md'), '');
    const t = start();
    await t.waitFor(PROMPT);
    t.type('look at @');
    t.keys('Tab');
    await t.waitFor(/@README\.md\s+@src\//);
    t.type('sr');
    t.keys('Tab');
    await t.waitFor(/› look at @src\/$/m);
    t.keys('Tab');
    await t.waitFor(/› look at @src\/main\.ts$/m);
  });
});
