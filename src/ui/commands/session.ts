// The slash commands about the conversation itself: /cost, /compact, /clear, /resume, /context
// and /memory. Each prints through the Renderer and asks through the Io of the Session.

import { spawnSync } from 'node:child_process';
import { ConfigError, SessionBusyError } from '../../app/config.js';
import type { Session } from './session-type.js';
import { estimateTokens } from '../../core/compact.js';
import { instructionText, skillList } from '../../core/prompt.js';
import { contextNotices } from '../../app/context.js';
import { noticeText } from '../../i18n/explain.js';
import { confirm } from '../confirm.js';
import { costReport, formatCostReport } from '../../session/costreport.js';
import { t } from '../../i18n/index.js';
import { addNote, deleteNote, listNotes, notesFile } from '../../tools/memory.js';
import { listSessions } from '../../session/listing.js';
import type { Message } from '../../types/conversation.js';
import type { ToolRow } from '../../core/tooltable.js';
import { color } from '../render.js';
import { formatCost, inert, localDateTime } from '../../util/text.js';
import { table, truncate } from '../width.js';
import { spendReport } from '../specialists.js';

const count = (n: number) => n.toLocaleString('en-US');

export function costCommand(_arg: string, s: Session): void {
  const { app, ui } = s;
  for (const line of formatCostReport(costReport(app.stateDir, app.root), t)) ui.line(line);
  const totals = app.agent.totals;
  ui.line(
    t('cost.session', {
      cost: formatCost(totals.costUnknown ? null : totals.cost),
      requests: totals.requests,
      input: count(totals.input + totals.cacheRead + totals.cacheWrite),
      output: count(totals.output),
    }),
  );
  for (const line of spendReport(app.specialists.spend)) ui.line(line);
}

export async function compactCommand(arg: string, s: Session): Promise<void> {
  s.ui.note(t('compact.running'));
  // The compaction event itself is printed by the Renderer.
  const event = await s.busy((signal) => s.app.agent.compact(signal, { force: true, focus: arg || undefined }));
  if (!event) s.ui.note(t('compact.nothing'));
}

/** Nothing is lost, so nothing is asked: the conversation so far stays in /resume. */
export function clearCommand(_arg: string, s: Session): void {
  s.app.newSession();
  s.undo.clear();
  s.ui.line(t('clear.done'));
}

export async function resumeCommand(_arg: string, s: Session): Promise<void> {
  const { app, ui, input } = s;
  const sessions = listSessions(app.stateDir, app.root, 11)
    .filter((info) => info.id !== app.session.id)
    .slice(0, 10);
  if (!sessions.length) return ui.note(t('resume.none'));
  sessions.forEach((info, i) => {
    const request = truncate(inert(info.name ? `${info.name} — ${info.firstRequest}` : info.firstRequest), Math.max(10, ui.columns() - 40));
    ui.line(t('resume.item', { n: i + 1, when: localDateTime(new Date(info.updated)), rounds: info.rounds, cost: formatCost(info.cost), request }));
  });
  const answer = (await input.question(t('resume.pick')))?.trim();
  const picked = answer ? sessions[Number(answer) - 1] : undefined;
  if (!picked) return;
  try {
    // What it says about the resumed session comes as notices on the event stream.
    await resumeOrFork(s, picked.id);
  } catch (err) {
    return ui.fail(err instanceof ConfigError ? err.message : String(err));
  }
  s.undo.clear();
  s.refreshPrompt();
  const totals = app.agent.totals;
  ui.line(t('resume.resumed', { id: picked.id, messages: app.agent.messages.length, cost: formatCost(totals.costUnknown ? null : totals.cost) }));
}

/** Resumes the session, or when another feiyu has it open and the user agrees, a fork of it. */
async function resumeOrFork(s: Session, id: string): Promise<void> {
  try {
    return await s.app.resume(id);
  } catch (err) {
    if (!(err instanceof SessionBusyError) || !(await confirm(s, t('resume.fork_ask')))) throw err;
    return s.app.resume(id, { fork: true });
  }
}

/** Tokens of the tool results in `messages`, and of everything else. */
function conversationTokens(messages: readonly Message[]): { results: number; rest: number } {
  let results = 0;
  for (const m of messages) for (const b of m.content) if (b.type === 'tool_result') results += estimateTokens(b.content);
  return { results, rest: Math.max(0, estimateTokens(messages) - results) };
}

export async function contextCommand(_arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  const { markdown, memory } = await app.reloadContext();
  const { files, ignored, problems } = markdown.conventions.conventions;
  const skills = markdown.skills.skills;
  ui.line(t('files.context_reloaded', { files: files.length, skills: skills.length, commands: markdown.commands.commands.length }));
  if (!files.length) ui.note(t('files.context_none'));
  const system = estimateTokens(app.agent.prompt());
  const fileRows = files.map((f): [string, string] => {
    const named = f.importedBy ? t('files.context_imported', { file: f.shown, by: f.importedBy }) : t(f.scope === 'user' ? 'files.context_user_file' : 'files.context_file', { file: f.shown });
    const label = f.cut ? t('files.context_cut_label', { file: named, line: f.cut.line }) : named;
    return [inert(label), count(estimateTokens(instructionText(f)))];
  });
  const inFiles = files.reduce((n, f) => n + estimateTokens(instructionText(f)), 0);
  const skillTokens = skills.length ? estimateTokens(skillList(skills)) : 0;
  const notes = memory ? estimateTokens(memory) : 0;
  const declared = app.agent.tools.declared();
  const tools = estimateTokens(JSON.stringify(declared));
  const rows = app.agent.tools.rows();
  const listed = rows.filter((r) => r.briefTokens > 0);
  const lines = listed.reduce((sum, r) => sum + r.briefTokens, 0);
  const { results, rest } = conversationTokens(app.agent.messages);
  const used = system + tools + results + rest;
  const window = app.model.contextWindow;
  ui.line(t('context.total', { used: count(used), window: count(window), pct: Math.round((used / window) * 100) }));
  const sizes: [string, string][] = [
    [t('context.system'), count(Math.max(0, system - inFiles - skillTokens - notes - lines))],
    ...fileRows,
    ...(skills.length ? [[t('files.context_skills', { n: skills.length }), count(skillTokens)] as [string, string]] : []),
    ...(notes ? [[t('context.memory'), count(notes)] as [string, string]] : []),
    [t('tools.declared', { n: declared.length }), count(tools)],
    ...(listed.length ? [[t('tools.cold_lines', { n: listed.length }), count(lines)] as [string, string]] : []),
    [t('context.messages', { n: app.agent.messages.length }), count(rest)],
    [t('context.results'), count(results)],
    [t('context.free'), count(Math.max(0, window - used))],
  ];
  for (const line of table(sizes, ui.columns())) ui.line(line);
  for (const f of files.filter((f) => f.cut)) ui.note(inert(t('files.context_cut', { file: f.shown, line: f.cut!.line, kept: count(f.cut!.kept), total: count(f.cut!.total) })));
  for (const i of ignored) ui.note(inert(t('files.context_ignored', { file: i.shown, used: i.used })));
  for (const p of problems.filter((p) => p.code === 'missing')) ui.note(inert(t('files.context_missing', { ref: p.ref, from: p.from })));
  // Everything else a load has to say, as at start-up (the cuts are in the table above).
  for (const n of contextNotices(markdown).filter((n) => n.code !== 'instructions_cut')) ui.warn(inert(noticeText(n)));
  ui.line(t('tools.head'));
  for (const line of table(rows.map(toolLine), ui.columns())) ui.line(line);
  if (!app.agent.tools.deferring) ui.note(t('tools.off'));
}

function toolLine(r: ToolRow): [string, string] {
  const params = { schema: count(r.schemaTokens), line: count(r.briefTokens) };
  if (r.tier === 'cold') return [r.name, t(r.demoted ? 'tools.demoted' : 'tools.cold', params)];
  return [r.name, t(r.tier === 'loaded' ? 'tools.loaded' : 'tools.hot', params)];
}

export async function memoryCommand(arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  const [sub = '', ...rest] = arg.split(/\s+/);
  const text = rest.join(' ');
  if (sub === 'add') {
    const problem = addNote(app.stateDir, app.root, 'project', text);
    return problem ? ui.fail(t('memory.not_added', { why: problem })) : ui.line(t('memory.added'));
  }
  if (sub === 'rm') {
    const note = listNotes(app.stateDir, app.root)[Number(text) - 1];
    if (!note) return ui.fail(t('memory.no_such', { n: text }));
    return deleteNote(app.stateDir, app.root, note) ? ui.line(t('memory.removed', { text: note.text })) : ui.fail(t('memory.changed'));
  }
  if (sub === 'edit') {
    const file = notesFile(app.stateDir, app.root, text === 'user' ? 'user' : 'project');
    const editor = app.env.VISUAL || app.env.EDITOR || 'vi';
    const run = s.input.suspended(() => spawnSync(`${editor} '${file.replace(/'/g, `'\\''`)}'`, { shell: true, stdio: 'inherit' }));
    if (run.error || run.status !== 0) ui.fail(t('memory.editor_failed', { editor, msg: run.error?.message ?? String(run.status) }));
    return ui.note(t('memory.reload_hint'));
  }
  if (sub) return ui.fail(t('memory.usage'));
  const notes = listNotes(app.stateDir, app.root);
  if (!notes.length) return ui.note(t('memory.none'));
  notes.forEach((n, i) => ui.line(`${String(i + 1).padStart(3)}. ${ui.paint(color.dim, `${t(n.scope === 'user' ? 'memory.user' : 'memory.project')} ${n.date}`)} ${n.text}`));
  ui.note(t('memory.reload_hint'));
}
