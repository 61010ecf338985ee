// The bugs a new user hit on the first day, each with the exact steps, in a real terminal (tmux)
// against the fake model server: what is on the screen, what reached the model, what is on disk.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { hasTmux, stopTerminals, Terminal } from './tmux.js';

const { server, home, work, run } = await useCliFixture('feiyu-daily', {});
afterAll(() => stopTerminals());

const start = (args: string[] = [], env: Record<string, string> = {}, cols = 100) => Terminal.start(args, { cwd: work, home, env, cols });
const PROMPT = /›$/m;
const STATUS = /context \d+%/;

/** The text blocks of the first user message of the last request (Anthropic format). */
const sentTexts = () => (server.requests.at(-1)!.body.messages[0].content as { type: string; text?: string }[]).flatMap((b) => (b.type === 'text' ? [b.text] : []));

describe.skipIf(!hasTmux)('first-day bugs, in a terminal', () => {
  it('the edit confirmation shows real line numbers and wraps the new line at 40 columns, never cutting it', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
    await writeFile(join(work, 'notes.txt'), lines.join('\n') + '\n');
    const long = 'line 10 now says something much longer than forty columns can hold, END';
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'edit_file', input: { path: 'notes.txt', old_string: 'line 10\n', new_string: long + '\n' } }] },
      { text: 'Edited.' },
    );
    const t = start([], {}, 40);
    await t.waitFor(PROMPT);
    t.type('edit line 10');
    t.keys('Enter');
    const screen = await t.waitFor('[a] auto mode ›');
    const question = screen.slice(screen.indexOf('Allow edit_file?'));
    expect(question).toMatch(/^ +10 - line 10$/m);
    expect(question).toMatch(/^ +9 {3}line 9$/m);
    // The new line, wrapped over several rows, whole: nothing cut with …
    const added = question.split('\n').filter((l) => /^ +(10)? +\+ /.test(l)).map((l) => l.replace(/^ +(10)? +\+ /, ''));
    expect(added.join('').replace(/ /g, '')).toBe(long.replace(/ /g, ''));
    expect(question.slice(0, question.indexOf('Why it asks'))).not.toContain('…');
    t.type('y');
    await t.waitFor('Edited.');
    expect(await readFile(join(work, 'notes.txt'), 'utf8')).toContain(long);
  });

  it('an answer ending in a code block, then the todo reminder: the block is rendered at once and the next answer starts on its own', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'todo', input: { items: [{ content: 'write the snippet', status: 'in_progress' }, { content: 'explain it', status: 'pending' }] } }] },
      { text: 'Here it is:\n\n```js\nconst x = 1;\n```', chunkDelayMs: 10 },
      { text: 'It sets x to one.' },
    );
    const t = start(['--mode', 'auto'], { NO_COLOR: '1' });
    await t.waitFor(PROMPT);
    t.type('snippet');
    t.keys('Enter');
    const screen = await t.waitFor(STATUS);
    const answer = screen.slice(screen.indexOf('› snippet'));
    // Rendered (no fences, even without colour), at the end of its reply, and the next answer on a line of its own.
    expect(answer).toMatch(/Here it is:\n\n {2}js ─+\n {4}const x = 1;\nThe todo list has 2 open items; the model was asked to finish them\.\nIt sets x to one\.\n/);
    expect(answer).not.toContain('```');
  });

  it('the trust question takes one key: "y" then the first message trusts the project and sends the message', async () => {
    await mkdir(join(work, '.feiyu'));
    await writeFile(join(work, '.feiyu', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'bash', command: './check.sh' }] } }));
    server.enqueue({ text: 'Hello back.' });
    const t = start();
    await t.waitFor('Trust this project? [y/N]');
    t.type('yhello');
    t.keys('Enter');
    await t.waitFor('Hello back.');
    expect(sentTexts()).toEqual(['hello']);
    const trusted = JSON.parse(await readFile(join(home, 'config', 'feiyu', 'trusted.json'), 'utf8')) as { projects: Record<string, unknown> };
    expect(Object.keys(trusted.projects)).toEqual([work]);
  });

  it('the user\'s answering time is not the tool\'s duration', async () => {
    server.enqueue({ toolCalls: [{ name: 'bash', input: { command: 'echo made > made.txt' } }] }, { text: 'Made.' });
    const t = start(['--sandbox', 'off']);
    await t.waitFor(PROMPT);
    t.type('make it');
    t.keys('Enter');
    await t.waitFor('[a] auto mode ›');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    t.type('y');
    const screen = await t.waitFor('Made.');
    const secs = Number(/⎿ exit 0 \(([\d.]+) s\)/.exec(screen)?.[1]);
    expect(secs).toBeLessThan(2);
  });

  it('resuming says what it resumed and that it goes on in auto mode, with the warning of starting in it', async () => {
    server.enqueue({ text: 'First.' }, { text: 'Second.' });
    expect((await run(['-p', 'fix the login page\nand more', '--mode', 'auto'])).code).toBe(0);
    const t = start(['--resume']);
    const screen = await t.waitFor(PROMPT);
    expect(screen).toMatch(/Resumed session [\w-]+ from \d+ s ago: "fix the login page", 0 tool rounds\./);
    expect(screen).toContain('The session continues in its saved mode, auto.');
    expect(screen).toContain('Auto mode: commands run and files change without asking');
    await t.waitFor(/^auto ›$/m);
    t.type('go on');
    t.keys('Enter');
    await t.waitFor('Second.');
  });

  it('starting in the home folder warns, and auto mode asks before the first change only', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'write_file', input: { path: 'one.txt', content: '1\n' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'two.txt', content: '2\n' } }] },
      { text: 'Both written.' },
    );
    const t = Terminal.start(['--mode', 'auto'], { cwd: home, home });
    let screen = await t.waitFor(PROMPT);
    expect(screen).toContain(`feiyu is working in ${home}, not in a project folder`);
    t.type('write two files');
    t.keys('Enter');
    screen = await t.waitFor('[a] auto mode ›');
    expect(screen).toContain(`Why it asks: feiyu works in ${home}, not in a project folder: the first change asks even in auto mode`);
    t.type('y');
    screen = await t.waitFor('Both written.');
    expect(screen.match(/Allow write_file\?/g)).toHaveLength(1);
    expect(await readFile(join(home, 'two.txt'), 'utf8')).toBe('2\n');
  });
});
