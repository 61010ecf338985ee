// The questions feiyu puts to the person: may this tool call run (exactly what, why it asks, and
// the choices y/n/s/a), is this plan approved, and plain yes/no. A single key on a terminal, a
// line otherwise. Contract: only y, s and a approve a call; any other answer declines it.

import { readFileSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { visible } from '../safety/bash/analysis.js';
import { hasKey, t } from '../i18n/index.js';
import type { LineInput } from './input.js';
import { inside } from '../util/paths.js';
import { showCodePoints } from '../util/text.js';
import type { AskAnswer, AskRequest, PlanVerdict } from '../types/permissions.js';
import type { CallPreview, FileChange } from '../types/tools.js';
import { color, type Renderer } from './render.js';

export type Io = { ui: Renderer; input: LineInput; app?: { root: string } };

/**
 * What a call asked about would change (its preview), as whole files, so the user sees it with
 * its real line numbers before answering. The existing file is read only when its realpath is
 * inside the workspace; an edit whose text is not found there is shown as the replacement alone.
 */
function pendingChange(preview: CallPreview | undefined, root: string | undefined): FileChange | undefined {
  if (preview?.kind !== 'edit' && preview?.kind !== 'write') return undefined;
  const existing = readInside(preview.path, root);
  if (preview.kind === 'write') return { path: preview.path, before: existing, after: preview.content };
  const after = existing === null ? null : replaced(existing, preview.before, preview.after, preview.replaceAll === true);
  return after === null ? { path: preview.path, before: preview.before, after: preview.after } : { path: preview.path, before: existing, after };
}

function readInside(path: string, root: string | undefined): string | null {
  try {
    const real = realpathSync(resolve(root ?? '/nonexistent', path));
    return root && inside(root, real) ? readFileSync(real, 'utf8') : null;
  } catch {
    return null; // a new file: all of it is added
  }
}

/** The file with the edit applied (LF or CRLF, as edit_file matches), or null when `old` is not in it. */
function replaced(text: string, old: string, now: string, all: boolean): string | null {
  for (const eol of ['\r\n', '\n']) {
    const from = old.replace(/\r?\n/g, eol);
    if (!text.includes(from)) continue;
    const to = now.replace(/\r?\n/g, eol);
    return all ? text.split(from).join(to) : text.replace(from, () => to);
  }
  return null;
}

/** Runs `ask` with the spinner stopped and the turn's output written, answering undefined on abort. */
async function asking<T>(io: Io, signal: AbortSignal | undefined, ask: () => Promise<T>): Promise<T> {
  io.ui.hold();
  const cancel = () => io.input.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await ask();
  } finally {
    signal?.removeEventListener('abort', cancel);
    io.ui.release();
  }
}

// Letters and signs that pass for ASCII ones (Greek, Cyrillic, Armenian, dashes and minus signs,
// fullwidth letters, digits, '-', '.', '/'): in a command or path they can hide what really runs
// or is written. Chinese punctuation (，：（）) stays as it is.
const LOOKALIKE = /[\u0370-\u058f\u2010-\u2015\u2212\uff0d-\uff19\uff21-\uff3a\uff41-\uff5a]/g;

/** What will run or be touched, with hidden characters and look-alikes shown as ⟨U+XXXX⟩. */
export function shown(display: string): string {
  return showCodePoints(visible(display), LOOKALIKE);
}

/** Lines of a pending change shown before the question (a whole new file past this is summarised). */
const APPROVAL_DIFF_LINES = 400;

/** How many of the things a destructive command would lose the question names. */
const LOST_SHOWN = 12;

/** `agent`: the specialist that made the call, named before the question. */
export function askPermission(io: Io, req: AskRequest, signal: AbortSignal, agent?: string): Promise<AskAnswer> {
  const { ui, input } = io;
  const p = ui.paint;
  return asking(io, signal, async () => {
    const by = agent ? p(color.cyan, t('agents.asks', { agent })) : '';
    const head = by + (req.destructive ? p(color.boldRed, `⚠ ${t('confirm.title_destructive', { tool: req.tool })}`) : p(color.yellow, `? ${t('confirm.title', { tool: req.tool })}`));
    ui.line(head);
    for (const line of shown(req.display).split('\n')) ui.line(`    ${p(color.bold, line)}`);
    const change = pendingChange(req.preview, io.app?.root);
    // What is approved is shown whole: every changed line, wrapped, never cut.
    if (change) ui.showChange(change, APPROVAL_DIFF_LINES);
    const reasonKey = `ask.${req.reasonCode}`;
    if (hasKey(reasonKey)) ui.line(`  ${t('confirm.why', { why: shown(t(reasonKey, req.reasonParams)) })}`);
    if (req.lost?.length) {
      const more = req.lost.length > LOST_SHOWN ? [t('confirm.lost_more', { n: req.lost.length - LOST_SHOWN })] : [];
      ui.line(`  ${p(color.boldRed, t('confirm.lost', { what: shown([...req.lost.slice(0, LOST_SHOWN), ...more].join(', ')) }))}`);
    }
    const always = req.suggestedRules.length > 0;
    if (always) ui.note(`  ${t('confirm.saves', { rules: shown(req.suggestedRules.join(', ')) })}`);
    const choices = [t('confirm.yes'), t('confirm.no'), ...(always ? [t('confirm.always')] : []), t('confirm.auto')].join(' · ');
    const key = await input.key(`  ${choices} › `);
    if (key === 'y' || key === 'yes') return { answer: 'yes' };
    if (key === 'a') return { answer: 'auto' };
    if (key === 's' && always) return { answer: 'always' };
    if (key !== 'n' && key !== 'no') {
      ui.note(`  ${t('confirm.declined')}`);
      return { answer: 'no' };
    }
    const reason = (await input.question(`  ${t('confirm.reason')}`))?.trim();
    return reason ? { answer: 'no', reason } : { answer: 'no' };
  });
}

export function approvePlan(io: Io, plan: string, signal: AbortSignal): Promise<PlanVerdict> {
  const { ui, input } = io;
  return asking(io, signal, async () => {
    ui.line(ui.paint(color.cyan, `◆ ${t('plan.title')}`));
    ui.showMarkdown(plan);
    const key = await input.key(`  ${t('plan.choices')} › `);
    if (key === 'y' || key === 'yes') return { approved: true };
    const feedback = key === 'n' || key === 'no' ? (await input.question(`  ${t('plan.feedback')}`))?.trim() : undefined;
    return feedback ? { approved: false, feedback } : { approved: false };
  });
}

/** A yes/no question that defaults to no. */
export async function confirm(io: Io, question: string): Promise<boolean> {
  const key = await asking(io, undefined, () => io.input.key(question));
  return key === 'y' || key === 'yes';
}
