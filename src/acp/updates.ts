// What an editor is sent over the Agent Client Protocol for feiyu's events: session/update
// payloads for the answer, the thinking, tool calls and their results (diffs for file changes),
// a saved history replayed, the permission question and its options, the modes, the stop reason.
// Pure functions over values; the connection (server.ts) sends them.

import { resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { explainEvent } from '../i18n/explain.js';
import { hasKey, t, type MessageKey } from '../i18n/index.js';
import { PERMISSION_MODES, type AskAnswer, type Approval, type PermissionMode, type PlanVerdict } from '../types/permissions.js';
import type { AgentEvent, TurnStopReason } from '../types/events.js';
import type { Message } from '../types/conversation.js';

const KINDS: Record<string, acp.ToolKind> = {
  read_file: 'read',
  list_files: 'search',
  search: 'search',
  write_file: 'edit',
  edit_file: 'edit',
  bash: 'execute',
  job: 'execute',
  web_fetch: 'fetch',
  exit_plan: 'switch_mode',
  todo: 'think',
  task: 'think',
};

const text = (value: string): acp.ContentBlock => ({ type: 'text', text: value });

/** The session/update payloads for one event (none for events an editor has no place for); ACP paths are absolute. */
export function updatesOf(event: AgentEvent, root: string): acp.SessionUpdate[] {
  switch (event.type) {
    case 'text_delta':
      return [{ sessionUpdate: 'agent_message_chunk', content: text(event.text) }];
    case 'thinking_delta':
      return [{ sessionUpdate: 'agent_thought_chunk', content: text(event.text) }];
    case 'tool_call':
      return [{ sessionUpdate: 'tool_call', ...toolCall(root, event.id, event.name, event.input, event.title), status: 'pending' }];
    case 'permission':
      return [{ sessionUpdate: 'tool_call_update', toolCallId: event.id, status: event.decision === 'allow' ? 'in_progress' : 'failed' }];
    case 'tool_result': {
      const content: acp.ToolCallContent[] = event.change
        ? [{ type: 'diff', path: resolve(root, event.change.path), oldText: event.change.before, newText: event.change.after }]
        : [{ type: 'content', content: text(event.output) }];
      return [{ sessionUpdate: 'tool_call_update', toolCallId: event.id, status: event.isError ? 'failed' : 'completed', content, rawOutput: { output: event.output } }];
    }
    default: {
      // Notices, hook failures, verify results: said to the user, in the answer's place.
      const said = explainEvent(event);
      return said ? [{ sessionUpdate: 'agent_message_chunk', content: text(`\n\n> ${said}\n\n`) }] : [];
    }
  }
}

function toolCall(root: string, id: string, name: string, input: Record<string, unknown>, title?: string): acp.ToolCall {
  const path = typeof input.path === 'string' ? resolve(root, input.path) : undefined;
  return {
    toolCallId: id,
    title: title ?? name,
    kind: KINDS[name] ?? 'other',
    rawInput: input,
    ...(path ? { locations: [{ path }] } : {}),
  };
}

/** A saved conversation as the updates that show it (session/load). */
export function historyUpdates(messages: readonly Message[], root: string): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'text') updates.push({ sessionUpdate: message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk', content: text(block.text) });
      else if (block.type === 'thinking') updates.push({ sessionUpdate: 'agent_thought_chunk', content: text(block.thinking) });
      else if (block.type === 'tool_call') updates.push({ sessionUpdate: 'tool_call', ...toolCall(root, block.id, block.name, block.input), status: 'pending' });
      else if (block.type === 'tool_result') {
        const status = block.isError ? 'failed' : 'completed';
        updates.push({ sessionUpdate: 'tool_call_update', toolCallId: block.callId, status, content: [{ type: 'content', content: text(block.content) }] });
      }
    }
  }
  return updates;
}

/** The options an editor offers for a question; "always" only when a rule can be saved. */
export function permissionRequest(sessionId: string, approval: Approval, approvalId: string): acp.RequestPermissionRequest {
  if (approval.kind === 'plan') {
    return {
      sessionId,
      toolCall: { toolCallId: approvalId, title: t('acp.plan_title'), kind: 'switch_mode', content: [{ type: 'content', content: text(approval.plan) }] },
      options: [
        { optionId: 'approve', name: t('acp.plan_approve'), kind: 'allow_once' },
        { optionId: 'reject', name: t('acp.plan_reject'), kind: 'reject_once' },
      ],
    };
  }
  const req = approval.request;
  const reasonKey = `ask.${req.reasonCode}`;
  const why = hasKey(reasonKey) ? t(reasonKey as MessageKey, req.reasonParams) : undefined;
  return {
    sessionId,
    toolCall: {
      toolCallId: approval.callId,
      title: req.display,
      ...(why ? { content: [{ type: 'content', content: text(why) }] } : {}),
    },
    options: [
      { optionId: 'yes', name: t('acp.allow_once'), kind: 'allow_once' },
      ...(req.suggestedRules.length ? [{ optionId: 'always', name: t('acp.allow_always'), kind: 'allow_always' as const }] : []),
      { optionId: 'no', name: t('acp.reject_once'), kind: 'reject_once' },
    ],
  };
}

/** The editor's choice as the answer the app takes; cancelled or unknown is no. */
export function answerOf(approval: Approval, outcome: acp.RequestPermissionOutcome): AskAnswer | PlanVerdict {
  const chosen = outcome.outcome === 'selected' ? outcome.optionId : undefined;
  if (approval.kind === 'plan') return chosen === 'approve' ? { approved: true } : { approved: false };
  if (chosen === 'yes') return { answer: 'yes' };
  if (chosen === 'always' && approval.request.suggestedRules.length) return { answer: 'always' };
  return { answer: 'no' };
}

/** The four permission modes as ACP session modes. */
export function modesOf(current: PermissionMode): acp.SessionModeState {
  return {
    currentModeId: current,
    availableModes: PERMISSION_MODES.map((mode) => ({ id: mode, name: t(`acp.mode_${mode}`), description: t(`acp.mode_${mode}_about`) })),
  };
}

/** How a prompt turn ended, in ACP's words; `refused`: the model refused (the exchange was removed). */
export function stopReasonOf(reason: TurnStopReason, refused: boolean): acp.StopReason | undefined {
  if (refused) return 'refusal';
  if (reason === 'end') return 'end_turn';
  if (reason === 'aborted') return 'cancelled';
  if (reason === 'max_rounds') return 'max_turn_requests';
  if (reason === 'max_tokens') return 'max_tokens';
  return undefined;
}

/** The prompt's content as one message: text as is, resources by their text or a reference to them. */
export function promptText(blocks: readonly acp.ContentBlock[]): string {
  return blocks
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type === 'resource_link') return `@${fromUri(block.uri)}`;
      if (block.type === 'resource' && 'text' in block.resource) return `<file path="${fromUri(block.resource.uri)}">\n${block.resource.text}\n</file>`;
      return '';
    })
    .filter(Boolean)
    .join('\n\n');
}

const fromUri = (uri: string) => (uri.startsWith('file://') ? decodeURIComponent(uri.slice(7)) : uri);
