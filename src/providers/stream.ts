// One provider stream over both wire formats: attempts, retries and the final `done` event, plus
// the draft message each wire module (anthropic.ts, openai.ts) fills in.
// Contract: stream() never throws and always ends with exactly one `done`. It knows no tools,
// sessions or interface; the SDKs are loaded only when the first request is made.

import { Draft, type Attempt } from './draft.js';
import { estimateTokens } from '../util/tokens.js';
import { DEFAULT_RETRY, describeFailure, retryDelay, sleep, type ProviderFailure, type RetryPolicy } from './retry.js';
import {
  zeroUsage,
  type AssistantBlock,
  type ModelConfig,
  type Provider,
  type ProviderError,
  type ProviderEvent,
  type ProviderRequest,
  type StopReason,
  type Usage,
} from '../types.js';

/** Each wire module exports `open`: loads its SDK, builds a client, returns the attempt function. */
type WireModule = { open(config: ModelConfig): Promise<Attempt> };
const WIRES: Record<ModelConfig['provider'], () => Promise<WireModule>> = {
  anthropic: () => import('./anthropic.js'),
  openai: () => import('./openai.js'),
};

/** Tests shrink the backoff (`retry.baseDelayMs`); the defaults are 5 attempts within 60 s. */
export type ProviderOptions = { retry?: Partial<RetryPolicy> };

export function createProvider(config: ModelConfig, opts: ProviderOptions = {}): Provider {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
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
        yield* withRetries(open, request, policy, signal);
      } catch (e) {
        // Only a bug of ours gets here (attempts' throws are handled in withRetries): end plainly.
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
  signal?: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const draft = new Draft();
    let yielded = false;
    let failure: ProviderFailure;
    try {
      const send = await open();
      for await (const event of send(request, draft, signal)) {
        yielded = true;
        yield event;
      }
      if (signal?.aborted) return yield finish(draft, request, 'aborted');
      if (draft.stopReason) return yield finish(draft, request, draft.stopReason);
      failure = { error: { kind: 'connection', message: 'The response stream ended before the reply was complete.' } };
    } catch (e) {
      if (signal?.aborted) return yield finish(draft, request, 'aborted');
      // The reply was complete and only its trailer (usage, [DONE]) was lost: keep the reply.
      if (draft.stopReason) return yield finish(draft, request, draft.stopReason);
      failure = describeFailure(e);
    }
    // Content already shown cannot be taken back, so a retry is only possible before the first delta.
    const delayMs = yielded ? undefined : retryDelay(failure, attempt, Date.now() - started, policy);
    if (delayMs === undefined) return yield finish(draft, request, 'error', failure.error);
    yield { type: 'retry', attempt, maxAttempts: policy.maxAttempts, delayMs, error: failure.error };
    if (!(await sleep(delayMs, signal))) return yield finish(draft, request, 'aborted');
  }
}

function finish(draft: Draft, request: ProviderRequest, stopReason: StopReason, error?: ProviderError): ProviderEvent {
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
