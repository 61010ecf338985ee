// A custom slash command made into the message it sends: the arguments put in ($ARGUMENTS, $1…$9),
// its `!`cmd`` lines run and their output put in their place, the files its `@path` references
// name appended. A `!` line runs only when the command is the user's or the project is trusted,
// and then only as the permission policy allows a bash call (the command's allowed-tools count,
// deny rules and hard denies still refuse), in the sandbox profile it grants. Must not decide.

import { ANSI, runInGroup } from '../util/process.js';
import { atReferences, pathCandidates, shellSpans } from '../config/mdrefs.js';
import { checkSecretPath } from '../safety/secrets.js';
import { FileReadError, readRegularFile } from '../util/readfile.js';
import { resolveInWorkspace } from '../util/paths.js';
import { allowRulesOf } from '../config/allowedtools.js';
import type { CustomCommand } from '../config/commands.js';
import type { LoadedModels } from '../config/keys.js';
import { parseRule, type Rule } from '../safety/rules.js';
import type { ToolCallBlock } from '../types/conversation.js';
import type { NoticeCode, NoticeEvent } from '../types/events.js';
import type { Decision } from '../types/permissions.js';
import type { ModelConfig } from '../types/providers.js';
import type { SandboxProfile, WrapCommand } from '../types/tools.js';

/** A `!` line gets this long, and this much of its output is kept (head and tail). */
const SHELL_TIMEOUT_MS = 30_000;
const SHELL_CAP = 10_000;
/** A file an `@path` names is inlined up to this size. */
const FILE_MAX_BYTES = 256 * 1024;

export type ExpandOptions = {
  root: string;
  home: string;
  configDir: string;
  /** Its `!` lines may run: the command is the user's, or the project is trusted. */
  mayRun: boolean;
  /** The permission decision for a bash call (the command's allowed-tools already in force). */
  decide(call: ToolCallBlock, signal: AbortSignal): Promise<Decision>;
  wrapCommand: WrapCommand;
  env: NodeJS.ProcessEnv;
  notify: Notify;
};

type Notify = (code: NoticeCode, params: NoticeEvent['params']) => void;

/**
 * What a command's front matter grants its one message: whether its `!` lines may run (the user's
 * command, or a trusted project), its allowed-tools as rules (only then), and its model when one
 * is configured. What cannot be honoured is said through `notify`.
 */
export function commandTerms(command: CustomCommand, o: { trusted: boolean; models: LoadedModels; notify: Notify }): { mayRun: boolean; rules: Rule[]; model?: ModelConfig } {
  const mayRun = command.source === 'user' || o.trusted;
  if (!mayRun && (command.shell.length || command.allowedTools.length)) o.notify('command_untrusted', { name: command.name });
  const { rules, unknown } = allowRulesOf(mayRun ? command.allowedTools : []);
  if (unknown.length) o.notify('command_unknown_tools', { name: command.name, tools: unknown.join(', ') });
  if (command.model === undefined) return { mayRun, rules: rules.map(parseRule) };
  const model = commandModel(o.models, command.model);
  if (!model) o.notify('command_model_unknown', { name: command.name, model: command.model });
  return { mayRun, rules: rules.map(parseRule), ...(model && { model }) };
}

/** The model a command names: a configured name or model id, or Claude's alias (sonnet, opus, haiku) within an id. */
function commandModel(models: LoadedModels, wanted: string): ModelConfig | undefined {
  const exact = models.models.find((m) => m.name === wanted || m.model === wanted);
  if (exact || !/^(sonnet|opus|haiku)$/.test(wanted)) return exact;
  return models.models.find((m) => m.model.includes(wanted));
}

/** The message a command sends with `args`. Contract: never throws for a failing `!` line or file. */
export async function expandCommand(command: CustomCommand, args: string, o: ExpandOptions, signal: AbortSignal): Promise<string> {
  const body = await runShellLines(withArguments(command.body, args), command, o, signal);
  const files = await inlineFiles(body, o);
  const invocation = `/${command.name}${args ? ` ${args}` : ''}`;
  return [invocation, body.trim(), ...files].join('\n\n');
}

/**
 * $ARGUMENTS, and $1…$9 (words; quotes group them); a command that uses neither gets the arguments
 * after its text, as Claude Code does.
 */
export function withArguments(body: string, args: string): string {
  const words = splitWords(args);
  let used = false;
  const out = body.replace(/\$(ARGUMENTS|[1-9])\b/g, (_, which: string) => {
    used = true;
    return which === 'ARGUMENTS' ? args : (words[Number(which) - 1] ?? '');
  });
  return used || !args ? out : `${out.trimEnd()}\n\nARGUMENTS: ${args}`;
}

function splitWords(args: string): string[] {
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

async function runShellLines(body: string, command: CustomCommand, o: ExpandOptions, signal: AbortSignal): Promise<string> {
  const spans = shellSpans(body);
  if (!spans.length) return body;
  let out = '';
  let at = 0;
  for (const [i, span] of spans.entries()) {
    out += body.slice(at, span.start) + (await shellOutput(span.command, `${command.name}-${i + 1}`, o, signal));
    at = span.end;
  }
  return out + body.slice(at);
}

/** What a `!` line puts in its place: its output, or why it did not run. */
async function shellOutput(line: string, id: string, o: ExpandOptions, signal: AbortSignal): Promise<string> {
  if (!o.mayRun) return `[not run: \`${line}\` needs the user to trust this project]`;
  const decision = await o.decide({ type: 'tool_call', id, name: 'bash', input: { command: line } }, signal);
  if (decision.decision === 'deny') {
    o.notify('command_shell_refused', { command: line });
    return `[not run: ${decision.reason}]`;
  }
  const profile: SandboxProfile = decision.sandbox ?? 'write';
  const place = { cwd: o.root, env: o.env, sandbox: { wrap: o.wrapCommand, profile } };
  const ran = await runInGroup(line, place, { timeoutMs: SHELL_TIMEOUT_MS, signal, merge: true, cap: SHELL_CAP, reap: true });
  const output = ran.stdout.replace(ANSI, '').replace(/\n+$/, '');
  const { ending } = ran;
  const status =
    ending.kind === 'exit' ? (ending.signal ? `killed by ${ending.signal}` : `exit ${ending.code ?? '?'}`)
    : ending.kind === 'spawn' ? `could not start: ${ending.message}`
    : ending.kind;
  o.notify('command_shell', { command: line, status });
  return ending.kind === 'exit' && ending.code === 0 ? output : `${output}${output ? '\n' : ''}[${status}]`;
}

/** The files named by `@path` in the message, each once, as blocks to append. */
async function inlineFiles(body: string, o: ExpandOptions): Promise<string[]> {
  const blocks: string[] = [];
  const done = new Set<string>();
  for (const ref of atReferences(body)) {
    for (const candidate of pathCandidates(ref.path)) {
      const r = await resolveInWorkspace(o.root, candidate);
      if (!r.ok || !r.exists || r.isDir) continue;
      if (done.has(r.real)) break;
      done.add(r.real);
      const block = fileBlock(candidate, r.real, o);
      if (block) blocks.push(block);
      break;
    }
  }
  return blocks;
}

function fileBlock(shown: string, real: string, o: ExpandOptions): string | undefined {
  if (checkSecretPath(real, o.configDir, o.home)) {
    o.notify('command_file_skipped', { file: shown, why: 'secret' });
    return undefined;
  }
  try {
    const text = readRegularFile(real, FILE_MAX_BYTES) ?? '';
    if (text.includes('\0')) {
      o.notify('command_file_skipped', { file: shown, why: 'binary' });
      return undefined;
    }
    return `<file path="${shown}">\n${text.replace(/\n$/, '')}\n</file>`;
  } catch (err) {
    o.notify('command_file_skipped', { file: shown, why: err instanceof FileReadError ? err.problem.code : 'unreadable' });
    return undefined;
  }
}
