// The hard-deny tripwire: which paths are secrets (SSH, GnuPG and private keys, cloud, tool and git
// credentials, .env files, feiyu's configuration), whether any word of a command reaches one however
// it is spelled, and whether a recursive read below a folder would. A tripwire, not the boundary:
// the sandbox is. Must not read file contents.

import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { inside } from '../util/paths.js';
import { expandBraces, globPaths, hasGlob, realPath, unescapePattern, type Budget } from './bash/expand.js';

const PRIVATE_KEY = /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$|\.(ppk|pem|key|p12|pfx)$/;
const CREDENTIAL_FILES = /^(\.netrc|_netrc|\.git-credentials|\.npmrc|\.pypirc|\.vault-token|\.[\w-]*_history|\.?credentials(\.(json|ya?ml|toml|ini|xml|csv|txt|conf|cfg|db))?)$/;
/** Credential folders and files of common tools (other coding agents' logins among them), below the home folder. */
const HOME_SECRET_DIRS = ['.kube', '.docker', '.config/gh', '.config/gcloud', '.azure', '.cargo/credentials', '.cargo/credentials.toml', '.config/git/credentials', '.codex/auth.json', '.gemini/oauth_creds.json'];
/** Committed templates that by convention hold no values; the model needs them to learn the variable names. */
const ENV_TEMPLATES = new Set(['example', 'sample', 'template', 'dist']);

/**
 * What secret `abs` (absolute, normalised; symlinks already resolved by the caller) is, as a noun
 * phrase for the model, or null. Names are compared in lower case, as case-insensitive file
 * systems would open them.
 */
export function checkSecretPath(abs: string, configDir: string, home = homedir()): string | null {
  if (inside(configDir, abs)) {
    return abs === join(configDir, 'keys.json')
      ? "feiyu's API keys (keys.json)"
      : "feiyu's own configuration folder (settings, approvals and trust are changed by the user only)";
  }
  return secretFileKind(abs, home);
}

/** checkSecretPath for files that cannot be feiyu's configuration (search results in the workspace). */
export function secretFileKind(abs: string, home = homedir()): string | null {
  const parts = abs.toLowerCase().split('/');
  const base = parts[parts.length - 1]!;
  if (parts.includes('.ssh')) return 'the .ssh folder (SSH keys)';
  if (parts.includes('.gnupg')) return 'the .gnupg folder (GnuPG keys)';
  const aws = parts.indexOf('.aws');
  if (aws >= 0 && (aws === parts.length - 1 || parts[aws + 1] === 'credentials')) return 'AWS credentials (.aws/credentials)';
  const tool = HOME_SECRET_DIRS.find((d) => inside(join(home, d), abs));
  if (tool) return `the credentials of a tool (~/${tool})`;
  if (PRIVATE_KEY.test(base)) return `a private key (${base})`;
  if (CREDENTIAL_FILES.test(base)) return `a credentials file (${base})`;
  if (base === '.env' || (base.startsWith('.env.') && !ENV_TEMPLATES.has(base.slice(5)))) return `an environment file with secrets (${base})`;
  return null;
}

/** The refusal the model sees when a path or command touches a secret; `instead` replaces the usual advice. */
export function secretRefusal(shown: string, what: string, instead?: string): string {
  return (
    `${shown} touches ${what}. feiyu never reads, writes, copies, moves, lists or sources secrets, in any mode. ` +
    (instead ??
      'If you only need to mention the name (for example in .gitignore), edit that file with edit_file instead of a shell command; ' +
        'otherwise ask the user to do this step themselves.')
  );
}

/** Globs (ripgrep syntax) that keep secret files out of content searches. */
export const SECRET_SEARCH_EXCLUDES = [
  '.env', '.env.*', '.netrc', '_netrc', '.git-credentials', '.npmrc', '.pypirc', '.vault-token', '.*_history',
  'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_*_sk', '*.ppk', '*.pem', '*.key', '*.p12', '*.pfx',
  'credentials', 'credentials.{json,yml,yaml,toml,ini,xml,csv,txt,conf,cfg,db}', '.credentials', '.credentials.{json,yml,yaml,toml,ini,xml,csv,txt,conf,cfg,db}', '.ssh', '.gnupg', '.aws',
];

export type SecretContext = { cwds: string[]; home: string; configDir: string; budget: Budget };
/** `instead`: advice for the model other than the usual (a recursive read can name its folders). */
export type SecretHit = { word: string; what: string; instead?: string };

// Where a path inside a word ends: `--file=~/.ssh/x`, `user@host:path`, `open('~/.env')`, `$IFS`.
const SPLIT = /[\s\0\x01=:,;'"`()<>|&$]/;

/**
 * The first secret that a word pattern (see ShellWord.pattern) can reach: every path-like piece
 * of it, with `~` and $HOME expanded, braces and globs expanded against the file system,
 * `..` collapsed and symlinks resolved, relative to every folder the command may be in.
 * Returns 'too_complex' when the globs would read too much of the file system.
 */
export function findSecret(pattern: string, ctx: SecretContext): SecretHit | 'too_complex' | null {
  const home = ctx.home.replace(/[\\*?[\]{},~]/g, '\\$&');
  const braced = expandBraces(pattern.replace(/\$(?:HOME\b|\{HOME\})/g, home));
  if (!braced) return 'too_complex';
  for (const variant of braced) {
    for (const token of tokens(variant)) {
      const expanded = token === '~' || token.startsWith('~/') ? home + token.slice(1) : token;
      for (const cwd of ctx.cwds) {
        const abs = expanded.startsWith('/') ? expanded : `${cwd}/${expanded}`;
        const candidates = hasGlob(abs) ? globPaths(abs, ctx.budget) : [];
        if (candidates === null) return 'too_complex';
        for (const path of [resolve(unescapePattern(abs)), ...candidates]) {
          const what = checkSecretPath(path, ctx.configDir, ctx.home) ?? checkSecretPath(realPath(path), ctx.configDir, ctx.home);
          if (what) return { word: unescapePattern(token), what };
        }
        if (expanded.startsWith('/')) break;
      }
    }
  }
  return null;
}

/** Splits a pattern into path-like pieces, keeping escapes of the characters that stay. */
function tokens(pattern: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < pattern.length; i++) {
    let c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      c = pattern[++i]!;
      if (!SPLIT.test(c)) {
        cur += '\\' + c;
        continue;
      }
    }
    if (SPLIT.test(c)) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * A pattern for the whole command text, for when the parser could not be trusted with it:
 * quotes dropped, line continuations joined, everything else as written.
 */
export function rawPattern(command: string): string {
  return command.replace(/\\\n/g, '').replace(/["']/g, '');
}

export type BelowOptions = {
  root: string;
  configDir: string;
  home: string;
  /** Follow symbolic links (grep -R, rg -L, diff -r): a link out of `root` is then a hit. */
  followLinks: boolean;
  /** Whether hidden files and folders are read (grep -r reads them; ripgrep only when told). */
  hidden: boolean;
  /** Which files are read, by path relative to the folder walked; absent: all. */
  include?: (rel: string) => boolean;
  budget: Budget;
};
export type BelowHit = { kind: 'secret'; path: string; what: string } | { kind: 'outside'; path: string; target: string };

/** Never walked: no user's secret lives there, and they are large. */
const UNWALKED = new Set(['.git', 'node_modules']);

/**
 * What a recursive read of `dir` reaches: the first secret file it would read, or, following
 * links, the first link whose target is outside the workspace. 'too_complex' past the budget.
 */
export function secretBelow(dir: string, o: BelowOptions): BelowHit | 'too_complex' | null {
  const start = realPath(dir);
  const seen = new Set<string>([start]);
  const stack: string[] = [start];
  const readable = (rel: string): boolean => (o.hidden || !rel.split('/').some((p) => p.startsWith('.'))) && (o.include?.(rel) ?? true);
  const fileHit = (path: string, real: string, rel: string): BelowHit | null => {
    if (!readable(rel)) return null;
    const what = checkSecretPath(path, o.configDir, o.home) ?? checkSecretPath(real, o.configDir, o.home);
    return what ? { kind: 'secret', path, what } : null;
  };
  const single = fileHit(dir, start, dir.split('/').pop() ?? dir);
  if (single) return single;
  while (stack.length) {
    const current = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    o.budget.entries -= entries.length;
    if (o.budget.entries < 0) return 'too_complex';
    for (const e of entries) {
      if (UNWALKED.has(e.name)) continue;
      const path = join(current, e.name);
      const rel = relative(start, path);
      if (e.isSymbolicLink()) {
        if (!o.followLinks) continue;
        const target = realPath(path);
        if (!inside(o.root, target)) return { kind: 'outside', path, target };
        const hit = fileHit(path, target, rel);
        if (hit) return hit;
        if (!seen.has(target)) {
          seen.add(target);
          stack.push(path);
        }
      } else if (e.isDirectory()) {
        if (o.hidden || !e.name.startsWith('.')) stack.push(path);
      } else {
        const hit = fileHit(path, path, rel);
        if (hit) return hit;
      }
    }
  }
  return null;
}
