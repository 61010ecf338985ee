// The /cost report: tasks (one user request and everything it caused) of the last days in one
// workspace, read from the trace, so it spans sessions and restarts; and its lines for the
// interface, worded through a translate function. Reads the logs only, line by line, parsing only
// the lines it counts: time is linear in the logs' size and memory does not grow with it.

import { join } from 'node:path';
import { logsDir } from './trace.js';
import { forEachLine } from '../util/lines.js';
import { isObject } from '../util/jsonfile.js';
import { formatCost, localDate, localDateTime } from '../util/text.js';

export type TaskCost = {
  /** ISO time the request was sent. */
  when: string;
  /** The first line of the request; '' for usage outside any request (/compact between turns). */
  request: string;
  rounds: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** null when a request of the task used a model without a known price. */
  cost: number | null;
};

/** A sum over tasks: the cost of those with a known price, and how many had none. */
export type CostSum = { tasks: number; rounds: number; input: number; output: number; cacheRead: number; cacheWrite: number; cost: number; unknown: number };

export type CostReport = {
  days: number;
  /** The latest tasks (at most SHOWN_TASKS), oldest first… */
  tasks: TaskCost[];
  /** …and how many before them are counted in the sums but not listed. */
  earlier: number;
  /** Days with tasks, oldest first; `day` is the local YYYY-MM-DD of the tasks' start. */
  perDay: (CostSum & { day: string })[];
  total: CostSum;
  /** Models used without a known price (for the hint to set `price` in keys.json). */
  unpriced: string[];
};

type LogLine = { [key: string]: unknown; type?: unknown; run_id?: unknown; ts?: unknown; root?: unknown };

/** Tasks listed one by one; the sums count every task. */
const SHOWN_TASKS = 50;
/** The events the report counts; every other line is skipped unparsed. */
const COUNTED = ['turn_start', 'request_start', 'usage', 'turn_end'];

/** The report for `root` over the `days` calendar days up to `now`. Unreadable lines are skipped. */
export function costReport(stateDir: string, root: string, now = new Date(), days = 7): CostReport {
  const shown: TaskCost[] = [];
  let earlier = 0;
  const open = new Map<unknown, TaskCost>();
  const unpriced = new Set<string>();
  const byDay = new Map<string, CostSum & { day: string }>();
  const total = emptySum();
  /** A task is added to the sums once it is over (its turn ended, the run went on to another, or the logs end). */
  const finish = (task: TaskCost) => {
    const day = localDate(new Date(task.when));
    if (!byDay.has(day)) byDay.set(day, { day, ...emptySum() });
    addTo(byDay.get(day)!, task);
    addTo(total, task);
  };
  const newTask = (run: unknown, when: string, request: string) => {
    const task: TaskCost = { when, request, rounds: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
    const before = open.get(run);
    if (before) finish(before);
    open.set(run, task);
    shown.push(task);
    if (shown.length > SHOWN_TASKS) (shown.shift(), earlier++);
    return task;
  };
  eachRecord(stateDir, root, now, days, (r) => {
    if (r.root !== root || typeof r.ts !== 'string') return;
    const task = open.get(r.run_id);
    switch (r.type) {
      case 'turn_start':
        newTask(r.run_id, r.ts, firstLine(r.text));
        break;
      case 'request_start':
        // Until turn_end says, the rounds done are those before the latest request.
        if (task && typeof r.round === 'number') task.rounds = Math.max(task.rounds, r.round - 1);
        break;
      case 'usage': {
        const t = task ?? newTask(r.run_id, r.ts, '');
        t.input += num(r.input);
        t.output += num(r.output);
        t.cacheRead += num(r.cacheRead);
        t.cacheWrite += num(r.cacheWrite);
        if (typeof r.cost === 'number' && t.cost !== null) t.cost += r.cost;
        if (r.cost === null) {
          t.cost = null;
          unpriced.add(String(r.model));
        }
        break;
      }
      case 'turn_end':
        if (!task) break;
        if (typeof r.rounds === 'number') task.rounds = r.rounds;
        finish(task);
        open.delete(r.run_id);
        break;
    }
  });
  for (const task of open.values()) finish(task);
  const perDay = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
  return { days, tasks: shown, earlier, perDay, total, unpriced: [...unpriced].sort() };
}

/**
 * The counted records of `root` in the daily files of the window, in order (runs crossing
 * midnight continue in the next file). Lines that cannot be one (another type, another root:
 * feiyu writes `type` first and `root` verbatim) are not parsed at all.
 */
function eachRecord(stateDir: string, root: string, now: Date, days: number, fn: (record: LogLine) => void): void {
  const rootField = `"root":${JSON.stringify(root)}`;
  const prefixes = COUNTED.map((type) => `{"type":"${type}"`);
  const skip = (text: string, at: number) => text.startsWith('{"type":"', at) && !prefixes.some((p) => text.startsWith(p, at));
  for (let d = days - 1; d >= 0; d--) {
    const day = localDate(new Date(now.getFullYear(), now.getMonth(), now.getDate() - d));
    try {
      forEachLine(join(logsDir(stateDir), `${day}.jsonl`), (line) => {
        if (!line.includes(rootField)) return;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          return; // a torn line
        }
        if (isObject(value)) fn(value as LogLine);
      }, skip);
    } catch {
      // no log that day
    }
  }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const firstLine = (v: unknown) => (typeof v === 'string' ? (v.trim().split('\n')[0] ?? '') : '');
const emptySum = (): CostSum => ({ tasks: 0, rounds: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, unknown: 0 });

function addTo(sum: CostSum, task: TaskCost): void {
  sum.tasks++;
  sum.rounds += task.rounds;
  sum.input += task.input;
  sum.output += task.output;
  sum.cacheRead += task.cacheRead;
  sum.cacheWrite += task.cacheWrite;
  if (task.cost === null) sum.unknown++;
  else sum.cost += task.cost;
}

// ---------------------------------------------------------------------------------------------
// Rendering

export type CostKey = 'cost.title' | 'cost.none' | 'cost.earlier' | 'cost.task' | 'cost.untitled' | 'cost.per_day' | 'cost.day' | 'cost.total' | 'cost.unpriced';
export type Translate = (key: CostKey, params?: { [name: string]: string | number }) => string;

const REQUEST_CHARS = 60;

/** The report as lines for the terminal: one per task, one per day, the total, and the price hint. */
export function formatCostReport(report: CostReport, t: Translate): string[] {
  if (report.tasks.length === 0) return [t('cost.none', { days: report.days })];
  const lines = [t('cost.title', { days: report.days })];
  if (report.earlier > 0) lines.push('  ' + t('cost.earlier', { n: report.earlier }));
  for (const task of report.tasks) {
    const request = task.request ? shorten(task.request) : t('cost.untitled');
    lines.push('  ' + t('cost.task', { when: shortTime(task.when), cost: formatCost(task.cost), ...tokens(task), rounds: task.rounds, request }));
  }
  lines.push(t('cost.per_day'));
  for (const day of report.perDay) lines.push('  ' + t('cost.day', { day: day.day, cost: sumCost(day), tasks: day.tasks }));
  const { total } = report;
  lines.push(t('cost.total', { cost: sumCost(total), tasks: total.tasks, rounds: total.rounds, ...tokens(total) }));
  if (report.unpriced.length > 0) lines.push(t('cost.unpriced', { models: report.unpriced.join(', ') }));
  return lines;
}

/** Tokens as the status line counts them: everything read (cache included) in, and the cache reads. */
function tokens(u: { input: number; output: number; cacheRead: number; cacheWrite: number }) {
  const n = (x: number) => x.toLocaleString('en-US');
  return { input: n(u.input + u.cacheRead + u.cacheWrite), output: n(u.output), cached: n(u.cacheRead) };
}

/** "$1.20", "$1.20 + ?" when some tasks had no price, "$?" when none had. */
function sumCost(sum: CostSum): string {
  if (sum.unknown === 0) return formatCost(sum.cost);
  return sum.unknown === sum.tasks ? formatCost(null) : `${formatCost(sum.cost)} + ?`;
}

/** "03-04 15:06" in local time. */
const shortTime = (iso: string): string => localDateTime(new Date(iso)).slice(5);

function shorten(text: string): string {
  return text.length > REQUEST_CHARS ? text.slice(0, REQUEST_CHARS - 1) + '…' : text;
}
