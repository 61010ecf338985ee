// The REPL as a person sees it: the built CLI in a real pseudo-terminal (tmux) against the fake
// model server. What is on the screen (plain text), what reached the model, what is on disk.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { hasTmux, stopTerminals, Terminal } from './tmux.js';

const { server, home, work } = await useCliFixture('feiyu-tty', { price: { input: 3, output: 15 } });
afterAll(() => stopTerminals());

/** A terminal running feiyu; it goes with everything in it when the test ends. */
const start = (args: string[] = [], env: Record<string, string> = {}, cols = 100) => Terminal.start(args, { cwd: work, home, env, cols });

/** The input prompt, at the end of a line (tmux drops trailing spaces). */
const PROMPT = /›$/m;
/** The status line after each turn: wait for the nth. */
const STATUS = /context \d+%/;

/** The blocks of the last user message the model received (Anthropic format). */
function lastUserContent(): { type: string; text?: string; content?: unknown; is_error?: boolean }[] {
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  const last = messages.filter((m) => m.role === 'user').at(-1)!;
  return Array.isArray(last.content) ? last.content : [{ type: 'text', text: String(last.content) }];
}

const lastUserText = () => lastUserContent().flatMap((b) => (b.type === 'text' ? [b.text] : []));

// tmux comes with the machine here and .ci/run installs it where it is missing; without it these are skipped.
describe.skipIf(!hasTmux)('the REPL on a terminal', () => {
  it('shows the welcome box and renders a streamed Markdown answer block by block, leaving no spinner behind', async () => {
    server.enqueue({
      text: '# Results\n\nThis is **important** and `code`.\n\n- first item\n- second item\n\n```js\nconst answer = 42;\n```\n\n| name | value |\n|---|---|\n| x | 1 |\n',
      chunkDelayMs: 20,
    });
    const t = start();
    let screen = await t.waitFor(PROMPT);
    expect(screen).toContain('╭─ feiyu');
    expect(screen).toMatch(/model +fake-anthropic \(claude-fake\)/);
    expect(screen).toMatch(/mode +default/);
    expect(screen).toMatch(/workspace +/);
    expect(screen).toContain(work);
    expect(screen).toMatch(/language +English/);
    t.type('summarise');
    t.keys('Enter');
    screen = await t.waitFor(STATUS);
    const answer = screen.slice(screen.indexOf('› summarise'));
    expect(answer).toContain('Results');
    expect(answer).not.toContain('# Results');
    expect(answer).toContain('This is important and code.');
    expect(answer).toMatch(/• first item\n• second item/);
    expect(answer).toContain('const answer = 42;');
    expect(answer).not.toContain('```');
    expect(answer).toMatch(/│ name │ value │/);
    // cost: 3 USD per million input tokens, 15 per million output: the status line has both.
    expect(answer).toMatch(/[\d,]+ in · [\d,]+ out · cache 0% · \$[\d.]+ this turn · \$[\d.]+ session · context \d+%/);
    expect(answer).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|waiting for the model/);
  });

  it('speaks Chinese from the locale, in the welcome box, tool lines, status and help', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: '说明.txt', content: '你好\n世界\n' } }] }, { text: '写好了。' });
    // 40 columns: still readable, CJK widths measured.
    const t = start(['--mode', 'auto'], { LANG: 'zh_CN.UTF-8' }, 40);
    let screen = await t.waitFor(PROMPT);
    expect(screen).toMatch(/模型 +fake-anthropic/);
    expect(screen).toMatch(/工作区 +/);
    expect(screen).toMatch(/语言 +简体中文/);
    t.type('写个文件');
    t.keys('Enter');
    screen = await t.waitFor(/上下文 \d+%/);
    expect(screen).toContain('● write_file 说明.txt');
    expect(screen).toMatch(/⎿ 写入 2 行 \([\d.]+ 秒\)/);
    expect(screen).toMatch(/1 \+ 你好\n\s+2 \+ 世界/);
    expect(screen).toContain('写好了。');
    t.type('/help');
    t.keys('Enter');
    screen = await t.waitFor('恢复上一轮改动过的文件');
    expect(screen).toMatch(/\/model \[name\]\n +列出已配置的模型/);
  });

  it('cycles the mode with Shift+Tab at once, and the new mode applies', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'a\n' } }] }, { text: 'Done.' });
    const t = start();
    await t.waitFor(PROMPT);
    const modes: string[] = [];
    for (const mode of ['auto', 'plan', 'readonly']) {
      t.keys('BTab');
      await t.waitFor(new RegExp(`^${mode} ›$`, 'm'));
      modes.push(mode);
    }
    t.keys('BTab', 'BTab');
    await t.waitFor(/^auto ›$/m);
    // Tab, unlike Shift+Tab, completes.
    t.type('/he');
    t.keys('Tab');
    await t.waitFor(/^auto › \/help$/m);
    t.keys('C-u');
    t.type('write a');
    t.keys('Enter');
    const screen = await t.waitFor(STATUS);
    expect(modes).toEqual(['auto', 'plan', 'readonly']);
    expect(screen).not.toContain('Allow write_file?');
    expect(await readFile(join(work, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('cancels a streaming answer and a running tool with Ctrl+C, then goes on', async () => {
    server.enqueue(
      { text: 'A long answer that never ends', chunkDelayMs: 100, hang: true },
      { toolCalls: [{ name: 'bash', input: { command: 'sleep 30' } }] },
      { text: 'Back to work.' },
    );
    const t = start(['--mode', 'auto']);
    await t.waitFor(PROMPT);
    t.type('talk');
    t.keys('Enter');
    // The paragraph is not complete: it shows live as it comes.
    await t.waitFor(/A long/);
    t.keys('C-c');
    expect(await t.waitFor(STATUS)).toMatch(/A long ans[a-z ]*\nCancelled\./);
    t.type('sleep');
    t.keys('Enter');
    await t.waitFor('● bash sleep 30');
    const started = Date.now();
    t.keys('C-c');
    const screen = await t.waitFor(STATUS, { nth: 2 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(screen.match(/Cancelled\./g)).toHaveLength(2);
    expect(screen).toContain('[interrupted]');
    t.type('continue');
    t.keys('Enter');
    await t.waitFor('Back to work.');
    // The model saw the interrupted call answered, and the new message after it.
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('interrupted');
  });

  it('takes a bracketed paste as one message, and a line ending in \\ continues', async () => {
    server.enqueue({ text: 'Got the paste.' }, { text: 'Got both lines.' }, { text: 'Got the last one.' });
    const t = start();
    await t.waitFor(PROMPT);
    t.type('\x1b[200~first line\rsecond line\r\tindented\x1b[201~');
    await t.waitFor('indented');
    t.type(' end');
    t.keys('Enter');
    await t.waitFor('Got the paste.');
    expect(lastUserText()).toEqual(['first line\nsecond line\n\tindented end']);
    t.type('one \\');
    t.keys('Enter');
    await t.waitFor(/^…$/m);
    t.type('two');
    t.keys('Enter');
    await t.waitFor('Got both lines.');
    expect(lastUserText()).toEqual(['one \ntwo']);
    expect(server.requests).toHaveLength(2);
    // Whole messages are in the history, kept for the next session.
    t.keys('Up');
    await t.waitFor(/^› one {2}↵ two$/m);
    t.keys('Up');
    await t.waitFor(/^› first line ↵ second line ↵\s+indented end$/m);
    const history = (await readFile(join(home, 'state', 'feiyu', 'history'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(history).toEqual(['first line\nsecond line\n\tindented end', 'one \ntwo']);
    // Ctrl+C on a later line drops the whole message.
    t.keys('C-u');
    t.type('dropped \\');
    t.keys('Enter');
    await t.waitFor(/^…$/m);
    t.keys('C-c');
    t.type('last');
    t.keys('Enter');
    await t.waitFor('Got the last one.');
    expect(lastUserText()).toEqual(['last']);
    // Browsing the history earlier does not stick: Up recalls the message just sent.
    t.keys('Up');
    await t.waitFor(/^› last$/m, { nth: 2 });
  });

  it('asks before a write: y runs it, n sends a reason, s saves a rule, a switches to auto, any other key declines', async () => {
    const write = (path: string) => ({ toolCalls: [{ name: 'write_file', input: { path, content: 'x\n' } }] });
    server.enqueue(write('yes.txt'), { text: 'ok 1' }, write('no.txt'), { text: 'ok 2' }, write('od\u200bd.txt'), { text: 'ok 3' });
    server.enqueue(write('always.txt'), { text: 'ok 4' }, write('auto.txt'), { text: 'ok 5' });
    const t = start();
    await t.waitFor(PROMPT);
    const ask = async (message: string, n: number) => {
      t.type(message);
      t.keys('Enter');
      return t.waitFor('[a] auto mode ›', { nth: n });
    };
    let screen = await ask('one', 1);
    expect(screen).toContain('Allow write_file?');
    expect(screen).toContain('Why it asks: write_file changes yes.txt');
    t.type('y');
    await t.waitFor('ok 1');
    await ask('two', 2);
    t.type('n');
    await t.waitFor('Reason for the model');
    t.type('not that file');
    t.keys('Enter');
    await t.waitFor('ok 2');
    expect(JSON.stringify(lastUserContent())).toContain('Their reason: not that file');
    screen = await ask('three', 3);
    expect(screen).toContain('od⟨U+200B⟩d.txt');
    t.type('x');
    await t.waitFor('ok 3');
    expect(JSON.stringify(lastUserContent())).toContain('The user declined this call.');
    await ask('four', 4);
    t.type('s');
    await t.waitFor('ok 4');
    await ask('five', 5);
    t.type('a');
    screen = await t.waitFor('ok 5');
    await t.waitFor(/^auto ›$/m);
    expect(screen.match(/Declined\./g)).toHaveLength(1);
    for (const name of ['yes.txt', 'always.txt', 'auto.txt']) expect(await readFile(join(work, name), 'utf8')).toBe('x\n');
    for (const name of ['no.txt', 'od\u200bd.txt']) await expect(stat(join(work, name))).rejects.toThrow();
    const approvals = JSON.parse(await readFile(join(home, 'config', 'feiyu', 'approvals.json'), 'utf8'));
    expect(approvals.projects[work].allow).toEqual(['write_file(always.txt)']);
  });

  it('puts back the files of the last turn with /undo', async () => {
    await writeFile(join(work, 'keep.txt'), 'old\n');
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'keep.txt' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'keep.txt', content: 'new\n' } }, { name: 'write_file', input: { path: 'made.txt', content: 'm\n' } }] },
      { text: 'Changed two files.' },
    );
    const t = start(['--mode', 'auto']);
    await t.waitFor(PROMPT);
    t.type('change');
    t.keys('Enter');
    await t.waitFor('Changed two files.');
    expect(await readFile(join(work, 'keep.txt'), 'utf8')).toBe('new\n');
    t.type('/undo');
    t.keys('Enter');
    await t.waitFor('Put back: keep.txt\nRemoved (made since): made.txt');
    expect(await readFile(join(work, 'keep.txt'), 'utf8')).toBe('old\n');
    await expect(stat(join(work, 'made.txt'))).rejects.toThrow();
  });

  it('lists the models and switches with /model', async () => {
    server.enqueue({ text: 'From the other one.' });
    const t = start();
    await t.waitFor(PROMPT);
    t.type('/model');
    t.keys('Enter');
    let screen = await t.waitFor('/model NAME switches');
    expect(screen).toMatch(/\* fake-anthropic +anthropic · claude-fake/);
    expect(screen).toMatch(/ {3}fake-openai +openai · gpt-fake/);
    t.type('/model fake-openai');
    t.keys('Enter');
    await t.waitFor('Model: fake-openai (gpt-fake)');
    t.type('hello');
    t.keys('Enter');
    screen = await t.waitFor('From the other one.');
    expect(server.requests.map((r) => r.format)).toEqual(['openai']);
    expect(server.requests[0]!.body.model).toBe('gpt-fake');
  });

  it('adds a model with /key add after one real test request, writing keys.json with mode 0600', async () => {
    server.enqueue({ text: 'pong' });
    const t = start();
    await t.waitFor(PROMPT);
    t.type('/key add');
    t.keys('Enter');
    const answers: [string, string][] = [
      ['Wire format', 'openai'],
      ['Base URL', server.openaiBaseURL],
      ['Model id', 'gpt-test'],
      ['API key', 'sk-test-123'],
      ['read images', 'n'],
      ['Context window', '64k'],
      ['Name for it', 'mine'],
    ];
    for (const [question, answer] of answers) {
      await t.waitFor(question);
      t.type(answer);
      t.keys('Enter');
    }
    const screen = await t.waitFor('Saved "mine"');
    // The key is not echoed: only its last four characters, once entered.
    expect(screen).not.toContain('sk-test-123');
    expect(screen).toContain('key …-123 in keys.json');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ format: 'openai', body: { model: 'gpt-test' }, headers: { authorization: 'Bearer sk-test-123' } });
    const file = join(home, 'config', 'feiyu', 'keys.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(await readFile(file, 'utf8'));
    expect(keys.models.at(-1)).toEqual({ name: 'mine', provider: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL, apiKey: 'sk-test-123', vision: false, contextWindow: 64000 });
    expect(keys.models).toHaveLength(3);
    t.type('/model mine');
    t.keys('Enter');
    await t.waitFor('Model: mine (gpt-test)');
  });

  it('writes no colour at all with NO_COLOR, and still renders the turn', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'n.txt', content: 'n\n' } }] }, { text: '**Done**, see `n.txt`.\n\n- one\n\n| a | b |\n|---|--:|\n| x | 10 |\n' });
    const t = start(['--mode', 'auto'], { NO_COLOR: '1' });
    await t.waitFor(PROMPT);
    t.type('go');
    t.keys('Enter');
    const screen = await t.waitFor(STATUS);
    expect(screen).toContain('1 + n');
    // Colour goes; the structure stays: no ** marks, bullets and a table.
    expect(screen).toContain('Done, see `n.txt`.\n\n• one\n\n┌───┬────┐\n│ a │  b │\n├───┼────┤\n│ x │ 10 │\n└───┴────┘');
    expect(t.screen(true)).not.toMatch(/\x1b\[[\d;]*m/);
  });

  it('leaves on Ctrl+C twice at an empty prompt, and on Ctrl+D', async () => {
    await mkdir(join(work, 'sub'));
    const t = start();
    await t.waitFor(PROMPT);
    t.keys('C-c');
    await t.waitFor('Press Ctrl+C again');
    t.keys('C-c');
    let screen = await t.waitFor('[exited 0]');
    expect(screen).toMatch(/\nBye\.\n\[exited 0\]/);
    const t2 = start();
    await t2.waitFor(PROMPT);
    t2.keys('C-d');
    screen = await t2.waitFor('[exited 0]');
    expect(screen).toContain('Bye.');
  });

  it('keeps what is typed while a turn runs, for the next prompt, and never as an answer to a question', async () => {
    server.enqueue(
      { text: 'A slow answer that takes a while to stream out.', chunkDelayMs: 150 },
      { toolCalls: [{ name: 'write_file', input: { path: 'x.txt', content: 'x\n' } }], chunkDelayMs: 150 },
      { text: 'Not written.' },
    );
    const t = start();
    await t.waitFor(PROMPT);
    t.type('first');
    t.keys('Enter');
    await t.waitFor('A slow');
    t.type('second message');
    await t.waitFor(STATUS);
    await t.waitFor(/^› second message$/m);
    t.keys('Enter');
    // Typed ahead during this turn: "y" must not approve the write that is about to be asked.
    await t.waitFor('write_file');
    t.type('y');
    await t.waitFor('[y]');
    t.keys('n');
    await t.waitFor('Reason for the model');
    t.keys('Enter');
    await t.waitFor('Not written.');
    expect(server.requests[1]!.body.messages.at(-1).content.at(-1).text).toBe('second message');
    await expect(stat(join(work, 'x.txt'))).rejects.toThrow();
    await t.waitFor(/^› y$/m);
  });

  it("asks once whether to trust a project's hooks, shows what would run, and remembers a yes", async () => {
    await mkdir(join(work, '.feiyu'));
    await writeFile(join(work, '.feiyu', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'bash', command: './check.sh' }] } }));
    const t = start();
    let screen = await t.waitFor('Trust this project? [y/N]');
    expect(screen).toContain('./check.sh');
    expect(screen).toContain('outside the sandbox');
    t.type('y');
    await t.waitFor(PROMPT);
    const trusted = JSON.parse(await readFile(join(home, 'config', 'feiyu', 'trusted.json'), 'utf8')) as { projects: Record<string, unknown> };
    expect(Object.keys(trusted.projects)).toEqual([work]);
    t.kill();
    const t2 = start();
    screen = await t2.waitFor(PROMPT);
    expect(screen).not.toContain('Trust this project?');
  });
});
