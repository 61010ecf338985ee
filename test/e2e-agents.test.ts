// Specialists end to end: the built CLI's REPL over pipes against the fake server — /agents lists
// them with where each came from, a specialist's write asks a question that names it, its tool
// calls and its end are printed, and /cost shows what it spent.
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';

const cli = await useCliFixture('feiyu-agents', { price: { input: 3, output: 15 } });
const { server, home, work } = cli;

const WRITER = '---\nname: writer\ndescription: Writes the files it is asked to.\ntools: Read, Write\nmax_rounds: 5\n---\nWrite what you are asked.';

describe('specialists in the REPL', () => {
  it('are listed by /agents, ask naming themselves, and show their spend', async () => {
    mkdirSync(join(home, 'config', 'feiyu', 'agents'), { recursive: true });
    writeFileSync(join(home, 'config', 'feiyu', 'agents', 'writer.md'), WRITER);
    server.enqueue(
      { toolCalls: [{ name: 'use_tool', input: { name: 'task', args: { description: 'write a.txt', prompt: 'write a.txt with one', agent: 'writer' } } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'one\n' } }], usage: { input: 500, output: 20 } },
      { toolCalls: [{ name: 'submit_result', input: { conclusion: 'Wrote a.txt.', facts: [{ fact: 'a.txt holds one', where: 'a.txt:1' }], open_questions: [], status: 'done' } }], usage: { input: 600, output: 30 } },
      { text: 'The writer wrote a.txt.' },
    );
    const r = await cli.run(['--sandbox', 'off'], { input: ['/agents', 'write it', 'y', '/cost'].map((l) => l + '\n').join('') });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/\x1b/);
    expect(r.stdout).toContain('  explore · built in · session model · 15 rounds, 400,000 tokens · tools: read_file, list_files, search, code_search, code_outline, code_symbol, code_refs, read_note\n');
    expect(r.stdout).toContain(`  writer · user (${join(home, 'config', 'feiyu', 'agents', 'writer.md')}) · session model · 5 rounds, 400,000 tokens · tools: read_file, write_file\n    Writes the files it is asked to.\n`);
    expect(r.stdout).toContain('● task writer: write a.txt\n  ↳ writer · write_file a.txt\n[writer] ? Allow write_file?\n    a.txt\n');
    // Its own requests (500 + 20, 600 + 30 tokens) at the session model's price; submit_result is not shown.
    expect(r.stdout).toMatch(/\[a\] auto mode › y\n↳ writer done · note n1 · 1,150 tokens · \$0\.0040\n {2}⎿ done · note n1 \(/);
    expect(r.stdout).toMatch(/ · context \d+% · writer 1,150 tokens \$0\.0040\n/);
    expect(r.stdout).toContain('Specialists this session:\n  writer: 1,150 tokens, $0.0040\n');
    expect(await readFile(join(work, 'a.txt'), 'utf8')).toBe('one\n');
  });
});
