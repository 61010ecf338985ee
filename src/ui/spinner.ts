// The waiting line on a terminal: a frame, what is awaited, the seconds since the turn began and
// the tokens streamed so far; when the model has sent nothing for a while, how long. Computes the
// line and ticks; the live area (live.ts) draws it at the bottom, so scrollback never keeps it.

import { t } from '../i18n/index.js';

const FRAMES = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
const TICK_MS = 100;
/** After this much silence from the model the line says so (the idle timeout comes later). */
export const STALL_NOTICE_MS = 30_000;

export class Spinner {
  /** What is awaited, already translated. */
  what = '';
  tokens = 0;
  /** Whether the model is being waited for (not a tool): only then does its silence count. */
  listening = false;
  private heardAt = 0;
  private started = 0;
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;

  constructor(
    /** Called on every tick while running: draw the line again. */
    private readonly tick: () => void,
    private readonly stallNoticeMs = STALL_NOTICE_MS,
  ) {}

  start(): void {
    this.started = this.heardAt = Date.now();
    this.tokens = 0;
    this.timer ??= setInterval(() => {
      this.frame++;
      this.tick();
    }, TICK_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Something came from the model (or a request started): its silence is counted from now. */
  heard(): void {
    this.heardAt = Date.now();
  }

  /** The line as it reads now; undefined when not running. */
  line(): string | undefined {
    if (!this.running) return undefined;
    const now = Date.now();
    const secs = Math.floor((now - this.started) / 1000);
    const quiet = this.listening ? now - this.heardAt : 0;
    const what = quiet >= this.stallNoticeMs ? t('spin.stalled', { secs: Math.floor(quiet / 1000) }) : this.what;
    return `${FRAMES[this.frame % FRAMES.length]} ${t('spin.line', { what, secs, tokens: this.tokens.toLocaleString('en-US') })}`;
  }
}
