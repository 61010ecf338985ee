// feiyu's events as Claude Code's stream-json (`claude -p --output-format stream-json`): the
// system/init line, each assistant message (text, thinking, tool_use under Claude's tool and field
// names, a use_tool call as the tool it calls) and each user message of tool results as it
// completes, compaction boundaries, and with partial messages the model's reply as Anthropic
// stream events. Makes lines; prints nothing.

import { randomUUID } from 'node:crypto';
import { claudeCall } from '../hooks/protocol.js';
import { claudeToolName } from '../util/claudenames.js';
import { USE_TOOL } from '../core/coldtools.js';
import { isObject } from '../util/jsonfile.js';
import type { AgentEvent } from '../types/events.js';
import type { AssistantBlock, AssistantMessage, Message } from '../types/conversation.js';
import type { Usage } from '../types/providers.js';

export type InitFields = { cwd: string; sessionId: string; tools: string[]; mcpServers?: { name: string; status: string }[]; model: string; permissionMode: string; apiKeySource: string; version: string };

/** The system/init line. */
export function initLine(f: InitFields): Record<string, unknown> {
  return {
    type: 'system',
    subtype: 'init',
    cwd: f.cwd,
    session_id: f.sessionId,
    tools: f.tools.map((name) => claudeToolName(name)),
    mcp_servers: f.mcpServers ?? [],
    model: f.model,
    permissionMode: f.permissionMode,
    slash_commands: [],
    apiKeySource: f.apiKeySource,
    output_style: 'default',
    feiyu_version: f.version,
    uuid: randomUUID(),
  };
}

const apiUsage = (u: Usage | undefined) => ({
  input_tokens: u?.input ?? 0,
  cache_creation_input_tokens: u?.cacheWrite ?? 0,
  cache_read_input_tokens: u?.cacheRead ?? 0,
  output_tokens: u?.output ?? 0,
});

/**
 * A dispatcher's call (use_tool, for a cold tool) as the call it stands for, as hooks, the policy
 * and the tool_result see it: a consumer of Claude's stream knows the tool, not the dispatcher.
 */
function meant(name: string, input: Record<string, unknown>): [string, Record<string, unknown>] {
  if (name !== USE_TOOL || typeof input.name !== 'string') return [name, input];
  let args = input.args ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return [name, input];
    }
  }
  return isObject(args) ? [input.name, args] : [name, input];
}

type OpenBlock = { index: number; kind: 'text' | 'thinking' | 'tool_use'; id?: string; name?: string; json: string };

/**
 * Turns events into Claude's lines. Contract: `on` returns the lines an event makes, in order;
 * the whole history the agent re-emits after a compaction or a refusal is not repeated.
 */
export class ClaudeStream {
  private replaying = false;
  private lastUsage: Usage | undefined;
  private messages = 0;
  /** The partial message being streamed, and its open content block. */
  private streaming: { id: string; blocks: number; open?: OpenBlock } | undefined;

  constructor(
    private readonly o: { root: string; sessionId: () => string; model: () => string; partial: boolean },
  ) {}

  on(event: AgentEvent): Record<string, unknown>[] {
    switch (event.type) {
      case 'compaction':
      case 'history_reset':
        this.replaying = true;
        return event.type === 'compaction' ? [this.stamped({ type: 'system', subtype: 'compact_boundary', compact_metadata: { trigger: 'auto', pre_tokens: event.before } })] : [];
      case 'request_start':
        this.replaying = false;
        return [...this.endPartial(), ...this.startPartial()];
      case 'turn_end':
        this.replaying = false;
        return this.endPartial();
      case 'usage':
        if (!event.side) this.lastUsage = event;
        return [];
      case 'message':
        return this.replaying ? [] : this.message(event.message);
      case 'text_delta':
        return this.delta('text', { type: 'text_delta', text: event.text });
      case 'thinking_delta':
        return this.delta('thinking', { type: 'thinking_delta', thinking: event.text });
      case 'toolcall_start':
        return this.delta('tool_use', undefined, { id: event.id, name: event.name });
      case 'toolcall_delta':
        if (this.streaming?.open?.kind === 'tool_use') this.streaming.open.json += event.json;
        return [];
      default:
        return [];
    }
  }

  private stamped(fields: Record<string, unknown>): Record<string, unknown> {
    return { ...fields, session_id: this.o.sessionId(), uuid: randomUUID() };
  }

  private message(message: Message): Record<string, unknown>[] {
    if (message.role === 'assistant') {
      // The message streamed as stream events keeps its id.
      const id = this.streaming?.id ?? `msg_feiyu_${++this.messages}`;
      return [...this.endPartial(message), this.stamped({ type: 'assistant', message: this.assistant(message, id), parent_tool_use_id: null })];
    }
    const results = message.content.flatMap((b) =>
      b.type === 'tool_result' ? [{ type: 'tool_result', tool_use_id: b.callId, content: b.content, ...(b.isError && { is_error: true }) }] : [],
    );
    return results.length ? [this.stamped({ type: 'user', message: { role: 'user', content: results }, parent_tool_use_id: null })] : [];
  }

  private assistant(message: AssistantMessage, id: string): Record<string, unknown> {
    const calls = message.content.some((b) => b.type === 'tool_call');
    return {
      id,
      type: 'message',
      role: 'assistant',
      model: this.o.model(),
      content: message.content.map((b) => this.block(b)),
      stop_reason: calls ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: apiUsage(this.lastUsage),
    };
  }

  private block(b: AssistantBlock): Record<string, unknown> {
    switch (b.type) {
      case 'tool_call':
        return { type: 'tool_use', id: b.id, ...claudeCall(...meant(b.name, b.input), this.o.root) };
      case 'thinking':
        return { type: 'thinking', thinking: b.thinking, signature: b.signature ?? '' };
      default:
        return b;
    }
  }

  // ---- partial messages (--include-partial-messages)

  private event(event: Record<string, unknown>): Record<string, unknown> {
    return this.stamped({ type: 'stream_event', event, parent_tool_use_id: null });
  }

  private startPartial(): Record<string, unknown>[] {
    if (!this.o.partial) return [];
    this.streaming = { id: `msg_feiyu_${++this.messages}`, blocks: 0 };
    const message = { id: this.streaming.id, type: 'message', role: 'assistant', model: this.o.model(), content: [], stop_reason: null, stop_sequence: null, usage: apiUsage(undefined) };
    return [this.event({ type: 'message_start', message })];
  }

  /** A delta of a block of `kind`, opening that block first when another one is open. */
  private delta(kind: OpenBlock['kind'], delta: Record<string, unknown> | undefined, tool?: { id: string; name: string }): Record<string, unknown>[] {
    const s = this.streaming;
    if (!s) return [];
    const lines: Record<string, unknown>[] = [];
    if (!s.open || s.open.kind !== kind || tool) {
      lines.push(...this.closeBlock());
      s.open = { index: s.blocks++, kind, json: '', ...tool };
      const start =
        kind === 'text' ? { type: 'text', text: '' }
        : kind === 'thinking' ? { type: 'thinking', thinking: '', signature: '' }
        : { type: 'tool_use', id: tool!.id, name: claudeToolName(tool!.name), input: {} };
      lines.push(this.event({ type: 'content_block_start', index: s.open.index, content_block: start }));
    }
    if (delta) lines.push(this.event({ type: 'content_block_delta', index: s.open.index, delta }));
    return lines;
  }

  /**
   * Ends the open block. A tool call's arguments go out whole, under Claude's field names: feiyu's
   * own would not be what a consumer of Claude's stream reads.
   */
  private closeBlock(): Record<string, unknown>[] {
    const open = this.streaming?.open;
    if (!open) return [];
    this.streaming!.open = undefined;
    const lines: Record<string, unknown>[] = [];
    if (open.kind === 'tool_use') {
      let json = open.json;
      try {
        json = JSON.stringify(claudeCall(open.name!, JSON.parse(open.json || '{}'), this.o.root).input);
      } catch {
        // Arguments that do not parse go out as the model sent them.
      }
      lines.push(this.event({ type: 'content_block_delta', index: open.index, delta: { type: 'input_json_delta', partial_json: json } }));
    }
    lines.push(this.event({ type: 'content_block_stop', index: open.index }));
    return lines;
  }

  /** Ends the streamed message, if one is open (`message`: how it ended). */
  private endPartial(message?: AssistantMessage): Record<string, unknown>[] {
    if (!this.streaming) return [];
    const lines = this.closeBlock();
    const calls = message?.content.some((b) => b.type === 'tool_call');
    lines.push(
      this.event({ type: 'message_delta', delta: { stop_reason: message ? (calls ? 'tool_use' : 'end_turn') : null, stop_sequence: null }, usage: { output_tokens: this.lastUsage?.output ?? 0 } }),
      this.event({ type: 'message_stop' }),
    );
    this.streaming = undefined;
    return lines;
  }
}
