// The interactive session: the welcome box, then messages and slash commands one at a time,
// each turn rendered as it streams, permission and plan questions answered, Ctrl+C cancelling
// what runs, Shift+Tab cycling the mode. Line mode only (readline, append-only output), so
// scrollback, copy/paste and input methods keep working. Messages go through the host API (one
// task, its events followed, questions answered by id); slash commands use the task's app.

import { join } from 'node:path';
import type { App } from '../app/app.js';
import type { Host, SubmitOptions } from '../app/host.js';
import { fileNotice } from '../app/config.js';
import { noticeText } from '../i18n/explain.js';
import { completer, findCommand, type Session } from './commands/index.js';
import { findPrompt, runPrompt } from './commands/mcp.js';
import { showLast } from './commands/habits.js';
import { approvePlan, askPermission } from './confirm.js';
import { History } from './history.js';
import { t } from '../i18n/index.js';
import { LineInput } from './input.js';
import { PERMISSION_MODES } from '../types/permissions.js';
import type { AgentEvent } from '../types/events.js';
import { color, Renderer } from './render.js';
import { UndoStack } from './undo.js';
import { capOutput } from '../util/cap.js';
import { inert } from '../util/text.js';
import { modeName, promptFor, welcomeLines } from './welcome.js';

export type ReplOptions = {
  host: Host;
  /** The task this session drives (host.open). */
  task: string;
  version: string;
  initialMessage?: string;
  /** -i: attached to the first message sent. */
  images?: string[];
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
};

/** Characters of a `!command`'s output offered to the model (head and tail past this). */
const SHELL_NOTE_CAP = 10_000;

/** Two Ctrl+C presses this close together at an empty prompt leave. */
const DOUBLE_PRESS_MS = 2000;

export class Repl implements Session {
  readonly app: App;
  readonly ui: Renderer;
  readonly input: LineInput;
  readonly undo: UndoStack;
  private running: AbortController | undefined;
  private lastInterrupt = 0;
  private notes: string[] = [];
  private shells = 0;
  private readonly images: string[];
  private readonly history: History;
  private indexing = '';
  private indexingShown = 0;

  constructor(private readonly o: ReplOptions) {
    const app = (this.app = o.host.app(o.task));
    this.images = [...(o.images ?? [])];
    this.ui = new Renderer(o.output, { model: () => app.model, totals: () => app.agent.totals, effort: () => app.effort }, app.env, { notify: app.notify });
    this.undo = new UndoStack(app.root);
    this.history = new History(join(app.stateDir, 'history'));
    this.input = new LineInput({
      input: o.input,
      output: o.output,
      history: this.history,
      completer: completer(app.root, () => app.markdown.commands.commands, () => app.mcp?.prompts().map((p) => p.command) ?? []),
      onInterrupt: () => this.interrupt(),
      onCycleMode: () => this.cycleMode(),
      onEscape: () => this.escape(),
      onShowLast: () => this.abovePrompt(() => showLast(this)),
    });
    void this.follow();
    // While the code index builds, the prompt says how far it got (a terminal only: a pipe would get a line per update).
    if (this.input.tty) app.codeIndex?.onProgress((p) => this.showIndexing(p.state === 'building' ? t('codeindex.progress', { done: p.done, total: p.total }) : ''));
  }

  /** Renders the task's events as they come, between turns too, until the host closes. */
  private async follow(): Promise<void> {
    for await (const event of this.o.host.events(this.o.task, { from: 'now', follow: true })) {
      if (event.type === 'approval') {
        this.ui.handle(event);
        void this.approve(event);
        continue;
      }
      // Notices can come between turns (a failed write): above the prompt then.
      if (event.type === 'notice') this.abovePrompt(() => this.ui.handle(event));
      else this.ui.handle(event);
      this.undo.observe(event);
    }
  }

  /** Runs until the user leaves. */
  async run(): Promise<void> {
    for (const line of welcomeLines(this.app, this.o.version, this.ui.paint)) this.ui.line(line);
    for (const n of this.app.notices) this.ui.handle(n);
    if (this.history.problem) this.ui.warn(t('history.unused', { why: noticeText(fileNotice(this.history.problem)) }));
    // The message from the command line shows as if typed at the prompt.
    if (this.o.initialMessage) this.ui.line(promptFor(this.app.mode, this.ui.paint) + this.o.initialMessage);
    // The code index starts once the prompt is up: building it must not delay the prompt.
    setImmediate(() => this.app.codeIndex?.start());
    // So do the MCP servers: loading their SDK takes half a second of the event loop.
    setImmediate(() => this.app.mcp?.start());
    let next = this.o.initialMessage ?? (await this.nextMessage());
    while (next !== undefined && (await this.submit(next)) !== 'exit') next = await this.nextMessage();
    // Input ended at the prompt (Ctrl+D, Ctrl+C twice): the goodbye goes on a line of its own.
    if (next === undefined && this.input.tty) this.ui.line('');
    this.ui.line(t('repl.bye'));
    this.input.close();
  }

  /** Runs `work` with Ctrl+C cancelling it. */
  async busy<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.running = controller;
    try {
      await this.ui.prepare();
      return await work(controller.signal);
    } finally {
      this.running = undefined;
    }
  }

  /** Puts a question of the running turn to the user and hands the answer back; Ctrl+C declines it. */
  private async approve({ id, approval }: Extract<AgentEvent, { type: 'approval' }>): Promise<void> {
    const signal = this.running?.signal;
    if (!signal || signal.aborted) return;
    const { host, task } = this.o;
    try {
      host.answer(task, id, approval.kind === 'call' ? await askPermission(this, approval.request, signal, approval.agent) : await approvePlan(this, approval.plan, signal));
    } catch {
      host.answer(task, id, approval.kind === 'call' ? { answer: 'no' } : { approved: false });
    }
  }

  /** The mode may have changed during the turn (the answer "a", exit_plan): the prompt shows it. */
  private nextMessage(): Promise<string | undefined> {
    this.refreshPrompt();
    return this.input.message();
  }

  refreshPrompt(): void {
    this.input.setPrompt((this.indexing ? this.ui.paint(color.dim, this.indexing) : '') + promptFor(this.app.mode, this.ui.paint));
  }

  /** Shows (or with '' clears) the code index's progress before the prompt, at most a few times a second. */
  private showIndexing(text: string): void {
    const now = Date.now();
    if (text && this.indexing && now - this.indexingShown < 250) return;
    this.indexing = text;
    this.indexingShown = now;
    this.refreshPrompt();
  }

  tellModel(note: string): void {
    this.notes.push(note);
  }

  /** The notes for the model waiting for the next message, handed over once. */
  private takeNotes(): string[] {
    return this.notes.splice(0, this.notes.length);
  }

  private async submit(typed: string): Promise<'exit' | void> {
    if (!typed.trim()) return;
    if (/^!\S/.test(typed.trimStart())) return this.shell(typed.trimStart().slice(1).trim());
    // A server's prompt (/<server>:<prompt>) is sent as the message it expands to.
    const prompt = findPrompt(typed, this);
    const text = prompt ? await runPrompt(prompt, this) : typed;
    if (text === undefined) return;
    let found = prompt ? null : findCommand(text, this.app.markdown.commands.commands);
    // A command file added since start-up is found once the files are read again.
    if (found && 'unknown' in found) found = findCommand(text, this.app.reloadCommands());
    if (found && 'unknown' in found) return this.ui.fail(t('repl.unknown_command', { cmd: found.unknown }));
    if (found && 'custom' in found) {
      const { custom, arg } = found;
      const context = this.takeNotes();
      try {
        // The host runs it as the custom command it names (its ! lines, allowed-tools, model).
        return void (await this.busy((signal) => this.deliver({ prompt: `/${custom.name}${arg ? ` ${arg}` : ''}`, context }, signal)));
      } catch (err) {
        return this.ui.fail(t('repl.command_failed', { cmd: `/${custom.name}`, msg: (err as Error).message }));
      }
    }
    if (found) {
      try {
        return await this.busy(async () => found.command.run(found.arg, this));
      } catch (err) {
        // A command's own failure must not end the session.
        return this.ui.fail(t('repl.command_failed', { cmd: found.command.name, msg: (err as Error).message }));
      }
    }
    // The typed text first: it is what the request is (its first line names the task in /cost).
    const message = { prompt: text, context: this.takeNotes(), images: this.images.splice(0) };
    await this.busy((signal) => this.deliver(message, signal));
  }

  send(prompt: string): Promise<void> {
    return this.busy((signal) => this.deliver({ prompt }, signal));
  }

  /** One message through the host; Ctrl+C cancels it. Returns once its events have been rendered. */
  private async deliver(message: Omit<SubmitOptions, 'resume'>, signal: AbortSignal): Promise<void> {
    const { host, task } = this.o;
    const cancel = () => host.cancel(task);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      await host.submit({ ...message, resume: task });
      await host.wait(task);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    // The message's events are all in the task's log by now; the follower renders them within
    // this turn of the event loop (microtasks), before the prompt is drawn again.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** `!command`: the user's own command, shown as it runs, its output offered to the model with the next message. */
  private async shell(command: string): Promise<void> {
    const id = `shell-${++this.shells}`;
    const started = Date.now();
    this.ui.handle({ type: 'tool_call', id, name: '!', input: { command }, title: command });
    const run = await this.busy((signal) => this.app.runShell(command, signal, (text) => this.ui.handle({ type: 'tool_progress', id, name: '!', text })));
    this.ui.handle({ type: 'tool_result', id, name: '!', output: run.output, summary: run.summary, isError: false, durationMs: Date.now() - started });
    if (run.output) for (const line of inert(run.output).split('\n')) this.ui.line(line);
    const ended = run.interrupted ? 'it was interrupted' : run.summary.key === 'exit' ? `exit code ${run.summary.code}` : 'it timed out';
    this.tellModel(`[The user ran a command in their own shell: ${command}\n${ended}; its output:\n${capOutput(run.output, SHELL_NOTE_CAP)}]`);
  }

  private interrupt(): void {
    // A question inside a turn is answered "no" and the turn cancelled too.
    const asking = this.input.asking;
    if (asking) this.input.cancel();
    if (this.running) return this.running.abort();
    if (asking) return;
    if (this.input.typed) return this.input.clearLine();
    const now = Date.now();
    if (now - this.lastInterrupt < DOUBLE_PRESS_MS) return this.input.close();
    this.lastInterrupt = now;
    this.abovePrompt(() => this.ui.note(t('repl.ctrlc_again')));
  }

  /** Esc cancels what runs (a question is declined, the turn stopped), as Ctrl+C does; at the prompt it does nothing. */
  private escape(): void {
    if (this.input.asking) this.input.cancel();
    this.running?.abort();
  }

  /** Prints between turns without mixing into the prompt: below it, the prompt drawn again under. */
  private abovePrompt(print: () => void): void {
    if (!this.input.atPrompt) return print();
    this.ui.line('');
    print();
    this.refreshPrompt();
  }

  private cycleMode(): void {
    const next = PERMISSION_MODES[(PERMISSION_MODES.indexOf(this.app.mode) + 1) % PERMISSION_MODES.length]!;
    this.app.setMode(next);
    // At the prompt the prompt itself shows it; during a turn a line does.
    if (this.running) this.ui.line(t('mode.set', { mode: modeName(next, this.ui.paint) }));
    this.refreshPrompt();
  }
}

