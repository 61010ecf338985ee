// The project's Markdown context at work: the instruction files found at start-up, the skills and
// the custom commands, loaded together (and again by /context), with what each load has to say as
// notices; and a subfolder's instruction files, added to the result of the first tool call that
// works there — a message, not a new system prompt, so the prompt cache keeps what it holds.
// Words nothing itself: core/prompt.ts writes for the model, the catalogue for the user.

import { loadCommands, type LoadedCommands } from '../config/commands.js';
import { CONVENTIONS_BUDGET, loadConventions, SUBFOLDER_BUDGET, shownUnreadable, SubfolderConventions, type ConventionFile, type ConventionPlaces, type ConventionProblem, type StartupConventions, type Unreadable } from '../config/conventions.js';
import { loadSkills, MAX_SKILLS, SKILLS_BUDGET, type LoadedSkills } from '../config/skills.js';
import { folderInstructions } from '../core/prompt.js';
import { describeCall } from '../util/calls.js';
import { FileReadError } from '../util/readfile.js';
import { formatSize } from '../content/filetype.js';
import type { ToolCallBlock } from '../types/conversation.js';
import type { NoticeCode, NoticeEvent } from '../types/events.js';
import type { Tool, ToolOutput } from '../types/tools.js';

export type MarkdownContext = { conventions: StartupConventions; skills: LoadedSkills; commands: LoadedCommands };

export async function loadMarkdownContext(places: ConventionPlaces): Promise<MarkdownContext> {
  const skills = loadSkills(places);
  const commands = loadCommands(places);
  // Files named as the rest of the interface names them (relative to the workspace, ~/…).
  return {
    conventions: await loadConventions(places),
    skills: { ...skills, unreadable: shownUnreadable(skills.unreadable, places) },
    commands: { ...commands, unreadable: shownUnreadable(commands.unreadable, places) },
  };
}

const notice = (code: NoticeCode, params: NoticeEvent['params']): NoticeEvent => ({ type: 'notice', code, params });
const count = (n: number): string => n.toLocaleString('en-US');

/** What the interface says about a load: cuts, refused imports and cycles, unreadable files, skipped skills and commands, broken front matter. */
export function contextNotices(loaded: MarkdownContext): NoticeEvent[] {
  const { conventions, skills, commands } = loaded;
  const out = [
    ...fileNotices(conventions.conventions.files, conventions.conventions.problems, CONVENTIONS_BUDGET),
    ...[...conventions.unreadable, ...skills.unreadable, ...commands.unreadable].map(unreadableNotice),
    ...skills.problems.map((p) => notice('skill_skipped', { file: p.file, why: p.code })),
    ...commands.problems.map((p) => notice('command_skipped', { file: p.file, why: p.code })),
    ...[...skills.broken, ...commands.broken].map((b) => notice('front_matter_broken', { file: b.file, line: b.line, why: b.why })),
  ];
  if (skills.shortened) out.push(notice('skills_shortened', { n: skills.shortened, budget: count(SKILLS_BUDGET) }));
  if (skills.omitted) out.push(notice('skills_omitted', { n: skills.omitted, max: MAX_SKILLS }));
  return out;
}

function fileNotices(files: readonly ConventionFile[], problems: readonly ConventionProblem[], budget: number): NoticeEvent[] {
  return [
    ...files.flatMap((f) => (f.cut ? [notice('instructions_cut', { file: f.shown, line: f.cut.line, kept: count(f.cut.kept), total: count(f.cut.total), budget: count(budget) })] : [])),
    ...problems.filter((p) => p.code !== 'missing').map((p) => notice('instructions_import_refused', { ref: p.ref, from: p.from, why: p.code })),
  ];
}

/** A file feiyu would read that is not a regular file, or is huge: which file, and what it is. */
export function fileNotice(err: FileReadError): NoticeEvent {
  const p = err.problem;
  if (p.code === 'not_regular') return { type: 'notice', code: 'file_not_regular', params: { file: err.file, kind: p.kind } };
  return { type: 'notice', code: 'file_too_big', params: { file: err.file, size: formatSize(p.size), max: formatSize(p.max) } };
}

/** A file that could not be read: not regular or too big (as for any file feiyu reads by itself), or another error. */
function unreadableNotice(u: Unreadable): NoticeEvent {
  return u instanceof FileReadError ? fileNotice(u) : notice('instruction_unreadable', { file: u.file, msg: u.message });
}

/**
 * Adds a subfolder's instruction files to the result of the first read or write there. Contract:
 * each folder once until `forget` (after a compaction or a resume, which may have dropped them).
 */
export class FolderInstructions {
  constructor(
    private readonly folders: SubfolderConventions,
    private readonly notify: (event: NoticeEvent) => void,
  ) {}

  forget(): void {
    this.folders.forget();
  }

  reset(startup: Set<string>): void {
    this.folders.reset(startup);
  }

  amend(call: ToolCallBlock, tool: Tool, result: ToolOutput): ToolOutput {
    if (tool.kind !== 'read' && tool.kind !== 'write') return result;
    const path = describeCall(tool, call.input)?.path;
    const taken = path === undefined ? null : this.folders.take(path);
    if (!taken) return result;
    for (const n of [...fileNotices(taken.files, taken.problems, SUBFOLDER_BUDGET), ...taken.unreadable.map(unreadableNotice)]) this.notify(n);
    for (const command of taken.verify) this.notify(notice('verify_not_run', { command }));
    if (!taken.files.length) return result;
    return { ...result, output: `${result.output}\n\n${folderInstructions(taken.files)}` };
  }
}
