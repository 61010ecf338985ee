// keys.json while feiyu runs: /model sees models added to it, and the current model's changed
// entry, without a restart; a broken keys.json lets the REPL start (it says what is wrong) so that
// /key add can repair it, the broken file kept beside it.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveKeys } from '../src/config/keys.js';
import { CLI, cliEnv } from './cli-harness.js';
import { fakeModel } from './fake-server.js';
import { useCliFixture } from './fixtures.js';
import { currentTest, waitFor } from './scope.js';

const cli = await useCliFixture('feiyu-keys-live', {});
const { server, home, work } = cli;
const keysFile = () => join(home, 'config', 'feiyu', 'keys.json');

/** A REPL over pipes, fed line by line while it runs. */
function repl() {
  const child = spawn(process.execPath, [CLI], { cwd: work, env: cliEnv(home, currentTest().env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const closed = new Promise<number | null>((r) => child.on('close', r));
  return {
    out: () => stdout,
    send: (line: string) => child.stdin.write(`${line}\n`),
    end: async () => {
      child.stdin.end();
      return closed;
    },
  };
}

describe('keys.json edited while feiyu runs', () => {
  it('/model lists a model added to keys.json meanwhile and switches to it', async () => {
    const r = repl();
    r.send('/model');
    await waitFor(() => r.out().includes('fake-openai'), 'the first model list');
    const anthropic = fakeModel(server, 'anthropic');
    saveKeys(keysFile(), { default: 'fake-anthropic', models: [anthropic, { ...fakeModel(server, 'openai'), name: 'later', model: 'gpt-later' }] });
    server.enqueue({ text: 'From the later model.' });
    r.send('/model later');
    r.send('hi');
    expect(await r.end()).toBe(0);
    expect(r.out()).toContain('Model: later (gpt-later)');
    expect(r.out()).toContain('From the later model.');
    expect(server.requests.map((q) => q.body.model)).toEqual(['gpt-later']);
  });

  it('the current model\'s entry changed in keys.json is used for the next request', async () => {
    const r = repl();
    r.send('/model');
    await waitFor(() => r.out().includes('fake-openai'), 'the model list');
    saveKeys(keysFile(), { default: 'fake-anthropic', models: [{ ...fakeModel(server, 'anthropic'), model: 'claude-renamed' }] });
    server.enqueue({ text: 'ok' });
    r.send('/model');
    r.send('hi');
    expect(await r.end()).toBe(0);
    expect(server.requests.map((q) => q.body.model)).toEqual(['claude-renamed']);
  });
});

describe('a broken keys.json', () => {
  it('still starts the REPL, says what is wrong, and /key add repairs it keeping the broken file', async () => {
    await writeFile(keysFile(), '{ "models": [ { "name": "mine", }');
    server.enqueue({ text: 'pong' }, { text: 'Repaired.' });
    const wizard = ['openai', server.openaiBaseURL, 'gpt-new', 'sk-new-1234', 'n', '64k', 'new'];
    const r = await cli.run([], { input: ['hi', '/model', '/key', '/key add', ...wizard, 'hello'].map((l) => `${l}\n`).join('') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${keysFile()} is not valid JSON`);
    expect(r.stdout).toContain(`feiyu starts without it: fix the file, or /key add writes a new one (the broken one is kept as ${keysFile()}.broken).`);
    expect(r.stdout).toContain(`${keysFile()} cannot be read as keys.json: fix it, or /key add writes a new one`);
    expect(r.stdout).toContain('Saved "new"');
    expect(r.stdout).toContain('Repaired.');
    expect(await readFile(`${keysFile()}.broken`, 'utf8')).toBe('{ "models": [ { "name": "mine", }');
    expect(JSON.parse(await readFile(keysFile(), 'utf8')).models.map((m: { name: string }) => m.name)).toEqual(['new']);
    expect(server.requests.map((q) => q.body.model)).toEqual(['gpt-new', 'gpt-new']);
  });

  it('a headless run still stops with the error (exit 2)', async () => {
    await writeFile(keysFile(), '[');
    const r = await cli.run(['-p', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${keysFile()} is not valid JSON`);
  });
});
