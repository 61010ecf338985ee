// Tools: what a tool is, what a call may use (the session's context, the sandbox launcher, jobs),
// what it returns and how it describes itself. Part of the shared vocabulary (types/): owns only
// types and one-line helpers over them (toolError, specOf); imports nothing but the vocabulary.

import type { ImageBlock } from './conversation.js';
import type { JsonSchema, Provider, ToolSpec, Usage } from './providers.js';

export type ToolKind = 'read' | 'write' | 'exec' | 'meta';

export type ToolOutput = {
  output: string;
  isError?: boolean;
  images?: ImageBlock[];
  /** A short line for the interface; the model sees `output`. Translated through i18n. */
  summary?: Summary;
  /** For write tools: the file before and after, so the interface can show a diff and /undo can restore. */
  change?: FileChange;
  /** Tokens a tool spent on its own model requests (web_fetch questions, sub-agents): counted in the totals. */
  sideUsage?: SideUsage;
  /** Ends the turn after this call (structured output, an approved plan in headless mode, a hook saying continue: false). */
  endTurn?: { text?: string; structured?: unknown };
};

/**
 * A tool's one-line result summary for the interface, as an i18n key and its parameters:
 * lines {n} · wrote {n} (lines) · edited {n} (replacements) · files {n} · matches {n} ·
 * exit {code, secs} · timeout {secs} · ok (nothing to count) · job {id} (started in the background).
 */
export type Summary =
  | { key: 'lines' | 'wrote' | 'edited' | 'files' | 'matches'; n: number }
  | { key: 'exit'; code: number; secs: number }
  | { key: 'timeout'; secs: number }
  | { key: 'ok' }
  | { key: 'not_approved' }
  | { key: 'job'; id: number }
  /** load_tools: {n} schemas given; taught: a cold tool's call did not run, its schema went back. */
  | { key: 'tools_loaded'; n: number }
  | { key: 'taught' }
  /** task: a specialist's status and its note's id. */
  | { key: 'handoff'; status: string; note: string };

/**
 * Tokens a tool spent on its own requests. `by` names the specialist that spent them; `model` and
 * `cost` come with requests made on another model than the session's (the side model), whose
 * price the loop does not know.
 */
export type SideUsage = Usage & { by?: string; model?: string; cost?: number | null };

/** A failed call's result: what went wrong, worded for the model, and anything else it carries. */
export const toolError = (output: string, extra: Omit<ToolOutput, 'output' | 'isError'> = {}): ToolOutput => ({ ...extra, output, isError: true });

/** What the model is told of a tool: its name, description and parameters, nothing else. */
export const specOf = ({ name, description, parameters }: Tool): ToolSpec => ({ name, description, parameters });

/**
 * Hot and cold tools (settings' `tools`). Hot tools are declared with their schema in every
 * request; cold ones are one line in the system prompt until the model loads them. Names may end
 * in `*` (`mcp__github__*`).
 */
export type ToolTiers = {
  /** Declared in every request. */
  hot?: string[];
  /** Cold even when `hot` names them. */
  cold?: string[];
  /** The declared schemas' estimated tokens per request: past it, the largest hot tools go cold. */
  budgetTokens?: number;
  /** Where a loaded schema goes: into the conversation (the request's prefix never changes) or the tools array. */
  loadInto?: 'conversation' | 'tools';
};

export type FileChange = { path: string; before: string | null; after: string };

/** The version of a file as the agent last read or wrote it. */
export type FileVersion = { hash: string; size: number; mtimeMs: number };

/** The bash tool's working directory between calls. Contract: only the bash tool moves it. */
export type ShellState = { cwd: string };

/** Starts one bash command in the sandbox (safety/sandboxhost.ts): its launch for the request's profile. */
export type WrapCommand = (req: LaunchRequest) => Launch;

/** Starts bash commands as background jobs (`background: true`); tools/jobs.ts JobManager. */
export interface BackgroundJobs {
  /** Starts `command` in the context's shell directory, sandbox and environment; says how it went, for the model. */
  startForModel(command: string, ctx: ToolContext, profile: SandboxProfile): Promise<ToolOutput>;
}

/**
 * What a session gives every tool call: built once, never reassigned. What changes lives in
 * small state objects with one writer each (`files`, `shell`) or behind functions (`provider`,
 * `wrapCommand` follow the model and the sandbox level the app has now).
 */
export interface ToolSession {
  /** The workspace root (a realpath). */
  readonly root: string;
  /** Read-before-write records, keyed by realpath: the file tools record what they read and wrote. */
  readonly files: Map<string, FileVersion>;
  readonly shell: ShellState;
  /** Environment for child processes (already filtered). */
  readonly env: NodeJS.ProcessEnv;
  /** The current model's provider, for tools that make their own model requests. */
  readonly provider?: () => Provider;
  /** Starts bash commands in the sandbox level in force; absent = plain bash, as in tests of the tools alone. */
  readonly wrapCommand?: WrapCommand;
  /** Background jobs; absent where none may start (then bash refuses `background: true`). */
  readonly jobs?: BackgroundJobs;
  /** Folders outside the workspace that read_file may read (the user's skills), as realpaths; the app keeps the list. */
  readonly readRoots?: readonly string[];
}

/** Everything a tool call may use: the session's context and the turn's signal. */
export interface ToolContext extends ToolSession {
  /** Aborts when the user cancels the turn. */
  readonly signal: AbortSignal;
  /** Output as it happens (a running command's), for the interface to show live; absent = nobody watches. */
  readonly progress?: (text: string) => void;
}

/**
 * How one bash command is confined, chosen with the permission decision: `read` (judged
 * read-only: nothing writable, no network), `write` (the workspace, but not its protected paths),
 * `write_git` (that and the repository's data: git commands the user approved).
 */
export type SandboxProfile = 'read' | 'write' | 'write_git';

export type LaunchRequest = { command: string; cwd: string; profile: SandboxProfile; env: NodeJS.ProcessEnv };
/** How to start one command; `release` once it has exited (placeholders of protected paths go). */
export type Launch = { file: string; args: string[]; env: NodeJS.ProcessEnv; release(): void };

/** What the permission decision grants one call, handed to the tool by runTool. */
export type ToolGrant = { sandbox?: SandboxProfile };

export interface Tool<A = any> {
  name: string;
  /** States the tool's limits; sent to the model. Keep it short: it is paid on every request. */
  description: string;
  /** What it is for, in a few words: its line in the system prompt while it is cold. Default: the description's first sentence. */
  brief?: string;
  parameters: JsonSchema;
  kind: ToolKind;
  /** The kind of one call when it depends on its arguments (task: its specialist's tools); batching follows it. */
  kindOf?: (args: A) => ToolKind;
  /**
   * What a call is about, from its arguments alone (they may be malformed: check types). The
   * interface names the call by it, the policy judges its path, command or URL, compaction stubs
   * and confirmations use it. Absent: the call is named by its tool alone.
   */
  describe?: (args: A) => CallDescription;
  /** `grant`: what the permission decision allowed (runTool hands it); absent when nothing decided. */
  run(args: A, ctx: ToolContext, grant?: ToolGrant): Promise<ToolOutput>;
}

/** A tool call in its own words; `title` is the line the interface shows after the tool's name. */
export type CallDescription = {
  title: string;
  /** The file or folder it reads or changes, as the model gave it. */
  path?: string;
  /** The shell command it runs. */
  command?: string;
  /** The URL it reaches. */
  url?: string;
  preview?: CallPreview;
};

/**
 * What a call will do, shown before it does: a replacement in a file, a whole file written, or
 * lines (a todo list as it will read).
 */
export type CallPreview =
  | { kind: 'edit'; path: string; before: string; after: string; replaceAll?: boolean }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'lines'; lines: string[] };
