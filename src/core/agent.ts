// The agent loop: a user message → model → tool calls → results → model … → final answer.
// Emits one AgentEvent stream; prints nothing and knows no rules (permissions and hooks come in
// through beforeToolCall / afterToolCall). Must not import ui, session, trace or cli.

import { compactHistory, estimateTokens, needsCompaction, type CompactionEvent } from './compact.js';
import { costOf } from '../providers/models.js';
import { interruptedResult, runTool, type ToolRun, type ToolRunner } from './runtool.js';
import { SUBMIT_RESULT, submitResultTool } from './schema.js';
import { ToolTable } from './tooltable.js';
import { copyHistory } from './history.js';
import { Emitter } from '../util/emitter.js';
import { mapLimit } from '../util/limit.js';
import { zeroUsage } from '../types/providers.js';
import type { AfterToolCall, BeforeToolCall } from '../types/permissions.js';
import type { AgentEvent, TurnStopReason } from '../types/events.js';
import type { AssistantMessage, Message, ToolCallBlock, UserBlock } from '../types/conversation.js';
import type { JsonSchema, Provider, ProviderEvent, Usage } from '../types/providers.js';
import type { SideUsage, Tool, ToolSession, ToolTiers } from '../types/tools.js';

export type AgentConfig = {
  provider: Provider;
  tools: Tool[];
  system: string;
  /** What every tool call gets besides the turn's signal. */
  ctx: ToolSession;
  maxRounds?: number;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  /**
   * Called when the model tries to finish (answers without tools). A returned text is sent back
   * to the model as a user message and the turn goes on (the todo reminder, a Stop hook); null
   * lets it finish. The callback decides how often; the loop allows at most MAX_SEND_BACKS a turn.
   */
  onStop?: (text: string, signal: AbortSignal) => Promise<string | null>;
  /** Called when the history is about to be compacted (PreCompact hooks): `manual` is /compact. */
  beforeCompact?: (trigger: 'manual' | 'auto', focus: string | undefined, signal: AbortSignal) => Promise<void>;
  /** Structured output: the final answer must be JSON valid against this schema. */
  outputSchema?: JsonSchema;
  /** The rendered todo list, carried over verbatim by compaction. */
  todo?: () => string | undefined;
  /** Hot and cold tools (tooltable.ts); absent: every tool is declared in every request. */
  deferral?: ToolTiers;
  /** A cheaper model for compaction summaries (the side model), used when the history fits its window. */
  summaryProvider?: () => Provider | undefined;
};

export type TurnResult = { stopReason: TurnStopReason; text: string; rounds: number; structured?: unknown };

export type Totals = Usage & { cost: number; costUnknown: boolean; requests: number };

/** Read-only calls in one reply run together, this many at a time. */
const READ_CONCURRENCY = 4;
/** A safety net against a stop callback that never lets the model finish. */
const MAX_SEND_BACKS = 3;
/** The least room for the answer a request is sent with (or the model's own limit when lower). */
const MIN_OUTPUT = 1024;
/** Estimates run a little under what a server counts: the room for the answer keeps this margin. */
const ESTIMATE_MARGIN = 1.05;
/** Room a side model's window must have beyond the history to write its summary. */
const SUMMARY_ROOM = 16_000;

type Reply = Extract<ProviderEvent, { type: 'done' }>;

export class Agent {
  readonly messages: Message[] = [];
  provider: Provider;
  maxRounds: number;
  /** The system prompt without the cold tools' list; /context may reload it (it changes the prompt cache key, so only on request). */
  system: string;
  readonly totals: Totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, costUnknown: false, requests: 0 };
  /** The tools in tiers: what each request declares, what the model loaded. */
  readonly tools: ToolTable;
  /** Text for the end of the conversation, sent with the next request (a mode's rules). */
  private notes: string[] = [];
  private readonly events = new Emitter<AgentEvent>();
  private estimateNoticed = false;
  /** The last request's reported input tokens and how many messages it carried: the base of the context estimate. */
  private lastInput = 0;
  private lastCount = 0;

  constructor(private readonly config: AgentConfig) {
    this.provider = config.provider;
    this.system = config.system;
    this.maxRounds = config.maxRounds ?? 25;
    const tools = config.outputSchema ? [...config.tools, submitResultTool(config.outputSchema)] : config.tools;
    this.tools = new ToolTable(tools, config.deferral ?? null, [SUBMIT_RESULT]);
    this.tools.onLoaded = (names) => this.emit({ type: 'tools_loaded', names });
  }

  /**
   * Adds `text` at the end of the conversation with the next request, where it changes nothing
   * the prompt cache holds (a mode's rules, rather than a new system prompt).
   */
  note(text: string): void {
    this.notes.push(text);
  }

  /** The system prompt as sent: the base and the list of cold tools. */
  prompt(): string {
    const section = this.tools.section();
    return section ? `${this.system}\n\n${section}` : this.system;
  }

  /**
   * Starts the conversation over from `messages` (empty for /clear, a loaded session for resume),
   * with these totals; the context estimate and the tools' tiers start afresh too (nothing loaded).
   */
  reset(messages: Message[] = [], totals: Partial<Totals> = {}): void {
    this.messages.splice(0, this.messages.length, ...messages);
    Object.assign(this.totals, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, costUnknown: false, requests: 0 }, totals);
    this.lastInput = 0;
    this.lastCount = 0;
    this.notes = [];
    this.tools.unfreeze();
  }

  /** Subscribes to the event stream; returns the unsubscribe function. */
  on(listener: (event: AgentEvent) => void): () => void {
    return this.events.on(listener);
  }

  /**
   * Runs one user message to completion; `attachments` (files, images the user attached) follow
   * its text. Contract: never throws for provider or tool failures.
   */
  async send(text: string, signal: AbortSignal = new AbortController().signal, attachments: UserBlock[] = []): Promise<TurnResult> {
    this.emit({ type: 'turn_start', text });
    const before = copyHistory(this.messages);
    this.appendUser([{ type: 'text', text }, ...attachments]);
    let rounds = 0;
    let corrections = this.config.outputSchema ? 1 : 0;
    let sendBacks = 0;
    for (;;) {
      const reply = await this.request(rounds + 1, signal);
      if (reply.error?.kind === 'refusal') return this.refused(before, rounds);
      reply.message.content = reply.message.content.map((b) => (b.type === 'tool_call' ? this.tools.asDeclared(b) : b));
      if (reply.message.content.length) this.append(reply.message);
      const text = textOf(reply.message);
      const calls = reply.message.content.filter((b): b is ToolCallBlock => b.type === 'tool_call');
      if (reply.stopReason === 'error' || reply.stopReason === 'aborted') {
        if (calls.length) this.appendUser(calls.map(interruptedResult));
        return this.end(reply.stopReason, text, rounds);
      }
      if (!calls.length) {
        if (this.config.outputSchema) {
          if (corrections-- <= 0) return this.fail(text, rounds);
          this.emit({ type: 'notice', code: 'schema_retry' });
          this.appendUser([{ type: 'text', text: `Call ${SUBMIT_RESULT} now with the final answer; a plain-text answer is not accepted.` }]);
          continue;
        }
        if (reply.stopReason === 'max_tokens') {
          this.emit({ type: 'notice', code: 'max_tokens' });
          return this.end('max_tokens', text, rounds);
        }
        const sendBack = sendBacks < MAX_SEND_BACKS ? await this.config.onStop?.(text, signal) : null;
        if (!sendBack || signal.aborted) return this.end(signal.aborted ? 'aborted' : 'end', text, rounds);
        sendBacks++;
        this.appendUser([{ type: 'text', text: sendBack }]);
        continue;
      }
      rounds++;
      const runs = await this.runCalls(calls, reply.stopReason === 'max_tokens', signal);
      for (const { sideUsage } of runs) if (sideUsage) this.countUsage(sideUsage, false, true);
      this.appendUser(runs.map((r) => r.block));
      if (signal.aborted) return this.end('aborted', text, rounds);
      const finished = runs.find((r) => r.endTurn);
      if (finished?.endTurn) return this.end('end', finished.endTurn.text ?? text, rounds, finished.endTurn.structured);
      const rejected = this.config.outputSchema ? runs.find((r, i) => calls[i]!.name === SUBMIT_RESULT && r.block.isError) : undefined;
      if (rejected && corrections-- <= 0) return this.fail(rejected.block.content, rounds);
      if (rounds >= this.maxRounds) {
        this.emit({ type: 'notice', code: 'max_rounds', params: { n: rounds } });
        return this.end('max_rounds', text, rounds);
      }
    }
  }

  private emit(event: AgentEvent): void {
    this.events.emit(event);
  }

  private append(message: Message): void {
    this.messages.push(message);
    this.emit({ type: 'message', message });
  }

  /** Adds user content, merged into the last message when that is a user message already
   *  (after a round limit or cancellation the history ends with tool results). */
  private appendUser(content: UserBlock[]): void {
    const last = this.messages.at(-1);
    if (last?.role === 'user') last.content.push(...content);
    else this.messages.push({ role: 'user', content });
    this.emit({ type: 'message', message: { role: 'user', content } });
  }

  private end(stopReason: TurnStopReason, text: string, rounds: number, structured?: unknown): TurnResult {
    this.emit({ type: 'turn_end', stopReason, text, rounds, structured });
    return structured === undefined ? { stopReason, text, rounds } : { stopReason, text, rounds, structured };
  }

  /**
   * The model (or a content filter) refused: the whole exchange since the user's message goes,
   * or every later request would be refused again (Anthropic's guidance).
   */
  private refused(before: Message[], rounds: number): TurnResult {
    this.rewind(before, 'refusal');
    return this.end('error', '', rounds);
  }

  /** The conversation set back to `messages` (/rewind, a refusal): the session file starts its history over, as after a compaction. */
  rewind(messages: Message[], reason: 'refusal' | 'rewind' = 'rewind'): void {
    this.messages.splice(0, this.messages.length, ...messages);
    this.lastInput = 0;
    this.lastCount = 0;
    this.tools.historyRewritten();
    this.emit({ type: 'history_reset', reason });
    for (const message of this.messages) this.emit({ type: 'message', message });
  }

  /** Structured output failed: the result text says why, for the JSON result and the log. */
  private fail(text: string, rounds: number): TurnResult {
    this.emit({ type: 'notice', code: 'schema_failed' });
    return this.end('error', text, rounds);
  }

  /**
   * Compacts the history when the next request would pass 75% of the window, or always with
   * `force` (/compact). Contract: at most one summary request per call; never throws.
   */
  async compact(signal: AbortSignal, opts: { force?: boolean; focus?: string } = {}): Promise<CompactionEvent | null> {
    const contextTokens = this.contextEstimate();
    const contextWindow = this.provider.config.contextWindow;
    if (!opts.force && !needsCompaction(contextTokens, contextWindow)) return null;
    await this.config.beforeCompact?.(opts.force ? 'manual' : 'auto', opts.focus, signal);
    const own = linked(signal);
    const side = this.config.summaryProvider?.();
    const summarizer = side && side.config.contextWindow >= contextTokens + SUMMARY_ROOM ? side : this.provider;
    const result = await compactHistory({
      provider: summarizer,
      messages: this.messages,
      contextWindow,
      contextTokens,
      focus: opts.focus,
      todo: this.config.todo?.(),
      files: this.config.ctx.files,
      root: this.config.ctx.root,
      signal: own.signal,
      force: opts.force,
      emit: (e) => this.emit(e),
      titleOf: (call) => this.tools.describe(call)?.title,
    }).finally(own.dispose);
    if (!result) return null;
    this.tools.historyRewritten();
    if (result.usage) this.countUsage({ ...result.usage, model: summarizer.config.name, cost: costOf(result.usage, summarizer.config.price) }, result.usageEstimated === true, false);
    this.messages.splice(0, this.messages.length, ...result.messages);
    this.lastInput = result.event.after;
    this.lastCount = this.messages.length;
    this.emit(result.event);
    // The session file starts its history over at a compaction event: it gets the new one as messages.
    for (const message of this.messages) this.emit({ type: 'message', message });
    return result.event;
  }

  /**
   * The next request's size: the last request's reported input (before the first request, or after
   * a resume, the estimate of the fixed part) plus the estimate of what was added since.
   */
  private contextEstimate(): number {
    const base = this.lastInput > 0 ? this.lastInput : estimateTokens(this.prompt() + JSON.stringify(this.tools.declared()));
    return base + estimateTokens(this.messages.slice(this.lastCount));
  }

  /** Room left in the window for the answer, less a margin for what the estimate misses (JSON framing, code's denser tokens). */
  private outputRoom(): number {
    return this.provider.config.contextWindow - Math.ceil(this.contextEstimate() * ESTIMATE_MARGIN);
  }

  /**
   * Sends the history, compacted first when it fills the window; the answer's limit is lowered to
   * the room left. Contract: a request that would not fit the window is never sent (a notice
   * says why and the reply is an error).
   */
  private async request(round: number, signal: AbortSignal): Promise<Reply> {
    const compacted = await this.compact(signal);
    const config = this.provider.config;
    const least = Math.min(config.maxOutputTokens, MIN_OUTPUT);
    // The cheap step may leave too little room for the answer: summarise, once.
    if (this.outputRoom() < least && compacted?.method !== 'summary' && !signal.aborted) await this.compact(signal, { force: true });
    // Notes go at the very end, after any compaction: what the cache holds is never touched.
    const note = [...this.notes, this.tools.takeNote(this.messages) ?? []].flat().join('\n\n');
    this.notes = [];
    if (note) this.appendUser([{ type: 'text', text: note }]);
    const room = this.outputRoom();
    if (signal.aborted) return emptyReply('aborted');
    if (room < least) {
      this.emit({ type: 'notice', code: 'context_full', params: { tokens: this.contextEstimate(), window: config.contextWindow } });
      return emptyReply('error');
    }
    this.emit({ type: 'request_start', round, model: config.name });
    const own = linked(signal);
    try {
      return await this.stream(this.messages.length, Math.min(config.maxOutputTokens, room), own.signal);
    } finally {
      own.dispose();
    }
  }

  private async stream(sent: number, maxTokens: number, signal: AbortSignal): Promise<Reply> {
    const config = this.provider.config;
    const request = { system: this.prompt(), messages: this.messages, tools: this.tools.declared(), ...(maxTokens < config.maxOutputTokens ? { maxTokens } : {}) };
    const stream = this.provider.stream(request, signal);
    for await (const event of stream) {
      if (event.type !== 'done') {
        this.emit(event);
        continue;
      }
      this.countUsage(event.usage, event.usageEstimated === true, false);
      const input = event.usage.input + event.usage.cacheRead + event.usage.cacheWrite;
      if (input > 0 && !event.usageEstimated) {
        this.lastInput = input;
        this.lastCount = sent;
      }
      if (event.usageEstimated && !this.estimateNoticed) {
        this.estimateNoticed = true;
        this.emit({ type: 'notice', code: 'usage_estimated' });
      }
      if (event.error && event.stopReason === 'error') this.emit({ type: 'error', error: event.error, model: config.name });
      return event;
    }
    // Unreachable by the Provider contract; kept so a faulty provider cannot crash the loop.
    return emptyReply('error');
  }

  /** Adds one request's tokens to the totals and reports them; `side`: a tool's own request (or /commit's). */
  countUsage({ by, model, cost: known, ...usage }: SideUsage, estimated: boolean, side: boolean): void {
    const config = this.provider.config;
    const cost = known !== undefined ? known : costOf(usage, config.price);
    const t = this.totals;
    t.input += usage.input;
    t.output += usage.output;
    t.cacheRead += usage.cacheRead;
    t.cacheWrite += usage.cacheWrite;
    t.requests++;
    if (cost === null) t.costUnknown = true;
    else t.cost += cost;
    this.emit({ type: 'usage', model: model ?? config.name, ...usage, cost, estimated, ...(side ? { side } : {}), ...(by && { by }) });
  }

  /** Consecutive read calls run concurrently; anything else strictly in order. */
  private async runCalls(calls: ToolCallBlock[], cutOff: boolean, signal: AbortSignal): Promise<ToolRun[]> {
    const runner: ToolRunner = {
      tools: this.tools,
      ctx: this.config.ctx,
      beforeToolCall: this.config.beforeToolCall,
      afterToolCall: this.config.afterToolCall,
      emit: (e) => this.emit(e),
    };
    const runs: ToolRun[] = [];
    let i = 0;
    while (i < calls.length) {
      if (signal.aborted) {
        runs.push({ block: interruptedResult(calls[i++]!) });
        continue;
      }
      let end = i + 1;
      if (this.isRead(calls[i]!)) while (end < calls.length && this.isRead(calls[end]!)) end++;
      const batch = calls.slice(i, end);
      runs.push(...(await mapLimit(batch, READ_CONCURRENCY, (call) => runTool(call, runner, signal, cutOff))));
      i = end;
    }
    return runs;
  }

  private isRead(call: ToolCallBlock): boolean {
    const { name, input } = this.tools.resolve(call);
    const tool = this.tools.get(name);
    return (tool?.kindOf?.(input) ?? tool?.kind) === 'read';
  }
}

/**
 * A signal of its own that aborts with `signal`, for one request: the SDKs leave a listener on
 * the signal they get, and a turn's signal would collect one per request.
 */
function linked(signal: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const own = new AbortController();
  const relay = () => own.abort();
  signal.addEventListener('abort', relay, { once: true });
  if (signal.aborted) own.abort();
  return { signal: own.signal, dispose: () => signal.removeEventListener('abort', relay) };
}

/** A reply for a request that was not sent (or a provider that broke its contract). */
function emptyReply(stopReason: 'error' | 'aborted'): Reply {
  return { type: 'done', message: { role: 'assistant', content: [] }, stopReason, usage: zeroUsage() };
}

function textOf(message: AssistantMessage): string {
  return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
}
