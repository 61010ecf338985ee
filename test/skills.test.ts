// Skills in Claude's Agent Skills format: found in the project's and the user's folders, listed
// in the system prompt by name and one line (the per-skill token cost measured and held), cut to
// a budget with the interface told; the body read with read_file, which the policy allows in the
// user's skill folders (inside feiyu's configuration folder) and nowhere else there.
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { loadSkills, SKILLS_BUDGET } from '../src/config/skills.js';
import { systemPrompt, type SkillLine } from '../src/core/prompt.js';
import { checkCall } from '../src/safety/policy.js';
import { readFileTool } from '../src/tools/fs.js';
import type { ToolCallBlock } from '../src/types/conversation.js';
import { TOOLS } from './policy-fixture.js';
import { usePlaces } from './places-fixture.js';

const fresh = usePlaces('feiyu-skills');

// Anthropic's pdf skill opens like this: a description folded over several lines.
const PDF = `---
name: pdf
description: Use this skill whenever the user wants to do anything with PDF files.
  This includes reading or extracting text/tables from PDFs, combining or merging
  multiple PDFs into one, splitting PDFs apart, rotating pages, adding watermarks.
license: Proprietary. LICENSE.txt has complete terms
---

# PDF Processing Guide

Read REFERENCE.md for advanced features.
`;
const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps.\n`;

describe('finding skills', () => {
  it('reads the project folders, then the user folders; a project skill wins; bad ones are said', () => {
    const places = fresh({
      'ws/.claude/skills/pdf/SKILL.md': PDF,
      'ws/.feiyu/skills/release-notes/SKILL.md': skill('release-notes', 'Write release notes from the git log since the last tag.'),
      'ws/.agents/skills/db/SKILL.md': '---\nname: database-migrations\ndescription: "Write and check SQL migrations: one change per file."\n---\nbody',
      'ws/.claude/skills/empty/SKILL.md': '---\nname: empty\n---\nno description',
      'ws/.claude/skills/notes.md': 'a file, not a skill folder',
      'home/.config/feiyu/skills/pdf/SKILL.md': skill('pdf', 'the user\'s own pdf skill'),
      'home/.config/feiyu/skills/commit/SKILL.md': skill('commit', 'Write a commit message in the team style.'),
      'home/.claude/skills/review/SKILL.md': skill('review', 'Review a diff for bugs.'),
    });
    const loaded = loadSkills(places);
    expect(loaded.skills.map(({ name, description, group, folder, source }) => ({ name, description, group, folder, source }))).toEqual([
      { name: 'release-notes', description: 'Write release notes from the git log since the last tag.', group: '.feiyu/skills', folder: 'release-notes', source: 'project' },
      {
        name: 'pdf',
        description: 'Use this skill whenever the user wants to do anything with PDF files. This includes reading or extracting text/tables from PDFs, combining or merging multiple PDFs into one, splitting PDFs apart, rotating pages, adding watermarks.',
        group: '.claude/skills',
        folder: 'pdf',
        source: 'project',
      },
      { name: 'database-migrations', description: 'Write and check SQL migrations: one change per file.', group: '.agents/skills', folder: 'db', source: 'project' },
      { name: 'commit', description: 'Write a commit message in the team style.', group: join(places.configDir, 'skills'), folder: 'commit', source: 'user' },
      { name: 'review', description: 'Review a diff for bugs.', group: join(places.home, '.claude', 'skills'), folder: 'review', source: 'user' },
    ]);
    expect(loaded.problems).toEqual([
      { file: '.claude/skills/empty/SKILL.md', code: 'no_description' },
      { file: '~/.config/feiyu/skills/pdf/SKILL.md', code: 'duplicate' },
    ]);
    expect(loaded.readRoots).toEqual([join(places.configDir, 'skills', 'commit'), join(places.home, '.claude', 'skills', 'review')]);
  });

  it('says why a SKILL.md with no front matter, or one never closed, is skipped, and lists one with a stray line', () => {
    const places = fresh({
      'ws/.claude/skills/notes/SKILL.md': '# Notes\n\nHow we take meeting notes.\n',
      'ws/.claude/skills/unclosed/SKILL.md': '---\nname: unclosed\ndescription: Never closed.\n\n# Unclosed\n',
      'ws/.claude/skills/stray/SKILL.md': "---\nname: stray\ndescription: 'Release checklist'\n  - not a list here\nversion 2\n---\n# Stray\n",
      'ws/.claude/skills/crlf/SKILL.md': '---\r\nname: crlf\r\ndescription: Written on Windows.\r\n---\r\nbody\r\n',
    });
    const loaded = loadSkills(places);
    expect(loaded.skills.map((s) => [s.name, s.description])).toEqual([
      ['crlf', 'Written on Windows.'],
      ['stray', 'Release checklist'],
    ]);
    expect(loaded.problems).toEqual([
      { file: '.claude/skills/notes/SKILL.md', code: 'no_front_matter' },
      { file: '.claude/skills/unclosed/SKILL.md', code: 'unclosed_front_matter' },
    ]);
    // The first thing wrong is named: a line after a value closed on its own (line 5 is wrong too).
    expect(loaded.broken).toEqual([{ file: '.claude/skills/stray/SKILL.md', line: 4, why: 'bad_line' }]);
  });

  it('refuses a project skill folder that links out of the project; follows the user\'s links', () => {
    const places = fresh({ 'elsewhere/x/SKILL.md': skill('x', 'linked in'), 'dotfiles/y/SKILL.md': skill('y', 'from dotfiles') });
    mkdirSync(join(places.workspace, '.claude', 'skills'), { recursive: true });
    symlinkSync(join(places.workspace, '..', 'elsewhere', 'x'), join(places.workspace, '.claude', 'skills', 'x'));
    mkdirSync(join(places.configDir, 'skills'), { recursive: true });
    symlinkSync(join(places.workspace, '..', 'dotfiles', 'y'), join(places.configDir, 'skills', 'y'));
    const loaded = loadSkills(places);
    expect(loaded.skills.map((s) => [s.name, s.dir])).toEqual([['y', join(places.workspace, '..', 'dotfiles', 'y')]]);
    expect(loaded.problems).toEqual([{ file: '.claude/skills/x/SKILL.md', code: 'outside' }]);
    expect(loaded.readRoots).toEqual([join(places.workspace, '..', 'dotfiles', 'y')]);
  });

  it('keeps each description to one line of at most 250 characters, and lists by name only past the budget', () => {
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`ws/.claude/skills/s${String(i).padStart(2, '0')}/SKILL.md`, skill(`s${String(i).padStart(2, '0')}`, long)]));
    const loaded = loadSkills(fresh(files));
    const first = loaded.skills[0]!.description;
    expect([first.length <= 250, first.endsWith('…'), first.includes('\n')]).toEqual([true, true, false]);
    const described = loaded.skills.filter((s) => s.description).length;
    expect({ described, shortened: loaded.shortened, omitted: loaded.omitted }).toEqual({ described: Math.floor(SKILLS_BUDGET / 250), shortened: 30 - 24, omitted: 0 });
  });
});

describe('the list in the system prompt', () => {
  const root = '/home/user/project';
  const lines: SkillLine[] = [
    { name: 'pdf', description: 'Extract text and tables from PDF files, fill forms, merge documents.', group: '.claude/skills', folder: 'pdf' },
    { name: 'database-migrations', description: 'Write and check SQL migrations.', group: '.claude/skills', folder: 'db' },
    { name: 'commit', description: 'Write a commit message in the team style.', group: '/home/user/.config/feiyu/skills', folder: 'commit' },
  ];

  it('is a compact list: how to use a skill once, then one line per skill under its folder', () => {
    expect(systemPrompt(root, [], [], lines).split('\n\n').at(-1)).toBe(
      [
        '# Skills',
        'When a task matches a skill below, first read_file <folder>/<skill>/SKILL.md and follow it; files it names are beside it.',
        'In .claude/skills/:',
        '- pdf: Extract text and tables from PDF files, fill forms, merge documents.',
        '- database-migrations (folder db): Write and check SQL migrations.',
        'In /home/user/.config/feiyu/skills/:',
        '- commit: Write a commit message in the team style.',
      ].join('\n'),
    );
    // No skills, no section: the fixed prompt of a project without skills is as before.
    expect(systemPrompt(root, [], [], [])).toBe(systemPrompt(root));
  });

  it('costs about 3 o200k tokens a skill beyond its name and description, and under 45 for the heading', () => {
    const tokens = (skills: SkillLine[]) => encode(systemPrompt(root, [], [], skills)).length;
    const none = tokens([]);
    const one = tokens(lines.slice(0, 1));
    const own = (s: SkillLine) => encode(s.name).length + encode(s.description).length;
    // The heading, the how-to line and the first folder line.
    expect(one - none - own(lines[0]!)).toBeLessThanOrEqual(45);
    const perSkill = tokens(lines.slice(0, 2)) - one - own(lines[1]!);
    // "- name: description\n": the dash, the colon and the line end (the folder note costs a few more).
    expect(perSkill).toBeLessThanOrEqual(8);
    const plain: SkillLine = { name: 'release-notes', description: 'Write release notes from the git log since the last tag.', group: '.claude/skills', folder: 'release-notes' };
    expect(tokens([lines[0]!, plain]) - one - own(plain)).toBeLessThanOrEqual(3);
  });
});

describe('reading a skill', () => {
  it('read_file reads a user skill outside the workspace; the policy allows it there and keeps the rest of the config folder secret', async () => {
    const places = fresh({
      'home/.config/feiyu/skills/commit/SKILL.md': skill('commit', 'Write a commit message.'),
      'home/.config/feiyu/skills/commit/.env': 'TOKEN=1',
      'home/.config/feiyu/keys.json': '{}',
    });
    const { readRoots } = loadSkills(places);
    const file = join(places.configDir, 'skills', 'commit', 'SKILL.md');
    const ctx = { root: places.workspace, signal: new AbortController().signal, files: new Map(), shell: { cwd: places.workspace }, env: {}, readRoots };
    expect((await readFileTool.run({ path: file }, ctx)).output).toContain('# commit');
    expect(ctx.files.size).toBe(0);
    expect(await readFileTool.run({ path: file }, { ...ctx, readRoots: [] })).toMatchObject({ isError: true, output: expect.stringContaining('outside the workspace') });
    const verdict = (name: 'read_file' | 'write_file', path: string) => {
      const call: ToolCallBlock = { type: 'tool_call', id: 'c', name, input: { path, content: 'x' } };
      const input = { mode: 'auto' as const, rules: { allow: [], deny: [] }, root: places.workspace, home: places.home, configDir: places.configDir, cwd: places.workspace, readRoots };
      // What the refusal says it touches.
      return checkCall(call, TOOLS[name], input).then((v) => [v.decision, v.decision === 'deny' ? /touches (.*?)\. feiyu/.exec(v.reason)?.[1] : '']);
    };
    expect(await verdict('read_file', file)).toEqual(['allow', '']);
    expect(await verdict('read_file', join(dirname(file), '.env'))).toEqual(['deny', 'an environment file with secrets (.env)']);
    expect(await verdict('read_file', join(places.configDir, 'keys.json'))).toEqual(['deny', "feiyu's API keys (keys.json)"]);
    expect(await verdict('write_file', file)).toEqual(['deny', "feiyu's own configuration folder (settings, approvals and trust are changed by the user only)"]);
  });
});
