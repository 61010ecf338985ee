// Rewind in the running app: the session's checkpoints (session/checkpoints.ts) fed by the event
// stream and taken before a turn's first call that may change files, and going back to before an
// earlier turn — the files, the conversation, or both — keeping the read records, the session file
// and the log true. Asks nothing: the interface shows the plan and decides about conflicts.

import { join } from 'node:path';
import type { Agent } from '../core/agent.js';
import { Checkpoints, copyLog, hashText, requestOf, type Position, type Skipped, type Turn } from '../session/checkpoints.js';
import { applyRewind, planRewind, sessionPatch, type FileOutcome, type FilePlan } from '../session/rewindfiles.js';
import type { Message } from '../types/conversation.js';
import type { AgentEvent, NoticeCode, NoticeEvent } from '../types/events.js';
import type { BeforeToolCall } from '../types/permissions.js';
import type { FileVersion } from '../types/tools.js';

export type { FileOutcome, FilePlan } from '../session/rewindfiles.js';
export type { Turn } from '../session/checkpoints.js';

/** What the interface may do with the session's turns. */
export interface Rewind {
  /** The turns the conversation still holds, oldest first, once pending checkpoints are made. */
  turns(): Promise<Turn[]>;
  /** Checkpoints cannot be made (no git, the home folder): /undo falls back to the file tools' record. */
  off(): Promise<boolean>;
  /** Whether the conversation can go back to before `turn` (a compaction since may have folded it away). */
  canRewindConversation(turn: Turn): boolean;
  /** What putting the files back to before turn `n` would do (`turnOnly`: only that turn's files); null when nothing was checkpointed since; why not when no checkpoint can be made now. */
  planFiles(n: number, turnOnly?: boolean): Promise<FilePlan | { error: string } | null>;
  /**
   * Goes back to before turn `n`: the files as `files` plans (conflicts overwritten only with
   * `overwrite`), the conversation when asked. Returns what the files did and the turn's request
   * (for the prompt) when the conversation went back.
   */
  rewind(n: number, o: { files?: FilePlan; overwrite?: boolean; conversation?: boolean; undo?: boolean }): Promise<{ files?: FileOutcome; request?: string }>;
  /** The latest turn whose file changes /undo would put back. */
  undoTarget(): Promise<Turn | undefined>;
  /** The session's changes as a patch; null without checkpoints. */
  patch(): Promise<{ patch: string; files: string[] } | null>;
}

type Options = {
  root: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  agent: Agent;
  files: Map<string, FileVersion>;
  notify(code: NoticeCode, params?: NoticeEvent['params']): void;
};

/** `decide`, then the turn's start checkpoint before its first allowed call that may change files (bash included). */
export function checkpointFirst(decide: BeforeToolCall, rewind: () => SessionRewind | undefined): BeforeToolCall {
  return async (call, tool, signal) => {
    const decision = await decide(call, tool, signal);
    if (decision.decision === 'allow' && (tool.kind === 'write' || tool.kind === 'exec')) await rewind()?.beforeChange();
    return decision;
  };
}

const mb = (bytes: number) => `${(bytes / (1 << 20)).toFixed(1)} MB`;

/** The checkpoints of the session in use, switched with it, and the Rewind the interface drives. */
export class SessionRewind implements Rewind {
  private cp: Checkpoints | undefined;

  constructor(private readonly o: Options) {}

  /** The session in use changed (start, --resume, /resume, /clear): its own checkpoints and log. */
  useSession(id: string): void {
    if (this.cp?.sessionId === id) return;
    const { notify } = this.o;
    this.cp = new Checkpoints({
      root: this.o.root,
      stateDir: this.o.stateDir,
      sessionId: id,
      env: this.o.env,
      events: {
        off: (why) => (why.off === 'home' || why.off === 'no_git' || why.off === 'failed') && notify('checkpoints_off', { why: why.off, detail: why.detail ?? '' }),
        failed: (msg) => notify('checkpoint_failed', { msg }),
        skipped: (items) => notify('checkpoint_skipped', { list: items.map(itemText).join(', ') }),
      },
    });
  }

  /** The session in use is a fork of `from` (--fork-session): its turns and checkpoints come along. */
  forkedFrom(from: string): void {
    const id = this.cp?.sessionId;
    if (!id) return;
    copyLog(this.o.stateDir, this.o.root, from, id);
    this.cp = undefined;
    this.useSession(id);
  }

  /** Feed every event: turns are logged as they start and end. */
  observe(event: AgentEvent): void {
    if (event.type === 'turn_start') this.cp?.turnStarted(event.text, positionOf(this.o.agent.messages));
    if (event.type === 'turn_end') this.cp?.turnEnded();
  }

  /** Before a call that may change files: the turn's start checkpoint, once. */
  beforeChange(): Promise<void> {
    return this.cp?.beforeChange() ?? Promise.resolve();
  }

  /** Resolves once pending checkpoints are written (before the process ends). */
  idle(): Promise<void> {
    return this.cp?.idle() ?? Promise.resolve();
  }

  async turns(): Promise<Turn[]> {
    await this.idle();
    return this.cp?.listed() ?? [];
  }

  async off(): Promise<boolean> {
    return !this.cp || (await this.cp.off());
  }

  canRewindConversation(turn: Turn): boolean {
    return historyBefore(this.o.agent.messages, turn) !== null;
  }

  planFiles(n: number, turnOnly = false): Promise<FilePlan | { error: string } | null> {
    return this.cp ? planRewind(this.cp, n, turnOnly) : Promise.resolve(null);
  }

  async rewind(n: number, o: { files?: FilePlan; overwrite?: boolean; conversation?: boolean; undo?: boolean }): Promise<{ files?: FileOutcome; request?: string }> {
    const cp = this.cp;
    if (!cp) return {};
    const out: { files?: FileOutcome; request?: string } = {};
    if (o.files) {
      out.files = await applyRewind(cp, o.files, o.overwrite === true);
      // Put back or removed: the model reads them again before changing them.
      for (const p of [...out.files.restored, ...out.files.removed]) this.o.files.delete(join(this.o.root, p));
    }
    const turn = cp.turns.find((t) => t.n === n);
    const before = o.conversation && turn ? historyBefore(this.o.agent.messages, turn) : null;
    if (before) {
      out.request = before.request;
      this.o.agent.rewind(before.messages);
      // What the model read after that point it no longer remembers.
      this.o.files.clear();
    }
    cp.recorded(n, { files: o.files !== undefined, conversation: before !== null, ...(o.undo && { undo: true }), ...(o.files && out.files?.after && { from: o.files.now, to: out.files.after }) });
    return out;
  }

  async undoTarget(): Promise<Turn | undefined> {
    const cp = this.cp;
    if (!cp) return undefined;
    await cp.idle();
    return [...cp.turns].reverse().find((t) => t.start && t.end !== t.start && t.n < cp.undoneTo);
  }

  patch(): Promise<{ patch: string; files: string[] } | null> {
    return this.cp ? sessionPatch(this.cp) : Promise.resolve(null);
  }
}

function itemText(s: Skipped): string {
  if (s.why === 'big') return `${s.path} (${mb(s.size)})`;
  if (s.why === 'many') return `${s.path} (${s.size.toLocaleString('en-US')})`;
  return s.path;
}

/** Where the next user text lands: a new message, or the end of the last one when that is a user message (after an interrupted turn). */
function positionOf(messages: readonly Message[]): Position {
  const last = messages.at(-1);
  return last?.role === 'user' ? { messages: messages.length, blocks: last.content.length } : { messages: messages.length };
}

/**
 * The history as it was before `turn`, and the turn's request; null when the conversation no
 * longer holds that request (a compaction folded it into a summary). Found where the turn began,
 * else by the request itself, the latest copy.
 */
function historyBefore(messages: readonly Message[], turn: Turn): { messages: Message[]; request: string } | null {
  const at = (m: number, b: number) => {
    const block = messages[m]?.role === 'user' ? messages[m]!.content[b] : undefined;
    return block?.type === 'text' && hashText(block.text) === turn.hash ? block.text : null;
  };
  const cut = (m: number, b: number, text: string) => ({
    messages: [...messages.slice(0, m), ...(b > 0 ? [{ role: 'user', content: messages[m]!.content.slice(0, b) } as Message] : [])],
    request: requestOf(text),
  });
  const { messages: count, blocks } = turn.pos;
  const m = blocks === undefined ? count : count - 1;
  const b = blocks ?? 0;
  const found = at(m, b);
  if (found !== null) return cut(m, b, found);
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = messages[i]!.role === 'user' ? messages[i]!.content : [];
    for (let j = content.length - 1; j >= 0; j--) {
      const text = at(i, j);
      if (text !== null) return cut(i, j, text);
    }
  }
  return null;
}
