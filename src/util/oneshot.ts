// One model request without tools: a system prompt and one user message in, the reply's text out.
// For the side requests (a compaction summary, a question about a web page, a key's test). Never
// throws: the provider stream does not.

import { zeroUsage, type Provider, type ProviderError, type ProviderEvent, type StopReason, type Usage } from '../types/providers.js';

export type OneShotResult = { text: string; stopReason: StopReason; usage: Usage; usageEstimated: boolean; error?: ProviderError };

export type OneShotRequest = {
  system: string;
  text: string;
  maxTokens: number;
  signal?: AbortSignal;
  /** Receives the request's retry events, so the interface can show the wait. */
  onRetry?: (event: Extract<ProviderEvent, { type: 'retry' }>) => void;
};

/** The reply's text, trimmed, with how the request ended and what it cost. */
export async function oneShot(provider: Provider, r: OneShotRequest): Promise<OneShotResult> {
  const request = { system: r.system, messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: r.text }] }], tools: [], maxTokens: r.maxTokens };
  for await (const event of provider.stream(request, r.signal)) {
    if (event.type === 'retry') r.onRetry?.(event);
    if (event.type !== 'done') continue;
    const text = event.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('').trim();
    const result: OneShotResult = { text, stopReason: event.stopReason, usage: event.usage, usageEstimated: event.usageEstimated === true };
    if (event.error) result.error = event.error;
    return result;
  }
  // Unreachable by the Provider contract.
  return { text: '', stopReason: 'error', usage: zeroUsage(), usageEstimated: false };
}
