// Drives the built CLI in a real pseudo-terminal: a tmux session on a private socket, keys sent
// with send-keys, the screen read with capture-pane (plain text, wrapped lines joined). Waits
// poll the screen until the text appears or a deadline passes; no fixed sleeps. Everything in a
// pane belongs to the test that started it and is killed when the test ends (test/scope.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { cliEnv, CLI } from './cli-harness.js';
import { currentTest, waitFor } from './scope.js';

const SOCKET = `feiyu-test-${process.pid}`;

/** Whether tmux can be run here. */
export const hasTmux = spawnSync('tmux', ['-V']).error === undefined;
let sessions = 0;
let keeper = false;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class Terminal {
  private constructor(readonly name: string) {}

  /** Starts `feiyu args` in `cwd` for a user whose home is `home`, on a cols × rows screen. */
  static start(args: string[], o: { cwd: string; home: string; env?: Record<string, string>; cols?: number; rows?: number }): Terminal {
    // tmux exits with its last session: a new session started while a killed one's server shuts
    // down fails ("server exited unexpectedly"). A session that lives until stopTerminals avoids it.
    if (!keeper) {
      tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
      keeper = true;
    }
    const name = `t${++sessions}`;
    const owner = currentTest().env;
    const env = Object.entries(cliEnv(o.home, { TERM: 'xterm-256color', ...owner, ...o.env })).map(([k, v]) => `${k}=${quote(v ?? '')}`);
    // The pane outlives feiyu, so its last screen and exit code can still be read; the pane's shell
    // carries the test's mark too, so the whole session goes when the test ends.
    const mark = Object.entries(owner).map(([k, v]) => `export ${k}=${quote(v)}; `).join('');
    const command = `${mark}cd ${quote(o.cwd)} && env -i ${env.join(' ')} ${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(' ')}; echo "[exited $?]"; sleep 600`;
    tmux('new-session', '-d', '-s', name, '-x', String(o.cols ?? 100), '-y', String(o.rows ?? 40), command);
    return new Terminal(name);
  }

  /** Key names as tmux knows them: Enter, C-c, BTab, Up … */
  keys(...keys: string[]): void {
    tmux('send-keys', '-t', this.name, ...keys);
  }

  /** Literal text, typed as it is (escape sequences included). */
  type(text: string): void {
    tmux('send-keys', '-t', this.name, '-l', text);
  }

  /** `text` pasted as a terminal pastes (bracketed when the program asked for it), newlines sent as Enter. */
  paste(text: string): void {
    execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', 'load-buffer', '-b', this.name, '-'], { input: text });
    tmux('paste-buffer', '-p', '-d', '-b', this.name, '-t', this.name);
  }

  /** The whole screen and scrollback, wrapped lines joined, trailing blanks dropped (tmux drops them at line ends too); with `escapes`, the colours and attributes as escape codes. */
  screen(escapes = false): string {
    const text = tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-3000', '-t', this.name);
    return text.replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
  }

  /** Waits until `what` is on the screen (its `nth` occurrence), returning the screen. */
  waitFor(what: string | RegExp, o: { nth?: number } = {}): Promise<string> {
    const nth = o.nth ?? 1;
    const count = (screen: string) =>
      typeof what === 'string' ? screen.split(what).length - 1 : (screen.match(new RegExp(what.source, what.flags.replace('g', '') + 'g')) ?? []).length;
    return waitFor(
      () => {
        const screen = this.screen();
        return count(screen) >= nth ? screen : undefined;
      },
      () => `${String(what)} (×${nth}); the screen:\n${this.screen()}`,
    );
  }

  kill(): void {
    try {
      tmux('kill-session', '-t', this.name);
    } catch {
      // already gone
    }
  }
}

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8' });
}

/** Ends this file's tmux server (call in afterAll). */
export function stopTerminals(): void {
  keeper = false;
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
}
