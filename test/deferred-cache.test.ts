// Deferred tool schemas and the prompt cache, measured on scripted sessions (cache-scenario.ts)
// against the fake server's cache simulation (fake-cache.ts): deterministic, so asserted. The
// benchmark prints the same figures.
import { describe, expect, it } from 'vitest';
import { cacheSession, deferralTask } from './cache-scenario.js';
import type { FakeServer } from './fake-server.js';
import { useFakeServer } from './fixtures.js';

const server = await useFakeServer({ promptCache: true });

/** How many times the declared tools or the system prompt differed from the request before. */
function prefixChanges(s: FakeServer): number {
  const keys = s.requests.map(({ body, format }) => JSON.stringify([body.tools, format === 'anthropic' ? body.system : body.messages[0]]));
  return keys.filter((k, i) => i > 0 && k !== keys[i - 1]).length;
}

describe.each(['anthropic', 'openai'] as const)('the prompt cache over %s', (format) => {
  it('reads at least 70% of a 12-request session from the cache, loading two cold tools in round 3, and never changes the prefix', async () => {
    const inline = await cacheSession(server, format, 'conversation');
    expect(prefixChanges(server)).toBe(0);
    server.reset();
    const declared = await cacheSession(server, format, 'tools');
    // Loading into the tools array changes the start of every later request once.
    expect(prefixChanges(server)).toBe(1);
    expect({ requests: inline.requests, todo: inline.todo }).toEqual({ requests: 12, todo: '[x] read the code\n[x] change a0\n[>] check the rest' });
    expect(inline.share).toBeGreaterThanOrEqual(0.7);
    expect(inline.share).toBeGreaterThan(declared.share);
    expect(inline.cacheRead + inline.cacheWrite + inline.input).toBeGreaterThan(50_000);
  });
});

describe.each(['anthropic', 'openai'] as const)('the requests deferral adds over %s', (format) => {
  it('a 20-round task using three cold tools: one batch load and one taught call, at most 3', async () => {
    const deferred = await deferralTask(server, format, 'conversation');
    server.reset();
    const off = await deferralTask(server, format, 'off');
    expect(off.requests).toBe(21);
    expect(deferred.requests - off.requests).toBe(2);
    expect(deferred.todo).toBe(off.todo);
    expect(deferred.results.filter((r) => !r.startsWith('load_tools') && !r.includes('did not run'))).toEqual(off.results);
    expect(deferred.results.filter((r) => r.startsWith('load_tools') || r.includes('did not run'))).toEqual([
      'load_tools: <tool name="todo">',
      'remember: remember is a cold tool you had not loaded, so this call did not run (invalid arguments: scope is required).',
    ]);
  });
});
