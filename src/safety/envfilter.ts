// The environment child processes (bash commands, jobs) receive: the agent's own, minus secrets by
// name or value, minus shell settings that would make bash expand words otherwise than the analysis
// assumed, plus GIT_OPTIONAL_LOCKS=0 (git status must not rewrite the index). Applied before the
// sandbox starts. Must not log or return the values it drops.

/** Kept whatever the rules below say: git over ssh needs the agent socket. */
const KEEP = new Set(['SSH_AUTH_SOCK', 'PWD', 'OLDPWD']);
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDS|COOKIE|WEBHOOK|JWT|DSN|SIGNATURE|PRIVATE|(^|_)(PASS|PW|PWD|PAT|AUTH)(_|$)/i;
/** scheme://user:password@host — a URL that carries a password. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;
/** URLs whose path or query is itself the credential: chat webhooks, bot tokens, signed links. */
const URL_WITH_SECRET = new RegExp(
  [
    'hooks\\.slack\\.com/(services|workflows|triggers)/',
    'discord(app)?\\.com/api/webhooks/',
    '\\.webhook\\.office\\.com/',
    'outlook\\.office(365)?\\.com/webhook',
    'hooks\\.zapier\\.com/hooks/',
    'api\\.telegram\\.org/bot',
    'maker\\.ifttt\\.com/trigger/',
    'chat\\.googleapis\\.com/.*[?&]key=',
    '[?&](access_token|api_?key|apikey|auth|key|password|secret|sig|signature|token|x-amz-signature|x-goog-signature)=[^&\\s]',
  ].join('|'),
  'i',
);
/** Credentials recognisable by their shape, whatever the variable is called. */
const SECRET_VALUE = new RegExp(
  [
    '\\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}',
    '\\bgithub_pat_[A-Za-z0-9_]{20,}',
    '\\bglpat-[A-Za-z0-9_-]{20,}',
    '\\bxox[abposr]-[A-Za-z0-9-]{10,}',
    '\\bsk-[A-Za-z0-9_-]{20,}',
    '\\b(sk|rk)_live_[A-Za-z0-9]{16,}',
    '\\b(AKIA|ASIA)[0-9A-Z]{16}\\b',
    '\\bAIza[0-9A-Za-z_-]{35}',
    '\\bnpm_[A-Za-z0-9]{36}',
    '\\bhf_[A-Za-z0-9]{30,}',
    '\\bpypi-[A-Za-z0-9_-]{50,}',
    '\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]+',
    '-----BEGIN [A-Z ]*PRIVATE KEY-----',
  ].join('|'),
);
/**
 * Shell settings read from the environment that change how bash expands and looks up words
 * (CDPATH, GLOBIGNORE, exported options and functions) or run files before the command.
 */
const SHELL_SETTINGS = /^(CDPATH|GLOBIGNORE|BASHOPTS|SHELLOPTS|POSIXLY_CORRECT|BASH_ENV|ENV|PS4|BASH_XTRACEFD|BASH_FUNC_.*)$/;
/** Added to every child's environment. */
const ADDED: Record<string, string> = { GIT_OPTIONAL_LOCKS: '0' };

/** True when the variable looks like a secret, by its name or by its value. */
export function isSecretVariable(name: string, value: string): boolean {
  if (KEEP.has(name)) return false;
  return SECRET_NAME.test(name) || URL_WITH_PASSWORD.test(value) || URL_WITH_SECRET.test(value) || SECRET_VALUE.test(value);
}

/** A copy of `env` for child processes: without secret-looking variables and shell settings, with ADDED. */
export function filterEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SHELL_SETTINGS.test(name) || isSecretVariable(name, value)) continue;
    out[name] = value;
  }
  return { ...out, ...ADDED };
}
