// What a message attaches, through the built CLI against the fake server: @file (read as read_file
// reads it, so an edit needs no read first), @folder, images by @path, by a pasted or dropped path
// and by -i, scaled and sent only to models that see images; secrets never; plain words stay words.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { writeFakeKeys } from './fake-server.js';
import { useCliFixture } from './fixtures.js';

const { server, home, work, run } = await useCliFixture('feiyu-attach', {});

type Block = { type: string; text?: string; source?: { media_type: string; data: string } };
/** The blocks of the first user message of request `i` (Anthropic format). */
const sent = (i = 0) => (server.requests[i]!.body.messages[0].content as (Block & { cache_control?: unknown })[]).map(({ cache_control: _, ...b }) => b);
const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: 'red' } }).png().toBuffer();

describe('attachments', () => {
  it('@file goes as read_file reads it, and the model may edit it without reading it first', async () => {
    await mkdir(join(work, 'src'));
    await writeFile(join(work, 'src', 'a.ts'), 'export const a = 1;\nexport const b = 2;\n');
    server.enqueue({ toolCalls: [{ name: 'edit_file', input: { path: 'src/a.ts', old_string: 'b = 2', new_string: 'b = 3' } }] }, { text: 'Changed b.' });
    const r = await run(['-p', 'change b in @src/a.ts, please', '--mode', 'auto']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Attached src/a.ts (2 lines).\n');
    expect(sent()).toEqual([
      { type: 'text', text: 'change b in @src/a.ts, please' },
      { type: 'text', text: '<attachment path="src/a.ts">\n     1\texport const a = 1;\n     2\texport const b = 2;\n</attachment>' },
    ]);
    expect(await readFile(join(work, 'src', 'a.ts'), 'utf8')).toBe('export const a = 1;\nexport const b = 3;\n');
  });

  it('@folder goes as its listing; a secret is never attached; words that name nothing stay words', async () => {
    await mkdir(join(work, 'lib'));
    await writeFile(join(work, 'lib', 'x.py'), '');
    await writeFile(join(work, 'lib', 'y.py'), '');
    await writeFile(join(work, '.env'), 'KEY=secret\n');
    server.enqueue({ text: 'ok' });
    const r = await run(['-p', 'see @lib and @.env, ask @alice or mail me@example.com']);
    expect(r.stderr).toBe('Attached the listing of lib (2 files).\nNot attached: .env: it holds secrets, which feiyu never sends.\n');
    const blocks = sent();
    expect(blocks).toHaveLength(2);
    expect(blocks[1]!.text).toMatch(/^<attachment path="lib\/">\nlib\/x\.py\nlib\/y\.py/);
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain('KEY=secret');
  });

  it('images: @path, a dropped path with escaped spaces, and -i, scaled to 1568 px; refused for a model without vision', async () => {
    await writeFile(join(work, 'shot.png'), await png(3000, 1000));
    await mkdir(join(home, 'My Pictures'));
    await writeFile(join(home, 'My Pictures', 'drop.png'), await png(40, 30));
    await writeFile(join(work, 'flag.png'), await png(20, 20));
    server.enqueue({ text: 'Three images.' });
    const dropped = join(home, 'My Pictures', 'drop.png').replace(/ /g, '\\ ');
    const r = await run(['-p', `compare @shot.png with ${dropped}`, '-i', 'flag.png']);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual(['Attached the image shot.png.', `Attached the image ${join(home, 'My Pictures', 'drop.png')}.`, 'Attached the image flag.png.']);
    const images = sent().filter((b) => b.type === 'image');
    expect(images).toHaveLength(3);
    const first = await sharp(Buffer.from(images[0]!.source!.data, 'base64')).metadata();
    expect([first.width, first.height]).toEqual([1568, 523]);

    writeFakeKeys(join(home, 'config'), server, 'anthropic', { vision: false });
    server.enqueue({ text: 'No images.' });
    const blind = await run(['-p', 'look at @shot.png']);
    expect(blind.stderr).toBe('Not attached: shot.png: the model fake-anthropic cannot see images (vision is off for it in keys.json).\n');
    expect(sent(1)).toEqual([{ type: 'text', text: 'look at @shot.png' }]);
  });
});
