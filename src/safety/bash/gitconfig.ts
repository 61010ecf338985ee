// Finds the repository git would use from a folder (a .git folder, a .git file naming one, or a
// bare repository) and reads its configuration files and what they include, without running git,
// to say whether repository data names a program git may run (core.fsmonitor, core.pager,
// diff.*.textconv, filters, aliases with !…). Must not run anything or write anything.

import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { inside } from '../../util/paths.js';

const MAX_INCLUDES = 10;
/** Keys (section.key, or section.*.key for any subsection) whose value is a program or command line. */
const PROGRAM_KEYS = [
  'core.sshcommand', 'core.askpass', 'core.editor', 'core.pager', 'core.gitproxy', 'core.alternaterefscommand',
  'sequence.editor', 'diff.external', 'diff.*.textconv', 'diff.*.command', 'merge.*.driver',
  'filter.*.clean', 'filter.*.smudge', 'filter.*.process', 'gpg.program', 'gpg.*.program', 'gpg.ssh.defaultkeycommand',
  'credential.helper', 'credential.*.helper', 'interactive.difffilter', 'web.browser', 'browser.*.cmd', 'browser.*.path',
  'man.*.cmd', 'man.*.path', 'difftool.*.cmd', 'difftool.*.path', 'mergetool.*.cmd', 'mergetool.*.path',
  'uploadpack.packobjectshook', 'remote.*.uploadpack', 'remote.*.receivepack', 'remote.*.vcs',
];
const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i;

type Entry = { section: string; sub: string | null; key: string; value: string | null; file: string };

/** The git folder git would use from `start`, or null when there is none. */
export function findGitDir(start: string): string | null {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const kind = kindOf(dotGit);
    if (kind === 'dir') return dotGit;
    if (kind === 'file') {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? '')?.[1];
      if (named) return resolve(dir, named);
    }
    if (kindOf(join(dir, 'HEAD')) === 'file' && kindOf(join(dir, 'objects')) === 'dir' && kindOf(join(dir, 'refs')) === 'dir') return dir;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Why git must not run in the repository at `gitDir` without asking: a configuration key names a
 * program, or the configuration includes a file outside `root` (the workspace) or the repository.
 */
export function repositoryConfigProblem(gitDir: string, root: string, home: string): string | null {
  const common = readText(join(gitDir, 'commondir'));
  if (common === null) return `${join(gitDir, 'commondir')} cannot be read`;
  const commonDir = common !== 'missing' && common.trim() ? resolve(gitDir, common.trim()) : gitDir;
  const files = [join(commonDir, 'config'), join(gitDir, 'config.worktree'), join(commonDir, 'config.worktree')];
  const seen = new Set<string>();
  const queue = [...new Set(files)];
  for (let n = 0; queue.length; n++) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readText(file);
    if (text === 'missing') continue;
    if (text === null) return `${file} cannot be read`;
    for (const e of parseGitConfig(text, file)) {
      const why = programKey(e);
      if (why) return why;
      if (!isInclude(e)) continue;
      if (e.value === null || e.value === '') continue;
      const target = e.value.startsWith('~/') ? join(home, e.value.slice(2)) : isAbsolute(e.value) ? e.value : resolve(dirname(file), e.value);
      if (!inside(root, target) && !inside(commonDir, target) && !inside(gitDir, target)) return `${file} includes ${target}, outside the repository`;
      if (n >= MAX_INCLUDES) return `${file} includes more files than feiyu follows`;
      queue.push(target);
    }
  }
  return null;
}

function isInclude(e: Entry): boolean {
  return e.key === 'path' && (e.section === 'include' || e.section === 'includeif');
}

function programKey(e: Entry): string | null {
  const name = `${e.section}.${e.sub === null ? '' : '*.'}${e.key}`;
  const value = e.value ?? '';
  const shown = `${e.section}${e.sub === null ? '' : `.${e.sub}`}.${e.key}`;
  if (e.section === 'alias' && value.trimStart().startsWith('!')) return `${e.file} sets ${shown} to run a shell command`;
  if (e.section === 'submodule' && e.key === 'update' && value.trimStart().startsWith('!')) return `${e.file} sets ${shown} to run a shell command`;
  // core.fsmonitor=true is git's own daemon; any other value is a program git runs on status.
  if (name === 'core.fsmonitor' || e.section === 'pager') return BOOLEAN.test(value) ? null : `${e.file} sets ${shown}, a program git runs`;
  return PROGRAM_KEYS.includes(name) ? `${e.file} sets ${shown}, a program git runs` : null;
}

/**
 * The entries of a git config file: `[section]`, `[section "sub"]`, `[section.sub]`, `key = value`,
 * a bare `key` (true), quotes, escapes, comments and line continuations. Names in lower case,
 * subsections as written.
 */
export function parseGitConfig(text: string, file: string): Entry[] {
  const out: Entry[] = [];
  let section = '';
  let sub: string | null = null;
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([\w.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      const [name, ...rest] = header[1]!.split('.');
      section = name!.toLowerCase();
      sub = header[2] !== undefined ? header[2].replace(/\\(.)/g, '$1') : rest.length ? rest.join('.').toLowerCase() : null;
      line = header[3]!.trim();
      if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    }
    const kv = /^([A-Za-z][\w-]*)\s*(?:=\s*([\s\S]*))?$/.exec(line);
    if (!kv) continue;
    let raw = kv[2];
    while (raw !== undefined && /(^|[^\\])(\\\\)*\\$/.test(raw) && i + 1 < lines.length) raw = raw.slice(0, -1) + lines[++i];
    out.push({ section, sub, key: kv[1]!.toLowerCase(), value: raw === undefined ? null : configValue(raw), file });
  }
  return out;
}

/** A value: quotes removed, \n \t \b \\ \" decoded, a comment outside quotes dropped, spaces trimmed. */
function configValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return out.trim();
}

function kindOf(path: string): 'dir' | 'file' | null {
  try {
    const st = statSync(path);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

/** A small regular file's text; 'missing' when there is none; null when it cannot be read, is not a regular file or is too large to be a config. */
function readText(path: string): string | 'missing' | null {
  try {
    // A FIFO or a device would block the analysis, or never end.
    const st = statSync(path);
    if (!st.isFile() || st.size > 1 << 20) return null;
    return readFileSync(path, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'missing' : null;
  }
}
