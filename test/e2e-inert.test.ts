// Terminal output is inert everywhere, through the real CLI: escape sequences the model writes (or
// copies from a file it read) in its answer, its todo items and its background commands are shown
// as ⟨U+001B⟩, never written raw, in the REPL (todo line, /todo, /jobs) and in headless text output.
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';

const { server, run } = await useCliFixture('feiyu-inert', {});

// Retitles the terminal, clears the screen, and hides the rest of the line.
const ATTACK = 'ok\x1b]0;owned\x07\x1b[2J\x1b[8m';
const SHOWN = 'ok⟨U+001B⟩]0;owned⟨U+0007⟩⟨U+001B⟩[2J⟨U+001B⟩[8m';

describe('escape sequences from the model are shown, not obeyed', () => {
  it('headless text output', async () => {
    server.enqueue({ text: `Answer: ${ATTACK}` });
    const r = await run(['-p', 'go']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Answer: ${SHOWN}\n`);
  });

  it('todo items, /todo and /jobs lines in the REPL', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'todo', input: { items: [{ content: `step ${ATTACK}`, status: 'done' }] } }] },
      { toolCalls: [{ name: 'bash', input: { command: `sleep 30 # ${ATTACK}`, background: true } }] },
      { text: 'started' },
    );
    const lines = ['go', '/todo', '/jobs', '/jobs stop 1'];
    const r = await run(['--mode', 'auto'], { input: lines.map((l) => l + '\n').join('') });
    expect(server.violations).toEqual([]);
    expect(r.stdout).not.toMatch(/\x1b|\x07/);
    // The todo line after the tool call, and /todo.
    expect(r.stdout.split(`step ${SHOWN}`).length - 1).toBe(2);
    expect(r.stdout).toMatch(new RegExp(`#1 +running \\d+ s {2}sleep 30 # ${SHOWN.replace(/[[\]().*+?^$|\\]/g, '\\$&')}`));
  });
});
