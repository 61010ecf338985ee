// /rewind and /undo. /rewind lists the session's turns and goes back to before one of them: the
// workspace's files, the conversation, or both (Claude Code's choice), asking before overwriting
// files that something else changed since. /undo keeps its meaning: the files the last turn that
// changed any changed are put back, nothing else, the conversation stays; again goes one further. Without checkpoints
// (no git, the home folder) /undo uses the file tools' own record. Prints and asks; decides nothing.

import type { FileOutcome, FilePlan, Turn } from '../../app/rewind.js';
import { t } from '../../i18n/index.js';
import { inert } from '../../util/text.js';
import { color } from '../render.js';
import { truncate } from '../width.js';
import type { Session } from './session-type.js';

/** Paths named on one line before "and N more". */
const NAMED = 8;

const named = (paths: string[]) => inert(paths.length > NAMED ? `${paths.slice(0, NAMED).join(', ')} ${t('rewind.more', { n: paths.length - NAMED })}` : paths.join(', '));

const clock = (iso: string) => {
  const d = new Date(iso);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
};

/** A turn's request on one line. */
const requestLine = (turn: Turn, room: number) => truncate(inert(turn.text.replace(/\s+/g, ' ').trim()), Math.max(10, room));

export async function rewindCommand(arg: string, s: Session): Promise<void> {
  const { ui, input } = s;
  const rewind = s.app.rewind;
  const turns = rewind ? await rewind.turns() : [];
  if (!rewind || !turns.length) return ui.note(t('rewind.none'));
  let picked = arg ? turns[Number(arg) - 1] : undefined;
  if (arg && !picked) return ui.fail(t('rewind.no_such', { n: arg, last: turns.length }));
  if (!picked) {
    ui.line(t('rewind.title'));
    turns.forEach((turn, i) => {
      const files = turn.count === undefined ? ui.paint(color.dim, '—') : turn.count ? t('rewind.files', { n: turn.count }) : ui.paint(color.dim, t('rewind.no_files'));
      ui.line(`${String(i + 1).padStart(3)}. ${ui.paint(color.dim, clock(turn.at))}  ${requestLine(turn, ui.columns() - 30)}  ${files}`);
    });
    if (await rewind.off()) ui.note(t('rewind.files_off'));
    const answer = (await input.question(t('rewind.pick')))?.trim();
    picked = answer ? turns[Number(answer) - 1] : undefined;
    if (!picked) return;
  }
  const conversation = rewind.canRewindConversation(picked);
  const plan = await rewind.planFiles(picked.n);
  const files = plan && !('error' in plan) && (plan.restore.length || plan.remove.length) ? plan : undefined;
  ui.line(t('rewind.before', { request: requestLine(picked, ui.columns() - 20) }));
  if (files) describePlan(s, files);
  else if (plan && 'error' in plan) ui.warn(t('rewind.no_checkpoint', { why: inert(plan.error) }));
  else ui.note(t('rewind.files_same'));
  if (!conversation) ui.note(t('rewind.conversation_gone'));
  if (!files && !conversation) return;
  const choices = [...(files && conversation ? [t('rewind.choose_both')] : []), ...(files ? [t('rewind.choose_files')] : []), ...(conversation ? [t('rewind.choose_conversation')] : [])];
  const key = await input.key(`  ${choices.join(' · ')} · ${t('rewind.choose_cancel')} › `);
  const wantFiles = files !== undefined && (key === 'f' || (key === 'b' && conversation));
  const wantConversation = conversation && (key === 'c' || (key === 'b' && files !== undefined));
  if (!wantFiles && !wantConversation) return ui.note(t('rewind.cancelled'));
  const overwrite = wantFiles ? await askOverwrite(s, files!) : false;
  if (overwrite === undefined) return ui.note(t('rewind.cancelled'));
  const result = await rewind.rewind(picked.n, { ...(wantFiles && { files, overwrite }), conversation: wantConversation });
  s.undo.clear();
  if (result.files) report(s, result.files, 'rewind.restored');
  if (result.request === undefined) {
    if (result.files) tellFiles(s, result.files, `ran /rewind: these files are back as they were before the request "${picked.text.slice(0, 80)}"`);
    return;
  }
  ui.line(ui.paint(color.green, t('rewind.conversation_done')));
  if (input.tty) {
    input.prefill(result.request);
    ui.note(t('rewind.prefilled'));
  }
}

/** What the files would do, conflicts first. */
function describePlan(s: Session, plan: FilePlan): void {
  const { ui } = s;
  if (plan.restore.length) ui.line(`  ${t('rewind.plan_restore', { n: plan.restore.length, files: named(plan.restore.map(plan.shown)) })}`);
  if (plan.remove.length) ui.line(`  ${t('rewind.plan_remove', { n: plan.remove.length, files: named(plan.remove.map(plan.shown)) })}`);
  if (plan.tooBig.length) ui.note(`  ${t('rewind.plan_too_big', { files: named(plan.tooBig.map(plan.shown)) })}`);
}

/** Changed since by something else: overwrite them too (true), keep them (false), or cancel (undefined). */
async function askOverwrite(s: Session, plan: FilePlan): Promise<boolean | undefined> {
  if (!plan.conflicts.length) return false;
  s.ui.warn(t('rewind.conflicts', { n: plan.conflicts.length, files: named(plan.conflicts.map(plan.shown)) }));
  const key = await s.input.key(`  ${t('rewind.conflict_choices')} › `);
  return key === 'o' ? true : key === 'k' ? false : undefined;
}

function report(s: Session, out: FileOutcome, key: 'rewind.restored' | 'undo.restored'): void {
  const { ui } = s;
  if (out.restored.length) ui.line(ui.paint(color.green, t(key, { files: named(out.restored) })));
  if (out.removed.length) ui.line(ui.paint(color.green, t('rewind.removed', { files: named(out.removed) })));
  if (out.kept.length) ui.note(t('rewind.kept', { files: named(out.kept) }));
  for (const f of out.failed) ui.warn(t('rewind.failed', { file: inert(f.path), why: inert(f.why) }));
}

/** The model hears with the next message which files are back, so it reads them again. */
function tellFiles(s: Session, out: FileOutcome, what: string): void {
  const changed = [...out.restored, ...out.removed];
  if (changed.length) s.tellModel(`[The user ${what}: ${changed.join(', ')}. Read them again before changing them.]`);
}

export async function undoCommand(_arg: string, s: Session): Promise<void> {
  const rewind = s.app.rewind;
  if (!rewind || (await rewind.off())) return undoFromRecord(s);
  const { ui } = s;
  const turn = await rewind.undoTarget();
  const plan = turn && (await rewind.planFiles(turn.n, true));
  if (plan && 'error' in plan) return ui.fail(t('rewind.no_checkpoint', { why: inert(plan.error) }));
  if (!turn || !plan || (!plan.restore.length && !plan.remove.length)) return ui.note(t('rewind.undo_nothing'));
  const overwrite = await askOverwrite(s, plan);
  if (overwrite === undefined) return ui.note(t('rewind.cancelled'));
  const result = await rewind.rewind(turn.n, { files: plan, overwrite, undo: true });
  s.undo.clear();
  if (!result.files) return;
  report(s, result.files, 'undo.restored');
  tellFiles(s, result.files, `ran /undo: these files are back as they were before your turn for "${turn.text.slice(0, 80)}"`);
}

/** /undo from the file tools' record: what write_file and edit_file changed (bash is not seen). */
async function undoFromRecord(s: Session): Promise<void> {
  const { ui } = s;
  const result = await s.undo.undo(s.app.files);
  if (!result) return ui.note(t('undo.nothing'));
  if (result.restored.length) {
    ui.line(ui.paint(color.green, t('undo.restored', { files: result.restored.join(', ') })));
    s.tellModel(
      `[The user ran /undo: these files are back as they were before your previous turn: ${result.restored.join(', ')}. Read them again before changing them.]`,
    );
  }
  for (const { path, why } of result.skipped) ui.warn(t(why === 'changed' ? 'undo.changed' : 'undo.failed', { file: path }));
}

