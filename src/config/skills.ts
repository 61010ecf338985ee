// Skills (Claude's Agent Skills format): folders holding a SKILL.md whose front matter gives a
// `name` and a `description`, found in the project's .feiyu/skills, .claude/skills and
// .agents/skills and the user's skills folders. Only the list is read here, cut to a budget: the
// model reads a skill's body (and the files beside it) when it decides to use one.

import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fieldText, parseFrontMatter, type BrokenFrontMatter, type FrontMatterProblem } from './frontmatter.js';
import { readInstructionFile, realOf, type Unreadable } from './conventions/walk.js';
import { shownPath, type ConventionPlaces } from './conventions.js';
import { inside } from '../util/paths.js';

/** Characters of descriptions the list may hold together; past it, skills are listed by name. */
export const SKILLS_BUDGET = 6_000;
/** A description longer than this is cut at a word: one line, not the whole "when to use" essay. */
export const DESCRIPTION_MAX = 250;
/** Skills listed at all; more are left out, and the interface says so. */
export const MAX_SKILLS = 100;

export type Skill = {
  name: string;
  /** One line, at most DESCRIPTION_MAX characters; empty when the budget left it out. */
  description: string;
  /** The skill's folder (a realpath). */
  dir: string;
  /** Its name in `group` (SKILL.md is `group`/`folder`/SKILL.md). */
  folder: string;
  /** The folder of skills it is in, as the model gives it to read_file (workspace-relative or absolute). */
  group: string;
  source: 'project' | 'user';
};

/** Why a skill was skipped: its SKILL.md has no front matter, one never closed, no description; another has its name; it links out. */
export type SkillProblem = { file: string; code: 'no_front_matter' | 'unclosed_front_matter' | 'no_description' | 'duplicate' | 'outside' };

export type LoadedSkills = {
  skills: Skill[];
  problems: SkillProblem[];
  /** Skills listed although a line of their front matter is broken. */
  broken: BrokenFrontMatter[];
  unreadable: Unreadable[];
  /** Skills left without a description by the budget, and left out by the count. */
  shortened: number;
  omitted: number;
  /** Folders outside the workspace that read_file may read: the user's skills. */
  readRoots: string[];
};

/** Where skills are looked for, the project's first (a project's skill wins over the user's of the same name). */
export function skillFolders(places: ConventionPlaces): { dir: string; source: Skill['source'] }[] {
  const { workspace, configDir, home } = places;
  return [
    ...['.feiyu', '.claude', '.agents'].map((d) => ({ dir: join(workspace, d, 'skills'), source: 'project' as const })),
    { dir: join(configDir, 'skills'), source: 'user' },
    ...(home ? [{ dir: join(home, '.claude', 'skills'), source: 'user' as const }] : []),
  ];
}

export function loadSkills(places: ConventionPlaces): LoadedSkills {
  const out: LoadedSkills = { skills: [], problems: [], broken: [], unreadable: [], shortened: 0, omitted: 0, readRoots: [] };
  const names = new Set<string>();
  for (const { dir, source } of skillFolders(places)) {
    for (const folder of subfolders(dir)) {
      const file = join(folder, 'SKILL.md');
      const real = realOf(folder);
      if (!real) continue;
      // A project's skill must stay in the project: its folder becomes readable by the model.
      if (source === 'project' && !inside(places.workspace, real)) {
        out.problems.push({ file: shownPath(places, file), code: 'outside' });
        continue;
      }
      const text = readInstructionFile(join(real, 'SKILL.md'), out.unreadable);
      if (text === undefined) continue;
      const shown = shownPath(places, file);
      const { fields, problem } = parseFrontMatter(text);
      const name = oneLine(fieldText(fields, 'name') ?? basename(folder)).slice(0, 64);
      const description = fieldText(fields, 'description');
      const skipped = skipWhy(text, problem, description, names.has(name));
      if (skipped || !description) {
        out.problems.push({ file: shown, code: skipped ?? 'no_description' });
        continue;
      }
      if (problem) out.broken.push({ file: shown, line: problem.line, why: problem.code });
      names.add(name);
      if (out.skills.length >= MAX_SKILLS) {
        out.omitted++;
        continue;
      }
      const group = source === 'project' ? shownPath(places, dir) : dir;
      out.skills.push({ name, description: shorten(oneLine(description)), dir: real, folder: basename(folder), group, source });
      if (source === 'user' && !out.readRoots.includes(real)) out.readRoots.push(real);
    }
  }
  let room = SKILLS_BUDGET;
  for (const skill of out.skills) {
    room -= skill.description.length;
    if (room >= 0) continue;
    skill.description = '';
    out.shortened++;
  }
  return out;
}

/** Why a SKILL.md cannot be listed, if it cannot. */
function skipWhy(text: string, problem: FrontMatterProblem | undefined, description: string | undefined, taken: boolean): SkillProblem['code'] | undefined {
  if (text.split('\n', 1)[0]!.trim() !== '---') return 'no_front_matter';
  if (problem?.code === 'unclosed') return 'unclosed_front_matter';
  if (!description) return 'no_description';
  return taken ? 'duplicate' : undefined;
}

/** The skill folders in `dir` (symbolic links to folders too), sorted by name; none when `dir` is missing. */
function subfolders(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.filter((n) => !n.startsWith('.')).map((n) => join(dir, n)).filter((p) => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  });
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** At most DESCRIPTION_MAX characters, cut at a word. */
function shorten(text: string): string {
  if (text.length <= DESCRIPTION_MAX) return text;
  const cut = text.lastIndexOf(' ', DESCRIPTION_MAX - 1);
  return `${text.slice(0, cut > DESCRIPTION_MAX / 2 ? cut : DESCRIPTION_MAX - 1)}…`;
}
