// What the person types, through readline in line mode (so editing, history, scrollback and CJK
// input methods work as usual), plus what readline lacks: messages over several lines (bracketed
// paste, a line ending in `\`), single-key answers, Ctrl+C and Shift+Tab routed to the REPL, and
// typing ignored while a turn runs. Must not interpret what is typed: the REPL does.
//
// readline is steered through three of its methods, overridden on our instance: _ttyWrite (each
// key press), _writeToOutput (silenced while a turn prints, and for secrets) and _addHistory (we
// add whole messages ourselves). They are not documented, but Node keeps these names for
// compatibility and terminal tools have long relied on them.

import { createInterface, type Completer, type Interface } from 'node:readline';
import type { History } from './history.js';

type Key = { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean; sequence?: string };

type Steered = Interface & {
  _ttyWrite(s: string | undefined, key: Key | undefined): void;
  _writeToOutput(s: string): void;
  _addHistory(): string;
  history: string[];
  historyIndex: number;
  isCompletionEnabled: boolean;
};

type RawLine = { text: string; pasted: boolean };
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
  private typeAhead: [string | undefined, Key | undefined][] = [];
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
    this.rl.on('line', (text) => this.onLine({ text, pasted: this.pasting }));
    this.rl.on('close', () => this.onEnd());
    if (this.tty) this.steer();
    else process.on('SIGINT', () => o.onInterrupt());
  }

  private steer(): void {
    const rl = this.rl;
    const press = rl._ttyWrite.bind(rl);
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
      if (key?.name === 'paste-start' || key?.name === 'paste-end') {
        this.pasting = key.name === 'paste-start';
        // A pasted tab is text, not a request to complete.
        rl.isCompletionEnabled = !this.pasting;
        return;
      }
      if (key?.ctrl && key.name === 'c') return this.o.onInterrupt();
      if (this.pasting && key?.name === 'return' && this.state === 'line') {
        // Show the next pasted line's prompt before its characters are echoed.
        press(s, key);
        rl.setPrompt(CONTINUATION);
        return rl.prompt(true);
      }
      if (key?.name === 'tab' && key.shift) return this.o.onCycleMode();
      if (this.state === 'key') return this.resolveKey(s && s.length === 1 && s >= ' ' ? s : (key?.name ?? s ?? ''));
      if (this.state === 'line') press(s, key);
      else if (this.state === 'idle' && this.typeAhead.length < 4096) this.typeAhead.push([s, key]);
    };
    this.o.output.write(PASTE_ON);
    process.once('exit', () => this.o.output.write(PASTE_OFF));
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
      const more = raw.pasted || raw.text.endsWith('\\');
      parts.push(!raw.pasted && more ? raw.text.slice(0, -1) : raw.text);
      if (!more) break;
    }
    const text = parts.join('\n').replace(/\n+$/, '');
    const entry = this.folded.get(text) ?? text;
    if (entry.trim()) {
      this.o.history.add(entry);
      if (this.tty) this.rl.history.unshift(this.fold(entry));
    }
    return entry;
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
    // The rest of a paste is still being typed into readline: keep it listening.
    if (!line?.pasted) this.state = 'idle';
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
