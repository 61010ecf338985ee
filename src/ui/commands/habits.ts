// The commands users bring from other agents: /last (the last tool's whole output, also Ctrl+O),
// /init (a conventions file written by the model after looking at the project) and /effort
// (reasoning effort for models that have it). Each prints through the Renderer of the Session.

import type { Session } from './session-type.js';
import { t } from '../../i18n/index.js';
import { color } from '../render.js';
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
