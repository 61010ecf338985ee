#!/usr/bin/env node
// The entry point: parses the command line, loads and checks configuration once, wires the
// agent to its consumers (REPL or headless output) and to the permission policy, and exits with
// the codes of DESIGN.md §3. The only module that knows every other one.

import { readFileSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { Agent } from './agent.js';
import { parseArgs, UsageError, type CliArgs } from './args.js';
import { EXIT, runHeadless } from './headless.js';
import { detectLang, setLang, t } from './i18n.js';
import { ConfigError as KeysError, configDir, loadModels, selectModel } from './keys.js';
import { createPolicy } from './permissions.js';
import { loadConventions, systemPrompt } from './prompt.js';
import { createProvider } from './providers.js';
import { loadSettings } from './settings.js';
import { coreTools } from './tools.js';
import { filterEnv } from './envfilter.js';
import type { JsonSchema, ModelConfig, PermissionMode, ToolContext } from './types.js';

const version = (): string =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** A configuration problem found at start-up: printed, exit 2. */
class ConfigError extends Error {}

/** A configuration error in the user's words and language. */
function configError(err: unknown): ConfigError {
  if (err instanceof KeysError) return new ConfigError(t(`cfg.${err.code}`, err.params));
  return new ConfigError(err instanceof Error ? err.message : String(err));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function loadSchema(file: string): Promise<JsonSchema> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as JsonSchema;
  } catch (err) {
    throw new ConfigError(t('cli.schema_unreadable', { file, msg: (err as Error).message }));
  }
}

async function start(args: CliArgs): Promise<number> {
  const env = process.env;
  const root = await realpath(args.cwd ?? process.cwd()).catch((err: Error) => {
    throw new ConfigError(err.message);
  });
  let settings: ReturnType<typeof loadSettings>;
  let loaded: ReturnType<typeof loadModels>;
  try {
    settings = loadSettings(root, env);
    loaded = loadModels(env);
  } catch (err) {
    throw configError(err);
  }
  const merged = { ...settings.user, ...settings.project };
  setLang(detectLang(args.lang, settings.user.lang, env));
  if (!loaded.models.length) throw new ConfigError(t('cli.no_model', { file: `${configDir(env)}/keys.json` }));
  let model: ModelConfig;
  try {
    model = selectModel(loaded, args.model);
  } catch (err) {
    throw configError(err);
  }
  if (args.resume) throw new ConfigError(t('cli.not_implemented', { flag: '--resume' }));
  const outputSchema = args.outputSchema ? await loadSchema(args.outputSchema) : undefined;

  let mode: PermissionMode = args.mode ?? merged.mode ?? 'default';
  const conventions = await loadConventions(root);
  const extra = outputSchema ? ['When the task is done, call submit_result with the final answer; do not answer in plain text.'] : [];
  const ctx: ToolContext = { root, signal: new AbortController().signal, files: new Map(), shellCwd: root, env: filterEnv(env) };
  const agentRef: { agent?: Agent; repl?: import('./repl.js').Repl } = {};
  const policy = createPolicy({
    getMode: () => mode,
    setMode: (m) => (mode = m),
    root,
    home: env.HOME ?? '',
    configDir: configDir(env),
    rules: { allow: settings.user.permissions?.allow ?? [], deny: [...(settings.user.permissions?.deny ?? []), ...(settings.project.permissions?.deny ?? [])] },
    getShellCwd: () => ctx.shellCwd,
    ask: args.print ? undefined : (req) => agentRef.repl!.ask(req.tool, req.display, req.reasonCode),
  });
  const agent = new Agent({
    provider: createProvider(model),
    tools: coreTools(),
    system: systemPrompt(root, conventions, extra),
    ctx,
    maxRounds: args.maxRounds,
    beforeToolCall: policy,
    outputSchema,
  });
  agentRef.agent = agent;

  if (args.print) {
    const message = args.message ?? (process.stdin.isTTY ? '' : (await readStdin()).trim());
    if (!message) throw new UsageError('cli.no_prompt', {});
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    process.once('SIGTERM', () => controller.abort());
    return runHeadless({
      agent,
      message,
      format: args.outputFormat,
      sessionId: randomUUID(),
      model: () => agent.provider.config,
      stdout: process.stdout,
      stderr: process.stderr,
      signal: controller.signal,
    });
  }

  const { Repl } = await import('./repl.js');
  const repl = new Repl({
    agent,
    version: version(),
    root,
    model: () => agent.provider.config,
    mode: () => mode,
    conventionsFile: conventions?.file,
    initialMessage: args.message,
    input: process.stdin,
    output: process.stdout,
  });
  agentRef.repl = repl;
  await repl.run();
  return EXIT.ok;
}

async function main(): Promise<number> {
  let args: CliArgs;
  try {
    args = parseArgs(process.argv.slice(2));
    if (args.lang) setLang(args.lang);
    else setLang(detectLang(undefined, undefined, process.env));
    if (args.help) return void process.stdout.write(t('cli.usage') + '\n'), EXIT.ok;
    if (args.version) return void process.stdout.write(version() + '\n'), EXIT.ok;
    return await start(args);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(t('cli.bad_usage', { msg: t(err.key, err.params) }) + '\n');
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(t('cli.config_error', { msg: err.message }) + '\n');
      return EXIT.usage;
    }
    throw err;
  }
}

main().then(
  // Exit at once: idle keep-alive sockets or a finished readline must not hold the process.
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`feiyu: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = EXIT.error;
  },
);
