// The draft of one reply as it streams in, shared by the retrying stream and the wire modules
// (anthropic.ts, openai.ts): content blocks, tool calls whose JSON is still arriving, usage, and
// when the server was last heard from (the idle timeout).

import type { AssistantBlock, ToolCallBlock } from '../types/conversation.js';
import type { ProviderEvent, ProviderRequest, Usage } from '../types/providers.js';
import { isObject } from '../util/jsonfile.js';

/**
 * What one attempt has received so far. Wire modules push blocks into `content` as they stream;
 * a tool call stays in `partial` (with its raw JSON) until its arguments are complete. `usage`
 * is undefined until the server sends one.
 */
export class Draft {
  readonly content: AssistantBlock[] = [];
  readonly partial = new Map<ToolCallBlock, string>();
  usage?: Usage;
  stopReason?: 'end' | 'tool_use' | 'max_tokens' | 'refusal';
  /** Why the model or a filter refused (the server's explanation, or its stop reason). */
  refusal?: string;
  /** When the server last sent anything (ms since the epoch); wire modules call `heard()` per event. */
  heardAt = Date.now();

  heard(): void {
    this.heardAt = Date.now();
  }

  startToolCall(id: string, name: string): { block: ToolCallBlock; event: ProviderEvent } {
    const block: ToolCallBlock = { type: 'tool_call', id, name, input: {} };
    this.content.push(block);
    this.partial.set(block, '');
    return { block, event: { type: 'toolcall_start', id, name } };
  }

  toolCallDelta(block: ToolCallBlock, json: string): ProviderEvent {
    this.partial.set(block, (this.partial.get(block) ?? '') + json);
    return { type: 'toolcall_delta', id: block.id, json };
  }

  /**
   * Parses the call's arguments. JSON that does not parse to an object is kept raw in `invalidJson`.
   * `cutOff`: the reply stopped at the output limit, so even empty arguments are a truncated call.
   */
  finishToolCall(block: ToolCallBlock, cutOff = false): void {
    const raw = this.partial.get(block);
    if (raw === undefined) return;
    this.partial.delete(block);
    if (raw.trim() === '' && !cutOff) return; // a call without arguments
    try {
      const input = JSON.parse(raw);
      if (isObject(input)) {
        block.input = input;
        return;
      }
    } catch {
      // kept below as invalidJson
    }
    block.invalidJson = raw;
  }
}

/** One request to the server: yields deltas while it fills the draft; throws what the SDK throws. */
export type Attempt = (request: ProviderRequest, draft: Draft, signal?: AbortSignal) => AsyncIterable<ProviderEvent>;
