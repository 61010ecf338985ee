// The host's event log in a long session: with replay 'message' (the CLI's), the events of earlier
// messages are let go once every reader has passed them, so the log does not grow with the
// session; a reader still behind keeps what it has not read. The default replays from the start.
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseArgs } from '../src/app/args.js';
import { openHost } from '../src/app/host.js';
import type { AgentEvent } from '../src/types/events.js';
import { appPlace, useFakeServer } from './fixtures.js';

const server = await useFakeServer();

async function host(replay?: 'message') {
  const p = await appPlace(server);
  const h = await openHost(parseArgs(['-C', p.work, '--sandbox', 'off']), { env: p.env }, replay ? { replay } : {});
  onTestFinished(() => h.close());
  return h;
}

async function drain(events: AsyncIterableIterator<AgentEvent>): Promise<string[]> {
  const texts: string[] = [];
  for await (const e of events) if (e.type === 'turn_end') texts.push(e.text);
  return texts;
}

describe('the host event log', () => {
  it("replay 'message': earlier messages' events are let go once read; the latest message's are kept", async () => {
    const h = await host('message');
    const id = await h.open();
    for (const text of ['one', 'two', 'three']) {
      server.enqueue({ text });
      await h.submit({ prompt: text, resume: id });
      await h.wait(id);
    }
    expect(await drain(h.events(id))).toEqual(['three']);
  });

  it('a reader behind keeps what it has not read, even across messages', async () => {
    const h = await host('message');
    const id = await h.open();
    const behind = h.events(id, { follow: true });
    for (const text of ['one', 'two']) {
      server.enqueue({ text });
      await h.submit({ prompt: text, resume: id });
      await h.wait(id);
    }
    const seen: string[] = [];
    for await (const e of behind) {
      if (e.type === 'turn_end') seen.push(e.text);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['one', 'two']);
  });

  it('by default every event is replayed from the start', async () => {
    const h = await host();
    const id = await h.open();
    for (const text of ['one', 'two']) {
      server.enqueue({ text });
      await h.submit({ prompt: text, resume: id });
      await h.wait(id);
    }
    expect(await drain(h.events(id))).toEqual(['one', 'two']);
  });
});
