// Attention when feiyu waits for the user: the bell (or an OSC 9 notification on terminals that
// show one) after a turn of 10 s or more and when a question needs an answer; never on a pipe,
// never with "notify": "off", and the setting itself checked like the others.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, type NotifySetting } from '../src/config/settings.js';
import { Problem, problemText, setLang } from '../src/i18n/index.js';
import type { AgentEvent } from '../src/types/events.js';
import type { ModelConfig } from '../src/types/providers.js';
import { Renderer } from '../src/ui/render.js';

const model = { name: 'm', provider: 'anthropic', model: 'x', contextWindow: 1000, maxOutputTokens: 100 } as ModelConfig;
const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, requests: 0 } as never;
const turn: AgentEvent[] = [
  { type: 'turn_start', text: 'go' },
  { type: 'turn_end', stopReason: 'end', text: 'done', rounds: 0 },
];
const question: AgentEvent = { type: 'approval', id: 'a1', approval: { kind: 'plan', plan: 'do it' } };

/** What a terminal (or a pipe) receives for `events`; `long`: the turn counts as long. */
function rendered(events: AgentEvent[], o: { tty?: boolean; notify?: NotifySetting; env?: NodeJS.ProcessEnv; long?: boolean } = {}): string {
  let out = '';
  const ui = new Renderer({ write: (s: string) => (out += s), isTTY: o.tty ?? true, columns: 80 }, { model: () => model, totals: () => totals }, { NO_COLOR: '1', ...o.env }, {
    notify: o.notify,
    longTurnMs: o.long === false ? 3_600_000 : 0,
  });
  for (const e of events) ui.handle(e);
  return out;
}

const bells = (s: string) => s.match(/\x07|\x1b\]9;[^\x07]*\x07/g) ?? [];

describe('attention', () => {
  it('rings once at the end of a long turn, not after a short one', () => {
    setLang('en');
    expect(bells(rendered(turn))).toEqual(['\x07']);
    expect(bells(rendered(turn, { long: false }))).toEqual([]);
  });

  it('rings when a question waits for an answer, however short the turn', () => {
    expect(bells(rendered([turn[0]!, question], { long: false }))).toEqual(['\x07']);
  });

  it('sends an OSC 9 notification where the terminal shows one, in the interface language', () => {
    expect(bells(rendered(turn, { env: { TERM_PROGRAM: 'iTerm.app' } }))).toEqual(['\x1b]9;feiyu has finished\x07']);
    setLang('zh');
    expect(bells(rendered([question], { env: { TERM_PROGRAM: 'WezTerm' } }))).toEqual(['\x1b]9;feiyu 需要你的回答\x07']);
    setLang('en');
    // Inside tmux the bell reaches the window list; OSC 9 would be swallowed.
    expect(bells(rendered(turn, { env: { TERM_PROGRAM: 'iTerm.app', TMUX: '/tmp/tmux-1/default,1,0' } }))).toEqual(['\x07']);
    expect(bells(rendered(turn, { notify: 'osc9' }))).toEqual(['\x1b]9;feiyu has finished\x07']);
    expect(bells(rendered(turn, { notify: 'bell', env: { TERM_PROGRAM: 'ghostty' } }))).toEqual(['\x07']);
  });

  it('is silent with "notify": "off" and on a pipe', () => {
    expect(bells(rendered([...turn, question], { notify: 'off' }))).toEqual([]);
    expect(rendered([...turn, question], { tty: false })).not.toMatch(/[\x07\x1b]/);
  });

  it('the notify setting takes auto, bell, osc9 or off', async () => {
    const root = await mkdtemp(join(tmpdir(), 'feiyu-bell-'));
    await mkdir(join(root, '.feiyu'));
    await writeFile(join(root, '.feiyu', 'settings.json'), '{"notify": "off"}');
    expect(loadSettings(root, { HOME: root, XDG_CONFIG_HOME: join(root, 'none') }).project).toEqual({ notify: 'off' });
    await writeFile(join(root, '.feiyu', 'settings.json'), '{"notify": "loud"}');
    let problem: unknown;
    try {
      loadSettings(root, { HOME: root, XDG_CONFIG_HOME: join(root, 'none') });
    } catch (err) {
      problem = err;
    }
    expect(problem).toBeInstanceOf(Problem);
    expect(problemText(problem as Problem)).toContain('"notify" must be one of "auto", "bell", "osc9", "off"');
  });
});
