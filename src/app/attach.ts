// What a user's message attaches: `@path` names a file (read as read_file reads it, so the model
// may edit it at once) or a folder (listed as list_files lists it); an image — `@shot.png`, a
// path to one pasted or dropped into the message, or `-i FILE` — goes as an image when the model
// can see images, scaled like read_file's. The message text stays as typed; attachments follow
// it. Secret files are never attached. Reads files; asks nothing, prints nothing (notices say).

import { readFile, stat } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { IMAGE_EXTENSIONS, readImage } from '../content/read.js';
import { listFiles } from '../tools/find.js';
import { readFileTool } from '../tools/fs.js';
import { checkSecretPath } from '../safety/secrets.js';
import { inside } from '../util/paths.js';
import type { ModelConfig } from '../types/providers.js';
import type { NoticeEvent } from '../types/events.js';
import type { ToolContext, ToolOutput } from '../types/tools.js';
import type { UserBlock } from '../types/conversation.js';

/** Images read whole into memory are refused past this (as read_file does). */
const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

export type AttachOptions = { ctx: ToolContext; model: ModelConfig; configDir: string; home: string };
export type Attached = { blocks: UserBlock[]; notices: NoticeEvent[] };

/** A path the message names: `@path`, or a bare path to an image (only images are taken bare). */
type Mention = { path: string; at: boolean };

// A word: quoted, or with backslash-escaped spaces as terminals paste dropped files, or plain.
const WORD = /(^|\s)(@?)('[^'\n]+'|"[^"\n]+"|(?:\\.|[^\s\\])+)/g;

/** The paths `text` names, each once, in order. */
export function mentions(text: string): Mention[] {
  const out: Mention[] = [];
  for (const m of text.matchAll(WORD)) {
    const at = m[2] === '@';
    const raw = m[3]!;
    const path = /^['"]/.test(raw) ? raw.slice(1, -1) : raw.replace(/\\(.)/g, '$1');
    if (!path || (!at && !IMAGE_EXTENSIONS.has(extname(path).toLowerCase()))) continue;
    if (!at && !/[/~]/.test(path) && !/^['"]/.test(raw)) continue;
    if (!out.some((o) => o.path === path)) out.push({ path, at });
  }
  return out;
}

/** The attachments of `text` and of `images` (from -i), with a notice for each: attached, or why not. */
export async function attach(text: string, images: readonly string[], o: AttachOptions): Promise<Attached> {
  const wanted = [...mentions(text), ...images.map((path) => ({ path, at: true }))];
  const out: Attached = { blocks: [], notices: [] };
  for (const m of wanted) await attachOne(m, o, out);
  return out;
}

async function attachOne(m: Mention, o: AttachOptions, out: Attached): Promise<void> {
  const { root } = o.ctx;
  // "look at @a.ts," names a.ts: punctuation after a path is the sentence's, unless the file has it.
  let given = m.path;
  let abs = resolvePath(given, root, o.home);
  let st = await stat(abs).catch(() => null);
  const bare = given.replace(/[,.;:!?)，。；：！？）]+$/, '');
  if (!st && bare !== given) {
    given = bare;
    abs = resolvePath(given, root, o.home);
    st = await stat(abs).catch(() => null);
  }
  // A word that names nothing (an @mention of a person, a path not there) stays only words.
  if (!st) return;
  const shown = inside(root, abs) ? relative(root, abs) || '.' : given;
  const say = (code: 'attached' | 'not_attached', params: Record<string, string | number>): void => void out.notices.push({ type: 'notice', code, params: { path: shown, ...params } });
  const secret = checkSecretPath(abs, o.configDir, o.home);
  if (secret) return say('not_attached', { why: 'secret' });
  const isImage = st.isFile() && IMAGE_EXTENSIONS.has(extname(abs).toLowerCase());
  if (isImage) {
    if (st.size > MAX_IMAGE_BYTES) return say('not_attached', { why: 'too_big' });
    if (o.model.vision !== true) return say('not_attached', { why: 'no_vision', model: o.model.name });
    const result = await readImage(await readFile(abs), shown, o.model);
    if (result.isError || !result.images?.length) return say('not_attached', { why: 'unreadable' });
    out.blocks.push({ type: 'text', text: `<attachment path="${shown}">\n${result.output}\n</attachment>` }, ...result.images);
    return say('attached', { what: 'image' });
  }
  if (!inside(root, abs)) return say('not_attached', { why: 'outside' });
  const result: ToolOutput = st.isDirectory() ? await listFiles.run({ path: shown }, o.ctx) : await readFileTool.run({ path: shown }, o.ctx);
  if (result.isError) return say('not_attached', { why: 'unreadable' });
  out.blocks.push({ type: 'text', text: `<attachment path="${shown}${st.isDirectory() ? '/' : ''}">\n${result.output}\n</attachment>` });
  const n = result.summary && 'n' in result.summary ? result.summary.n : 0;
  say('attached', { what: st.isDirectory() ? 'folder' : 'file', n });
}

function resolvePath(path: string, root: string, home: string): string {
  if (path === '~' || path.startsWith('~/')) return home + path.slice(1);
  return isAbsolute(path) ? path : resolve(root, path);
}
