// The conversation as feiyu keeps it, whatever the wire: text, thinking, images, tool calls and
// their results, in user and assistant messages. Part of the shared vocabulary (types/): owns
// only types and imports nothing of ours.

export type TextBlock = { type: 'text'; text: string };
/** Extended thinking; Anthropic requires the signature to be sent back during tool use. */
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature?: string };
export type RedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
/** An image. `data` is base64; `path` and `bytes` describe it for placeholders (sessions, summaries). */
export type ImageBlock = { type: 'image'; mediaType: string; data: string; path?: string; bytes?: number };
/**
 * A tool call as the model made it. `input` is the parsed arguments; when the model sent JSON
 * that does not parse, `input` is {} and `invalidJson` holds the raw text, so the loop can
 * answer with an error the model can act on.
 */
export type ToolCallBlock = {
  type: 'tool_call';
  id: string;
  name: string;
  input: Record<string, unknown>;
  invalidJson?: string;
  /** Fields of the wire's tool call that feiyu does not read, sent back unchanged (Gemini's
   *  `extra_content` with its thought signature: the next request is rejected without it). */
  extra?: Record<string, unknown>;
};
export type ToolResultBlock = { type: 'tool_result'; callId: string; content: string; isError?: boolean; images?: ImageBlock[] };

export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock;
export type UserBlock = TextBlock | ImageBlock | ToolResultBlock;

export type UserMessage = { role: 'user'; content: UserBlock[] };
export type AssistantMessage = { role: 'assistant'; content: AssistantBlock[] };
export type Message = UserMessage | AssistantMessage;
