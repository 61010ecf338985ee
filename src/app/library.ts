// createHost: the library's options — the command line's and the settings' by other names, plus
// what only a program can give (models as data, a provider object, a session store) — turned into
// one host. Bad options throw a ConfigError, as bad configuration does at the CLI's start.

import { openHost, type Host } from './host.js';
import { ConfigError, configError, type ConfigOverrides } from './config.js';
import type { CliArgs } from './args.js';
import { modelsOf, type KeysFile } from '../config/keys.js';
import { jsonlStore, memoryStore, type SessionStore } from '../session/record.js';
import { stateDir } from '../config/keys.js';
import type { JsonSchema, Provider } from '../types/providers.js';
import type { PermissionMode, SandboxLevel } from '../types/permissions.js';

export type HostOptions = {
  /** The workspace (default: the current directory). */
  cwd?: string;
  /** Where keys.json, the settings and the state folder are found, and what commands inherit (filtered). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The models, in keys.json's shape, instead of keys.json and the environment. */
  keys?: KeysFile;
  /** A provider object to use instead (its `config` names the model). */
  provider?: Provider;
  /** The model to use, by its name in `keys` (default: their default). */
  model?: string;
  /** default (questions come as approval events), auto, plan, readonly. */
  mode?: PermissionMode;
  sandbox?: SandboxLevel;
  /** Tool rounds per message (default 25). */
  maxRounds?: number;
  /** The final answer must be JSON valid against this schema (structured_output in the result). */
  outputSchema?: JsonSchema;
  /** Hooks as settings.json spells them, instead of the settings' hooks. */
  hooks?: ConfigOverrides['hooks'];
  /** Which tools the model is offered: only these, or all but these (names as the model sees them). */
  tools?: { only?: string[]; disable?: string[] };
  /** Permission rules for this host, as settings spell them ("bash(npm test)"). */
  allow?: string[];
  deny?: string[];
  /** Whether the project's own hooks, verify: and allow rules apply; never asked, never remembered. Default: as trusted.json says. */
  trust?: boolean;
  /**
   * Where sessions are kept: 'memory' (default: nothing written, no state folder needed, no trace,
   * "always" answers last as long as the host), 'jsonl' (the CLI's session files, trace and
   * approvals.json under the state folder), or a store of your own.
   */
  persistence?: 'memory' | 'jsonl' | SessionStore;
  /** 'ask' (default): questions wait for answer(); 'refuse': refused as in headless mode, the model told why. */
  approvals?: 'ask' | 'refuse';
};

/** Opens a host for one workspace. Throws ConfigError for bad options or configuration. */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const env = options.env ?? process.env;
  const args: CliArgs = {
    print: true,
    outputFormat: 'json',
    mode: options.mode,
    sandbox: options.sandbox,
    model: options.model,
    maxRounds: options.maxRounds,
    cwd: options.cwd,
    trust: false,
    images: [],
    help: false,
    version: false,
  };
  if (options.maxRounds !== undefined && !(Number.isInteger(options.maxRounds) && options.maxRounds >= 1)) throw new ConfigError(`maxRounds must be a whole number of at least 1, not ${options.maxRounds}`);
  const { only, disable = [] } = options.tools ?? {};
  const persistence = options.persistence ?? 'memory';
  const overrides: ConfigOverrides = {
    models: options.keys ? toModels(options.keys) : undefined,
    provider: options.provider,
    hooks: options.hooks,
    trust: options.trust,
    store: persistence === 'memory' ? memoryStore() : persistence === 'jsonl' ? jsonlStore(stateDir(env)) : persistence,
    tools: only || disable.length ? (name) => (!only || only.includes(name)) && !disable.includes(name) : undefined,
    ask: options.approvals !== 'refuse',
    outputSchema: options.outputSchema,
    allow: options.allow,
    deny: options.deny,
  };
  // A program has no prompt to show first: its messages wait for the MCP servers' tools.
  return openHost(args, { env, overrides }, { waitForMcp: true });
}

function toModels(keys: KeysFile) {
  try {
    return modelsOf(keys, 'keys');
  } catch (err) {
    throw configError(err);
  }
}
