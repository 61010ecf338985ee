// The commands users bring from other agents: /last (the last tool's whole output, also Ctrl+O),
// /init (a conventions file written by the model after looking at the project) and /effort
// (reasoning effort for models that have it). Each prints through the Renderer of the Session.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Session } from './session-type.js';
import { initFile, initRequest } from '../../app/init.js';
import { contextNotices } from '../../app/context.js';
import { t, type MessageKey } from '../../i18n/index.js';
import { EFFORTS, effortKind } from '../../providers/effort.js';
import type { Effort } from '../../types/providers.js';
import { color } from '../render.js';
import { table } from '../width.js';
import { inert } from '../../util/text.js';

/** The last tool call's output, whole, as the model saw it. */
export function showLast(s: Pick<Session, 'ui'>): void {
  const last = s.ui.tools.last;
  if (!last) return s.ui.note(t('last.none'));
  s.ui.line(s.ui.paint(color.dim, `── ${t('last.title', { name: last.name, title: inert(last.title) })} ──`));
  for (const line of inert(last.output).split('\n')) s.ui.line(line);
  s.ui.line(s.ui.paint(color.dim, '──'));
}

export function lastCommand(_arg: string, s: Session): void {
  showLast(s);
}

/** What /effort takes: a level, or the model's own default. */
const EFFORT_ARGS = [...EFFORTS, 'default'] as const;

/** /effort [low|medium|high|default]: reasoning effort for the rest of the session. */
export function effortCommand(arg: string, s: Session): void {
  const { app, ui } = s;
  const takes = effortKind(app.model) !== null;
  if (!arg) {
    ui.line(t('effort.current', { effort: app.effort ?? t('effort.default') }));
    if (!takes) ui.note(t('effort.unsupported', { name: app.model.name, id: app.model.model }));
    for (const line of table(EFFORT_ARGS.map((level) => [level, t(`effort.level_${level}` as MessageKey)]), ui.columns())) ui.line(line);
    return;
  }
  const level = arg.toLowerCase();
  if (!(EFFORT_ARGS as readonly string[]).includes(level)) return ui.fail(t('effort.unknown', { effort: arg, efforts: EFFORT_ARGS.join(', ') }));
  app.setEffort(level === 'default' ? undefined : (level as Effort));
  ui.line(t('effort.set', { effort: app.effort ?? t('effort.default') }));
  // Kept for the session: a later /model may switch to a model that has it.
  if (!takes && app.effort) ui.warn(t('effort.unsupported', { name: app.model.name, id: app.model.model }));
}

/** /init [FEIYU.md|AGENTS.md]: the model looks at the project and writes its conventions file. */
export async function initCommand(arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  const file = initFile(app.root, arg);
  if (!file) return ui.fail(t('init.usage', { arg }));
  const request = initRequest(app.root, file);
  const path = join(app.root, file);
  const before = fileStamp(path);
  ui.note(t(request.exists ? 'init.improving' : 'init.writing', { file }));
  await s.send(request.prompt);
  if (fileStamp(path) === before) return ui.note(t('init.unchanged', { file }));
  // The new conventions apply from the next message on, as /context would load them.
  const { markdown } = await app.reloadContext();
  for (const n of contextNotices(markdown)) ui.handle(n);
  const loaded = markdown.conventions.conventions.files.find((f) => f.path === path);
  ui.line(loaded ? t('init.done', { file: loaded.shown }) : t('init.unchanged', { file }));
}

/** Size and modification time, or '' when the file is missing: enough to see a write. */
function fileStamp(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}` : '';
}
