// What a running session offers its drivers (the REPL, headless mode, the host API): the App
// interface and the loop view inside it. Types only; app.ts builds the one implementation.

import type { Agent, Totals, TurnResult } from '../core/agent.js';
import type { ToolTable } from '../core/tooltable.js';
import type { CustomCommand } from '../config/commands.js';
import type { LoadedModels } from '../config/keys.js';
import type { NotifySetting } from '../config/settings.js';
import type { JobManager } from '../tools/jobs.js';
import type { TodoList } from '../tools/todo.js';
import type { CodeIndexLink, CodeIndexSetting } from './codeindex.js';
import type { MarkdownContext } from './context.js';
import type { McpView } from './mcp.js';
import type { UserRun } from './usershell.js';
import type { Specialists } from './specialists.js';
import type { Rewind } from './rewind.js';
import type { AgentEvent, NoticeEvent } from '../types/events.js';
import type { AskAnswer, PermissionMode, PlanVerdict, SandboxLevel } from '../types/permissions.js';
import type { FileVersion } from '../types/tools.js';
import type { Message } from '../types/conversation.js';
import type { Effort, ModelConfig, Provider } from '../types/providers.js';

/** What the interface reads of the loop, and /compact. */
export type LoopView = {
  readonly totals: Readonly<Totals>;
  readonly messages: readonly Message[];
  /** The system prompt as sent now, the list of cold tools included. */
  prompt(): string;
  /** The tools in tiers: hot, cold and loaded, with their costs. */
  readonly tools: Pick<ToolTable, 'rows' | 'declared' | 'loaded' | 'deferring' | 'keys' | 'describe'>;
  compact: Agent['compact'];
  /** For a request beside the conversation (/commit's message), counted in the totals. */
  readonly provider: Provider;
  countUsage: Agent['countUsage'];
};

/**
 * A running feiyu session, whatever drives it. Contract: every change of mode, model and sandbox
 * goes through its setters; questions for the user arrive as `approval` events and are answered
 * with answer(); nothing else reaches into the loop.
 */
export interface App {
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stateDir: string;
  /** What to show before the first prompt, in order. Later notices come on the event stream. */
  readonly notices: readonly NoticeEvent[];
  /** Instruction files, skills and custom commands as loaded last (at start-up, or by /context). */
  readonly markdown: MarkdownContext;
  readonly agent: LoopView;
  readonly todo: TodoList;
  readonly jobs: JobManager;
  /** Read-before-write records: /undo takes back what it restores. */
  readonly files: Map<string, FileVersion>;
  readonly session: { readonly id: string; readonly name?: string };
  /** Checkpoints and going back to earlier turns; interactive sessions only. */
  readonly rewind?: Rewind;
  readonly mode: PermissionMode;
  /** --permission-mode acceptEdits: edits in the workspace are allowed (Claude's name for the mode then). */
  readonly acceptEdits: boolean;
  readonly model: ModelConfig;
  readonly models: LoadedModels;
  readonly sandbox: { level: SandboxLevel; off?: { reason: string; detail: string } };
  /** The specialists (/agents), their models and what each spent this session (/cost). */
  readonly specialists: Pick<Specialists, 'agents' | 'spend' | 'modelOf' | 'notes'>;
  /** Subscribes to the one event stream (the loop's and the app's); returns the unsubscribe function. */
  on(listener: (event: AgentEvent) => void): () => void;
  /**
   * Sends one user message: UserPromptSubmit hooks first (they may block it or add context),
   * then what it attaches (`@path`, image paths, and `images` from -i: notices say what went),
   * then the agent. Null when it could not be sent (no model, a hook blocked it: a notice says why).
   */
  send(text: string, signal: AbortSignal, o?: { images?: readonly string[] }): Promise<TurnResult | null>;
  /** The user's own command (`!command`): no question, no sandbox, in the shell's folder; output as it comes. */
  runShell(command: string, signal: AbortSignal, onOutput: (text: string) => void): Promise<UserRun>;
  /** Answers the `approval` event `id`; false when nothing waits under that id. */
  answer(id: string, answer: AskAnswer | PlanVerdict): boolean;
  setMode(mode: PermissionMode): void;
  /** Reasoning effort for this session's requests (/effort); undefined: the model's default. */
  readonly effort: Effort | undefined;
  setEffort(effort: Effort | undefined): void;
  /** Switches the model for this session; throws ConfigError for an unknown name. */
  setModel(name: string): void;
  /** Changes the sandbox level; false when the start-up probe turned it off for good. */
  setSandbox(level: SandboxLevel): boolean;
  /**
   * Continues a saved session: `true` for the last one of this directory. With `fork`, as a new
   * session that starts with its history (the original is left as it is). Throws ConfigError,
   * SessionBusyError when another feiyu has the session open.
   */
  resume(which: true | string, opts?: { fork?: boolean }): Promise<void>;
  /** Sends a custom command's message (ProjectMarkdown.runCommand): its allowed-tools and model for it alone. Null as send(). */
  runCommand(command: CustomCommand, args: string, signal: AbortSignal, notes?: string[]): Promise<TurnResult | null>;
  /** Reads the custom commands again (files added since start-up count); returns them. */
  reloadCommands(): readonly CustomCommand[];
  /** Reads the instruction files, skills, commands and remembered notes again, into the system prompt (/context). */
  reloadContext(): Promise<{ markdown: MarkdownContext; memory: string }>;
  /** A new conversation (/clear): a new session file (the old one stays, for /resume); history, totals, todo and read records cleared. */
  newSession(): void;
  /** Names this session (/rename): saved with it, shown in /resume. */
  rename(name: string): void;
  /** Reads keys.json again (after /key, before /model): the current model as its entry now reads; throws ConfigError. */
  reloadModels(): void;
  /** The code index, when the settings and the workspace turn it on (for /index); null when off. */
  readonly codeIndex: CodeIndexLink | null;
  readonly codeIndexSetting: CodeIndexSetting;
  /** How the interface asks for attention after a long turn and at a question (settings' notify). */
  readonly notify: NotifySetting;
  /** The MCP servers; undefined when none are configured. Started by mcp.start() (the REPL, once its prompt is up) or mcp.ready(). */
  readonly mcp?: McpView;
  /** Stops what the session started (MCP servers included) and closes the files. */
  close(): Promise<void>;
}
