// Notes: a specialist's whole structured result (conclusion, facts with where, open questions,
// status), one JSON file per note in a folder beside the session file, so that conclusions outlive
// compaction and --resume and stay addressable by id. Owns the note's shape, its text, the index
// shown after a compaction and read_note; must not decide where sessions live (the app says).

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/paths.js';
import { isObject } from '../util/jsonfile.js';
import { toolError, type Tool } from '../types/tools.js';

export type HandoffStatus = 'done' | 'partial' | 'blocked';
export type Fact = { fact: string; where: string };

/** What a specialist hands back (the structured result it must submit). */
export type Handoff = { conclusion: string; facts: Fact[]; open_questions: string[]; status: HandoffStatus };

export type Note = Handoff & { id: string; agent: string; task: string; model: string; tokens: number; created: string };

/** The schema a specialist's final answer is checked against (submit_result). */
export const HANDOFF_SCHEMA = {
  type: 'object',
  properties: {
    conclusion: { type: 'string', description: 'The answer, concise (usually under 200 words)' },
    facts: {
      type: 'array',
      items: {
        type: 'object',
        properties: { fact: { type: 'string' }, where: { type: 'string', description: 'path:line, a symbol or a URL' } },
        required: ['fact', 'where'],
      },
    },
    open_questions: { type: 'array', items: { type: 'string' } },
    status: { type: 'string', enum: ['done', 'partial', 'blocked'] },
  },
  required: ['conclusion', 'facts', 'open_questions', 'status'],
} as const;

const NOTE_ID = /^n\d{1,6}$/;
/** Characters of a note one read_note call returns. */
const PAGE_CHARS = 20_000;

/** A session's notes folder: the session file's path without .jsonl, plus .notes. */
export const notesDirOf = (sessionFile: string): string => sessionFile.replace(/\.jsonl$/, '') + '.notes';

/** The notes of one session. Contract: a note once written never changes; ids count up from n1. */
export class NoteStore {
  constructor(readonly dir: string) {}

  ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .map((n) => n.replace(/\.json$/, ''))
      .filter((id) => NOTE_ID.test(id))
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  }

  get(id: string): Note | undefined {
    if (!NOTE_ID.test(id)) return undefined;
    try {
      const note: unknown = JSON.parse(readFileSync(join(this.dir, `${id}.json`), 'utf8'));
      return isObject(note) && typeof note.conclusion === 'string' ? (note as Note) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Writes the note under the next id (0600, folder 0700); throws when the disk refuses. */
  add(note: Omit<Note, 'id' | 'created'>): Note {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const last = this.ids().at(-1);
    const id = `n${last ? Number(last.slice(1)) + 1 : 1}`;
    const whole: Note = { id, ...note, created: new Date().toISOString() };
    writeFileAtomic(join(this.dir, `${id}.json`), JSON.stringify(whole, null, 1) + '\n', { private: true });
    return whole;
  }

  /** The notes' index, one line each; '' when there are none. */
  index(): string {
    const lines = this.ids().flatMap((id) => {
      const note = this.get(id);
      return note ? [`- ${id} (${note.agent}, ${note.status}): ${firstLine(note.conclusion)}`] : [];
    });
    return lines.length ? `Notes from specialists earlier in this session (read_note(id) gives one whole):\n${lines.join('\n')}` : '';
  }

  /** A forked session starts with the original's notes. */
  copyFrom(other: NoteStore): void {
    if (existsSync(other.dir)) cpSync(other.dir, this.dir, { recursive: true });
  }

  delete(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  return line.length > 120 ? line.slice(0, 119) + '…' : line;
}

/** A note as the model reads it whole. */
export function renderNote(note: Note): string {
  const facts = note.facts.map((f) => `- ${f.fact} (${f.where})`);
  const open = note.open_questions.map((q) => `- ${q}`);
  return [
    `Note ${note.id} by ${note.agent} (${note.status}), task: ${note.task}`,
    '',
    'Conclusion:',
    note.conclusion.trim(),
    ...(facts.length ? ['', 'Facts:', ...facts] : []),
    ...(open.length ? ['', 'Open questions:', ...open] : []),
  ].join('\n');
}

/** read_note: a note whole, paged by characters. Kind `read`: it reads feiyu's own file. */
export function readNoteTool(notes: () => NoteStore | undefined): Tool<{ id: string; offset?: number }> {
  return {
    name: 'read_note',
    brief: "a specialist's whole note, by id",
    description: "A specialist's note by id (n1 …): conclusion, facts with where, open questions. offset pages a long one.",
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' }, offset: { type: 'integer', minimum: 0 } },
      required: ['id'],
      additionalProperties: false,
    },
    kind: 'read',
    describe: (a) => ({ title: typeof a.id === 'string' ? a.id : '' }),
    async run({ id, offset = 0 }) {
      const store = notes();
      const note = store?.get(id);
      if (!note) {
        const ids = store?.ids() ?? [];
        return toolError(`no note ${JSON.stringify(id)} in this session; notes: ${ids.length ? ids.join(', ') : 'none yet'}`);
      }
      const text = renderNote(note);
      if (offset >= text.length && offset > 0) return toolError(`offset ${offset} is past the note's end (${text.length} characters)`);
      const page = text.slice(offset, offset + PAGE_CHARS);
      const end = offset + page.length;
      const more = end < text.length ? `\n[characters ${offset}–${end} of ${text.length}; call read_note with offset ${end} to continue]` : '';
      return { output: page + more, summary: { key: 'ok' } };
    },
  };
}
