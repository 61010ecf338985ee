// Long-term memory on real files: a note saved by the model in one session is in the next
// session's system prompt (over real HTTP); the cap drops the oldest; /memory lists and deletes.
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Agent } from '../src/core/agent.js';
import { deleteNote, listNotes, loadMemory, notesFile, projectId, rememberTool } from '../src/tools/memory.js';
import { systemPrompt } from '../src/core/prompt.js';
import { createProvider } from '../src/providers/stream.js';
import type { ToolContext } from '../src/types/tools.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

const server = await useFakeServer();

async function dirs() {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-memory-')));
  onTestFinished(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'my project');
  await mkdir(root);
  return { state: join(base, 'state'), root };
}

const ctx = (root: string): ToolContext => ({ root, signal: new AbortController().signal, files: new Map(), shell: { cwd: root }, env: process.env });

function today(): string {
  const d = new Date();
  return [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((n) => String(n).padStart(2, '0')).join('-');
}

describe('memory', () => {
  it('a note the model saves is in the next session’s system prompt', async () => {
    const { state, root } = await dirs();
    const provider = createProvider(fakeModel(server, 'anthropic'), { retry: { baseDelayMs: 5 } });
    const first = new Agent({ provider, tools: [rememberTool(state)], system: systemPrompt(root), ctx: ctx(root) });
    server.enqueue(
      {
        toolCalls: [
          { name: 'remember', input: { note: 'Tests need `npm run build`\nfirst.', scope: 'project' } },
          { name: 'remember', input: { note: 'Prefers answers in Chinese.', scope: 'user' } },
        ],
      },
      { text: 'Noted.' },
    );
    await first.send('remember how the tests run');

    const projectFile = join(state, 'memory', `${projectId(root)}.md`);
    expect(await readFile(projectFile, 'utf8')).toBe(`- ${today()} Tests need \`npm run build\` first.\n`);
    expect((await stat(projectFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(state, 'memory', 'user.md'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(state, 'memory'))).mode & 0o777).toBe(0o700);
    // Written whole through a renamed temporary file: nothing else is left in the folder.
    expect((await readdir(join(state, 'memory'))).sort()).toEqual([`${projectId(root)}.md`, 'user.md'].sort());

    // A restart: nothing carried over but the files.
    const memory = loadMemory(state, root);
    expect(memory).toEqual({
      text: [
        '# Memory',
        '',
        'Notes you saved in earlier sessions with the remember tool. They may be out of date: check one before relying on it.',
        'About this project:',
        `- ${today()} Tests need \`npm run build\` first.`,
        'About the user:',
        `- ${today()} Prefers answers in Chinese.`,
      ].join('\n'),
      dropped: 0,
    });
    const second = new Agent({ provider, tools: [], system: systemPrompt(root, undefined, [memory.text]), ctx: ctx(root) });
    server.enqueue({ text: 'Hi.' });
    await second.send('hello');
    const system = JSON.stringify(server.requests.at(-1)!.body.system);
    expect(system).toContain('Tests need `npm run build` first.');
    expect(system).toContain('Prefers answers in Chinese.');
    expect(server.violations).toEqual([]);
  });

  it('refuses empty and long notes, and does not save a note twice', async () => {
    const { state, root } = await dirs();
    const tool = rememberTool(state);
    expect(await tool.run({ note: ' \n ', scope: 'user' }, ctx(root))).toEqual({ output: 'the note is empty', isError: true });
    expect(await tool.run({ note: 'x'.repeat(501), scope: 'user' }, ctx(root))).toEqual({
      output: 'keep a note under 500 characters: one fact, not a report',
      isError: true,
    });
    await tool.run({ note: 'Uses pnpm.', scope: 'project' }, ctx(root));
    expect(await tool.run({ note: 'Uses  pnpm.', scope: 'project' }, ctx(root))).toEqual({ output: 'Saved to project memory; future sessions will see it.' });
    expect(listNotes(state, root).map((n) => n.text)).toEqual(['Uses pnpm.']);
  });

  it('drops the oldest notes past the cap and says how many', async () => {
    const { state, root } = await dirs();
    await mkdir(join(state, 'memory'), { recursive: true });
    await writeFile(join(state, 'memory', `${projectId(root)}.md`), '- 2024-01-01 oldest project note\n- 2024-03-01 newer project note\nadded by hand\n');
    await writeFile(join(state, 'memory', 'user.md'), '# my notes\n\n- 2024-02-01 user note');
    const full = loadMemory(state, root);
    expect(full.dropped).toBe(0);
    expect(full.text).toContain('- added by hand');
    // Room for three bullets: the oldest (2024-01-01) goes; the hand-added line counts as 2024-03-01.
    const capped = loadMemory(state, root, 90);
    expect(capped.dropped).toBe(1);
    expect(capped.text.split('\n').slice(3)).toEqual([
      'About this project:',
      '- 2024-03-01 newer project note',
      '- added by hand',
      'About the user:',
      '- 2024-02-01 user note',
    ]);
    expect(loadMemory(join(state, 'nothing'), root)).toEqual({ text: '', dropped: 0 });
  });

  it('lists, deletes and opens notes for /memory', async () => {
    const { state, root } = await dirs();
    const file = notesFile(state, root, 'project');
    expect(await readFile(file, 'utf8')).toBe('');
    await writeFile(file, '- 2024-01-01 one\n- 2024-01-02 two');
    const tool = rememberTool(state);
    await tool.run({ note: 'three', scope: 'project' }, ctx(root));
    const notes = listNotes(state, root);
    expect(notes).toEqual([
      { scope: 'project', date: '2024-01-01', text: 'one', line: 0 },
      { scope: 'project', date: '2024-01-02', text: 'two', line: 1 },
      { scope: 'project', date: today(), text: 'three', line: 2 },
    ]);
    expect(deleteNote(state, root, notes[1]!)).toBe(true);
    expect(deleteNote(state, root, notes[1]!)).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(`- 2024-01-01 one\n- ${today()} three\n`);
  });

  it('keeps projects with the same folder name apart', async () => {
    expect(projectId('/a/app')).not.toBe(projectId('/b/app'));
    expect(projectId('/a/my project')).toMatch(/^my_project-[0-9a-f]{10}$/);
  });
});
