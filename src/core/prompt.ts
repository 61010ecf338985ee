// The system prompt: the base instructions, the extras the session adds, the list of skills and
// the instruction files (read by config/); and the block that brings a subfolder's instruction
// files into the conversation. Reads no files. Contract: the prompt is byte-for-byte stable for a
// session — no clock, no changing state — so provider prompt caches hit on every request.

const BASE = `You are feiyu, a coding agent working in the user's project through tools. The workspace root is {root}; file paths are relative to it.

How to work:
- Look before you change: search and read the relevant code first. Read a file before writing or editing it; edit_file needs the exact current text.
- Make the smallest change that does the job, in the project's existing style. Prefer edit_file over rewriting a whole file.
- After changing code, run the project's tests or build when there are any, and fix what you broke.
- Batch independent reads in one reply; they run in parallel.
- A tool error tells you what went wrong: adjust and retry, do not repeat the same call.
- If a tool call is refused, do not try to get around the refusal; explain what you need to the user.
- Never invent file contents, command output or results. Say plainly when something failed or is unfinished.
- Answer in the language the user writes in. Be brief: lead with the result, then what changed and anything the user must do. Refer to code as path:line.`;

/** An instruction file as the prompt shows it. */
export type InstructionText = { shown: string; text: string; scope: 'user' | 'project'; importedBy?: string };

/** A skill as the prompt lists it: its SKILL.md is `group`/`folder`/SKILL.md, as read_file takes it. */
export type SkillLine = { name: string; description: string; group: string; folder: string };

/**
 * The system prompt for a session in `root`: the base (`base` replaces feiyu's instructions:
 * --system-prompt), the extras, the skills, then the instruction files.
 */
export function systemPrompt(root: string, instructions: readonly InstructionText[] = [], extra: string[] = [], skills: readonly SkillLine[] = [], base = BASE): string {
  const parts = [base.replace('{root}', root), ...extra];
  if (skills.length) parts.push(skillList(skills));
  for (const file of instructions) parts.push(instructionText(file));
  return parts.join('\n\n');
}

/** One instruction file as the prompt carries it (its heading says whose it is and where it is). */
export function instructionText(file: InstructionText): string {
  const whose = file.scope === 'user' ? "The user's conventions" : 'Project conventions';
  const from = file.importedBy ? `${file.shown}, imported by ${file.importedBy}` : file.shown;
  return `# ${whose} (from ${from})\n\n${file.text.trim()}`;
}

/**
 * The skills, one line each (name and description), grouped by folder. Contract: about 3 tokens
 * a skill beyond its name and description; the body is read only when the model uses one.
 */
export function skillList(skills: readonly SkillLine[]): string {
  const lines = ['# Skills', 'When a task matches a skill below, first read_file <folder>/<skill>/SKILL.md and follow it; files it names are beside it.'];
  let group: string | undefined;
  for (const skill of skills) {
    if (skill.group !== group) lines.push(`In ${(group = skill.group)}/:`);
    const name = skill.folder === skill.name ? skill.name : `${skill.name} (folder ${skill.folder})`;
    lines.push(skill.description ? `- ${name}: ${skill.description}` : `- ${name}`);
  }
  return lines.join('\n');
}

/** The instruction files of a folder the model just started working in, added to that tool result. */
export function folderInstructions(files: readonly InstructionText[]): string {
  const body = files.map(instructionText).join('\n\n');
  return `<folder-instructions>\nThe project has instructions for the folder you are working in; follow them there.\n\n${body}\n</folder-instructions>`;
}
