// /init end to end: the model is asked to look at the project and write FEIYU.md (AGENTS.md when
// the project keeps that one, or when named), the write is approved as any other, and the new
// conventions are in the instructions of the next request; a declined write says so.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './fixtures.js';

const cli = await useCliFixture('feiyu-init', {});
const { server, work } = cli;

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');
const userText = (i: number) => JSON.stringify(server.requests[i]!.body.messages[0].content);
const systemText = (i: number) => JSON.stringify(server.requests[i]!.body.system);

const CONVENTIONS = '# Conventions\n\n## Project\n- Run one test: npx vitest run test/x.test.ts\n';

describe('/init', () => {
  it('has the model write FEIYU.md after looking, and the next request carries it', async () => {
    await writeFile(join(work, 'package.json'), '{"name":"demo"}\n');
    server.enqueue(
      { toolCalls: [{ name: 'read_file', input: { path: 'package.json' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'FEIYU.md', content: CONVENTIONS } }] },
      { text: 'Wrote FEIYU.md with the test command.' },
      { text: 'Hello.' },
    );
    const r = await cli.run([], { input: lines('/init', 'y', 'hi') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('The model looks at the project and writes FEIYU.md; you approve the write as usual.\n');
    expect(r.stdout).toContain('? Allow write_file?');
    expect(r.stdout).toContain('Wrote FEIYU.md: its conventions apply from the next message.\n');
    expect(await readFile(join(work, 'FEIYU.md'), 'utf8')).toBe(CONVENTIONS);
    expect(userText(0)).toContain('Look at this project and write FEIYU.md at the workspace root');
    expect(userText(0)).toContain('verify: <command>');
    expect(systemText(0)).not.toContain('npx vitest run test/x.test.ts');
    expect(systemText(3)).toContain('npx vitest run test/x.test.ts');
  });

  it('improves AGENTS.md when the project keeps one, and says so when the write is declined (中文)', async () => {
    await writeFile(join(work, 'AGENTS.md'), '# Agents\nold\n');
    await writeFile(join(work, 'CLAUDE.md'), '# Claude\n');
    server.enqueue({ toolCalls: [{ name: 'write_file', input: { path: 'AGENTS.md', content: CONVENTIONS } }] }, { text: 'Not written.' });
    const r = await cli.run([], { input: lines('/init', 'n'), env: { FEIYU_LANG: 'zh' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('AGENTS.md 已存在：模型会查看项目并改进它；修改前照常需要你批准。\n');
    expect(r.stdout).toContain('AGENTS.md 没有写入。\n');
    expect(userText(0)).toContain('Look at this project and improve its AGENTS.md');
    expect(userText(0)).toContain('Read CLAUDE.md too and carry over what is still true.');
    expect(await readFile(join(work, 'AGENTS.md'), 'utf8')).toBe('# Agents\nold\n');
  });

  it('takes the file to write by name, and refuses any other', async () => {
    server.enqueue({ text: 'Looked.' });
    const r = await cli.run([], { input: lines('/init notes.txt', '/init agents') });
    expect(r.stdout).toContain('/init writes FEIYU.md or AGENTS.md, not "notes.txt".\n');
    expect(r.stdout).toContain('AGENTS.md was not written.\n');
    expect(server.requests).toHaveLength(1);
    expect(userText(0)).toContain('Look at this project and write AGENTS.md at the workspace root');
  });
});
