// What the person types, through readline in line mode (so editing, history, scrollback and CJK
// input methods work as usual), plus what readline lacks: messages over several lines (bracketed
// paste, a line ending in `\`, Alt+Enter or Ctrl+J), large pastes collapsed (paste.ts), Ctrl+R
// history search (histsearch.ts), single-key answers, Ctrl+C, Esc, Ctrl+O and Shift+Tab routed to
// the REPL, and typing kept aside while a turn runs. Must not interpret what is typed: the REPL does.
//
// readline is steered through three of its methods, overridden on our instance: _ttyWrite (each
// key press), _writeToOutput (silenced while a turn prints, and for secrets) and _addHistory (we
// add whole messages ourselves). They are not documented, but Node keeps these names for
// compatibility and terminal tools have long relied on them.

import { createInterface, type Completer, type Interface } from 'node:readline';
import type { History } from './history.js';
import { HistorySearch, type SearchStep } from './histsearch.js';
import { t } from '../i18n/index.js';
import { Pastes, pastedText } from './paste.js';

type Key = { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean; sequence?: string };

type Steered = Interface & {
  _ttyWrite(s: string | undefined, key: Key | undefined): void;
  _writeToOutput(s: string): void;
  _addHistory(): string;
  history: string[];
  historyIndex: number;
  isCompletionEnabled: boolean;
};

/** A line as typed; `more`: the message goes on (a pasted line, Alt+Enter, Ctrl+J). */
type RawLine = { text: string; more: boolean };
type Press = [string | undefined, Key | undefined];
/** What a line is asked for: a message, the next line of one, an answer, an answer not shown. */
type Asked = 'message' | 'more' | 'question' | 'secret';

/** The prompt of a message's next line. */
export const CONTINUATION = '… ';

export type InputOptions = {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  history: History;
  completer?: Completer;
  /** Ctrl+C (a key on a terminal; SIGINT otherwise). */
  onInterrupt(): void;
  /** Shift+Tab. */
  onCycleMode(): void;
  /** Esc: cancels what runs, as Ctrl+C does, but never leaves or clears the line. */
  onEscape?(): void;
  /** Ctrl+O: the last tool's whole output. */
  onShowLast?(): void;
};

const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

export class LineInput {
  /** Key presses arrive one by one (a terminal on both ends). */
  readonly tty: boolean;
  private readonly rl: Steered;
  /** idle: nothing is asked, keys are ignored; line: a line is being typed; key: one key is awaited. */
  private state: 'idle' | 'line' | 'key' = 'idle';
  /** Keys typed while a turn runs: replayed at the next message prompt, never into a question. */
  private typeAhead: Press[] = [];
  /** The keys of a bracketed paste while it arrives; null outside one. */
  private pasteKeys: Press[] | null = null;
  private readonly pastes = new Pastes();
  /** The line being ended goes on to another line of the same message (Alt+Enter, Ctrl+J). */
  private continued = false;
  private search: HistorySearch | undefined;
  /** The line and prompt before Ctrl+R, put back when the search is cancelled. */
  private beforeSearch: { line: string; prompt: string } | undefined;
  private lastWasTab = false;
  private readonly lines: RawLine[] = [];
  private waiting: ((line: RawLine | undefined) => void) | undefined;
  private keyWaiting: ((key: string | undefined) => void) | undefined;
  private asked: Asked | undefined;
  private prompt = '› ';
  private pasting = false;
  private ended = false;
  /** Multi-line history entries are shown on one line; this maps them back. */
  private readonly folded = new Map<string, string>();

  constructor(private readonly o: InputOptions) {
    this.tty = o.input.isTTY === true && o.output.isTTY === true;
    const history = o.history.entries.map((e) => this.fold(e)).reverse();
    this.rl = createInterface({ input: o.input, output: o.output, terminal: this.tty, completer: o.completer, history, historySize: history.length + 1000 }) as Steered;
    this.rl.on('line', (text) => {
      this.onLine({ text, more: this.pasting || this.continued });
      this.continued = false;
    });
    this.rl.on('close', () => this.onEnd());
    if (this.tty) this.steer();
    else process.on('SIGINT', () => o.onInterrupt());
  }

  private steer(): void {
    const rl = this.rl;
    const ttyWrite = rl._ttyWrite.bind(rl);
    // Node 20's readline appends, instead of inserting at the cursor, every character of a chunk
    // but its last while completion is off, which it turns off for chunks of several characters:
    // an input method's commit mid-line (我想修改折扣, two Left, 一下) came out as 我想修改折下扣一.
    // Completion off only has to stop a pasted Tab from completing, so it stays off for Tab alone.
    const press = (s: string | undefined, key: Key | undefined): void => {
      const completing = rl.isCompletionEnabled;
      if (key?.name !== 'tab') rl.isCompletionEnabled = true;
      try {
        ttyWrite(s, key);
      } finally {
        if (key?.name !== 'tab') rl.isCompletionEnabled = completing;
      }
    };
    const write = rl._writeToOutput.bind(rl);
    // Node's own version also ends any browsing of the history; ours must too, or Up recalls from where browsing stopped.
    rl._addHistory = () => {
      rl.historyIndex = -1;
      return rl.line;
    };
    rl._writeToOutput = (s) => {
      if (this.state !== 'line') return;
      // A secret answer (an API key): the prompt and the line break, never what is typed.
      if (this.asked !== 'secret') write(s);
      else if (s.startsWith(rl.getPrompt())) write(rl.getPrompt());
      else if (s === '\r\n') write(s);
    };
    rl._ttyWrite = (s, key) => {
      if (key?.name === 'paste-start') return void (this.pasteKeys = []);
      if (key?.name === 'paste-end') return this.endPaste(press);
      if (this.pasteKeys) return void this.pasteKeys.push([s, key]);
      this.onKey(press, s, key);
    };
    this.o.output.write(PASTE_ON);
    process.once('exit', () => this.o.output.write(PASTE_OFF));
  }

  private onKey(press: (s: string | undefined, key: Key | undefined) => void, s: string | undefined, key: Key | undefined): void {
    const tab = key?.name === 'tab' && !key.shift;
    const afterTab = this.lastWasTab;
    this.lastWasTab = tab;
    if (this.search) return this.searchKey(press, s, key);
    if (key?.ctrl && key.name === 'c') return this.o.onInterrupt();
    if (key?.name === 'escape') return this.o.onEscape?.();
    if (key?.ctrl && key.name === 'o' && this.state !== 'key') return this.o.onShowLast?.();
    if (this.pasting && key?.name === 'return' && this.state === 'line') {
      // Show the next pasted line's prompt before its characters are echoed.
      press(s, key);
      this.rl.setPrompt(CONTINUATION);
      return this.rl.prompt(true);
    }
    if (key?.name === 'tab' && key.shift) return this.o.onCycleMode();
    if (this.state === 'key') return this.resolveKey(s && s.length === 1 && s >= ' ' ? s : (key?.name ?? s ?? ''));
    if (this.state === 'idle') {
      if (this.typeAhead.length < 4096) this.typeAhead.push([s, key]);
      return;
    }
    const typing = this.asked === 'message' || this.asked === 'more';
    if (typing && key?.ctrl && key.name === 'r') return this.startSearch();
    // Alt+Enter and Ctrl+J end the line but not the message.
    if (typing && ((key?.name === 'return' && key.meta) || (key?.name === 'enter' && !key.meta))) {
      this.continued = true;
      return press('\r', { name: 'return' });
    }
    const before = this.rl.line;
    press(s, key);
    // One Tab lists the choices when there are several; readline waits for a second press.
    if (tab && !afterTab && !this.pasting && this.rl.line === before && this.o.completer) press(s, key);
  }

  /** A bracketed paste ended: a large one goes in as its placeholder, a small one as typed. */
  private endPaste(press: (s: string | undefined, key: Key | undefined) => void): void {
    const keys = this.pasteKeys ?? [];
    this.pasteKeys = null;
    if (this.state === 'idle') {
      // Typed ahead during a turn: the paste is replayed whole at the next prompt.
      this.typeAhead.push([undefined, { name: 'paste-start' }], ...keys, [undefined, { name: 'paste-end' }]);
      return;
    }
    const placeholder = this.state === 'line' ? this.pastes.collapse(pastedText(keys)) : null;
    if (placeholder) return press(placeholder, undefined);
    // A pasted Tab is text, not a request to complete.
    this.pasting = true;
    this.rl.isCompletionEnabled = false;
    try {
      for (const [s, key] of keys) this.onKey(press, s, key);
    } finally {
      this.pasting = false;
      this.rl.isCompletionEnabled = true;
    }
  }

  private startSearch(): void {
    this.beforeSearch = { line: this.rl.line, prompt: this.rl.getPrompt() };
    this.search = new HistorySearch(this.rl.history);
    this.showSearch({ kind: 'show', query: '', match: undefined, failing: false });
  }

  private searchKey(press: (s: string | undefined, key: Key | undefined) => void, s: string | undefined, key: Key | undefined): void {
    const step = this.search!.key(s, key);
    if (step.kind === 'show') return this.showSearch(step);
    const before = this.beforeSearch!;
    this.search = this.beforeSearch = undefined;
    this.setLine(step.kind === 'accept' ? step.line : before.line, before.prompt);
    if (step.kind === 'accept' && step.then) press(s, key);
  }

  private showSearch(step: Extract<SearchStep, { kind: 'show' }>): void {
    this.setLine(step.match ?? '', t(step.failing ? 'input.search_failing' : 'input.search', { query: step.query }));
  }

  private setLine(line: string, prompt: string): void {
    const rl = this.rl as Steered & { line: string; cursor: number };
    rl.line = line;
    rl.cursor = line.length;
    rl.setPrompt(prompt);
    rl.prompt(true);
  }

  /**
   * The next message: lines joined while they come from a paste or end in `\`. Undefined when
   * input has ended; '' when the message was abandoned (Ctrl+C on one of its later lines).
   * Contract: whole messages, never their pieces, go into the history.
   */
  async message(): Promise<string | undefined> {
    const parts: string[] = [];
    for (let asked: Asked = 'message'; ; asked = 'more') {
      const raw = await this.nextLine(asked === 'message' ? this.prompt : CONTINUATION, asked);
      if (!raw) return !this.ended ? '' : parts.length ? parts.join('\n') : undefined;
      const slash = !raw.more && raw.text.endsWith('\\');
      parts.push(slash ? raw.text.slice(0, -1) : raw.text);
      if (!raw.more && !slash) break;
    }
    const text = parts.join('\n').replace(/\n+$/, '');
    const entry = this.folded.get(text) ?? text;
    if (entry.trim()) {
      // The history keeps what was on the screen: a large paste stays its placeholder.
      this.o.history.add(entry);
      if (this.tty) this.rl.history.unshift(this.fold(entry));
    }
    return this.pastes.expand(entry);
  }

  /** One line of answer (not kept in the history); undefined when cancelled or input ended. A `secret` one is not shown as it is typed. */
  async question(prompt: string, secret = false): Promise<string | undefined> {
    return (await this.nextLine(prompt, secret ? 'secret' : 'question'))?.text;
  }

  /** One key press on a terminal (a line elsewhere), lower-cased; undefined when cancelled. */
  async key(prompt: string): Promise<string | undefined> {
    if (!this.tty) return (await this.question(prompt))?.trim().toLowerCase();
    if (this.ended) return undefined;
    this.o.output.write(prompt);
    this.state = 'key';
    const key = await new Promise<string | undefined>((resolve) => (this.keyWaiting = resolve));
    this.o.output.write((key && key.length === 1 ? key : '') + '\n');
    return key?.toLowerCase();
  }

  /** Whether a key, an answer or the next line of a message is awaited: what Ctrl+C cancels. */
  get asking(): boolean {
    return this.keyWaiting !== undefined || (this.waiting !== undefined && this.asked !== 'message');
  }

  /** Whether the message prompt is on the screen. */
  get atPrompt(): boolean {
    return this.state === 'line' && this.asked === 'message';
  }

  /** What is typed at the prompt so far. */
  get typed(): string {
    return this.state === 'line' ? this.rl.line : '';
  }

  /** Answers a pending question or key with undefined. */
  cancel(): void {
    if (this.keyWaiting) return this.resolveKey(undefined);
    if (!this.waiting) return;
    if (this.tty) {
      this.clearLine();
      this.o.output.write('\n');
    }
    this.resolveLine(undefined);
  }

  /** Empties the line being typed (Ctrl+C with text at the prompt). */
  clearLine(): void {
    this.rl.write(null, { ctrl: true, name: 'u' });
    this.rl.write(null, { ctrl: true, name: 'k' });
  }

  /** The message prompt; shown in place at once when it is up. */
  setPrompt(prompt: string): void {
    this.prompt = prompt;
    if (!this.atPrompt) return;
    this.rl.setPrompt(prompt);
    this.rl.prompt(true);
  }

  /** Puts `text` on the next message prompt to edit and send (on a terminal; a rewound request). */
  prefill(text: string): void {
    if (this.tty) this.typeAhead.unshift([this.fold(text), undefined]);
  }

  /** Runs `fn` with the terminal in its normal mode (to run an editor). */
  suspended<T>(fn: () => T): T {
    const input = this.o.input as { setRawMode?: (on: boolean) => void };
    this.rl.pause();
    input.setRawMode?.(false);
    try {
      return fn();
    } finally {
      this.rl.resume();
      input.setRawMode?.(true);
      if (this.tty) this.o.output.write(PASTE_ON);
    }
  }

  close(): void {
    if (this.tty) this.o.output.write(PASTE_OFF);
    this.rl.close();
  }

  private nextLine(prompt: string, asked: Asked): Promise<RawLine | undefined> {
    const queued = this.lines.shift();
    if (queued) {
      this.echo(prompt, asked === 'secret' ? '' : queued.text);
      return Promise.resolve(queued);
    }
    if (this.ended) return Promise.resolve(undefined);
    this.state = 'line';
    this.asked = asked;
    this.rl.setPrompt(prompt);
    // Keeps the cursor where a paste left it (the rest of the paste is already on the line).
    this.rl.prompt(true);
    const waiting = new Promise<RawLine | undefined>((resolve) => (this.waiting = resolve));
    if (asked === 'message') for (const [s, key] of this.typeAhead.splice(0)) this.rl._ttyWrite(s, key);
    return waiting;
  }

  private onLine(line: RawLine): void {
    if (!this.waiting) return void this.lines.push(line);
    this.echo('', this.asked === 'secret' ? '' : line.text);
    this.resolveLine(line);
  }

  /** Without a terminal nothing echoes what was read: the transcript shows it. */
  private echo(prompt: string, text: string): void {
    if (!this.tty) this.o.output.write(prompt + text + '\n');
  }

  private resolveLine(line: RawLine | undefined): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    this.asked = undefined;
    // The rest of the message is still being typed into readline (a paste): keep it listening.
    if (!line?.more) this.state = 'idle';
    resolve?.(line);
  }

  private resolveKey(key: string | undefined): void {
    const resolve = this.keyWaiting;
    this.keyWaiting = undefined;
    this.state = 'idle';
    resolve?.(key);
  }

  private onEnd(): void {
    this.ended = true;
    this.resolveKey(undefined);
    this.resolveLine(undefined);
  }

  private fold(entry: string): string {
    if (!entry.includes('\n')) return entry;
    const shown = entry.replace(/\n/g, ' ↵ ');
    this.folded.set(shown, entry);
    return shown;
  }
}
