// The environment that child processes (bash commands, background jobs) receive: the agent's
// own, minus what looks like a secret by name or by value. Applied before the sandbox starts.
// Must not log or return the values it drops.

/** Kept whatever the rules below say: git over ssh needs the agent socket. */
const KEEP = new Set(['SSH_AUTH_SOCK', 'PWD', 'OLDPWD']);
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|_PASS$|_PWD$/i;
/** scheme://user:password@host — a URL that carries a password. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

/** A copy of `env` without secret-looking variables. */
export function filterEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!KEEP.has(name) && (SECRET_NAME.test(name) || URL_WITH_PASSWORD.test(value))) continue;
    out[name] = value;
  }
  return out;
}
