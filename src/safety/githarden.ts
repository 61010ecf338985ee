// The environment that keeps git from running programs named by repository data, for commands
// that run without asking: git reads GIT_CONFIG_COUNT/KEY/VALUE as if given with -c, above every
// config file, so it holds for every git the command starts, however it is spelled. Must not run
// git, and must not decide which commands get it: the sandbox applies it to the read-only profile.

import { gitLayout, repoConfig, type GitConfigEntry } from './gitconfig.js';

/** Always set: the brief's list (git -c core.fsmonitor= -c core.pager=cat …). */
const ALWAYS: [string, string][] = [
  ['core.fsmonitor', ''],
  ['core.pager', 'cat'],
  ['diff.external', ''],
  ['core.hooksPath', '/dev/null'],
];

// An external diff driver gets path old-file old-hex old-mode new-file new-hex new-mode.
const PLAIN_DIFF = 'f() { diff -u -- "$2" "$5"; true; }; f';

/**
 * What a program-valued key set by the repository's own config becomes. Drivers defined in the
 * user's global config (git-lfs and the like) are the user's and are left alone.
 */
const NEUTRAL: [RegExp, string][] = [
  [/^diff\..+\.textconv$/, 'cat'],
  [/^diff\..+\.command$/, PLAIN_DIFF],
  [/^filter\..+\.(clean|smudge|process)$/, ''],
  [/^filter\..+\.required$/, 'false'],
  [/^gpg(\..+)?\.program$/, 'false'],
  [/^log\.showsignature$/, 'false'],
  [/^core\.(sshcommand|askpass|editor|gitproxy)$/, 'false'],
  [/^sequence\.editor$/, 'false'],
  [/^credential(\..+)?\.helper$/, ''],
  [/^alias\..+$/, ''],
];

/** The git -c pairs for a repository's config entries: the fixed list, then each program-valued key it sets. */
export function hardeningPairs(entries: GitConfigEntry[]): [string, string][] {
  const pairs = new Map<string, string>(ALWAYS);
  for (const { key } of entries) {
    const neutral = NEUTRAL.find(([re]) => re.test(key));
    if (neutral) pairs.set(key, neutral[1]);
  }
  return [...pairs];
}

/**
 * The environment variables to add for a read-only command in `root`: config pairs appended after
 * any the user's environment already has (later pairs win), no system config, no lazy fetch, no
 * optional locks (git status must not write the index), cat as the pager, no prompts.
 */
export function gitHardeningEnv(root: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const layout = gitLayout(root);
  const pairs = hardeningPairs(layout ? repoConfig(layout) : []);
  const base = Number(env.GIT_CONFIG_COUNT);
  const start = Number.isInteger(base) && base > 0 ? base : 0;
  const out: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_NO_LAZY_FETCH: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_CONFIG_COUNT: String(start + pairs.length),
  };
  pairs.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${start + i}`] = key;
    out[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  return out;
}
