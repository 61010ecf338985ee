// The REPL with piped stdin and stdout (no terminal): lines run in order, questions take the next
// line, the transcript shows what was read, and not one escape code is written. Also the slash
// commands end to end: /undo byte for byte, /lang, /resume, /context, /clear and the others.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv } from './cli-harness.js';
import { useCliFixture } from './fixtures.js';
import { currentTest } from './scope.js';

const cli = await useCliFixture('feiyu-pipe', { price: { input: 3, output: 15 } });
const { server, home, work } = cli;

const run = cli.pipe;

const sessionFiles = async () => readdir(join(home, 'state', 'feiyu', 'sessions')).catch(() => [] as string[]);

describe('the REPL without a terminal', () => {
  it('starts with no model configured, points to /key add, and uses the first model added', async () => {
    await rm(join(home, 'config', 'feiyu', 'keys.json'));
    server.enqueue({ text: 'pong' }, { text: 'Hello from the new model.' });
    const wizard = ['openai', server.openaiBaseURL, 'gpt-first', 'sk-first-1234', 'n', '64k', 'first'];
    const r = await run([], ['hello', '/key add', ...wizard, 'hello again']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No model is configured yet: add one with /key add');
    expect(r.stdout).toContain('Saved "first"');
    expect(r.stdout).toContain('Hello from the new model.');
    // Nothing was sent for the first "hello"; then the wizard's test request and the real one.
    expect(server.requests.map((q) => q.body.model)).toEqual(['gpt-first', 'gpt-first']);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('hello again');
  });

  it('starts with the message given on the command line, then reads the rest', async () => {
    server.enqueue({ text: 'First, from the argument.' }, { text: 'Then from stdin.' });
    const r = await run(['explain the build'], ['and the tests?']);
    expect(r.stdout).toMatch(/› explain the build\nFirst, from the argument\./);
    expect(r.stdout).toContain('Then from stdin.');
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain('explain the build');
  });

  it('runs each line in turn, takes the answer to a question from the next line, and shows the transcript', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'one\n' } }] }, { text: 'Wrote a.txt.' }, { text: 'Next answer.' });
    const r = await run([], ['please write', 'y', 'and now?']);
    expect(r.code).toBe(0);
    // What the write would change is shown before the question, not only after the answer.
    expect(r.stdout).toMatch(/\? Allow write_file\?\n {4}a\.txt\n {4}\+1 -0 a\.txt\n {4}1 \+ one\n[\s\S]*\[y\] yes, once/);
    expect(r.stdout).toContain('› please write\n● write_file a.txt\n? Allow write_file?\n    a.txt\n');
    expect(r.stdout).toContain('[a] auto mode › y\n  ⎿ wrote 1 line ');
    expect(r.stdout).toContain('    1 + one\n');
    expect(r.stdout).toMatch(/Wrote a\.txt\.\n[\d,]+ in · [\d,]+ out · cache 0% · \$[\d.]+ this turn · \$[\d.]+ session · context \d+%\n› and now\?\nNext answer\./);
    expect(r.stdout.trimEnd().endsWith('Bye.')).toBe(true);
    expect(await readFile(join(work, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('/undo writes files back byte for byte: BOM and CRLF, UTF-16, and a new file removed', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\ntwo\r\n')]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('alpha\nbeta\n', 'utf16le')]);
    await writeFile(join(work, 'bom.txt'), bom);
    await writeFile(join(work, 'wide.txt'), utf16);
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'bom.txt' } }, { name: 'read_file', input: { path: 'wide.txt' } }] },
      {
        toolCalls: [
          { name: 'edit_file', input: { path: 'bom.txt', old_string: 'two', new_string: 'deux' } },
          { name: 'edit_file', input: { path: 'wide.txt', old_string: 'beta', new_string: 'bêta' } },
          { name: 'write_file', input: { path: 'new.txt', content: 'fresh\n' } },
        ],
      },
      { text: 'Edited.' },
      { text: 'Understood.' },
    );
    const r = await run(['--mode', 'auto'], ['edit them', '/undo', 'what now?']);
    expect(r.stdout).toContain('Put back: bom.txt, wide.txt\nRemoved (made since): new.txt\n');
    expect(await readFile(join(work, 'bom.txt'))).toEqual(bom);
    expect(await readFile(join(work, 'wide.txt'))).toEqual(utf16);
    await expect(stat(join(work, 'new.txt'))).rejects.toThrow();
    // The model hears of it with the next message.
    const last = server.requests.at(-1)!.body.messages.at(-1).content.map((b: { text?: string }) => b.text).join('');
    expect(last).toContain('[The user ran /undo: these files are back as they were before your turn for "edit them": bom.txt, wide.txt, new.txt. Read them again before changing them.]');
    // The typed text comes first: it is what the request is (and what /cost lists).
    expect(last).toMatch(/^what now\?\n\n\[The user ran \/undo/);
    const again = await run([], ['/undo']);
    expect(again.stdout).toContain('Nothing to undo');
  });

  it.skipIf(!existsSync('/usr/bin/bwrap'))('/lang says the choice holds for this session only when it cannot be saved (read-only config folder, needs bwrap)', async () => {
    const config = join(home, 'config');
    const args = ['--bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--ro-bind', config, config, '--', process.execPath, CLI, '--sandbox', 'off'];
    const child = spawn('/usr/bin/bwrap', args, { cwd: work, env: cliEnv(home, currentTest().env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.end('/lang zh\n');
    expect(await new Promise((r) => child.on('close', r))).toBe(0);
    expect(stdout).toMatch(/无法把语言保存到设置：.*read-only file system/i);
    expect(stdout).toContain('界面语言：简体中文，仅限本次会话。');
    expect(stdout).not.toContain('已保存到设置');
  });

  it('/lang zh switches at once and saves the choice in the user settings', async () => {
    const r = await run([], ['/lang zh', '/mode', '/lang']);
    expect(r.stdout).toContain('界面语言：简体中文。已保存到设置。');
    expect(r.stdout).toContain('权限模式：default');
    expect(r.stdout).toMatch(/ {2}plan +只读取和制定计划/);
    expect(r.stdout).toContain('再见。');
    const file = join(home, 'config', 'feiyu', 'settings.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ lang: 'zh' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const next = await run([], ['/help']);
    expect(next.stdout).toMatch(/\/undo +恢复上一轮改动过的文件/);
  });

  it('shows the todo list when the model writes it, and approves a plan in plan mode', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'todo', input: { items: [{ content: 'read the code', status: 'done' }, { content: 'write the fix', status: 'in_progress' }] } }] },
      { toolCalls: [{ name: 'exit_plan', input: { plan: '## Plan\n\n1. Fix the bug\n2. Test it' } }] },
      { text: 'Starting.' },
      { text: 'Still on it.' },
    );
    const r = await run(['--mode', 'plan'], ['fix it', 'y', '/todo', '/mode']);
    expect(r.stdout).toContain('● todo 1/2\n  ⎿ done');
    expect(r.stdout).toContain('    [x] read the code\n    [>] write the fix\n');
    expect(r.stdout).toContain('◆ The plan, for your approval:\n## Plan\n\n1. Fix the bug\n2. Test it\n  [y] approve and start');
    expect(r.stdout).toMatch(/\/todo\n {2}\[x\] read the code\n {2}\[>\] write the fix\n/);
    expect(r.stdout).toContain('Permission mode: default');
    const results = JSON.stringify(server.requests[2]!.body.messages.at(-1));
    expect(results).toContain('Plan approved');
  });

  it('keeps plan mode when the plan is not approved, and gives the model the feedback', async () => {
    server.enqueue({ toolCalls: [{ name: 'exit_plan', input: { plan: '1. Rename foo' } }] }, { text: 'Revising.' });
    const r = await run(['--mode', 'plan'], ['rename foo', 'n', 'keep the old name as an alias', '/mode']);
    expect(r.stdout).toContain('⎿ not approved');
    expect(r.stdout).toContain('Permission mode: plan');
    const results = JSON.stringify(server.requests[1]!.body.messages.at(-1));
    expect(results).toContain("The user's feedback: keep the old name as an alias");
  });

  it('resumes an earlier session, shows the context and the cost, keeps notes, and clears', async () => {
    server.enqueue({ toolCalls: [{ name: 'load_tools', input: { names: ['web_fetch'] } }] }, { text: 'First answer.' });
    await run([], ['first task']);
    const [earlier] = await sessionFiles();
    server.enqueue({ text: 'Second answer.' });
    const editor = `sh -c 'echo "- added in the editor" >> "$1"' --`;
    const lines = ['/resume', '1', '/context', '/cost', '/memory add prefers tabs', '/memory edit', '/memory', '/jobs', 'and more', '/clear', '/resume', ''];
    const r = await run([], lines, { EDITOR: editor });
    expect(r.stdout).toMatch(/1\. \d{4}-\d\d-\d\d \d\d:\d\d {2}rounds 1 · \$[\d.]+ {2}first task/);
    expect(r.stdout).toMatch(/Resumed session [\w-]+: 4 messages, \$[\d.]+ so far\./);
    expect(r.stdout).toMatch(/Context: about [\d,]+ of 200,000 tokens \(\d+%\)/);
    expect(r.stdout).toMatch(/ {2}conversation \(4 messages\) +\d+/);
    expect(r.stdout).toMatch(/ {2}tool definitions \(8 declared\) +[\d,]+/);
    expect(r.stdout).toMatch(/ {2}cold tools \(7, one line each\) +\d+/);
    expect(r.stdout).toMatch(/Tools \(estimated tokens\):\n {2}read_file +hot · [\d,]+\n/);
    expect(r.stdout).toMatch(/ {2}task +cold · line \d+, \d+ when loaded\n/);
    // Loaded in the earlier session, loaded still.
    expect(r.stdout).toMatch(/ {2}web_fetch +loaded · \d+\n/);
    expect(r.stdout).toMatch(/This session: \$[\d.]+ · requests 2/);
    expect(r.stdout).toContain('Noted.');
    expect(r.stdout).toMatch(/1\. project \d{4}-\d\d-\d\d prefers tabs\n {2}2\. project {2}added in the editor\n/);
    expect(r.stdout).toContain('No background jobs.');
    expect(r.stdout).toContain('New conversation. The last one stays in /resume.');
    // The resumed conversation went on in the same file, and /clear kept it: /resume lists it.
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('first task');
    expect(await sessionFiles()).toContain(earlier);
    expect(r.stdout.slice(r.stdout.indexOf('New conversation.'))).toMatch(/1\. \d{4}-\d\d-\d\d \d\d:\d\d {2}rounds 1 · \$[\d.]+ {2}first task/);
  });

  it('compacts with a focus, manages keys.json, changes the sandbox, and lists and stops jobs', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'bash', input: { command: 'sleep 30', background: true } }] },
      // Long enough to be worth a summary (a short history is left as it is).
      { text: 'Started it. ' + 'The server logs its routes as it starts. '.repeat(200) },
      { text: 'Summary: a job was started.' },
    );
    const r = await run(['--mode', 'auto'], ['start a job', '/jobs', '/jobs stop 1', '/compact the API notes', '/key', '/key default fake-openai', '/key remove fake-anthropic', 'y', '/key', '/sandbox off', '/sandbox']);
    expect(r.stdout).toMatch(/#1 +running \d+ s {2}sleep 30/);
    expect(r.stdout).toContain('Job 1 stopped.');
    expect(r.stdout).toMatch(/Context compacted: \d+ messages replaced by a summary/);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('the API notes');
    expect(r.stdout).toMatch(/\* fake-anthropic \(default\) +anthropic claude-fake {2}http:\/\/127\.0\.0\.1:\d+ {2}key …-key in keys\.json/);
    expect(r.stdout).toContain('Default model: fake-openai.');
    expect(r.stdout).toContain('Removed "fake-anthropic".');
    expect(r.stdout).toContain('This session keeps using it until you switch with /model.');
    expect(r.stdout).toMatch(/ {3}fake-openai \(default\) +openai gpt-fake/);
    expect(r.stdout).toContain('/sandbox off\nsandbox off\nWarning: auto mode runs commands without a sandbox (turned off with /sandbox off).\n');
    const keys = JSON.parse(await readFile(join(home, 'config', 'feiyu', 'keys.json'), 'utf8'));
    expect(keys.default).toBe('fake-openai');
    expect(keys.models.map((m: { name: string }) => m.name)).toEqual(['fake-openai']);
  });

  it('reports an unknown command, and sends a line that only starts with a slash to the model', async () => {
    server.enqueue({ text: 'Disk is full.' });
    const r = await run([], ['/bogus', '/tmp is full, why?', '/exit', 'never sent']);
    expect(r.stdout).toContain('Unknown command /bogus. /help lists the commands.');
    expect(r.stdout).toContain('Disk is full.');
    expect(r.stdout).toMatch(/› \/exit\nBye\.\n$/);
    expect(server.requests).toHaveLength(1);
  });
});
