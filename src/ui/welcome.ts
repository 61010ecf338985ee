// What the REPL shows before the first prompt (the welcome box) and the prompt itself. The box
// has no right edge, so nothing has to be measured before the prompt appears (string-width is
// loaded later) and a narrow terminal simply wraps its lines.

import type { App } from '../app/app.js';
import { getLang, t } from '../i18n/index.js';
import { unsandboxedWhy } from '../i18n/explain.js';
import { color, type Paint } from './render.js';
import type { PermissionMode } from '../types/permissions.js';
import { inert } from '../util/text.js';

export function welcomeLines(app: App, version: string, paint: Paint): string[] {
  const edge = (s: string) => paint(color.cyan, s);
  const { level, off } = app.sandbox;
  const sandbox = off ? paint(color.yellow, t('welcome.sandbox_off', { why: unsandboxedWhy(off.reason, off.detail) })) : level === 'off' ? paint(color.yellow, t('welcome.sandbox_disabled')) : level;
  const rows = [
    t('welcome.model', { name: app.model.name, id: app.model.model }),
    t('welcome.mode', { mode: modeName(app.mode, paint) }),
    t('welcome.sandbox', { state: sandbox }),
    t('welcome.workspace', { root: app.root }),
    t('welcome.language', { lang: t(getLang() === 'zh' ? 'lang.zh' : 'lang.en') }),
    t('welcome.conventions', { file: instructionFiles(app) }),
  ];
  return [
    `${edge('╭─')} ${paint(color.bold, 'feiyu')} ${version}`,
    ...rows.map((row) => `${edge('│')}  ${row}`),
    `${edge('╰─')} ${paint(color.dim, t('welcome.hints'))}`,
  ];
}

/** The instruction files found (not those they import), the first two by name. */
function instructionFiles(app: App): string {
  const found = app.markdown.conventions.conventions.files.filter((f) => !f.importedBy).map((f) => inert(f.shown));
  if (!found.length) return t('welcome.none');
  return found.length <= 2 ? found.join(', ') : t('files.welcome_more', { files: found.slice(0, 2).join(', '), n: found.length - 2 });
}

const MODE_COLOURS: Record<PermissionMode, string> = { default: color.green, auto: color.yellow, plan: color.cyan, readonly: color.blue };

export function modeName(mode: PermissionMode, paint: Paint): string {
  return paint(MODE_COLOURS[mode], mode);
}

/** The input prompt: the mode in front of it unless it is the default one. */
export function promptFor(mode: PermissionMode, paint: Paint): string {
  return mode === 'default' ? '› ' : `${modeName(mode, paint)} › `;
}
