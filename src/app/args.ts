// The command line of DESIGN.md §3, parsed into a plain object, Claude Code's flags included
// (--max-turns, -c, --permission-mode, --allowedTools …) where feiyu has the feature. Bad usage
// throws UsageError (the CLI prints it and exits 2); nothing here reads files or the environment.

import type { MessageKey } from '../i18n/index.js';
import { ruleToolsOf } from '../util/claudenames.js';
import { PERMISSION_MODES, SANDBOX_LEVELS, type PermissionMode, type SandboxLevel } from '../types/permissions.js';

/** stream-json is Claude Code's message stream; events is feiyu's own AgentEvents. */
export type OutputFormat = 'text' | 'json' | 'stream-json' | 'events';

export type CliArgs = {
  print: boolean;
  message?: string;
  outputFormat: OutputFormat;
  /** stream-json: the user's messages as JSON lines on stdin. */
  inputFormat?: 'text' | 'stream-json';
  mode?: PermissionMode;
  /** --permission-mode acceptEdits: default mode, with edits inside the workspace allowed. */
  acceptEdits?: boolean;
  sandbox?: SandboxLevel;
  model?: string;
  /** true: the last session here; a string: that session. */
  resume?: true | string;
  /** With resume: continue in a new session that starts with the old one's history. */
  forkSession?: boolean;
  maxRounds?: number;
  lang?: 'en' | 'zh';
  cwd?: string;
  trust: boolean;
  outputSchema?: string;
  /** -i FILE, repeatable: images (or files) attached to the first message. */
  images: string[];
  /** Permission rules for this run (--allowedTools, --disallowedTools), in either spelling. */
  allow?: string[];
  deny?: string[];
  /** Replaces feiyu's base instructions (--system-prompt); added at the end (--append-system-prompt). */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** stream-json: stream_event lines with the model's deltas. */
  partial?: boolean;
  /** --mcp-config: files (or JSON text) of MCP servers, in .mcp.json's shape. */
  mcpConfig?: string[];
  /** --strict-mcp-config: only the servers of --mcp-config. */
  strictMcpConfig?: boolean;
  help: boolean;
  version: boolean;
  /** Serve an editor over the Agent Client Protocol on stdin/stdout. */
  acp?: boolean;
};

/** Bad usage, as an i18n key and its parameters; the CLI words it and exits 2. */
export class UsageError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly params: Record<string, string>,
  ) {
    super(key);
  }
}

const VALUED = new Set([
  '--output-format', '--input-format', '--mode', '--permission-mode', '--sandbox', '--model', '--max-rounds', '--max-turns', '--lang', '--cwd', '-C',
  '--output-schema', '--system-prompt', '--append-system-prompt', '-i', '--image', '--mcp-config',
]);
/** Claude Code's lists of rules: each takes one or more values. */
const RULE_LISTS = new Set(['--allowedTools', '--allowed-tools', '--disallowedTools', '--disallowed-tools']);
/** Claude Code's permission modes as feiyu's (acceptEdits is default mode with edits allowed). */
const CLAUDE_MODES: Record<string, PermissionMode> = { default: 'default', acceptEdits: 'default', plan: 'plan', bypassPermissions: 'auto' };

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError('usage.one_of', { flag, allowed: allowed.join(', '), value });
}

/** Rules in one argument: separated by commas or spaces outside parentheses ("Bash(git diff:*) Edit"). */
function splitRules(value: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of value) {
    if (c === '(') depth++;
    if (c === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === ',' || /\s/.test(c))) {
      if (cur) rules.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) rules.push(cur);
  return rules;
}

/** A further value of a rule list, rather than the message: a rule on a tool of Claude's or feiyu's. */
const looksLikeRule = (word: string): boolean => /^[A-Za-z_][\w-]*\(.*\)$/s.test(word) || (/^[A-Za-z_][\w-]*$/.test(word) && ruleToolsOf(word) !== null);

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { print: false, outputFormat: 'text', trust: false, images: [], help: false, version: false };
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i]!;
    let inline: string | undefined;
    if (arg.startsWith('--') && arg.includes('=')) {
      inline = arg.slice(arg.indexOf('=') + 1);
      arg = arg.slice(0, arg.indexOf('='));
    }
    if (arg === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (VALUED.has(arg) || RULE_LISTS.has(arg)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError('usage.needs_value', { flag: arg });
      if (!RULE_LISTS.has(arg)) {
        setValued(args, arg, value);
        continue;
      }
      const rules = splitRules(value);
      while (inline === undefined && i + 1 < argv.length && looksLikeRule(argv[i + 1]!)) rules.push(...splitRules(argv[++i]!));
      const list = arg.startsWith('--dis') ? (args.deny ??= []) : (args.allow ??= []);
      list.push(...rules);
      continue;
    }
    switch (arg) {
      case '-p':
      case '--print':
        args.print = true;
        break;
      case '-c':
      case '--continue':
        args.resume = true;
        break;
      case '-r':
      case '--resume': {
        // An ID follows only when it looks like one: not an option, not a sentence.
        const next = inline ?? argv[i + 1];
        const isId = next !== undefined && /^\w[\w-]{5,}$/.test(next);
        if (isId && inline === undefined) i++;
        args.resume = isId ? next : true;
        break;
      }
      case '--dangerously-skip-permissions':
        args.mode = 'auto';
        break;
      case '--include-partial-messages':
        args.partial = true;
        break;
      case '--verbose':
        // Claude Code needs it with stream-json; feiyu's stream is complete without it.
        break;
      case '--trust':
        args.trust = true;
        break;
      case '--acp':
        args.acp = true;
        break;
      case '--fork-session':
        args.forkSession = true;
        break;
      case '--strict-mcp-config':
        args.strictMcpConfig = true;
        break;
      case '-h':
      case '--help':
        args.help = true;
        break;
      case '-v':
      case '--version':
        args.version = true;
        break;
      default:
        if (arg.startsWith('-') && arg.length > 1) throw new UsageError('usage.unknown', { flag: arg });
        words.push(arg);
    }
  }
  if (words.length) args.message = words.join(' ');
  if (args.inputFormat === 'stream-json' && args.outputFormat !== 'stream-json') throw new UsageError('compat.stream_input', {});
  return args;
}

function setValued(args: CliArgs, flag: string, value: string): void {
  switch (flag) {
    case '--output-format':
      args.outputFormat = oneOf(flag, value, ['text', 'json', 'stream-json', 'events'] as const);
      return;
    case '--input-format':
      args.inputFormat = oneOf(flag, value, ['text', 'stream-json'] as const);
      return;
    case '--mode':
      args.mode = oneOf(flag, value, PERMISSION_MODES);
      return;
    case '--permission-mode':
      args.mode = CLAUDE_MODES[oneOf(flag, value, Object.keys(CLAUDE_MODES))];
      args.acceptEdits = value === 'acceptEdits' || undefined;
      return;
    case '--sandbox':
      args.sandbox = oneOf(flag, value, SANDBOX_LEVELS);
      return;
    case '--lang':
      args.lang = oneOf(flag, value, ['en', 'zh'] as const);
      return;
    case '--max-rounds':
    case '--max-turns': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new UsageError('usage.max_rounds', { flag, value });
      args.maxRounds = n;
      return;
    }
    case '--model':
      args.model = value;
      return;
    case '--output-schema':
      args.outputSchema = value;
      return;
    case '--mcp-config':
      args.mcpConfig = [...(args.mcpConfig ?? []), value];
      return;
    case '-i':
    case '--image':
      args.images.push(value);
      return;
    case '--system-prompt':
      args.systemPrompt = value;
      return;
    case '--append-system-prompt':
      args.appendSystemPrompt = value;
      return;
    default:
      args.cwd = value;
  }
}
