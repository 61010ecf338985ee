// The command line of DESIGN.md §3, parsed into a plain object. Bad usage throws UsageError
// (the CLI prints it and exits 2); nothing here reads files or the environment.

import type { MessageKey } from '../i18n/index.js';
import { PERMISSION_MODES, SANDBOX_LEVELS, type PermissionMode, type SandboxLevel } from '../types/permissions.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

export type CliArgs = {
  print: boolean;
  message?: string;
  outputFormat: OutputFormat;
  mode?: PermissionMode;
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
  /** --mcp-config: files (or JSON text) of MCP servers, in .mcp.json's shape. */
  mcpConfig?: string[];
  /** --strict-mcp-config: only the servers of --mcp-config. */
  strictMcpConfig?: boolean;
  help: boolean;
  version: boolean;
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

const VALUED = new Set(['--output-format', '--mode', '--sandbox', '--model', '--max-rounds', '--lang', '--cwd', '-C', '--output-schema', '--mcp-config']);

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError('usage.one_of', { flag, allowed: allowed.join(', '), value });
}

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { print: false, outputFormat: 'text', trust: false, help: false, version: false };
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
    if (VALUED.has(arg)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError('usage.needs_value', { flag: arg });
      setValued(args, arg, value);
      continue;
    }
    switch (arg) {
      case '-p':
      case '--print':
        args.print = true;
        break;
      case '--resume': {
        // An ID follows only when it looks like one: not an option, not a sentence.
        const next = inline ?? argv[i + 1];
        const isId = next !== undefined && /^\w[\w-]{5,}$/.test(next);
        if (isId && inline === undefined) i++;
        args.resume = isId ? next : true;
        break;
      }
      case '--trust':
        args.trust = true;
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
  return args;
}

function setValued(args: CliArgs, flag: string, value: string): void {
  switch (flag) {
    case '--output-format':
      args.outputFormat = oneOf(flag, value, ['text', 'json', 'stream-json'] as const);
      return;
    case '--mode':
      args.mode = oneOf(flag, value, PERMISSION_MODES);
      return;
    case '--sandbox':
      args.sandbox = oneOf(flag, value, SANDBOX_LEVELS);
      return;
    case '--lang':
      args.lang = oneOf(flag, value, ['en', 'zh'] as const);
      return;
    case '--max-rounds': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new UsageError('usage.max_rounds', { value });
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
    default:
      args.cwd = value;
  }
}
