// The project's Markdown at work in one session: the instruction files, skills and custom commands
// as last loaded, whether the project's commands are still those the user trusted, the folders
// read_file may read for the user's skills, a subfolder's instructions added to tool results, and
// a custom command's one message (its allowed-tools in force, its model used). Wiring only: the
// loading is config/'s and app/context.ts's, the wording core/prompt.ts's and the catalogue's.

import { SubfolderConventions } from '../config/conventions.js';
import { loadCommands, type CustomCommand } from '../config/commands.js';
import { projectTrustState } from '../config/trust.js';
import { commandTerms, expandCommand } from './commands.js';
import { projectFiles, type AppConfig } from './config.js';
import { FolderInstructions, loadMarkdownContext, type MarkdownContext } from './context.js';
import type { AppState } from './state.js';
import type { Rule } from '../safety/rules.js';
import type { ToolCallBlock } from '../types/conversation.js';
import type { NoticeCode, NoticeEvent } from '../types/events.js';
import type { Decision } from '../types/permissions.js';
import { createProvider } from '../providers/stream.js';
import type { Provider } from '../types/providers.js';
import type { WrapCommand } from '../types/tools.js';

type Notify = (code: NoticeCode, params?: NoticeEvent['params']) => void;

/** What running a command needs of the app, given when it runs (the agent exists by then). */
export type CommandRun<T> = {
  state: AppState;
  agent: { provider: Provider };
  decideBash(call: ToolCallBlock, signal: AbortSignal): Promise<Decision>;
  wrapCommand: WrapCommand;
  send(text: string, signal: AbortSignal): Promise<T>;
};

export class ProjectMarkdown {
  private loaded: MarkdownContext;
  private trusted: boolean;
  /** A custom command's allowed-tools, in force while its message runs. */
  private commandRules: Rule[] = [];
  /** Folders read_file may read outside the workspace (the user's skills): one list, changed in place. */
  readonly readRoots: string[];
  readonly folders: FolderInstructions;
  private readonly places: { workspace: string; home: string; configDir: string };

  constructor(
    private readonly config: AppConfig,
    private readonly notify: Notify,
  ) {
    this.loaded = config.markdown;
    this.trusted = config.trusted;
    this.readRoots = [...config.markdown.skills.readRoots];
    this.places = { workspace: config.root, home: config.home, configDir: config.configDir };
    this.folders = new FolderInstructions(new SubfolderConventions(this.places, config.markdown.conventions.seen), (n) => notify(n.code, n.params));
  }

  get markdown(): MarkdownContext {
    return this.loaded;
  }

  /** The user's rules, with a running command's allowed-tools added to the allow list. */
  rules(base: AppConfig['rules']): AppConfig['rules'] {
    return this.commandRules.length ? { allow: [...base.allow, ...this.commandRules], deny: base.deny } : base;
  }

  /** Reads the custom commands again (files added since start-up count). */
  reloadCommands(): readonly CustomCommand[] {
    this.loaded = { ...this.loaded, commands: loadCommands(this.places) };
    this.trusted = this.stillTrusted();
    return this.loaded.commands.commands;
  }

  /** Reads everything again (/context); the subfolders' instructions start over. */
  async reload(): Promise<MarkdownContext> {
    this.loaded = await loadMarkdownContext(this.places);
    this.trusted = this.stillTrusted();
    this.readRoots.splice(0, this.readRoots.length, ...this.loaded.skills.readRoots);
    this.folders.reset(this.loaded.conventions.seen);
    return this.loaded;
  }

  /** Commands changed since the user trusted the project run nothing until it is trusted again (a restart asks). */
  private stillTrusted(): boolean {
    return this.config.trusted && projectTrustState(this.config.root, this.config.configDir, projectFiles(this.config.projectSettings, this.loaded)).trusted;
  }

  /** A custom command's message sent: its `!` lines run and `@files` inlined, its allowed-tools and model in force for it alone. */
  async runCommand<T>(command: CustomCommand, args: string, notes: string[], run: CommandRun<T>, signal: AbortSignal): Promise<T | null> {
    const { state, agent } = run;
    // Nothing runs for a message that cannot be sent.
    if (!state.configured) {
      this.notify('no_model');
      return null;
    }
    const { mayRun, rules, model } = commandTerms(command, { trusted: this.trusted, models: state.models, notify: this.notify });
    const provider = agent.provider;
    this.commandRules = rules;
    try {
      const expand = { ...this.places, root: this.config.root, mayRun, decide: run.decideBash, wrapCommand: run.wrapCommand, env: this.config.childEnv, notify: this.notify };
      const text = await expandCommand(command, args, expand, signal);
      if (model && model.name !== state.model.name) agent.provider = createProvider(model, this.config.providerOptions);
      return await run.send([text, ...notes].join('\n\n'), signal);
    } finally {
      this.commandRules = [];
      agent.provider = provider;
    }
  }
}
