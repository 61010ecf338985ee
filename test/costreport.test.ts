// /cost from a real trace written by openTrace: several days, two runs of this directory (one
// crossing midnight), another directory's run, an unknown price, side requests, usage outside a
// request, a torn line, and a day outside the window.
import { appendFileSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { costReport, formatCostReport } from '../src/session/costreport.js';
import { setLang, t } from '../src/i18n/index.js';
import { logsDir, openTrace } from '../src/session/trace.js';
import type { AgentEvent } from '../src/types/events.js';

let state: string;
const ROOT = '/work/project';

beforeEach(async () => {
  state = await realpath(await mkdtemp(join(tmpdir(), 'feiyu-cost-')));
});

type Extra = { cacheRead?: number; cacheWrite?: number; side?: boolean };
const usage = (input: number, output: number, cost: number | null, extra: Extra = {}): AgentEvent => ({
  type: 'usage',
  model: cost === null ? 'mystery' : 'sonnet',
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  cost,
  estimated: false,
  ...extra,
});

/** One run: each step is [local time, event]. */
function run(runId: string, root: string, steps: [Date, AgentEvent][]): void {
  let now = steps[0]![0];
  const trace = openTrace({ stateDir: state, root, env: {}, runId, model: 'sonnet', version: '0.1.0', mode: 'default', clock: () => now })!;
  for (const [at, event] of steps) {
    now = at;
    trace.write(event);
  }
  trace.close();
}

const day = (d: number, h: number, m = 0) => new Date(2025, 5, d, h, m);

describe('cost report', () => {
  it('lists this directory’s tasks of the last 7 days with totals per day and overall', () => {
    // Outside the window (8 days before June 10).
    run('old', ROOT, [
      [day(2, 9), { type: 'turn_start', text: 'too old' }],
      [day(2, 9), usage(1000, 100, 1)],
      [day(2, 9), { type: 'turn_end', stopReason: 'end', text: '', rounds: 0 }],
    ]);
    // Session one, crossing midnight from June 4 to June 5.
    run('one', ROOT, [
      [day(4, 23, 50), { type: 'turn_start', text: 'fix the parser\nit breaks on tabs' }],
      [day(4, 23, 50), { type: 'request_start', round: 1, model: 'sonnet' }],
      [day(4, 23, 51), usage(1000, 200, 0.01, { cacheRead: 500 })],
      [day(4, 23, 55), usage(300, 30, 0.002, { side: true })], // a sub-agent's request
      [day(5, 0, 5), { type: 'request_start', round: 2, model: 'sonnet' }],
      [day(5, 0, 5), usage(2000, 100, 0.02)],
      [day(5, 0, 6), { type: 'turn_end', stopReason: 'end', text: 'Fixed.', rounds: 1 }],
      [day(5, 0, 10), usage(800, 50, 0.005)], // /compact between requests
    ]);
    // Session two on June 9, with a model of unknown price, killed mid-task.
    run('two', ROOT, [
      [day(9, 14), { type: 'turn_start', text: 'add a flag' }],
      [day(9, 14), usage(100, 10, 0.001)],
      [day(9, 14), { type: 'turn_end', stopReason: 'end', text: '', rounds: 0 }],
      [day(9, 15), { type: 'turn_start', text: 'now with the cheap model' }],
      [day(9, 15), { type: 'request_start', round: 1, model: 'mystery' }],
      [day(9, 15), usage(400, 40, null)],
      [day(9, 15), { type: 'request_start', round: 2, model: 'mystery' }],
      [day(9, 15), usage(500, 50, null)],
    ]);
    // Another directory, same days.
    run('else', '/elsewhere', [
      [day(9, 16), { type: 'turn_start', text: 'not ours' }],
      [day(9, 16), usage(9999, 999, 9)],
    ]);
    appendFileSync(join(logsDir(state), '2025-06-09.jsonl'), '{"type":"usage","run_id":"two","ro');

    const report = costReport(state, ROOT, day(10, 12));
    const iso = (d: Date) => d.toISOString();
    expect(report).toEqual({
      days: 7,
      tasks: [
        { when: iso(day(4, 23, 50)), request: 'fix the parser', rounds: 1, input: 3300, output: 330, cacheRead: 500, cacheWrite: 0, cost: 0.032 },
        { when: iso(day(5, 0, 10)), request: '', rounds: 0, input: 800, output: 50, cacheRead: 0, cacheWrite: 0, cost: 0.005 },
        { when: iso(day(9, 14)), request: 'add a flag', rounds: 0, input: 100, output: 10, cacheRead: 0, cacheWrite: 0, cost: 0.001 },
        { when: iso(day(9, 15)), request: 'now with the cheap model', rounds: 1, input: 900, output: 90, cacheRead: 0, cacheWrite: 0, cost: null },
      ],
      earlier: 0,
      perDay: [
        { day: '2025-06-04', tasks: 1, rounds: 1, input: 3300, output: 330, cacheRead: 500, cacheWrite: 0, cost: 0.032, unknown: 0 },
        { day: '2025-06-05', tasks: 1, rounds: 0, input: 800, output: 50, cacheRead: 0, cacheWrite: 0, cost: 0.005, unknown: 0 },
        { day: '2025-06-09', tasks: 2, rounds: 1, input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, cost: 0.001, unknown: 1 },
      ],
      total: { tasks: 4, rounds: 2, input: 5100, output: 480, cacheRead: 500, cacheWrite: 0, cost: expect.closeTo(0.038, 10), unknown: 1 },
      unpriced: ['mystery'],
    });

    // A narrower window leaves the older days out.
    expect(costReport(state, ROOT, day(10, 12), 2).tasks.map((t) => t.request)).toEqual(['add a flag', 'now with the cheap model']);
    expect(costReport(join(state, 'empty'), ROOT, day(10, 12))).toEqual({
      days: 7,
      tasks: [],
      earlier: 0,
      perDay: [],
      total: { tasks: 0, rounds: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, unknown: 0 },
      unpriced: [],
    });
  });

  it('renders lines through the catalogue, "?" for unknown prices, with the hint', () => {
    setLang('en');
    run('one', ROOT, [
      [day(9, 14, 5), { type: 'turn_start', text: 'a request that is long enough to be shortened in the list of tasks' }],
      [day(9, 14, 5), usage(12_000, 1500, 0.0612, { cacheRead: 3000, cacheWrite: 500 })],
      [day(9, 14, 6), { type: 'turn_end', stopReason: 'end', text: '', rounds: 3 }],
      [day(9, 14, 7), usage(100, 10, null)],
    ]);
    expect(formatCostReport(costReport(state, ROOT, day(10, 12)), t)).toEqual([
      'Tasks in this directory, last 7 days:',
      '  06-09 14:05  $0.06  rounds 3 · 15,500 in · 1,500 out · 3,000 cached  a request that is long enough to be shortened in the list o…',
      '  06-09 14:07  $?  rounds 0 · 100 in · 10 out · 0 cached  (outside a request, e.g. /compact)',
      'Per day:',
      '  2025-06-09  $0.06 + ?  tasks 2',
      'Total  $0.06 + ?  tasks 2 · rounds 3 · 15,600 in · 1,510 out · 3,000 cached',
      'No price is known for mystery: "?" marks their cost. Set "price" for them in keys.json.',
    ]);
    expect(formatCostReport(costReport(state, '/nowhere', day(10, 12)), t)).toEqual(['No tasks in this directory in the last 7 days.']);
  });

  it('lists the latest 50 tasks and counts every one in the sums, however many there are', () => {
    const steps: [Date, AgentEvent][] = [];
    for (let n = 0; n < 120; n++) {
      steps.push([day(9, 8, n % 60), { type: 'turn_start', text: `task ${n}` }], [day(9, 8, n % 60), usage(10, 1, 0.001)], [day(9, 8, n % 60), { type: 'turn_end', stopReason: 'end', text: '', rounds: 1 }]);
    }
    run('many', ROOT, steps);
    const report = costReport(state, ROOT, day(10, 12));
    expect(report.tasks.map((t) => t.request)).toEqual(Array.from({ length: 50 }, (_, i) => `task ${70 + i}`));
    expect(report.earlier).toBe(70);
    expect(report.total).toMatchObject({ tasks: 120, rounds: 120, input: 1200, output: 120 });
    setLang('en');
    expect(formatCostReport(report, t).slice(0, 3)).toEqual(['Tasks in this directory, last 7 days:', '  … 70 earlier tasks, counted in the sums below', expect.stringContaining('task 70')]);
  });
});
