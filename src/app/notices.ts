// Start-up and runtime notices for the interface: an i18n key and its parameters, and how hook
// and verify outcomes become one. Words come from the catalogue; nothing here prints.

import type { Failure, HookNotice } from '../hooks/runner.js';
import { t, type MessageKey } from '../i18n/index.js';
import type { FileReadError } from '../util/readfile.js';
import { formatSize } from '../content/filetype.js';

/** A message for the interface: an i18n key and its parameters. */
export type Notice = { key: MessageKey; params?: Record<string, string | number> };

/** A hook or verify failure in words, for a notice. */
function failureText(f: Failure): string {
  switch (f.kind) {
    case 'exit':
      return t('fail.exit', { code: f.code });
    case 'signal':
      return t('fail.signal', { signal: f.signal });
    case 'timeout':
      return t('fail.timeout', { secs: f.secs });
    case 'spawn':
      return t('fail.spawn', { message: f.message });
  }
}

export function hookNotice(n: HookNotice): Notice {
  switch (n.code) {
    case 'hook_failed':
      return { key: n.blocked ? 'hook.failed_blocked' : 'hook.failed', params: { event: n.event, command: n.command, why: failureText(n.failure) + (n.stderr ? ` (${n.stderr})` : '') } };
    case 'verify_passed':
      return { key: 'verify.passed', params: { command: n.command, secs: n.secs } };
    case 'verify_failed':
      return { key: 'verify.failed', params: { command: n.command, why: failureText(n.failure), secs: n.secs } };
  }
}

/** A file feiyu would read that is not a regular file, or is huge: which file, and what it is. */
export function fileNotice(err: FileReadError): Notice {
  const p = err.problem;
  if (p.code === 'not_regular') return { key: 'file.not_regular', params: { file: err.file, kind: t(`file.kind_${p.kind.replace(' ', '_')}` as MessageKey) } };
  return { key: 'file.too_big', params: { file: err.file, size: formatSize(p.size), max: formatSize(p.max) } };
}
