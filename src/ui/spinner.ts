// The waiting line on a terminal: a frame, what is awaited, the seconds since the turn began and
// the tokens streamed so far; when the model has sent nothing for a while, how long. It lives on
// its own line and is erased with \r and spaces before anything else is written, so scrollback
// never keeps it. Only used on a TTY.

import { t } from '../i18n/index.js';
import { truncate, width } from './width.js';

const FRAMES = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
const TICK_MS = 100;
/** After this much silence from the model the line says so (the idle timeout comes later). */
export const STALL_NOTICE_MS = 30_000;

type Out = { write(text: string): unknown };

export class Spinner {
  /** What is awaited, already translated. */
  what = '';
  tokens = 0;
  /** Whether the model is being waited for (not a tool): only then does its silence count. */
  listening = false;
  private heardAt = 0;
  private started = 0;
  private timer: NodeJS.Timeout | undefined;
  private drawn = 0;
  private frame = 0;

  constructor(
    private readonly out: Out,
    private readonly dim: (text: string) => string,
    private readonly columns: () => number,
    /** False while something else owns the line (text mid-line, a question). */
    private readonly mayDraw: () => boolean,
    private readonly stallNoticeMs = STALL_NOTICE_MS,
  ) {}

  start(): void {
    this.started = this.heardAt = Date.now();
    this.tokens = 0;
    this.timer ??= setInterval(() => this.draw(), TICK_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Something came from the model (or a request started): its silence is counted from now. */
  heard(): void {
    this.heardAt = Date.now();
  }

  /** Erases the line, leaving the cursor at its start. */
  clear(): void {
    if (!this.drawn) return;
    this.out.write('\r' + ' '.repeat(this.drawn) + '\r');
    this.drawn = 0;
  }

  private draw(): void {
    if (!this.mayDraw()) return;
    const now = Date.now();
    const secs = Math.floor((now - this.started) / 1000);
    const quiet = this.listening ? now - this.heardAt : 0;
    const what = quiet >= this.stallNoticeMs ? t('spin.stalled', { secs: Math.floor(quiet / 1000) }) : this.what;
    const frame = FRAMES[this.frame++ % FRAMES.length]!;
    const text = truncate(`${frame} ${t('spin.line', { what, secs, tokens: this.tokens.toLocaleString('en-US') })}`, this.columns() - 1);
    const w = width(text);
    // Spaces cover what a longer previous frame left; the cursor stays on this line.
    this.out.write('\r' + this.dim(text) + ' '.repeat(Math.max(0, this.drawn - w)));
    this.drawn = Math.max(w, this.drawn);
  }
}
