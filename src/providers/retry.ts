// Provider failures in feiyu's terms: what kind of error an SDK or network throw is, whether it
// is worth another attempt, and how long to wait (backoff, retry-after). Pure decisions plus an
// abortable sleep; it never sends a request and never throws.

import type { ProviderError } from '../types/providers.js';

export type RetryPolicy = { maxAttempts: number; maxTotalMs: number; baseDelayMs: number };
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, maxTotalMs: 60_000, baseDelayMs: 1000 };

/** A failure, plus the wait the server asked for (retry-after), if any. */
export type ProviderFailure = { error: ProviderError; retryAfterMs?: number };

const RETRYABLE: ReadonlySet<ProviderError['kind']> = new Set(['rate_limit', 'overloaded', 'server', 'connection', 'timeout']);

const KIND_BY_STATUS: Record<number, ProviderError['kind']> = {
  400: 'bad_request',
  401: 'auth',
  402: 'quota',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limit',
  529: 'overloaded',
};

// Error types an SSE `error` event carries (Anthropic names; OpenAI-compatible servers vary).
const KIND_BY_TYPE: Record<string, ProviderError['kind']> = {
  overloaded_error: 'overloaded',
  rate_limit_error: 'rate_limit',
  api_error: 'server',
  authentication_error: 'auth',
  permission_error: 'forbidden',
  not_found_error: 'not_found',
  invalid_request_error: 'bad_request',
};

// Node's network failures, as thrown by undici or found in an error's `cause`.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Turns anything the SDKs or the network throw into a ProviderFailure. Both SDKs (Stainless) throw
 * APIError with `status`, `headers` and the parsed body in `error`; a connection failure is an
 * APIError with neither status nor body; an `error` event inside a stream has a body but no status.
 */
export function describeFailure(e: unknown): ProviderFailure {
  const err = (typeof e === 'object' && e !== null ? e : {}) as { status?: unknown; headers?: unknown; error?: unknown; message?: unknown };
  const text = typeof err.message === 'string' ? err.message : String(e);
  if (typeof err.status === 'number') {
    const status = err.status;
    const message = readable(serverMessage(err.error) ?? text.replace(/^\d{3}\s+/, ''));
    const retryAfterMs = retryAfter(err.headers);
    const quota = isQuota(err.error, message, retryAfterMs);
    const kind = quota ? 'quota' : (KIND_BY_STATUS[status] ?? (status >= 500 ? 'server' : 'other'));
    return { error: { status, kind, message }, retryAfterMs };
  }
  if ('headers' in err && err.error !== undefined) {
    const type = (err.error as any)?.error?.type ?? (err.error as any)?.type;
    const message = readable(serverMessage(err.error) ?? text);
    return { error: { kind: isQuota(err.error, message, undefined) ? 'quota' : (KIND_BY_TYPE[type] ?? 'server'), message } };
  }
  if ('headers' in err || isNetworkError(e)) return { error: { kind: 'connection', message: causeMessage(e) } };
  return { error: { kind: 'other', message: text } };
}

function serverMessage(body: unknown): string | undefined {
  if (typeof body === 'string' && body) return body;
  // Gemini wraps its error in a list; some servers send {"error": "text"}.
  const b = (Array.isArray(body) ? body[0] : body) as any;
  const message = b?.error?.message ?? b?.message ?? b?.error;
  return typeof message === 'string' && message ? message : undefined;
}

// Codes and words of an account without credit or quota (OpenAI, Moonshot, DeepSeek, Anthropic,
// DashScope, Zhipu): retrying cannot help, unlike a rate limit.
const QUOTA_CODES = new Set(['insufficient_quota', 'exceeded_current_quota_error', 'billing_hard_limit_reached', 'insufficient_balance', 'arrearage', '1113']);
const QUOTA_WORDS = /insufficient (?:balance|quota|credit|funds)|credit balance is too low|exceeded your current quota|quota (?:has been )?exhausted|out of credits?|余额不足|欠费/i;

function isQuota(body: unknown, message: string, retryAfterMs: number | undefined): boolean {
  const b = (Array.isArray(body) ? body[0] : body) as any;
  const codes = [b?.error?.type, b?.error?.code, b?.type, b?.code].filter((c) => c != null).map((c) => String(c).toLowerCase());
  if (codes.some((c) => QUOTA_CODES.has(c))) return true;
  // A server that says when to come back is limiting the rate, whatever its words.
  return retryAfterMs === undefined && QUOTA_WORDS.test(message);
}

/** A server's message as one short line: an HTML error page (a proxy's 502) becomes its title. */
function readable(message: string): string {
  let text = message;
  if (/<(?:!doctype|html|head|body|title)\b/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
    text = (title ?? text.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' '))
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? text.slice(0, 300) + '…' : text;
}

function isNetworkError(e: unknown): boolean {
  for (let cur = e as any, depth = 0; cur && depth < 4; cur = cur.cause, depth++) {
    if (NETWORK_CODES.has(cur.code)) return true;
    // undici reports a body cut off mid-stream as TypeError("terminated") and a failed connect as "fetch failed".
    if (cur instanceof TypeError && /terminated|fetch failed|other side closed/i.test(cur.message)) return true;
  }
  return false;
}

/** The most specific message in an error's cause chain ("connect ECONNREFUSED 127.0.0.1:9"). */
function causeMessage(e: unknown): string {
  let message = e instanceof Error ? e.message : String(e);
  for (let cur = (e as any)?.cause, depth = 0; cur && depth < 4; cur = cur.cause, depth++) {
    if (typeof cur.message === 'string' && cur.message) message = cur.message;
  }
  return message;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
function retryAfter(headers: unknown): number | undefined {
  const get = (name: string): string | null | undefined => (headers as Headers | undefined)?.get?.(name);
  const ms = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * How long to wait before attempt `attempt + 1`, or undefined to give up: the error is not
 * retryable, attempts are used up, or the wait would pass the total time budget.
 */
export function retryDelay(failure: ProviderFailure, attempt: number, elapsedMs: number, policy: RetryPolicy): number | undefined {
  if (!RETRYABLE.has(failure.error.kind) || attempt >= policy.maxAttempts) return undefined;
  // Exponential backoff with ±25% jitter, so many clients hit by one outage do not retry in step.
  const backoff = policy.baseDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
  const delay = Math.round(failure.retryAfterMs ?? backoff);
  return elapsedMs + delay > policy.maxTotalMs ? undefined : delay;
}

/** Waits `ms`; resolves false at once if the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
