// Provider failures in plain words: which model, which key, what to do next, how often it was
// tried and when the server said to come back. Shared by the REPL and headless mode; words come
// from the catalogue.

import type { ModelConfig, ProviderError } from '../types.js';
import { t, type MessageKey } from './index.js';

/** A provider failure in plain words. `now` is for tests: the clock time a retry-after points to. */
export function explainError(error: ProviderError, model: ModelConfig, now = Date.now()): string {
  const keySource = model.apiKeyEnv
    ? t('key.env', { name: model.apiKeyEnv })
    : model.apiKey
      ? t('key.file', { name: model.name })
      : t('key.none', { name: model.name });
  const sentences = [
    t(`err.${error.kind}` as MessageKey, {
      model: model.name,
      id: model.model,
      status: error.status ?? '-',
      http: error.status ? ` (HTTP ${error.status})` : '',
      msg: error.message.replace(/[.。]\s*$/, ''),
      url: model.baseURL ?? (model.provider === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1'),
      keySource,
      secs: Math.round((error.idleMs ?? 0) / 1000),
    }),
  ];
  if (error.attempts && error.attempts > 1) sentences.push(t('err.attempts', { n: error.attempts }));
  if (error.retryAfterMs !== undefined && error.kind !== 'quota') {
    sentences.push(t('err.retry_at', { wait: duration(error.retryAfterMs), time: clock(now + error.retryAfterMs, now) }));
  } else if (error.kind === 'rate_limit') {
    sentences.push(t('err.wait_minute'));
  }
  return sentences.join(' ');
}

/** "40 s", "5 min", "1 h 30 min": how long to wait, rounded up. */
function duration(ms: number): string {
  const secs = Math.max(1, Math.ceil(ms / 1000));
  if (secs < 120) return t('time.secs', { n: secs });
  const mins = Math.ceil(secs / 60);
  if (mins < 120) return t('time.mins', { n: mins });
  const rest = mins % 60;
  return rest ? t('time.hours_mins', { h: Math.floor(mins / 60), m: rest }) : t('time.hours', { h: mins / 60 });
}

/** The local clock time, "14:05", with the date when it is not today. */
function clock(at: number, now: number): string {
  const date = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  const hm = `${two(date.getHours())}:${two(date.getMinutes())}`;
  if (date.toDateString() === new Date(now).toDateString()) return hm;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${hm}`;
}
