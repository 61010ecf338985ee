// Pieces of recorded server streams, written as the servers write them (the fake server plays
// them byte for byte as `raw` replies; the per-test checks are test/fixtures.ts useFakeServer).
/** An Anthropic SSE body: `event:` and `data:` lines per event, as the API writes them. */
export const anthropicSse = (...events: object[]): string[] => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`);

/** An OpenAI SSE body: `data:` lines, then [DONE]. */
export const openaiSse = (...chunks: object[]): string[] => [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'];

/** Anthropic's message_start; `usage` absent as some servers send it. */
export const messageStart = (model: string, usage?: { input_tokens: number; output_tokens: number }) => ({
  type: 'message_start',
  message: { id: `msg_${model}`, type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, ...(usage ? { usage } : {}) },
});

/** A text block at `index` in one delta, closed unless `open`. */
export const textBlock = (index: number, text: string, open = false): object[] => [
  { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
  ...(open ? [] : [{ type: 'content_block_stop', index }]),
];

/** message_delta with its stop reason (and usage or stop_details as given), then message_stop. */
export const messageEnd = (stop_reason: string, extra: object = {}): object[] => [
  { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, ...extra },
  { type: 'message_stop' },
];
