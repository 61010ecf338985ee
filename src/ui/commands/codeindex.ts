// /index: the code index's state (files, symbols, call edges, the cache's size and age, why it is
// off) and `/index rebuild`. Prints through the Renderer; decides nothing about the index itself.

import type { CodeIndexStatus } from '../../app/codeindex.js';
import { t, type MessageKey } from '../../i18n/index.js';
import type { Session } from './session-type.js';

const OFF: Record<string, MessageKey> = {
  setting: 'index.off_setting',
  not_git: 'index.off_not_git',
  too_few_files: 'index.off_too_few',
  failed_to_load: 'index.off_failed',
};

function age(builtAt: number): string {
  const minutes = Math.floor((Date.now() - builtAt) / 60_000);
  if (minutes < 1) return t('index.age_now');
  if (minutes < 120) return t('index.age_minutes', { n: minutes });
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? t('index.age_hours', { n: hours }) : t('index.age_days', { n: Math.floor(hours / 24) });
}

function show(s: Session, status: CodeIndexStatus): void {
  const { ui } = s;
  if (status.state === 'failed') return ui.warn(t('index.failed'));
  if (status.state !== 'ready') return ui.line(t('index.building', { done: status.progress.done, total: status.progress.total }));
  ui.line(t('index.ready', { files: status.files, symbols: status.symbols, edges: status.edges, size: (status.bytes / 1024 / 1024).toFixed(1), age: age(status.builtAt) }));
  const partial = Object.values(status.notes).reduce((a, b) => a + b, 0);
  if (partial) ui.note(t('index.notes', { n: partial }));
  if (status.cacheProblem) ui.note(t('index.cache_problem', { detail: status.cacheProblem }));
}

export async function indexCommand(arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  if (arg && arg !== 'rebuild') return ui.fail(t('index.usage'));
  const link = app.codeIndex;
  if (!link) return ui.line(t(app.codeIndexSetting === 'off' ? 'index.off_setting' : 'index.off_not_git'));
  link.start();
  await link.settled;
  if (arg === 'rebuild') {
    ui.note(t('index.rebuilding'));
    await link.rebuild();
  }
  await link.countEdges();
  const status = link.status();
  const why = OFF[link.off() ?? (status ? '' : 'failed_to_load')];
  if (why || !status) return ui.line(t(why ?? 'index.off_failed'));
  show(s, status);
}
