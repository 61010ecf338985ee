// One provider stream over both wire formats: attempts, retries and the final `done` event, plus
// the draft message each wire module (anthropic.ts, openai.ts) fills in.
// Contract: stream() never throws and always ends with exactly one `done`. It knows no tools,
// sessions or interface; the SDKs are loaded only when the first request is made.

import { Draft, type Attempt } from './draft.js';
import { estimateTokens } from '../util/tokens.js';
import { DEFAULT_RETRY, describeFailure, retryDelay, sleep, type ProviderFailure, type RetryPolicy } from './retry.js';
import { zeroUsage, type ModelConfig, type Provider, type ProviderError, type ProviderEvent, type ProviderRequest, type StopReason, type Usage } from '../types/providers.js';
import type { AssistantBlock } from '../types/conversation.js';

/** Each wire module exports `open`: loads its SDK, builds a client, returns the attempt function. */
type WireModule = { open(config: ModelConfig): Promise<Attempt> };
const WIRES: Record<ModelConfig['provider'], () => Promise<WireModule>> = {
  anthropic: () => import('./anthropic.js'),
  openai: () => import('./openai.js'),
};

/**
 * `retry`: tests shrink the backoff (`baseDelayMs`); the defaults are 5 attempts within 60 s.
 * `idleTimeoutMs`: an attempt that hears nothing from the server for this long is stopped
 * (0 = never); the default is 120 s.
 */
export type ProviderOptions = { retry?: Partial<RetryPolicy>; idleTimeoutMs?: number };

export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export function createProvider(config: ModelConfig, opts: ProviderOptions = {}): Provider {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const idleMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let opened: Promise<Attempt> | undefined;
  const open = () =>
    (opened ??= Promise.resolve()
      .then(() => WIRES[config.provider]())
      .then((wire) => wire.open(config))
      .catch((e) => {
        opened = undefined; // let the next request try again
        throw e;
      }));
  return {
    config,
    async *stream(request, signal) {
      try {
        yield* withRetries(open, request, policy, idleMs, signal);
      } catch (e) {
        // Only a bug of ours gets here (attempts' throws are handled in runAttempt): end plainly.
        const error: ProviderError = { kind: 'other', message: e instanceof Error ? e.message : 'internal error' };
        yield { type: 'done', message: { role: 'assistant', content: [] }, stopReason: 'error', usage: zeroUsage(), error };
      }
    },
  };
}

async function* withRetries(
  open: () => Promise<Attempt>,
  request: ProviderRequest,
  policy: RetryPolicy,
  idleMs: number,
  signal?: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const draft = new Draft();
    const outcome = yield* runAttempt(open, request, draft, idleMs, signal);
    if ('ending' in outcome) return yield finish(draft, request, outcome.ending);
    const { failure } = outcome;
    // Content already shown cannot be taken back, so a retry is only possible before the first delta.
    const delayMs = outcome.shown ? undefined : retryDelay(failure, attempt, Date.now() - started, policy);
    if (delayMs === undefined) {
      const error: ProviderError = { ...failure.error };
      if (attempt > 1) error.attempts = attempt;
      if (failure.retryAfterMs !== undefined) error.retryAfterMs = failure.retryAfterMs;
      return yield finish(draft, request, 'error', error);
    }
    yield { type: 'retry', attempt, maxAttempts: policy.maxAttempts, delayMs, error: failure.error };
    if (!(await sleep(delayMs, signal))) return yield finish(draft, request, 'aborted');
  }
}

type Outcome = { ending: StopReason | 'refusal' } | { failure: ProviderFailure; shown: boolean };

/**
 * One request: yields its deltas and returns how it ended, a stop reason or a failure (and
 * whether deltas were shown). The request gets its own signal, so the idle timeout can stop it.
 */
async function* runAttempt(
  open: () => Promise<Attempt>,
  request: ProviderRequest,
  draft: Draft,
  idleMs: number,
  signal?: AbortSignal,
): AsyncGenerator<ProviderEvent, Outcome> {
  const own = new AbortController();
  const relay = () => own.abort();
  signal?.addEventListener('abort', relay, { once: true });
  if (signal?.aborted) own.abort();
  const idle = watchIdle(draft, idleMs, relay);
  let shown = false;
  let failure: ProviderFailure | undefined;
  try {
    const send = await open();
    for await (const event of send(request, draft, own.signal)) {
      shown = true;
      yield event;
    }
  } catch (e) {
    failure = describeFailure(e);
  } finally {
    idle.stop();
    signal?.removeEventListener('abort', relay);
  }
  if (signal?.aborted) return { ending: 'aborted' };
  // The reply was complete and only its trailer (usage, [DONE]) was lost or stalled: keep the reply.
  if (draft.stopReason) return { ending: draft.stopReason };
  if (idle.fired) failure = { error: { kind: 'timeout', message: `no data from the server for ${Math.round(idleMs / 1000)} s`, idleMs } };
  failure ??= { error: { kind: 'connection', message: 'The response stream ended before the reply was complete.' } };
  return { failure, shown };
}

/** Aborts through `abort` once the draft has heard nothing from the server for `ms` (0: never). */
function watchIdle(draft: Draft, ms: number, abort: () => void): { readonly fired: boolean; stop(): void } {
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const quiet = Date.now() - draft.heardAt;
    if (quiet < ms) return void (timer = setTimeout(check, ms - quiet).unref());
    fired = true;
    abort();
  };
  if (ms > 0) timer = setTimeout(check, ms).unref();
  return {
    get fired() {
      return fired;
    },
    stop: () => clearTimeout(timer),
  };
}

function finish(draft: Draft, request: ProviderRequest, ending: StopReason | 'refusal', error?: ProviderError): ProviderEvent {
  // A refusal is a failed request: the interface says so and the loop drops the refused exchange.
  const stopReason: StopReason = ending === 'refusal' ? 'error' : ending;
  if (ending === 'refusal') error = { kind: 'refusal', message: draft.refusal ?? 'refused' };
  // An interrupted reply keeps its text but no tool calls: none of them will run, and a call
  // left in the history without a result would make the next request invalid.
  const interrupted = stopReason === 'aborted' || stopReason === 'error';
  const content = draft.content.filter((b) =>
    b.type === 'tool_call' ? !interrupted && !draft.partial.has(b)
    : b.type === 'text' ? b.text !== ''
    : b.type === 'thinking' ? b.thinking !== '' || Boolean(b.signature)
    : true,
  );
  const message = { role: 'assistant' as const, content };
  const event: ProviderEvent = { type: 'done', message, stopReason, usage: draft.usage ?? zeroUsage() };
  // A server that sent no usage still billed what it read and wrote: estimate rather than say 0.
  if (!draft.usage && (content.length > 0 || draft.stopReason)) {
    event.usage = estimateUsage(request, content);
    event.usageEstimated = true;
  }
  if (error) event.error = error;
  return event;
}

// ---------------------------------------------------------------------------------------------
// Estimates for servers that report no usage

/** A rough image cost: Anthropic bills a ~1.1 megapixel image at about 1,600 tokens. */
const IMAGE_TOKENS = 1600;

function estimateUsage(request: ProviderRequest, content: AssistantBlock[]): Usage {
  let images = 0;
  // Base64 image data would count as hundreds of thousands of "tokens"; count images apart.
  const messages = JSON.stringify(request.messages, (_key, value) => {
    if (value?.type !== 'image') return value;
    images++;
    return '';
  });
  const input = estimateTokens(request.system + messages + JSON.stringify(request.tools)) + images * IMAGE_TOKENS;
  const output = estimateTokens(
    content
      .map((b) => (b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : b.type === 'tool_call' ? b.name + (b.invalidJson ?? JSON.stringify(b.input)) : ''))
      .join(''),
  );
  return { input, output, cacheRead: 0, cacheWrite: 0 };
}
