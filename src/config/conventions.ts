// Instruction files (FEIYU.md, AGENTS.md, CLAUDE.md): the user's own first, then one level at a
// time from the project root down to the workspace (walk.ts), each with its `@imports`
// (imports.ts), fitted into a shared budget with every cut said (budget.ts); the `verify:` lines
// of all of them; and, during the session, the files of subfolders the model starts working in.
// Reads files only; core/prompt.ts words what the model sees.

import { realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { verifyLines } from './mdrefs.js';
import { CONVENTIONS_BUDGET, fitBudget, SUBFOLDER_BUDGET, type Cut } from './conventions/budget.js';
import { withImports, type ImportPlace, type ImportProblem, type Part } from './conventions/imports.js';
import { foldersBetween, projectRootOf, readInstructionFile, readLevel, realOf, type Unreadable } from './conventions/walk.js';
import { inside } from '../util/paths.js';
import { FileReadError } from '../util/readfile.js';

export { CONVENTIONS_BUDGET, SUBFOLDER_BUDGET, type Cut } from './conventions/budget.js';
export type { Unreadable } from './conventions/walk.js';

export type ConventionPlaces = { workspace: string; home: string; configDir: string };

/** One instruction file as the model gets it. */
export type ConventionFile = {
  path: string;
  /** Relative to the workspace inside it, else ~/… inside the home folder, else absolute. */
  shown: string;
  /** The user's own file (and what it imports) or the project's. */
  scope: 'user' | 'project';
  /** The importing file, as shown. */
  importedBy?: string;
  /** The text sent, with a note where it was cut. */
  text: string;
  /** Characters of the whole file. */
  chars: number;
  cut?: Cut;
};

/** A reference not imported, with the importing file as shown. */
export type ConventionProblem = ImportProblem;

/** What could not be read, each named as shown. */
export function shownUnreadable(unreadable: readonly Unreadable[], places: Pick<ConventionPlaces, 'workspace' | 'home'> & { project?: string }): Unreadable[] {
  return unreadable.map((u) => (u instanceof FileReadError ? new FileReadError(shownPath(places, u.file), u.problem) : { ...u, file: shownPath(places, u.file) }));
}

function shownProblems(problems: readonly ImportProblem[], places: ConventionPlaces & { project?: string }): ConventionProblem[] {
  return problems.map((p) => ({ ...p, from: shownPath(places, p.from) }));
}

export type Conventions = {
  files: ConventionFile[];
  /** Files passed over because another file of the same folder is used (both as shown). */
  ignored: { shown: string; used: string }[];
  problems: ConventionProblem[];
  /** The `verify:` commands: the user's run always, the project's once it is trusted. */
  verify: { user: string[]; project: string[] };
};

export type LoadedConventions = { conventions: Conventions; unreadable: Unreadable[] };

/** Everything found at start-up (or by /context), and the realpaths taken, which later additions skip. */
export type StartupConventions = LoadedConventions & { seen: Set<string> };

export async function loadConventions(places: ConventionPlaces): Promise<StartupConventions> {
  const { workspace, configDir } = places;
  const project = projectRootOf(workspace);
  const place = importPlace(places, project);
  const unreadable: Unreadable[] = [];
  const seen = new Set<string>();
  const collected: Collected = { parts: [], problems: [], ignored: [] };
  const userFile = join(configDir, 'FEIYU.md');
  const userText = readInstructionFile(userFile, unreadable);
  const userCount = userText === undefined ? 0 : take(collected, withImports({ path: userFile, text: userText }, place, seen, unreadable));
  for (const folder of foldersBetween(project, workspace)) takeLevel(collected, folder, place, seen, unreadable);
  const verify = {
    user: unique(collected.parts.slice(0, userCount).flatMap((p) => verifyLines(p.text))),
    project: unique(collected.parts.slice(userCount).flatMap((p) => verifyLines(p.text))),
  };
  const shown = { ...places, project };
  const files = fitted(collected.parts, CONVENTIONS_BUDGET, shown, (i) => (i < userCount ? 'user' : 'project'));
  return { conventions: { files, ignored: shownIgnored(collected, shown), problems: shownProblems(collected.problems, shown), verify }, unreadable: shownUnreadable(unreadable, shown), seen };
}

type Collected = { parts: Part[]; problems: ImportProblem[]; ignored: { path: string; used: string }[] };

function take(into: Collected, result: { parts: Part[]; problems: ImportProblem[] }): number {
  into.parts.push(...result.parts);
  into.problems.push(...result.problems);
  return result.parts.length;
}

function takeLevel(into: Collected, folder: string, place: ImportPlace, seen: Set<string>, unreadable: Unreadable[]): void {
  const level = readLevel(folder, unreadable);
  into.ignored.push(...level.ignored);
  for (const file of level.files) if (!seen.has(realOr(file.path))) take(into, withImports(file, place, seen, unreadable));
}

function fitted(parts: Part[], budget: number, places: ConventionPlaces & { project?: string }, scopeOf: (i: number) => ConventionFile['scope']): ConventionFile[] {
  const show = (path: string) => shownPath(places, path);
  const fit = fitBudget(parts, budget, (cut) => cutNote(show(cut.path), cut, budget));
  return parts.map((part, i) => {
    const { text, cut } = fit[i]!;
    const file: ConventionFile = { path: part.path, shown: show(part.path), scope: scopeOf(i), text, chars: part.text.length };
    if (part.importedBy) file.importedBy = show(part.importedBy);
    if (cut) file.cut = cut;
    return file;
  });
}

/** The note at a cut, for the model. */
const cutNote = (shown: string, cut: Cut, budget: number): string =>
  `[… ${shown} is cut here: ${cut.kept} of ${cut.total} characters fit the ${budget.toLocaleString('en-US')}-character budget of instruction files; it goes on at line ${cut.line} (read_file it if it matters).]`;

function shownIgnored(collected: Collected, places: ConventionPlaces & { project?: string }) {
  return collected.ignored.map((i) => ({ shown: shownPath(places, i.path), used: shownPath(places, i.used) }));
}

/**
 * How a path is shown to the user and the model: relative to the workspace inside it or inside the
 * project above it (`../AGENTS.md`), else ~/… in the home folder, else absolute.
 */
export function shownPath(places: Pick<ConventionPlaces, 'workspace' | 'home'> & { project?: string }, path: string): string {
  const within = [places.workspace, places.project].find((dir) => dir && inside(dir, path));
  if (within) return relative(places.workspace, path).split(sep).join('/') || '.';
  if (places.home && inside(places.home, path)) return `~/${relative(places.home, path).split(sep).join('/')}`;
  return path;
}

function importPlace(places: ConventionPlaces, project: string): ImportPlace {
  return { roots: [project, places.home].filter(Boolean).map(realOr), home: places.home, configDir: realOr(places.configDir) };
}

const realOr = (path: string): string => realOf(path) ?? path;

const unique = (items: string[]): string[] => [...new Set(items)];

/** What the files of subfolders bring when the model first works there. */
export type FolderConventions = { files: ConventionFile[]; problems: ConventionProblem[]; unreadable: Unreadable[]; verify: string[] };

/**
 * The instruction files of subfolders, each folder once: `take` gives those of the folders from
 * the workspace down to a path that were not taken yet; `forget` starts over (after a compaction
 * or a resume the messages that carried them may be gone). Files taken at start-up are skipped.
 */
export class SubfolderConventions {
  private folders = new Set<string>();
  private seen: Set<string>;

  constructor(
    private readonly places: ConventionPlaces,
    private startup: Set<string>,
  ) {
    this.seen = new Set(startup);
  }

  /** After /context reloaded the start-up files. */
  reset(startup: Set<string>): void {
    this.startup = startup;
    this.forget();
  }

  forget(): void {
    this.folders.clear();
    this.seen = new Set(this.startup);
  }

  /** `path`: what a tool call touches, relative to the workspace or absolute. Null when nothing is new. */
  take(path: string): FolderConventions | null {
    const { workspace } = this.places;
    const folder = folderOf(resolve(workspace, path));
    if (!folder || folder === workspace || !inside(workspace, folder)) return null;
    const fresh = foldersBetween(workspace, folder).slice(1).filter((f) => !this.folders.has(f));
    if (!fresh.length) return null;
    const unreadable: Unreadable[] = [];
    const collected: Collected = { parts: [], problems: [], ignored: [] };
    const place = importPlace(this.places, projectRootOf(workspace));
    for (const f of fresh) {
      this.folders.add(f);
      takeLevel(collected, f, place, this.seen, unreadable);
    }
    if (!collected.parts.length && !collected.problems.length && !unreadable.length) return null;
    const files = fitted(collected.parts, SUBFOLDER_BUDGET, this.places, () => 'project');
    return { files, problems: shownProblems(collected.problems, this.places), unreadable: shownUnreadable(unreadable, this.places), verify: unique(collected.parts.flatMap((p) => verifyLines(p.text))) };
  }
}

/** The folder a path is in (itself when it is one), as a realpath; for a path not there yet, the nearest folder that is. */
function folderOf(abs: string): string | null {
  try {
    const real = realpathSync(abs);
    return statSync(real).isDirectory() ? real : dirname(real);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? null : folderOf(parent);
  }
}
