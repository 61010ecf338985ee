// Finds the repository git would use from a folder (a .git folder, a .git file naming one, or a
// bare repository) and says whether its configuration, read through ../gitconfig.ts without
// running git, names a program git may run (core.fsmonitor, core.pager, diff.*.textconv,
// filters, aliases with !…) or includes a file from outside. Must not run anything or write anything.

import { dirname, join, resolve } from 'node:path';
import { inside } from '../../util/paths.js';
import { dotGitDir, includePath, isInclude, kindOf, MAX_INCLUDES, parseGitConfig, readConfigText, type GitConfigEntry } from '../gitconfig.js';

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

/** The git folder git would use from `start`, or null when there is none. */
export function findGitDir(start: string): string | null {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const found = dotGitDir(dir);
    if (found) return found.gitDir;
    if (kindOf(join(dir, 'HEAD')) === 'file' && kindOf(join(dir, 'objects')) === 'dir' && kindOf(join(dir, 'refs')) === 'dir') return dir;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Why git must not run in the repository at `gitDir` without asking: a configuration key names a
 * program, or the configuration includes a file outside `root` (the workspace) or the repository.
 */
export function repositoryConfigProblem(gitDir: string, root: string, home: string): string | null {
  const common = readConfigText(join(gitDir, 'commondir'));
  if (common === null) return `${join(gitDir, 'commondir')} cannot be read`;
  const commonDir = common !== 'missing' && common.trim() ? resolve(gitDir, common.trim()) : gitDir;
  const files = [join(commonDir, 'config'), join(gitDir, 'config.worktree'), join(commonDir, 'config.worktree')];
  const seen = new Set<string>();
  const queue = [...new Set(files)];
  for (let n = 0; queue.length; n++) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readConfigText(file);
    if (text === 'missing') continue;
    if (text === null) return `${file} cannot be read`;
    for (const e of parseGitConfig(text, file)) {
      const why = programKey(e);
      if (why) return why;
      if (!isInclude(e.key) || !e.value) continue;
      const target = includePath(e.value, file, home);
      if (!inside(root, target) && !inside(commonDir, target) && !inside(gitDir, target)) return `${file} includes ${target}, outside the repository`;
      if (n >= MAX_INCLUDES) return `${file} includes more files than feiyu follows`;
      queue.push(target);
    }
  }
  return null;
}

function programKey(e: GitConfigEntry): string | null {
  // Neither a section nor a name has a dot: what lies between them is the subsection.
  const section = e.key.slice(0, e.key.indexOf('.'));
  const name = e.key.slice(e.key.lastIndexOf('.') + 1);
  const hasSub = e.key.length > section.length + name.length + 1;
  const pattern = `${section}.${hasSub ? '*.' : ''}${name}`;
  const value = e.value;
  if (section === 'alias' && value.trimStart().startsWith('!')) return `${e.file} sets ${e.key} to run a shell command`;
  if (section === 'submodule' && name === 'update' && value.trimStart().startsWith('!')) return `${e.file} sets ${e.key} to run a shell command`;
  // core.fsmonitor=true is git's own daemon; any other value is a program git runs on status.
  if (pattern === 'core.fsmonitor' || section === 'pager') return BOOLEAN.test(value) ? null : `${e.file} sets ${e.key}, a program git runs`;
  return PROGRAM_KEYS.includes(pattern) ? `${e.file} sets ${e.key}, a program git runs` : null;
}
