// The test harness keeps its promises (test/scope.ts, test/fixtures.ts): a test that leaves a reply
// unplayed or sends a request the API would reject fails; what a test starts, descendants in their
// own sessions included, is gone when it ends; a test that times out leaves no CLI running, and
// what its body tries afterwards is refused instead of landing in the next test.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';
import { alive, currentTest, waitFor } from './scope.js';

const { server, start } = await useCliFixture('feiyu-harness', {});

describe('the fake server fixture', () => {
  it.fails('fails a test that leaves a reply unplayed', () => {
    server.enqueue({ text: 'never asked for' });
  });

  it.fails('fails a test whose request breaks the API rules', async () => {
    const orphan = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: '' }] };
    await fetch(`${server.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [orphan] }) });
  });

  it('starts the next test with an empty script and record', () => {
    expect({ unplayed: server.unplayed(), requests: server.requests, violations: server.violations }).toEqual({ unplayed: [], requests: [], violations: [] });
  });
});

describe('the processes a test starts', () => {
  let orphan = 0;

  it('include descendants that left its process group and session', () => {
    const out = execFileSync('bash', ['-c', 'setsid sleep 300 >/dev/null 2>&1 & echo $!'], { env: { ...process.env, ...currentTest().env }, encoding: 'utf8' });
    orphan = Number(out);
    expect(alive(orphan)).toBe(true);
  });

  it('are gone when it ends', () => {
    expect(orphan).toBeGreaterThan(0);
    expect(alive(orphan)).toBe(false);
  });
});

describe('a test that times out', () => {
  let cli: number | undefined;
  const refused: string[] = [];

  it.fails('has its CLI killed, and what its body does afterwards is refused', async () => {
    server.enqueue({ text: 'Thinking', hang: true });
    const first = start(['-p', 'hi']);
    cli = first.child.pid;
    await first.done; // until the harness kills it: the test times out first
    for (const late of [() => server.enqueue({ text: 'late' }), () => start(['-p', 'late']), () => waitFor(() => true, 'nothing')]) {
      try {
        await late();
      } catch (e) {
        refused.push((e as Error).message);
      }
    }
  }, 1000);

  it('leaves nothing running and nothing queued', async () => {
    await waitFor(() => refused.length === 3, 'the timed-out body to go on');
    expect(cli).toBeGreaterThan(0);
    expect(alive(cli!)).toBe(false);
    expect(refused).toEqual(Array(3).fill(expect.stringContaining('this test has already ended')));
    expect(server.unplayed()).toEqual([]);
  });
});
