// The interactive prompt: reads lines, runs them through the agent one at a time, renders the
// event stream, answers permission questions, and handles Ctrl+C / Ctrl+D and slash commands.
// Line mode only (readline, append-only output), so scrollback, copy/paste and IMEs keep working.

import { createInterface, type Interface } from 'node:readline';
import type { App } from './app.js';
import { t, type MessageKey } from './i18n.js';
import type { AskAnswer, AskRequest } from './permissions.js';
import { Renderer, color, painter } from './ui.js';

export type ReplOptions = {
  app: App;
  version: string;
  initialMessage?: string;
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
};

type Command = { name: string; help: MessageKey; run: (arg: string) => Promise<void> | void };

export class Repl {
  private readonly rl: Interface;
  private readonly renderer: Renderer;
  private readonly queue: string[] = [];
  private running: AbortController | undefined;
  private pendingLine: ((line: string | undefined) => void) | undefined;
  private lastCtrlC = 0;
  private closed = false;
  private done!: () => void;
  private readonly commands: Command[];

  constructor(private readonly o: ReplOptions) {
    this.rl = createInterface({ input: o.input, output: o.output, terminal: o.input.isTTY === true, historySize: 500 });
    this.renderer = new Renderer(o.output, () => o.app.model);
    o.app.agent.on((event) => this.renderer.handle(event));
    o.app.onNotice((n) => this.renderer.line(t(n.key, n.params)));
    o.app.setAsker((req) => this.ask(req));
    this.commands = [
      { name: '/help', help: 'cmd.help', run: () => this.help() },
      { name: '/exit', help: 'cmd.exit', run: () => this.rl.close() },
      { name: '/quit', help: 'cmd.quit', run: () => this.rl.close() },
    ];
  }

  /** Runs until the user leaves. */
  run(): Promise<void> {
    const paint = painter(this.o.output);
    const app = this.o.app;
    const welcome = t('repl.welcome', { version: this.o.version, model: app.model.name, mode: app.mode, root: app.root });
    this.renderer.line(paint(color.cyan, welcome));
    if (app.conventions) this.renderer.line(paint(color.dim, t('repl.conventions', { file: app.conventions.file })));
    for (const n of app.notices) this.renderer.line(paint(color.yellow, t(n.key, n.params)));
    this.renderer.line(paint(color.dim, t('repl.hints')));
    this.rl.setPrompt('› ');
    this.rl.on('line', (line) => this.onLine(line));
    this.rl.on('SIGINT', () => this.onInterrupt());
    this.rl.on('close', () => this.onClose());
    const finished = new Promise<void>((resolve) => (this.done = resolve));
    if (this.o.initialMessage) this.queue.push(this.o.initialMessage);
    void this.drain();
    return finished;
  }

  /** Asks the user one question and returns the line typed (undefined when input ended). */
  question(prompt: string): Promise<string | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.renderer.line('');
    this.o.output.write(prompt);
    return new Promise((resolve) => (this.pendingLine = resolve));
  }

  /** The permission question; only y, s and a approve. */
  async ask(req: AskRequest): Promise<AskAnswer> {
    const why = t(`ask.${req.reasonCode}` as MessageKey, req.reasonParams);
    const key = (await this.question(t('repl.ask', { tool: req.tool, what: req.display, why })))?.trim().toLowerCase();
    if (key === 'y' || key === 'yes') return { answer: 'yes' };
    if (key === 's' && req.suggestedRules.length) return { answer: 'always' };
    if (key === 'a') return { answer: 'auto' };
    if (key !== 'n') return { answer: 'no' };
    const reason = (await this.question(t('repl.ask_reason')))?.trim();
    return reason ? { answer: 'no', reason } : { answer: 'no' };
  }

  private onLine(line: string): void {
    if (this.pendingLine) {
      const resolve = this.pendingLine;
      this.pendingLine = undefined;
      resolve(line);
      return;
    }
    if (!line.trim()) {
      if (!this.running) this.rl.prompt();
      return;
    }
    this.queue.push(line);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    while (this.queue.length) {
      const line = this.queue.shift()!;
      const command = line.startsWith('/') ? this.commands.find((c) => c.name === line.split(/\s/)[0]) : undefined;
      if (command) {
        await command.run(line.slice(command.name.length).trim());
        continue;
      }
      if (/^\/\w+$/.test(line.trim())) {
        this.renderer.line(t('repl.unknown_command', { cmd: line.trim() }));
        continue;
      }
      this.running = new AbortController();
      try {
        await this.o.app.agent.send(line, this.running.signal);
      } finally {
        this.running = undefined;
      }
    }
    if (this.closed) return this.finish();
    this.rl.prompt();
  }

  private onInterrupt(): void {
    if (this.pendingLine) return this.onLine('n');
    if (this.running) {
      this.running.abort();
      this.renderer.line(t('repl.cancelled'));
      return;
    }
    const now = Date.now();
    if (now - this.lastCtrlC < 2000) return this.rl.close();
    this.lastCtrlC = now;
    this.renderer.line(t('repl.ctrlc_again'));
    this.rl.prompt();
  }

  private onClose(): void {
    this.closed = true;
    if (this.pendingLine) {
      const resolve = this.pendingLine;
      this.pendingLine = undefined;
      resolve(undefined);
    }
    // Piped input ends before its lines have run: finish them first.
    if (!this.running && !this.queue.length) void this.finish();
  }

  private async finish(): Promise<void> {
    this.renderer.line(t('repl.bye'));
    this.done();
  }

  private help(): void {
    for (const c of this.commands) this.renderer.line(`  ${c.name.padEnd(10)} ${t(c.help)}`);
  }
}
