// /export [md|json] [file]: the conversation written to a file (session/transcript.ts), mode 0600,
// in the workspace unless a path is given; an existing file is replaced only after asking. And
// /rename NAME, the session's name on exports and in /resume. Prints and asks through the Session.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { t } from '../../i18n/index.js';
import { transcriptJson, transcriptMarkdown } from '../../session/transcript.js';
import { writeFileAtomic } from '../../util/paths.js';
import { inert } from '../../util/text.js';
import { confirm } from '../confirm.js';
import { color } from '../render.js';
import type { Session } from './session-type.js';

/** The format and file `/export` was given: `md|json` first, else judged by the file's extension. */
export function exportTarget(arg: string, root: string, id: string, home = homedir()): { format: 'md' | 'json'; file: string } {
  const [first = '', ...rest] = arg.trim().split(/\s+/);
  const named = first === 'md' || first === 'json';
  const path = (named ? rest.join(' ') : arg.trim()).trim();
  const format = named ? (first as 'md' | 'json') : path.toLowerCase().endsWith('.json') ? 'json' : 'md';
  const expanded = path === '~' || path.startsWith('~/') ? home + path.slice(1) : path;
  return { format, file: resolve(root, expanded || `feiyu-${id}.${format}`) };
}

export async function exportCommand(arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  const messages = app.agent.messages;
  if (!messages.length) return ui.note(t('export.empty'));
  const { format, file } = exportTarget(arg, app.root, app.session.id, app.env.HOME || homedir());
  if (existsSync(file) && !(await confirm(s, t('export.replace', { file: inert(file) })))) return ui.note(t('export.cancelled'));
  const meta = { id: app.session.id, name: app.session.name, root: app.root, model: `${app.model.name} (${app.model.model})`, exported: new Date() };
  const text = format === 'json' ? transcriptJson(messages, meta) : transcriptMarkdown(messages, meta, (call) => app.agent.tools.describe(call)?.title);
  try {
    writeFileAtomic(file, text, { private: true });
  } catch (err) {
    return ui.fail(t('export.failed', { file: inert(file), msg: (err as Error).message }));
  }
  ui.line(ui.paint(color.green, t('export.done', { n: messages.length, file: inert(file) })));
}

export function renameCommand(arg: string, s: Session): void {
  const name = arg.replace(/\s+/g, ' ').trim();
  if (!name) return s.ui.note(s.app.session.name ? t('rename.done', { name: inert(s.app.session.name) }) : t('rename.usage'));
  s.app.rename(name);
  s.ui.line(t('rename.done', { name: inert(name) }));
}
