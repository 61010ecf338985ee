// Start-up and runtime notices for the interface: an i18n key and its parameters, and how hook
// and verify outcomes become one. Words come from the catalogue; nothing here prints.

import type { Failure, HookNotice } from '../hooks/runner.js';
import { t, type MessageKey } from '../i18n/index.js';

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

