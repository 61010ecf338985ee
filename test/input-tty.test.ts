// Typing at the prompt in a real terminal (tmux), in English and Chinese: several characters
// inserted at once mid-line (an input method's commit, a paste), history search, newlines in a
// message, Esc, large pastes collapsed, @ completion. What reached the model is checked too.
import { afterAll, describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { hasTmux, stopTerminals, Terminal } from './tmux.js';

const { server, home, work } = await useCliFixture('feiyu-input', {});
afterAll(() => stopTerminals());

const start = (args: string[] = [], env: Record<string, string> = {}, cols = 100) => Terminal.start(args, { cwd: work, home, env, cols });
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
});
