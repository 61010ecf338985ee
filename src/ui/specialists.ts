// How a specialist's run reads in the terminal: its start, each tool it calls (dim, indented under
// the task call), its end with status, note, tokens and cost, and each one's spend on the status
// line and in /cost. Words only; the Renderer and the commands print them.

import { t } from '../i18n/index.js';
import { formatCost, inert } from '../util/text.js';
import type { SpecialistEvent } from '../types/events.js';

const count = (n: number) => n.toLocaleString('en-US');

export { addSpend, type Spend } from '../app/specialists.js';
import type { Spend } from '../app/specialists.js';

/** A specialist event's line; undefined for none. */
export function specialistLine(e: SpecialistEvent): string | undefined {
  if (e.phase === 'tool') return t('agents.tool', { agent: e.agent, tool: e.tool ?? '', title: inert(e.title ?? '') }).trimEnd();
  if (e.phase === 'start') return undefined;
  return t('agents.end', { agent: e.agent, status: e.status ?? '', note: e.note ?? '-', tokens: count(e.tokens ?? 0), cost: formatCost(e.cost ?? null) });
}

/** `explore 12,345 tokens $0.01 · test …` for the status line. */
export function spendLine(tally: ReadonlyMap<string, Spend>): string {
  return [...tally].map(([agent, s]) => t('agents.spend', { agent, tokens: count(s.tokens), cost: formatCost(s.cost) })).join(' · ');
}

/** /cost's lines about the specialists of this session; none when none ran. */
export function spendReport(tally: ReadonlyMap<string, Spend>): string[] {
  if (!tally.size) return [];
  return [t('agents.cost_head'), ...[...tally].map(([agent, s]) => t('agents.cost_item', { agent, tokens: count(s.tokens), cost: formatCost(s.cost) }))];
}
