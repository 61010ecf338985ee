// The project's Markdown end to end, the built CLI against the fake model server: instruction
// files in the system prompt (whole, or cut with the cut said on stderr), a subfolder's file
// added to the first tool result there while the system prompt stays byte for byte the same,
// skills listed and read from the user's folder, and custom commands run headless and in the
// REPL (/help lists them), their `!` lines and allowed-tools only once the project is trusted.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults, useCliFixture } from './fixtures.js';
import { currentTest } from './scope.js';

const cli = await useCliFixture('feiyu-md', {});
const { server, home, work, run } = cli;

async function files(root: string, entries: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(entries)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

type Body = { system: { text: string }[] | string; messages: { role: string; content: unknown }[] };
const body = (i: number) => server.requests[i]!.body as Body;
const systemOf = (i: number) => {
  const s = body(i).system;
  return typeof s === 'string' ? s : s.map((b) => b.text).join('');
};
const firstUserText = () => JSON.stringify(body(0).messages[0]!.content);
const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });

describe('instruction files', () => {
  it("sends a 23,694-character AGENTS.md whole, adds a subfolder's file to the first result there, and keeps the system prompt as it was", async () => {
    const sections = Array.from({ length: 40 }, (_, i) => `## Section ${i}\n\n${'A rule that matters. '.repeat(27)}\n`).join('\n');
    const agents = `${sections}\n## Safety\n\nNever run migrations against production.\n`.padEnd(23_694, ' ');
    await files(work, { 'AGENTS.md': agents, 'src/api/CLAUDE.md': 'API rule: every handler validates its input.', 'src/api/handler.ts': 'export {}\n', 'src/api/other.ts': 'export {}\n' });
    server.enqueue(call('read_file', { path: 'src/api/handler.ts' }), call('read_file', { path: 'src/api/other.ts' }), { text: 'done' });
    const r = await run(['-p', 'look at the api']);
    expect(r.code).toBe(0);
    expect(systemOf(0)).toContain('Never run migrations against production.');
    expect(systemOf(0)).toContain('# Project conventions (from AGENTS.md)');
    expect(systemOf(0)).not.toContain('API rule');
    const [first, second] = toolResults(server);
    expect(first).toContain('<folder-instructions>');
    expect(first).toContain('# Project conventions (from src/api/CLAUDE.md)\n\nAPI rule: every handler validates its input.');
    expect(second).not.toContain('API rule');
    // The prompt cache's prefix: the same system prompt on every request.
    expect([systemOf(1), systemOf(2)]).toEqual([systemOf(0), systemOf(0)]);
    expect(r.stderr).toBe('');
  });

  it('says on stderr which file was cut where when the files pass the budget together', async () => {
    const big = (label: string) => Array.from({ length: 1000 }, (_, i) => `${label} line ${i + 1}: ${'x'.repeat(30)}`).join('\n');
    execFileSync('git', ['init', '-q', work]);
    await files(work, { 'AGENTS.md': big('root'), 'pkg/AGENTS.md': big('pkg') });
    server.enqueue({ text: 'ok' });
    const r = await run(['-p', 'hi'], { cwd: join(work, 'pkg') });
    expect(r.stderr.trim().split('\n')).toEqual([
      '../AGENTS.md was cut at line 431: 19,672 of 45,892 characters kept, since instruction files share 40,000 characters. /context shows what the model got.',
      'AGENTS.md was cut at line 441: 19,692 of 44,892 characters kept, since instruction files share 40,000 characters. /context shows what the model got.',
    ]);
    expect(systemOf(0)).toContain('# Project conventions (from ../AGENTS.md)');
    expect(systemOf(0)).toContain('[… AGENTS.md is cut here: 19692 of 44892 characters');
  });
  it('says once on stderr what is wrong in files written for Claude Code, and goes on with the rest', async () => {
    await files(work, {
      'CLAUDE.md': '# Project\n\n@docs/architecture.md\n@/etc/passwd\n@docs/dump.md\n\nKeep @CLAUDE.md up to date.\n',
      'docs/architecture.md': 'Layers: ui, app, core. See @conventions.md',
      'docs/conventions.md': 'Two spaces. Back to @architecture.md',
      'docs/dump.md': 'log line\n'.repeat(150_000),
      '.claude/commands/fix-issue.md': '---\ndescription: Fix a GitHub issue\nallowed-tools: Bash(gh issue view:*)\n\nFix issue $ARGUMENTS.\n',
      '.claude/skills/notes/SKILL.md': '# Notes\n\nHow we take meeting notes.\n',
    });
    server.enqueue({ text: 'ok' });
    const r = await run(['-p', '/fix-issue 12']);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      // Imports depth first: docs/architecture.md's own before the next line of CLAUDE.md.
      '@architecture.md in docs/conventions.md was not imported: it imports docs/conventions.md itself, directly or through other files (an import cycle; each file is read once).',
      '@/etc/passwd in CLAUDE.md was not imported: it is outside the project and your home folder.',
      'docs/dump.md is 1.3 MB, more than the 1.0 MB feiyu reads there: it was not read.',
      'Skill .claude/skills/notes/SKILL.md was skipped: it does not start with front matter (a --- line, name: and description:, a --- line).',
      ".claude/commands/fix-issue.md: the front matter that --- opens on line 1 is never closed by another --- line, so none of it is read (description, allowed-tools, model): the whole file is the command's text.",
    ]);
    expect(systemOf(0)).toContain('Layers: ui, app, core.');
    expect(systemOf(0)).toContain('Two spaces.');
    expect(systemOf(0)).not.toMatch(/root:|log line/);
    expect(JSON.parse(firstUserText())[0].text).toBe('/fix-issue 12\n\n---\ndescription: Fix a GitHub issue\nallowed-tools: Bash(gh issue view:*)\n\nFix issue 12.');
  });
});

describe('/context', () => {
  it('shows each instruction file with its tokens, where one was cut, what it imports, and the skills listed', async () => {
    const big = Array.from({ length: 1200 }, (_, i) => `rule ${i + 1}: ${'y'.repeat(30)}`).join('\n');
    await files(work, { 'AGENTS.md': `See @docs/style.md\n${big}`, 'docs/style.md': 'Tabs, not spaces.', 'CLAUDE.md': 'a file of its own, not read' });
    await files(join(home, 'config', 'feiyu'), { 'skills/pdf/SKILL.md': '---\nname: pdf\ndescription: Work with PDF files.\n---\nbody' });
    const r = await cli.run([], { input: '/context\n' });
    expect(r.code).toBe(0);
    // Said once at start-up, and shown by /context.
    expect(r.stdout).toContain('AGENTS.md was cut at line 972: 39,681 of 49,311 characters kept');
    expect(r.stdout).toContain('Reloaded 2 instruction files, 1 skills and 0 commands.');
    expect(r.stdout).toMatch(/\n {2}AGENTS\.md \(cut at line 972\) +[\d,]+\n {4}docs\/style\.md \(imported by AGENTS\.md\) +\d+\n {2}skills listed \(1\) +\d+\n/);
    expect(r.stdout).toContain('AGENTS.md: 39,681 of 49,311 characters sent; it was cut at line 972.');
    expect(r.stdout).toContain('CLAUDE.md is not read: AGENTS.md is used in that folder');
  });
});

describe('skills', () => {
  it("lists the user's skills in the system prompt; read_file reads one from the config folder", async () => {
    const skillDir = join(home, 'config', 'feiyu', 'skills', 'changelog');
    await files(skillDir, { 'SKILL.md': '---\nname: changelog\ndescription: Write CHANGELOG entries in the Keep a Changelog format.\n---\n\nGroup entries under Added, Changed, Fixed.\n' });
    server.enqueue(call('read_file', { path: join(skillDir, 'SKILL.md') }), { text: 'ok' });
    const r = await run(['-p', 'add a changelog entry']);
    expect(r.code).toBe(0);
    expect(systemOf(0)).toContain(`In ${join(home, 'config', 'feiyu', 'skills')}/:\n- changelog: Write CHANGELOG entries in the Keep a Changelog format.`);
    expect(toolResults(server)[0]).toContain('Group entries under Added, Changed, Fixed.');
  });
});

describe('custom commands', () => {
  const COMMIT = [
    '---',
    'allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)',
    'argument-hint: [message]',
    'description: Create a git commit',
    '---',
    '',
    '## Context',
    '',
    '- Current git status: !`git status --short`',
    '- Current branch: !`git branch --show-current`',
    '',
    '## Your task',
    '',
    'Create a single git commit: $ARGUMENTS',
    '',
  ].join('\n');

  async function repo(): Promise<void> {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: work, env: { ...process.env, ...currentTest().env } });
    git('init', '-q', '-b', 'main');
    await files(work, { 'a.txt': 'one\n', '.gitignore': '.claude/\n' });
    git('add', '.');
    git('commit', '-qm', 'first');
    await files(work, { 'a.txt': 'two\n', '.claude/commands/commit.md': COMMIT });
  }

  it("runs a trusted project's command headless: its ! output goes to the model, its allowed-tools allow git add but not git push", async () => {
    await repo();
    server.enqueue(call('bash', { command: 'git add a.txt' }), call('bash', { command: 'git push origin main' }), { text: 'Committed.' });
    const r = await run(['-p', '/commit fix the typo', '--trust']);
    expect(r.code).toBe(0);
    const message = JSON.parse(firstUserText()) as { text: string }[];
    expect(message.map((b) => b.text).join('')).toBe(
      '/commit fix the typo\n\n## Context\n\n- Current git status:  M a.txt\n- Current branch: main\n\n## Your task\n\nCreate a single git commit: fix the typo',
    );
    const [add, push] = toolResults(server);
    expect(add).toContain('exit code 0');
    expect(push).toContain('needs the user\'s approval');
    expect(execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: work, encoding: 'utf8' })).toBe('a.txt\n');
    expect(r.stderr).toContain('! git status --short  (exit 0)');
  });

  it('runs none of an untrusted project\'s ! lines and applies none of its allowed-tools, and says so', async () => {
    await repo();
    server.enqueue(call('bash', { command: 'git add a.txt' }), { text: 'Could not.' });
    const r = await run(['-p', '/commit x']);
    expect(r.code).toBe(0);
    expect(firstUserText()).toContain('[not run: `git status --short` needs the user to trust this project]');
    expect(toolResults(server)[0]).toContain("needs the user's approval");
    expect(r.stderr).toContain('/commit comes from this project, and you have not trusted its commands as they are now');
  });

  it('runs no ! line of a command file written during the session, even in a project trusted at start', async () => {
    await repo();
    // A line the policy would allow without asking: only trust keeps it from running.
    const planted = '---\ndescription: Tidy up\n---\nContext: !`git log --oneline -1`\nTidy up.\n';
    server.enqueue(call('write_file', { path: '.claude/commands/tidy.md', content: planted }), { text: 'Added.' }, { text: 'Tidied.' });
    const r = await cli.run(['--trust'], { input: ['add a tidy command', 'y', '/tidy'].map((l) => l + '\n').join('') });
    expect(r.code).toBe(0);
    const sent = JSON.stringify((server.requests[2]!.body as Body).messages.at(-1)!.content);
    expect(sent).toContain('Context: [not run: `git log --oneline -1` needs the user to trust this project]');
    expect(r.stdout).toContain('/tidy comes from this project, and you have not trusted its commands as they are now');
  });

  it("keeps running a trusted project's ! lines after the commands are read again, with hooks in its .claude/settings.json", async () => {
    await repo();
    await files(work, { '.claude/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }] } }) });
    server.enqueue({ text: 'Committed.' });
    // /help reads the command files again, and with them asks whether the project is still the one trusted.
    const r = await cli.run(['--trust'], { input: ['/help', '/commit now'].map((l) => l + '\n').join('') });
    expect(r.code).toBe(0);
    const sent = JSON.stringify((server.requests[0]!.body as Body).messages.at(-1)!.content);
    expect(sent).toContain('- Current branch: main');
    expect(r.stdout).not.toContain('you have not trusted');
  });

  it('/help lists the commands with where they come from; a command file added during the session is found', async () => {
    await files(work, { '.claude/commands/frontend/component.md': '---\ndescription: Create a React component\nargument-hint: <name>\n---\nCreate $ARGUMENTS.\n' });
    await files(join(home, 'config', 'feiyu'), { 'commands/standup.md': 'Summarize what I did yesterday from the git log.\n' });
    server.enqueue(
      { text: 'Made it.' },
      call('write_file', { path: '.claude/commands/review.md', content: '---\ndescription: Review the diff\n---\nReview the diff for bugs.\n' }),
      { text: 'Added.' },
      { text: 'Reviewed.' },
    );
    const lines = ['/help', '/component Button', 'add a review command', 'y', '/review'];
    const r = await cli.run([], { input: lines.map((l) => l + '\n').join('') });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Your commands and the project's:\n {2}\/frontend:component <name> +Create a React component {2}\.claude\/commands\n {2}\/standup +Summarize what I did yesterday from the git log\. {2}~\/config\/feiyu\/commands\n/,
    );
    const sent = server.requests.map((q) => JSON.stringify((q.body as Body).messages.at(-1)!.content));
    expect(sent[0]).toContain('/frontend:component Button\\n\\nCreate Button.');
    expect(sent[3]).toContain('/review\\n\\nReview the diff for bugs.');
    expect(r.stdout).not.toContain('Unknown command');
  });
});
