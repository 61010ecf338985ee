// Images through read_file: real pictures made with sharp, scaled and typed, checked as the
// ImageBlock the tool returns and as what reaches the fake model server over both wire formats.
import { beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from '../src/core/agent.js';
import { readContent } from '../src/content/read.js';
import { createProvider } from '../src/providers/stream.js';
import { SessionWriter, sessionsDir } from '../src/session/store.js';
import { coreTools } from '../src/tools/index.js';
import type { ImageBlock } from '../src/types/conversation.js';
import type { Tool, ToolContext } from '../src/types/tools.js';
import type { WireFormat } from '../src/types/providers.js';
import { fakeModel } from './fake-server.js';
import { useFakeServer } from './fixtures.js';
import { workspace } from './tools-helpers.js';

const core = coreTools().find((t) => t.name === 'read_file')!;
/** read_file as the lead wires it: readContent first, the core read_file for everything else. */
const readFile: Tool = { ...core, run: async (args, ctx) => (await readContent(args, ctx)) ?? core.run(args, ctx) };

const server = await useFakeServer();
let files: Awaited<ReturnType<typeof fixtures>>;
beforeAll(async () => {
  files = await fixtures();
});

const provider = (vision: boolean, format: WireFormat = 'anthropic') => createProvider(fakeModel(server, format, { vision }));
const withModel = (ctx: ToolContext, vision: boolean) => Object.assign(ctx, { provider: () => provider(vision) });

const blank = (width: number, height: number, channels: 3 | 4, background: string | object) => sharp({ create: { width, height, channels, background } });
/** Noise keeps a JPEG big and makes the scaled copy's pixels worth checking. */
const noisy = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: 'gray', noise: { type: 'gaussian', mean: 128, sigma: 30 } } });

const fixtures = async () => ({
  'shot.png': await blank(4000, 3000, 4, { r: 200, g: 30, b: 30, alpha: 0.5 }).png().toBuffer(),
  'photo.jpg': await noisy(3000, 2000).jpeg({ quality: 95 }).toBuffer(),
  'flat.png': await blank(2000, 1000, 3, 'navy').png().toBuffer(),
  'icon.png': await blank(100, 50, 4, { r: 0, g: 0, b: 0, alpha: 0 }).png().toBuffer(),
  'turned.jpg': await blank(300, 200, 3, 'green').jpeg().withMetadata({ orientation: 6 }).toBuffer(),
  'anim.gif': await sharp(await Promise.all(['red', 'blue'].map((c) => blank(40, 30, 3, c).png().toBuffer())), { join: { animated: true } }).gif().toBuffer(),
  'jpeg-named.png': await blank(10, 10, 3, 'white').jpeg().toBuffer(),
  'broken.png': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]),
  'program.png': Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(60)]),
});

async function pixelsOf(block: ImageBlock) {
  const meta = await sharp(Buffer.from(block.data, 'base64')).metadata();
  return { format: meta.format, width: meta.width, height: meta.height, hasAlpha: meta.hasAlpha, pages: meta.pages ?? 1 };
}

describe('images through read_file', () => {
  it('scales, types and describes each picture', async () => {
    const ctx = withModel(await workspace(files), true);
    const run = (path: string) => readFile.run({ path }, ctx);

    const shot = await run('shot.png');
    expect(shot.output).toBe(`Image shot.png: 4000×3000 PNG, ${kb(files['shot.png'])}; sent as 1568×1176 PNG, ${kb(shot.images![0]!)} (≈2,459 tokens).`);
    expect(shot.images).toEqual([{ type: 'image', mediaType: 'image/png', data: expect.any(String), path: 'shot.png', bytes: expect.any(Number) }]);
    expect(await pixelsOf(shot.images![0]!)).toEqual({ format: 'png', width: 1568, height: 1176, hasAlpha: true, pages: 1 });
    expect(shot.images![0]!.bytes).toBe(Buffer.from(shot.images![0]!.data, 'base64').length);

    const photo = await run('photo.jpg');
    expect(photo.images![0]!.mediaType).toBe('image/jpeg');
    expect(await pixelsOf(photo.images![0]!)).toEqual({ format: 'jpeg', width: 1568, height: 1045, hasAlpha: false, pages: 1 });
    expect(photo.output).toMatch(/^Image photo\.jpg: 3000×2000 JPEG, [\d.]+ MB; sent as 1568×1045 JPEG, [\d.]+ KB \(≈2,185 tokens\)\.$/);

    // No alpha: a big PNG screenshot goes as JPEG.
    const flat = await run('flat.png');
    expect(await pixelsOf(flat.images![0]!)).toEqual({ format: 'jpeg', width: 1568, height: 784, hasAlpha: false, pages: 1 });

    const icon = await run('icon.png');
    expect(icon.output).toBe(`Image icon.png: 100×50 PNG, ${files['icon.png'].length} bytes; sent as it is (≈7 tokens).`);
    expect(icon.images![0]!.data).toBe(files['icon.png'].toString('base64'));

    // EXIF orientation 6 is a quarter turn: the picture is 200 wide and is sent upright.
    const turned = await run('turned.jpg');
    expect(turned.output).toMatch(/^Image turned\.jpg: 200×300 JPEG/);
    expect(await pixelsOf(turned.images![0]!)).toMatchObject({ width: 200, height: 300 });

    const anim = await run('anim.gif');
    expect(anim.output).toMatch(/^Image anim\.gif: 40×30 GIF, .+, animated \(2 frames; the first is shown\); sent as 40×30 PNG/);
    expect(await pixelsOf(anim.images![0]!)).toEqual({ format: 'png', width: 40, height: 30, hasAlpha: true, pages: 1 });

    const misnamed = await run('jpeg-named.png');
    expect(misnamed.images![0]!.mediaType).toBe('image/jpeg');
  });

  it('refuses what is not a readable image', async () => {
    const ctx = withModel(await workspace(files), true);
    expect(await readFile.run({ path: 'broken.png' }, ctx)).toEqual({
      output: expect.stringMatching(/^broken\.png cannot be decoded as an image \(.+\); the file may be corrupt or truncated\.$/),
      isError: true,
    });
    expect(await readFile.run({ path: 'program.png' }, ctx)).toEqual({ output: 'program.png is not an image: it is a ELF executable, 64 bytes.', isError: true });
  });

  it('sends nothing to a model without vision, and says why', async () => {
    const ctx = withModel(await workspace({ 'shot.png': files['shot.png'] }), false);
    expect(await readFile.run({ path: 'shot.png' }, ctx)).toEqual({
      output: `shot.png is an image (image/png, ${kb(files['shot.png'])}), and the current model (fake-anthropic) cannot see images: vision is not enabled for it, so the image was not sent. Tell the user; they can switch to a model with vision.`,
      isError: true,
    });
  });

  describe.each(['anthropic', 'openai'] as const)('over %s', (format) => {
    async function runAgent(vision: boolean) {
      const p = provider(vision, format);
      const ctx = { ...(await workspace({ 'shot.png': files['shot.png'] })), provider: () => p };
      const agent = new Agent({ provider: p, tools: [readFile], system: 'test', ctx });
      const session = SessionWriter.create(join(ctx.root, '..', 'state'), ctx.root, 'fake');
      agent.on((e) => session.onEvent(e));
      server.enqueue({ toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'shot.png' } }] }, { text: 'A red square.' });
      expect(await agent.send('what is in shot.png?')).toMatchObject({ stopReason: 'end', text: 'A red square.' });
      expect(server.violations).toEqual([]);
      const dir = sessionsDir(join(ctx.root, '..', 'state'));
      const saved = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('');
      return { body: JSON.stringify(server.requests[1]!.body), saved };
    }

    it('the scaled PNG reaches the server as an image, and the session file holds only a placeholder', async () => {
      const { body, saved } = await runAgent(true);
      const data =
        format === 'anthropic'
          ? /"type":"image","source":\{"type":"base64","media_type":"image\/png","data":"([^"]+)"/.exec(body)?.[1]
          : /"type":"image_url","image_url":\{"url":"data:image\/png;base64,([^"]+)"/.exec(body)?.[1];
      expect(data).toBeDefined();
      expect(await pixelsOf({ type: 'image', mediaType: 'image/png', data: data! })).toEqual({ format: 'png', width: 1568, height: 1176, hasAlpha: true, pages: 1 });
      expect(body).toContain('sent as 1568×1176 PNG');
      expect(saved).toContain('sent as 1568×1176 PNG');
      expect(saved).toMatch(/\[image: shot\.png, [\d.]+ KB/);
      expect(saved).not.toContain(data!.slice(0, 100));
    });

    it('a model without vision gets no image at all', async () => {
      const { body } = await runAgent(false);
      expect(body).toContain('cannot see images');
      expect(body).not.toMatch(/"image"|image_url|base64/);
    });
  });
});

function kb(x: Buffer | ImageBlock): string {
  const n = Buffer.isBuffer(x) ? x.length : x.bytes!;
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}
