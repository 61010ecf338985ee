// The slash commands: the table (name, usage, one line of help in each language), dispatch (the
// built-in ones first, then the user's and the project's custom commands), Tab completion, /help,
// and the commands that only look at or switch a setting. Session-level commands live in
// session.ts, /key in key.ts. Prints through the Renderer, asks through the Io; never writes to
// the terminal itself.

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Completer } from 'node:readline';
import { ConfigError } from '../../app/config.js';
import { clearCommand, compactCommand, contextCommand, costCommand, memoryCommand, resumeCommand } from './session.js';
import { rewindCommand, undoCommand } from './rewind.js';
import { commitCommand, diffCommand } from './changes.js';
import { exportCommand, renameCommand } from './export.js';
import { getLang, Problem, problemText, setLang, t, type MessageKey } from '../../i18n/index.js';
import { unsandboxedWhy } from '../../i18n/explain.js';
import type { JobInfo } from '../../tools/jobs.js';
import { keyCommand } from './key.js';
import { agentsCommand } from './agents.js';
import { mcpCommand } from './mcp.js';
import { effortCommand, initCommand, lastCommand } from './habits.js';
import { indexCommand } from './codeindex.js';
import { saveUserSettings } from '../../config/settings.js';
import { PERMISSION_MODES, SANDBOX_LEVELS, type PermissionMode, type SandboxLevel } from '../../types/permissions.js';
import { color } from '../render.js';
import { modeName } from '../welcome.js';
import { table } from '../width.js';
import { inert } from '../../util/text.js';
import { findCustom, parseSlash, type CustomCommand } from '../../config/commands.js';

/** What a command may use: the app, the terminal, and the REPL's own state. */
export type { Session } from './session-type.js';
import type { Session } from './session-type.js';

export type Command = {
  name: string;
  /** Its arguments, as shown in /help. */
  args?: string;
  help: MessageKey;
  run(arg: string, s: Session): Promise<'exit' | void> | 'exit' | void;
};

export const COMMANDS: Command[] = [
  { name: '/help', help: 'cmd.help', run: (_arg, s) => help(s) },
  { name: '/mode', args: '[mode]', help: 'cmd.mode', run: modeCommand },
  { name: '/model', args: '[name]', help: 'cmd.model', run: modelCommand },
  { name: '/key', args: '[add|list|remove|default]', help: 'cmd.key', run: keyCommand },
  { name: '/cost', help: 'cmd.cost', run: costCommand },
  { name: '/jobs', args: '[stop N]', help: 'cmd.jobs', run: jobsCommand },
  { name: '/compact', args: '[focus]', help: 'cmd.compact', run: compactCommand },
  { name: '/clear', help: 'cmd.clear', run: clearCommand },
  { name: '/resume', help: 'cmd.resume', run: resumeCommand },
  { name: '/context', help: 'cmd.context', run: contextCommand },
  { name: '/agents', help: 'cmd.agents', run: agentsCommand },
  { name: '/sandbox', args: '[level]', help: 'cmd.sandbox', run: sandboxCommand },
  { name: '/todo', help: 'cmd.todo', run: todoCommand },
  { name: '/memory', args: '[add|rm|edit]', help: 'cmd.memory', run: memoryCommand },
  { name: '/lang', args: '[en|zh]', help: 'cmd.lang', run: langCommand },
  { name: '/undo', help: 'cmd.undo', run: undoCommand },
  { name: '/mcp', args: '[restart NAME]', help: 'mcp.cmd', run: mcpCommand },
  { name: '/rewind', args: '[N]', help: 'rewind.cmd', run: rewindCommand },
  { name: '/diff', help: 'changes.cmd_diff', run: diffCommand },
  { name: '/commit', help: 'changes.cmd_commit', run: commitCommand },
  { name: '/export', args: '[md|json] [file]', help: 'changes.cmd_export', run: exportCommand },
  { name: '/rename', args: 'NAME', help: 'changes.cmd_rename', run: renameCommand },
  { name: '/last', help: 'cmd.last', run: lastCommand },
  { name: '/init', args: '[FEIYU.md|AGENTS.md]', help: 'cmd.init', run: initCommand },
  { name: '/effort', args: '[low|medium|high|default]', help: 'cmd.effort', run: effortCommand },
  { name: '/index', args: '[rebuild]', help: 'cmd.index', run: indexCommand },
  { name: '/exit', help: 'cmd.exit', run: () => 'exit' },
  { name: '/quit', help: 'cmd.quit', run: () => 'exit' },
];

export type Found = { command: Command; arg: string } | { custom: CustomCommand; arg: string } | { unknown: string };

/**
 * The command a line names, with its argument: a built-in one, else a custom one (`custom`); null
 * when the line is a message. An unknown `/word` alone is reported; with more after it ("/tmp is
 * full") it is a message.
 */
export function findCommand(line: string, custom: readonly CustomCommand[] = []): Found | null {
  const slash = parseSlash(line);
  if (!slash) return null;
  const arg = slash.arg ?? '';
  const command = COMMANDS.find((c) => c.name === `/${slash.name}`);
  const found = findCustom(custom, slash.name);
  if (command && !(found && YIELDING.has(command.name))) return { command, arg };
  if (found) return { custom: found, arg };
  return slash.arg === undefined ? { unknown: `/${slash.name}` } : null;
}

/**
 * Built-ins that a command file of the same name replaces: Claude Code has none of these, so a
 * `commit.md` or `init.md` written for it must run as its author wrote it. Every other built-in
 * wins over a file, so that no project can take /mode, /sandbox or /exit from the user.
 */
const YIELDING = new Set(['/commit', '/init']);

const isBuiltIn = (name: string): boolean => COMMANDS.some((c) => c.name === `/${name}`) && !YIELDING.has(`/${name}`);

/** Tab completion: /commands (built-in, `custom()` and `more()`: the MCP servers' prompts), and @paths under the workspace. */
export function completer(root: string, custom: () => readonly CustomCommand[], more: () => string[] = () => []): Completer {
  return (line: string) => {
    if (/^\/[\p{L}\p{N}_.:-]*$/u.test(line)) {
      const names = [...new Set([...COMMANDS.map((c) => c.name), ...custom().map((c) => `/${c.name}`), ...more()])];
      return [names.filter((n) => n.startsWith(line)), line];
    }
    const at = /(?:^|\s)(@(\S*))$/.exec(line);
    if (!at) return [[], line];
    const typed = at[2]!;
    const dir = typed.slice(0, typed.lastIndexOf('/') + 1);
    const prefix = typed.slice(dir.length);
    let names: string[] = [];
    try {
      names = readdirSync(resolve(root, dir || '.'), { withFileTypes: true })
        .filter((e) => e.name.startsWith(prefix) && (prefix.startsWith('.') || !e.name.startsWith('.')))
        .map((e) => `@${join(dir, e.name)}${e.isDirectory() ? '/' : ''}`)
        .sort();
    } catch {
      // Not a folder: nothing to offer.
    }
    return [names, at[1]!];
  };
}

function help(s: Session): void {
  s.ui.line(t('help.title'));
  for (const line of table(COMMANDS.map((c) => [`${c.name}${c.args ? ' ' + c.args : ''}`, t(c.help)]), s.ui.columns())) s.ui.line(line);
  // Files added since start-up are listed too.
  const custom = s.app.reloadCommands();
  if (custom.length) {
    s.ui.line(t('files.help_custom'));
    const rows = custom.map((c): [string, string] => [
      inert(`/${c.name}${c.argumentHint ? ' ' + c.argumentHint : ''}`),
      `${inert(c.description)}${s.ui.paint(color.dim, `  ${inert(c.from)}`)}${isBuiltIn(c.name) ? ' ' + t('files.help_hidden') : ''}`,
    ]);
    for (const line of table(rows, s.ui.columns())) s.ui.line(line);
  }
  s.ui.note(t('help.keys'));
}

function modeCommand(arg: string, s: Session): void {
  const { app, ui } = s;
  if (!arg) {
    ui.line(t('mode.current', { mode: modeName(app.mode, ui.paint) }));
    for (const line of table(PERMISSION_MODES.map((m) => [m, t(`mode.${m}`)]), ui.columns())) ui.line(line);
    return;
  }
  if (!PERMISSION_MODES.includes(arg as PermissionMode)) return ui.fail(t('mode.unknown', { mode: arg, modes: PERMISSION_MODES.join(', ') }));
  app.setMode(arg as PermissionMode);
  s.refreshPrompt();
  ui.line(t('mode.set', { mode: modeName(app.mode, ui.paint) }));
}

function modelCommand(arg: string, s: Session): void {
  const { app, ui } = s;
  // keys.json may have been edited since: a broken file is said and the list as last read kept.
  try {
    app.reloadModels();
  } catch (err) {
    ui.fail(err instanceof ConfigError ? err.message : String(err));
  }
  if (!arg) {
    const rows: [string, string][] = app.models.models.map((m) => [
      `${m.name === app.model.name ? '*' : ' '} ${m.name}`,
      t('model.item', { provider: m.provider, id: m.model, context: Math.round(m.contextWindow / 1000) }),
    ]);
    for (const line of table(rows, ui.columns())) ui.line(line);
    return ui.note(t('model.hint'));
  }
  try {
    app.setModel(arg);
  } catch (err) {
    return ui.fail(err instanceof ConfigError ? err.message : String(err));
  }
  ui.line(t('model.set', { name: app.model.name, id: app.model.model }));
}

function sandboxCommand(arg: string, s: Session): void {
  const { app, ui } = s;
  const { level, off } = app.sandbox;
  if (!arg) {
    ui.line(off ? t('sandbox.off_because', { why: unsandboxedWhy(off.reason, off.detail) }) : t('sandbox.state', { level }));
    for (const line of table(SANDBOX_LEVELS.map((l) => [l, t(`sandbox.level_${l}`)]), ui.columns())) ui.line(line);
    return;
  }
  if (!SANDBOX_LEVELS.includes(arg as SandboxLevel)) return ui.fail(t('sandbox.unknown', { level: arg, levels: SANDBOX_LEVELS.join(', ') }));
  if (!app.setSandbox(arg as SandboxLevel)) return ui.fail(t('sandbox.cannot', { why: off ? unsandboxedWhy(off.reason, off.detail) : '' }));
  ui.line(t('sandbox.state', { level: arg }));
  if (arg === 'off' && app.mode === 'auto') ui.warn(t('sandbox.auto_unsandboxed', { why: t('sandbox.turned_off') }));
  if (arg === 'off') ui.warn(t('sandbox.read_unenforced', { why: t('sandbox.turned_off') }));
}

function langCommand(arg: string, s: Session): void {
  const { app, ui } = s;
  if (arg !== 'en' && arg !== 'zh') return ui.line(t('lang.current', { lang: t(getLang() === 'zh' ? 'lang.zh' : 'lang.en') }));
  setLang(arg);
  let saved = true;
  try {
    saveUserSettings({ lang: arg }, app.env);
  } catch (err) {
    saved = false;
    ui.fail(t('lang.not_saved', { msg: err instanceof Problem ? problemText(err) : (err as Error).message }));
  }
  s.refreshPrompt();
  ui.line(t(saved ? 'lang.set' : 'lang.set_unsaved', { lang: t(arg === 'zh' ? 'lang.zh' : 'lang.en') }));
}

function todoCommand(_arg: string, s: Session): void {
  const items = s.app.todo.render();
  if (!items) return s.ui.note(t('todo.empty'));
  for (const line of inert(items).split('\n')) s.ui.line(`  ${line}`);
}

function jobState(job: JobInfo): string {
  const st = job.state;
  switch (st.kind) {
    case 'running':
      return t('jobs.running', { secs: Math.round((Date.now() - job.startedAt) / 1000) });
    case 'exited':
      return t('jobs.exited', { code: st.code });
    case 'killed':
      return t('jobs.killed', { signal: st.signal });
    case 'failed':
      return t('jobs.failed', { msg: st.message });
  }
}

async function jobsCommand(arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  const stop = /^stop\s+(\d+)$/.exec(arg);
  if (stop) {
    const id = Number(stop[1]);
    return (await app.jobs.stop(id)) ? ui.line(t('jobs.stopped', { id })) : ui.fail(t('jobs.unknown', { id }));
  }
  if (arg) return ui.fail(t('jobs.usage'));
  const jobs = app.jobs.list();
  if (!jobs.length) return ui.note(t('jobs.none'));
  const rows: [string, string][] = jobs.map((j) => [`#${j.id}`, `${j.state.kind === 'running' ? ui.paint(color.green, jobState(j)) : inert(jobState(j))}  ${inert(j.command)}`]);
  for (const line of table(rows, ui.columns())) ui.line(line);
  ui.note(t('jobs.hint'));
}
