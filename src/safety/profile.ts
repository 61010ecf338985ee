// Which sandbox profile an allowed bash command runs with: read-only when allowed because the
// analysis judged it so, writable otherwise, with the repository's .git writable only for git
// commands that must write it and were approved (by the user or a rule). Must not decide whether
// the command may run: the policy does, and hands the profile on with its decision.

import { basename } from 'node:path';
import type { BashAnalysis } from './bash/analysis.js';
import type { SandboxProfile } from '../types/tools.js';

/** git subcommands that write no repository of the workspace (clone makes a new one beside it). */
const NO_REPO_WRITE = new Set(['clone', 'help', 'version', 'ls-remote', 'archive']);
const VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env']);

/** The subcommand of a git argv (after its global options), or null. */
export function gitSubcommand(argv: readonly (string | null)[]): string | null {
  if (argv[0] === null || argv[0] === undefined || basename(argv[0]) !== 'git') return null;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === null) return null;
    if (VALUED.has(a)) i++;
    else if (!a.startsWith('-')) return a;
    else if (a === '--version' || a === '--help') return a.slice(2);
  }
  return null;
}

/**
 * Whether the command runs a git command the analysis did not judge read-only, one that may write
 * the repository (commit, add, checkout, fetch, config…): it needs .git writable, so it asks.
 */
export function needsGitWrite(analysis: BashAnalysis): boolean {
  return analysis.commands.some((c) => {
    if (c.issue === null) return false;
    if (c.argv[0] === null || basename(c.argv[0] ?? '') !== 'git') return false;
    const sub = gitSubcommand(c.argv);
    // A subcommand known only when it runs may be any of them.
    return sub === null ? c.argv.includes(null) : !NO_REPO_WRITE.has(sub);
  });
}

/** The profile of a bash command allowed as read-only, or allowed to change things. */
export function profileFor(analysis: BashAnalysis, readOnly: boolean): SandboxProfile {
  if (readOnly) return 'read';
  return needsGitWrite(analysis) ? 'write_git' : 'write';
}
