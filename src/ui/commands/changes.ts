// /diff and /commit: what this session changed, from its first checkpoint to the files now (in
// the REPL's diff colours; without checkpoints, the file tools' own record), and a commit of those
// files with a message the model proposes in one side request, made after the user confirms, as
// the user's own command (app/usergit.ts). Prints and asks; runs git only through app/.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { changedForGit, commitFiles, recentSubjects, repositoryOf } from '../../app/usergit.js';
import { decode, sniffType } from '../../content/filetype.js';
import { t } from '../../i18n/index.js';
import { oneShot } from '../../util/oneshot.js';
import { writeFileAtomic } from '../../util/paths.js';
import { inert } from '../../util/text.js';
import { color } from '../render.js';
import { truncate } from '../width.js';
import type { Session } from './session-type.js';

/** Lines of a patch shown; the rest is counted. */
const PATCH_LINES = 600;
/** Characters of the patch sent for a commit message. */
const PATCH_CHARS = 40_000;

/** The session's changed files and its patch; null when there is no record at all. */
async function sessionChanges(s: Session): Promise<{ files: string[]; patch?: string } | null> {
  const rewind = s.app.rewind;
  const fromCheckpoints = rewind && !(await rewind.off()) ? await rewind.patch() : null;
  if (fromCheckpoints) return fromCheckpoints;
  const changed = s.undo.changedFiles();
  return changed.length ? { files: changed.map((c) => c.shown) } : null;
}

export async function diffCommand(_arg: string, s: Session): Promise<void> {
  const { ui } = s;
  const changes = await sessionChanges(s);
  if (!changes?.files.length) return ui.note(t('changes.none'));
  if (changes.patch === undefined) return recordDiff(s);
  const stats = patchStats(changes.patch);
  ui.line(t('changes.title', { n: changes.files.length }));
  for (const [file, st] of stats) ui.line(`  ${ui.paint(color.green, `+${st.added}`)} ${ui.paint(color.red, `-${st.removed}`)} ${inert(file)}`);
  showPatch(s, changes.patch);
}

/** Without checkpoints: each file the file tools changed, against how it was before (the REPL's compact diff). */
async function recordDiff(s: Session): Promise<void> {
  const { ui } = s;
  const changed = s.undo.changedFiles();
  ui.line(t('changes.title', { n: changed.length }));
  for (const c of changed) {
    const bytes = await readFile(c.abs).catch(() => null);
    const sniffed = bytes && sniffType(bytes);
    const after = bytes && sniffed?.kind === 'text' ? decode(bytes, sniffed.encoding, false) : '';
    ui.showChange({ path: c.shown, before: c.before, after });
  }
  ui.note(t('changes.record_only'));
}

/** +/- counts per file of a patch, in its order. */
function patchStats(patch: string): Map<string, { added: number; removed: number }> {
  const stats = new Map<string, { added: number; removed: number }>();
  let current: { added: number; removed: number } | undefined;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    const head = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (head) {
      current = { added: 0, removed: 0 };
      stats.set(head[2]!, current);
      inHunk = false;
    } else if (line.startsWith('@@')) inHunk = true;
    else if (current && inHunk && line.startsWith('+')) current.added++;
    else if (current && inHunk && line.startsWith('-')) current.removed++;
  }
  return stats;
}

function showPatch(s: Session, patch: string): void {
  const { ui } = s;
  const p = ui.paint;
  const lines = patch.replace(/\n$/, '').split('\n');
  const room = ui.columns() - 1;
  for (const raw of lines.slice(0, PATCH_LINES)) {
    const line = truncate(inert(raw).replace(/\t/g, '  '), room);
    if (raw.startsWith('diff --git')) ui.line('\n' + p(color.bold, line));
    else if (raw.startsWith('@@')) ui.line(p(color.cyan, line));
    else if (raw.startsWith('+++') || raw.startsWith('---')) ui.line(p(color.bold, line));
    else if (raw.startsWith('+')) ui.line(p(color.green, line));
    else if (raw.startsWith('-')) ui.line(p(color.red, line));
    else if (raw.startsWith(' ')) ui.line(line);
    else ui.line(p(color.dim, line));
  }
  if (lines.length > PATCH_LINES) ui.note(t('changes.more_lines', { n: lines.length - PATCH_LINES }));
}

const COMMIT_SYSTEM =
  'You write the git commit message for a change. Reply with the message alone, no quotes or code fences: a summary line of at most 72 characters in the imperative mood, then, when the change needs it, a blank line and a short body saying what changed and why. Follow the style of the recent subjects when there are any.';

export async function commitCommand(_arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  if (!repositoryOf(app.root)) return ui.fail(t('commit.no_repo'));
  const changes = await sessionChanges(s);
  const files = changes && (await changedForGit(app.root, app.env, changes.files));
  if (!files?.length) return ui.note(t('commit.nothing'));
  ui.note(t('commit.writing', { n: files.length }));
  const subjects = await recentSubjects(app.root, app.env);
  const diff = changes!.patch ?? '';
  const text = [
    subjects.length ? `Recent subjects:\n${subjects.map((l) => `- ${l}`).join('\n')}` : '',
    `Files: ${files.join(', ')}`,
    diff ? `The diff:\n${diff.length > PATCH_CHARS ? diff.slice(0, PATCH_CHARS) + '\n[… the rest of the diff left out]' : diff}` : '',
  ].filter(Boolean).join('\n\n');
  const reply = await s.busy((signal) => oneShot(app.agent.provider, { system: COMMIT_SYSTEM, text, maxTokens: 500, signal }));
  app.agent.countUsage(reply.usage, reply.usageEstimated, true);
  if (reply.error || !reply.text) return ui.fail(t('commit.no_message', { msg: reply.error?.message ?? reply.stopReason }));
  let message = reply.text.replace(/^```\w*\n?|\n?```$/g, '').trim();
  for (;;) {
    ui.line(t('commit.proposed', { n: files.length, files: inert(files.join(', ')) }));
    for (const line of message.split('\n')) ui.line(`    ${ui.paint(color.bold, inert(line))}`);
    const key = await s.input.key(`  ${t('commit.choices')} › `);
    if (key === 'e') {
      const edited = editMessage(s, message);
      if (edited === null) return;
      if (!edited) return ui.note(t('commit.empty'));
      message = edited;
      continue;
    }
    if (key !== 'y' && key !== 'yes') return ui.note(t('commit.cancelled'));
    break;
  }
  const done = commitFiles(app.root, app.env, files, message, (fn) => s.input.suspended(fn));
  if (done.status !== 0) return ui.fail(t('commit.failed', { why: done.error ?? String(done.status) }));
  ui.line(ui.paint(color.green, t('commit.done', { subject: inert(truncate(message.split('\n')[0]!, ui.columns() - 20)) })));
}

/** The message after the user's editor; null when the editor failed (said), '' when emptied. */
function editMessage(s: Session, message: string): string | null {
  const { app, ui } = s;
  const file = join(app.stateDir, 'commit-message.txt');
  writeFileAtomic(file, message + '\n', { private: true });
  try {
    const editor = app.env.VISUAL || app.env.EDITOR || 'vi';
    const run = s.input.suspended(() => spawnSync(`${editor} '${file.replace(/'/g, `'\\''`)}'`, { shell: true, stdio: 'inherit', env: app.env }));
    if (run.error || run.status !== 0) {
      ui.fail(t('commit.editor_failed', { editor, msg: run.error?.message ?? String(run.status) }));
      return null;
    }
    return readFileSync(file, 'utf8').trim();
  } finally {
    rmSync(file, { force: true });
  }
}
