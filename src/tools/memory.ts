// Long-term memory: short dated notes the model keeps across sessions (the `remember` tool), one
// file per project and one for the user under <state>/memory/, loaded into the system prompt under
// a size cap, and listed, edited and deleted for /memory. Must not judge what is worth keeping
// (the model does) nor touch any other file.

import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readRegularFile } from '../util/readfile.js';
import { writeFileAtomic } from '../util/paths.js';
import { localDate } from '../util/text.js';
import { basename, join } from 'node:path';
import { toolError, type Tool } from '../types/tools.js';

export type MemoryScope = 'project' | 'user';

/** One note; `line` is its index in the file, for deleteNote. `date` is '' when the line has none. */
export type Note = { scope: MemoryScope; date: string; text: string; line: number };

/** Characters of notes in the system prompt, by default; the oldest go first past it. */
export const MEMORY_CAP = 4000;
const MAX_NOTE = 500;
const DATED = /^(\d{4}-\d{2}-\d{2})\s+(.*)$/;

/** `<basename>-<hash>`: readable in a listing, distinct for two projects with the same name. */
export function projectId(root: string): string {
  const name = basename(root).replace(/[^\p{L}\p{N}._-]+/gu, '_') || 'root';
  return `${name}-${createHash('sha256').update(root).digest('hex').slice(0, 10)}`;
}

const fileOf = (stateDir: string, root: string, scope: MemoryScope): string =>
  join(stateDir, 'memory', scope === 'user' ? 'user.md' : `${projectId(root)}.md`);

/** The notes file of `scope`, created empty (0600, folder 0700) when missing, so $EDITOR can open it. */
export function notesFile(stateDir: string, root: string, scope: MemoryScope): string {
  const file = fileOf(stateDir, root, scope);
  mkdirSync(join(stateDir, 'memory'), { recursive: true, mode: 0o700 });
  writeFileSync(file, '', { flag: 'a', mode: 0o600 });
  return file;
}

/** Past this a notes file is not one feiyu wrote: it is not read. */
const MAX_NOTES_BYTES = 1 << 20;

function readLines(file: string): string[] {
  try {
    return (readRegularFile(file, MAX_NOTES_BYTES) ?? '').split('\n');
  } catch {
    return [];
  }
}

/** A line as a note: a bullet or a plain line; blank lines and Markdown headings are not notes. */
function parseLine(line: string): { date: string; text: string } | null {
  const body = line.replace(/^\s*[-*]\s+/, '').trim();
  if (!body || body.startsWith('#')) return null;
  const dated = DATED.exec(body);
  return dated ? { date: dated[1]!, text: dated[2]!.trim() } : { date: '', text: body };
}

const bullet = (note: { date: string; text: string }): string => `- ${note.date ? `${note.date} ` : ''}${note.text}`;

/** The notes of both files, project first, each in file order (oldest first). */
export function listNotes(stateDir: string, root: string): Note[] {
  return (['project', 'user'] as const).flatMap((scope) =>
    readLines(fileOf(stateDir, root, scope)).flatMap((line, i) => {
      const note = parseLine(line);
      return note ? [{ scope, ...note, line: i }] : [];
    }),
  );
}

/** Removes `note` (from listNotes); false when its line no longer holds it (the file changed meanwhile). */
export function deleteNote(stateDir: string, root: string, note: Note): boolean {
  const file = fileOf(stateDir, root, note.scope);
  const lines = readLines(file);
  const found = parseLine(lines[note.line] ?? '');
  if (found?.text !== note.text || found.date !== note.date) return false;
  lines.splice(note.line, 1);
  writeFileAtomic(file, lines.join('\n'), { private: true });
  return true;
}

/** Appends one note dated today; returns a problem worded for the model, or null. */
export function addNote(stateDir: string, root: string, scope: MemoryScope, text: string, now = new Date()): string | null {
  const note = text.replace(/\s+/g, ' ').trim();
  if (!note) return 'the note is empty';
  if (note.length > MAX_NOTE) return `keep a note under ${MAX_NOTE} characters: one fact, not a report`;
  const file = notesFile(stateDir, root, scope);
  const lines = readLines(file);
  if (lines.some((line) => parseLine(line)?.text === note)) return null;
  // A file last edited by hand may lack its final newline.
  const kept = lines.at(-1) ? lines : lines.slice(0, -1);
  writeFileAtomic(file, [...kept, bullet({ date: localDate(now), text: note }), ''].join('\n'), { private: true });
  return null;
}

/**
 * The notes for the system prompt, under `cap` characters of notes; past it the oldest are
 * dropped (`dropped` counts them, for /memory). An undated line (added in an editor) counts as
 * being as old as the note before it. Empty text when there are no notes.
 */
export function loadMemory(stateDir: string, root: string, cap = MEMORY_CAP): { text: string; dropped: number } {
  const notes = listNotes(stateDir, root);
  let previous: Note | undefined;
  const aged = notes.map((note) => {
    const date = note.date || (previous?.scope === note.scope ? previous.date : '');
    previous = { ...note, date };
    return { note, date };
  });
  // Oldest first, ties in listing order; the newest that fit are kept.
  const byAge = [...aged].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const kept = new Set<Note>();
  let used = 0;
  for (const { note } of byAge.reverse()) {
    used += bullet(note).length + 1;
    if (used > cap) break;
    kept.add(note);
  }
  const section = (scope: MemoryScope, title: string): string[] => {
    const lines = notes.filter((n) => n.scope === scope && kept.has(n)).map(bullet);
    return lines.length ? [title, ...lines] : [];
  };
  const body = [...section('project', 'About this project:'), ...section('user', 'About the user:')];
  if (!body.length) return { text: '', dropped: notes.length };
  const head = '# Memory\n\nNotes you saved in earlier sessions with the remember tool. They may be out of date: check one before relying on it.';
  return { text: [head, ...body].join('\n'), dropped: notes.length - kept.size };
}

type RememberArgs = { note: string; scope: MemoryScope };

/** The `remember` tool, saving under `stateDir` (keys.ts stateDir(env)). */
export function rememberTool(stateDir: string): Tool<RememberArgs> {
  return {
    name: 'remember',
    brief: 'save a lasting note for future sessions',
    description:
      "Save one short note for future sessions: a lasting fact about this project (scope project) or the user's preferences (scope user). Not for the current task's progress.",
    parameters: {
      type: 'object',
      properties: { note: { type: 'string' }, scope: { enum: ['project', 'user'] } },
      required: ['note', 'scope'],
      additionalProperties: false,
    },
    kind: 'meta',
    describe: (a) => ({ title: a.note }),
    async run(args, ctx) {
      const problem = addNote(stateDir, ctx.root, args.scope, args.note);
      if (problem) return toolError(problem);
      return { output: `Saved to ${args.scope} memory; future sessions will see it.` };
    },
  };
}
