// Facts about the workspace's repository for the destructive check (safety/destructive.ts): which
// tracked files have uncommitted changes, how many commits of a range a remote has. git runs as
// a read-only command would: through the launcher's read profile (the sandbox when there is one,
// the git hardening always), so a planted fsmonitor or filter runs nowhere.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { RepoFacts } from '../safety/destructive.js';
import type { WrapCommand } from '../types/tools.js';
import { killGroup } from '../util/process.js';

const TIMEOUT_MS = 10_000;

export function createGitFacts(launch: WrapCommand, env: NodeJS.ProcessEnv, timeoutMs = TIMEOUT_MS): RepoFacts {
  const git = (script: string, cwd: string): Promise<string | null> =>
    new Promise((resolve) => {
      const l = launch({ command: script, cwd, profile: 'read', env });
      // Its own process group, so that a timeout ends git and whatever it started, not only the shell.
      const child = spawn(l.file, l.args, { cwd, env: l.env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
      const timer = setTimeout(() => child.pid !== undefined && killGroup(child.pid), timeoutMs);
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      child.on('error', () => { clearTimeout(timer); resolve(null); });
      child.on('exit', () => { clearTimeout(timer); l.release(); });
      child.on('close', (code) => resolve(code === 0 ? out : null));
    });
  return {
    async changed(cwd) {
      const out = await git('git rev-parse --show-toplevel && git status --porcelain=v1 -z --untracked-files=no', cwd);
      if (out === null) return null;
      const nl = out.indexOf('\n');
      const top = out.slice(0, nl);
      const fields = out.slice(nl + 1).split('\0');
      const files: string[] = [];
      for (let i = 0; i < fields.length; i++) {
        const entry = fields[i]!;
        if (entry.length < 4) continue;
        files.push(join(top, entry.slice(3)));
        // A rename or copy is followed by its source path.
        if (entry[0] === 'R' || entry[0] === 'C') i++;
      }
      return { top, files };
    },
    async pushedAmong(cwd, range) {
      const quoted = `'${range.replace(/'/g, `'\\''`)}'`;
      const out = await git(`git rev-list --count ${quoted} -- && git rev-list --count ${quoted} --not --remotes --`, cwd);
      const [all, unpushed] = (out ?? '').trim().split('\n').map(Number);
      return out === null || !Number.isInteger(all) || !Number.isInteger(unpushed) ? null : all! - unpushed!;
    },
  };
}
