// approvals.json: the rules the user saved by answering "always", per workspace:
// { "version": 1, "projects": { "<workspace realpath>": { "allow": [rules] } } }.
// Reads and writes the file only; the policy suggests the rules and the app decides to save them.

import { join } from 'node:path';
import { readProjectsFile, updatePrivateJson } from '../util/jsonfile.js';

type Entry = { allow: string[] };

export const approvalsFile = (configDir: string): string => join(configDir, 'approvals.json');

/** The rules saved for this workspace. Throws naming the file when it is broken. */
export function loadApprovals(file: string, root: string): string[] {
  const allow = readProjectsFile<Entry>(file).projects[root]?.allow ?? [];
  return allow.filter((r) => typeof r === 'string');
}

/**
 * Adds `rules` to this workspace's entry (0600, atomic); rules already there are kept once. Under
 * the file's lock: another feiyu saving at the same moment loses nothing.
 */
export function saveApprovals(file: string, root: string, rules: string[]): void {
  updatePrivateJson(file, readProjectsFile<Entry>, (data) => {
    const entry = (data.projects[root] ??= { allow: [] });
    entry.allow = [...new Set([...entry.allow, ...rules])];
  });
}
