// Rewind through the built CLI with piped input: turns whose bash commands edit, create and delete
// files put back by /rewind and /undo, the conversation rewound and --resume seeing it, files
// someone else changed kept or overwritten as the user says; /diff; /commit as the user's command
// with the model's message; /export; and /undo without git (the file tools' record).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitRepo } from './attacks.js';
import { fullDiskPath } from './checkpoint-fixture.js';
import { useCliFixture } from './fixtures.js';

const cli = await useCliFixture('feiyu-rewind', { price: { input: 3, output: 15 } });
const { server, home, work } = cli;

const run = cli.pipe;

const text = (p: string) => readFile(join(work, p), 'utf8');
const gone = async (p: string) => expect(stat(join(work, p))).rejects.toThrow();

/** The text blocks of the user messages of the model's last request. */
const userTexts = () =>
  (server.requests.at(-1)!.body.messages as { role: string; content: { type: string; text?: string }[] }[])
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content.filter((b) => b.type === 'text').map((b) => b.text));

const bash = (command: string) => ({ toolCalls: [{ name: 'bash', input: { command } }] });

describe('rewind', () => {
  it('puts back the files of two turns, bash included, and the conversation; --resume sees the rewound history', async () => {
    await writeFile(join(work, 'a.txt'), 'a0\n');
    await writeFile(join(work, 'gone.txt'), 'keep me\n');
    server.enqueue(
      bash('echo a1 > a.txt && rm gone.txt && mkdir -p made && echo new > made/new.txt'),
      { text: 'Done one.' },
      { toolCalls: [{ name: 'write_file', input: { path: 'c.txt', content: 'c\n' } }] },
      { text: 'Done two.' },
      { text: 'Fresh answer.' },
    );
    const r = await run(['--mode', 'auto'], ['first request', 'y', 'second request', '/rewind', '1', 'b', 'fresh start']);
    expect(r.stdout).toMatch(/The turns of this session, oldest first:\n {2}1\. \d\d:\d\d {2}first request {2}files: 3\n {2}2\. \d\d:\d\d {2}second request {2}files: 1\n/);
    expect(r.stdout).toContain('Before “first request”:\n  put back (2): a.txt, gone.txt\n  made since, removed (2): c.txt, made/new.txt\n');
    expect(r.stdout).toContain('[b] files and conversation · [f] files only · [c] conversation only · other keys: cancel › b\n');
    expect(r.stdout).toContain('Put back: a.txt, gone.txt\nRemoved (made since): c.txt, made/new.txt\nThe conversation is back to before that turn.\n');
    expect([await text('a.txt'), await text('gone.txt')]).toEqual(['a0\n', 'keep me\n']);
    await gone('c.txt');
    await gone('made');
    // The next request starts from before the first one.
    expect(userTexts()).toEqual(['fresh start']);

    server.enqueue({ text: 'Resumed.' });
    const resumed = await run(['--resume'], ['after resume', '/rewind', '']);
    expect(userTexts()).toEqual(['fresh start', 'after resume']);
    // The rewound turns are gone from the list; the two since are there.
    expect(resumed.stdout).toMatch(/ {2}1\. \d\d:\d\d {2}fresh start {2}—\n {2}2\. \d\d:\d\d {2}after resume {2}—\n/);
  });

  it('asks before overwriting a file changed since by someone else, and keeps it when told', async () => {
    await writeFile(join(work, 'a.txt'), 'a0\n');
    await writeFile(join(work, 'b.txt'), 'b0\n');
    server.enqueue(bash('echo a1 > a.txt; echo b1 > b.txt'), { text: 'Edited.' });
    await run(['--mode', 'auto'], ['edit both']);
    // Between the sessions the user edits b.txt in their editor.
    await writeFile(join(work, 'b.txt'), 'mine\n');
    const r = await run(['--resume'], ['/rewind 1', 'f', 'k']);
    expect(r.stdout).toContain('Changed since by something other than feiyu (1): b.txt\n  [o] overwrite them too · [k] keep them as they are · other keys: cancel › k\n');
    expect(r.stdout).toContain('Put back: a.txt\nLeft as they are: b.txt\n');
    expect([await text('a.txt'), await text('b.txt')]).toEqual(['a0\n', 'mine\n']);
  });

  it('/undo puts back one turn at a time, bash included, and tells the model', async () => {
    await writeFile(join(work, 'x.txt'), 'x0\n');
    server.enqueue(bash('echo x1 > x.txt'), { text: 'One.' }, bash('echo y > y.txt'), { text: 'Two.' }, { text: 'Noted.' });
    const r = await run(['--mode', 'auto'], ['change x', 'make y', '/undo', '/undo', '/undo', 'and now?']);
    expect(r.stdout).toContain('/undo\nRemoved (made since): y.txt\nauto › /undo\nPut back: x.txt\nauto › /undo\nNothing to undo: no turn of this session changed files (bash included).\n');
    expect(await text('x.txt')).toBe('x0\n');
    await gone('y.txt');
    expect(userTexts().at(-1)).toBe(
      'and now?\n\n[The user ran /undo: these files are back as they were before your turn for "make y": y.txt. Read them again before changing them.]\n\n[The user ran /undo: these files are back as they were before your turn for "change x": x.txt. Read them again before changing them.]',
    );
  });

  it('/diff shows the session as one diff since its first checkpoint', async () => {
    await writeFile(join(work, 'a.txt'), 'one\ntwo\n');
    server.enqueue(bash("printf 'one\\n2\\n' > a.txt && echo new > b.txt"), { text: 'Changed.' });
    const r = await run(['--mode', 'auto'], ['change', '/diff']);
    expect(r.stdout).toContain('Changed since the session began (2 files):\n  +1 -1 a.txt\n  +1 -0 b.txt\n\ndiff --git a/a.txt b/a.txt\n');
    expect(r.stdout).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n');
    expect(r.stdout).toContain('+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n');
  });

  it('/commit commits the session\'s files with the message the model proposes, edited, leaving other staged work staged', async () => {
    const { git, env } = gitRepo(work, home, { 'readme.md': 'hello\n' });
    // The user's own identity: the commit is theirs.
    await writeFile(join(home, '.gitconfig'), '[user]\n\tname = Ada\n\temail = ada@example.com\n');
    await writeFile(join(work, 'staged.txt'), 'not mine\n');
    git('add', 'staged.txt');
    server.enqueue(bash('echo hi > greet.txt && echo more >> readme.md'), { text: 'Done.' }, { text: '```\nAdd the greeting\n\nAnd a line in the readme.\n```' });
    // The "editor" changes the proposed message as a person would.
    const editor = join(home, 'edit.sh');
    await writeFile(editor, '#!/bin/sh\nsed -i "s/greeting/welcome/" "$1"\n', { mode: 0o755 });
    const r = await run(['--mode', 'auto'], ['greet', '/commit', 'e', 'y'], { EDITOR: editor });
    expect(r.stdout).toContain('Commit these files (2): greet.txt, readme.md\n    Add the greeting\n    \n    And a line in the readme.\n');
    expect(r.stdout).toContain('Commit these files (2): greet.txt, readme.md\n    Add the welcome\n');
    expect(r.stdout).toContain('Committed: Add the welcome');
    const log = execFileSync('git', ['log', '-1', '--format=%an%n%B%n--%n', '--name-only'], { cwd: work, env }).toString();
    expect(log).toBe('Ada\nAdd the welcome\n\nAnd a line in the readme.\n\n--\n\n\ngreet.txt\nreadme.md\n');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: work, env }).toString()).toBe('A  staged.txt\n');
    // One side request, with the diff and the recent subjects.
    const side = server.requests.at(-1)!.body;
    expect(JSON.stringify(side.system)).toContain('You write the git commit message');
    expect(JSON.stringify(side.messages)).toContain('Recent subjects:\\n- first');
    expect(JSON.stringify(side.messages)).toContain('+hi');
    expect(side.tools ?? []).toEqual([]);
  });

  it('/export writes the conversation as Markdown and JSON, private, in the workspace or where told', async () => {
    server.enqueue(bash('echo listed'), { text: 'It printed **listed**.' });
    await mkdir(join(home, 'out'));
    const r = await run(['--mode', 'auto'], ['list it', '/rename listing', '/export', '/export json ~/out/t.json']);
    const file = /Wrote 4 messages to (.*)\n/.exec(r.stdout)?.[1];
    expect(file).toMatch(new RegExp(`^${work}/feiyu-[\\w-]+\\.md$`));
    expect((await stat(file!)).mode & 0o777).toBe(0o600);
    const md = await readFile(file!, 'utf8');
    expect(md).toMatch(/^# listing\n\n- session: [\w-]+\n- workspace: .*\n- model: fake-anthropic \(claude-fake\)\n- exported: /);
    expect(md).toContain('\n## You\n\nlist it\n\n## feiyu\n\n**● bash** `echo listed`\n\n```\nlisted\n');
    expect(md).toContain('It printed **listed**.\n');
    const json = JSON.parse(await readFile(join(home, 'out', 't.json'), 'utf8'));
    expect(json.name).toBe('listing');
    expect(json.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(json.messages[0].content).toEqual([{ type: 'text', text: 'list it' }]);
    expect((await stat(join(home, 'out', 't.json'))).mode & 0o777).toBe(0o600);
  });

  it('/rename names the session in /resume and on exports; a fork brings the turns along', async () => {
    server.enqueue(bash('echo v1 > v.txt'), { text: 'Made.' });
    await run(['--mode', 'auto'], ['/rename auth refactor', 'make v', '/rename']);
    const listed = await run([], ['/resume', '']);
    expect(listed.stdout).toMatch(/1\. [\d-]+ [\d:]+ {2}rounds 1 · \$[\d.]+ {2}auth refactor — make v\n/);
    const forked = await run(['--resume', '--fork-session'], ['/export json', '/undo']);
    const file = /Wrote 4 messages to (.*)\n/.exec(forked.stdout)![1]!;
    expect(JSON.parse(await readFile(file, 'utf8')).name).toBe(undefined);
    // The fork's /undo reaches the turn made before it, and touches only that turn's files.
    expect(forked.stdout).toContain('auto › /undo\nRemoved (made since): v.txt\n');
    await gone('v.txt');
    expect((await stat(file)).isFile()).toBe(true);
  });

  it('without git, says checkpoints are off and /undo puts back what the file tools changed', async () => {
    await writeFile(join(work, 'a.txt'), 'a0\n');
    server.enqueue({ toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] }, { toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'a1\n' } }] }, { text: 'Wrote.' });
    const r = await run(['--mode', 'auto'], ['write', '/undo'], { PATH: join(home, 'no-git') });
    expect(r.stdout).toContain('Checkpoints are off: git was not found on PATH.');
    expect(r.stdout).toContain('Put back: a.txt');
    expect(await text('a.txt')).toBe('a0\n');
  });

  it('on a full disk says the checkpoint failed and why, and the turn goes on', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'small.txt', content: 's\n' } }] }, { text: 'Small.' });
    await run(['--mode', 'auto'], ['small']);
    const big = randomBytes(48 << 10).toString('base64');
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'big.txt', content: big } }] }, { text: 'Written anyway.' });
    const r = await run(['--mode', 'auto'], ['big', '/undo'], { PATH: fullDiskPath(home, process.env.PATH!) });
    expect(r.stdout).toMatch(/A checkpoint could not be made \(git update-index: [^)]*File too large[^)]*\); \/rewind may not put back the files of this turn\.\n/);
    expect(r.stdout).toContain('Written anyway.');
    // /undo cannot checkpoint the files as they are now either: it says why and touches nothing.
    expect(r.stdout).toMatch(/The files cannot go back: a checkpoint of them as they are now could not be made \(git update-index: [^)]*File too large[^)]*\)\.\n/);
    expect(await text('big.txt')).toBe(big);
  });
});
