// Specialists in the running app: their definitions as start-up found them (built-ins, the user's
// files, the project's once trusted), the provider each runs on (its own model, the side model
// for explore, else the session's), what each spent this session, and the notes of the session in
// force. Gives the task tool its options; runs no specialist itself (delegate/task.ts does).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { agentDirs, readAgentFiles } from '../config/agentfiles.js';
import { CODE_INDEX_TOOLS, DEFAULT_AGENT, mergeDefinitions, type AgentDefinition } from '../delegate/definitions.js';
import { unknownTools } from '../delegate/derive.js';
import { NoteStore, notesDirOf } from '../delegate/notes.js';
import { createProvider, type ProviderOptions } from '../providers/stream.js';
import type { LoadedModels } from '../config/keys.js';
import type { AgentEvent, NoticeEvent } from '../types/events.js';
import type { TaskOptions } from '../delegate/task.js';
import type { ModelConfig, Provider } from '../types/providers.js';

export type Spend = { tokens: number; cost: number | null };

/** Adds one request's spend to a specialist's tally. */
export function addSpend(tally: Map<string, Spend>, agent: string, tokens: number, cost: number | null): void {
  const was = tally.get(agent) ?? { tokens: 0, cost: 0 };
  tally.set(agent, { tokens: was.tokens + tokens, cost: was.cost === null || cost === null ? null : was.cost + cost });
}

/** The definition files of the user and of the project, and what trust must hash of the project's. */
export function findDefinitions(root: string, configDir: string) {
  const { files, unreadable } = readAgentFiles(agentDirs(root, configDir));
  const project = files.filter((f) => f.origin !== 'user').map((f) => ({ path: relative(root, f.path), hash: f.hash }));
  return { files, unreadable, project };
}

/** The definitions that apply (the project's only once trusted) and the notices about broken files. */
export function definitionsOf(found: ReturnType<typeof findDefinitions>, trusted: boolean): { agents: AgentDefinition[]; notices: NoticeEvent[] } {
  const { agents, broken } = mergeDefinitions(found.files.filter((f) => f.origin === 'user' || trusted));
  const notices: NoticeEvent[] = [...found.unreadable, ...broken].map(({ path, why }) => ({ type: 'notice', code: 'agent_file_broken', params: { file: path, why } }));
  return { agents, notices };
}

/** The side model (settings' sideModel) among the configured ones, or a notice that it is not there. */
export function sideModelOf(name: string | undefined, models: LoadedModels): { model?: ModelConfig; notice?: NoticeEvent } {
  if (!name) return {};
  const model = models.models.find((m) => m.name === name);
  return model ? { model } : { notice: { type: 'notice', code: 'side_model_unknown', params: { name } } };
}

export type SpecialistsOptions = {
  agents: AgentDefinition[];
  sideModel?: ModelConfig;
  providerOptions: ProviderOptions;
  /** The session's provider as it is now (/model changes it). */
  main: () => Provider;
  models: () => LoadedModels;
  /** The file of the session in force: its notes live beside it. */
  sessionFile: () => string;
};

export class Specialists {
  readonly agents: AgentDefinition[];
  /** Tokens and cost per specialist in this session. */
  readonly spend = new Map<string, Spend>();
  private readonly providers = new Map<string, Provider>();

  constructor(private readonly o: SpecialistsOptions) {
    this.agents = o.agents;
  }

  /** Where notes go for a session kept in memory (a host's): a private folder of this process. */
  private memoryDir: string | undefined;

  get notes(): NoteStore {
    const file = this.o.sessionFile();
    if (!file) this.memoryDir ??= mkdtempSync(join(tmpdir(), 'feiyu-notes-'));
    return new NoteStore(file ? notesDirOf(file) : this.memoryDir!);
  }

  /** The model name a definition runs on: its own, the side model for explore, else the session's ('inherit'). */
  modelOf(def: AgentDefinition): string {
    if (def.model && def.model !== 'inherit') return def.model;
    if (!def.model && def.name === DEFAULT_AGENT && this.o.sideModel) return this.o.sideModel.name;
    return 'inherit';
  }

  /**
   * The provider a definition runs on. A model keys.json does not have (Claude's `sonnet` in a
   * file written for it) was reported at start; the session's model does the work.
   */
  providerFor(def: AgentDefinition): Provider {
    const name = this.modelOf(def);
    const model = this.o.models().models.find((m) => m.name === name);
    return model ? this.provider(model) : this.o.main();
  }

  /** Notices, once at start, about definitions asking for tools or models that are not there. */
  problems(known: string[]): NoticeEvent[] {
    const names = this.o.models().models.map((m) => m.name);
    return this.agents.flatMap((def): NoticeEvent[] => {
      const tools = unknownTools(def, known, CODE_INDEX_TOOLS);
      const model = def.model && def.model !== 'inherit' && !names.includes(def.model) ? def.model : undefined;
      return [
        ...(tools.length ? [{ type: 'notice' as const, code: 'agent_unknown_tools' as const, params: { agent: def.name, tools: tools.join(', ') } }] : []),
        ...(model ? [{ type: 'notice' as const, code: 'agent_model_unknown' as const, params: { agent: def.name, model } }] : []),
      ];
    });
  }

  /** The side model's provider (web_fetch questions, compaction summaries); undefined without one. */
  sideProvider(): Provider | undefined {
    return this.o.sideModel && this.provider(this.o.sideModel);
  }

  private provider(model: ModelConfig): Provider {
    if (model.name === this.o.main().config.name) return this.o.main();
    let made = this.providers.get(model.name);
    if (!made) this.providers.set(model.name, (made = createProvider(model, this.o.providerOptions)));
    return made;
  }

  /** The task tool's options: these specialists, their providers and the session's notes; the permission gate, hooks and reporting are the app's. */
  taskOptions(o: Pick<TaskOptions, 'mode' | 'gate' | 'report' | 'onStop'>): Omit<TaskOptions, 'tools'> {
    return { ...o, agents: this.agents, providerFor: (def) => this.providerFor(def), notes: () => this.notes };
  }

  /**
   * Follows the event stream: each specialist's spend (`save` keeps it with the session), and
   * after a compaction the notes' index for the next request (`note`), so conclusions stay addressable.
   */
  onEvent(event: AgentEvent, o: { save(spend: Record<string, Spend>): void; note(text: string): void }): void {
    if (event.type === 'usage' && event.by) {
      addSpend(this.spend, event.by, event.input + event.output + event.cacheRead + event.cacheWrite, event.cost);
      o.save(Object.fromEntries(this.spend));
    }
    const index = event.type === 'compaction' ? this.notes.index() : '';
    if (index) o.note(index);
  }

  /** A new session in force: its spend as saved. With `from`, a fork: it starts with the original's notes. */
  follow(saved: unknown = {}, from?: string): void {
    if (from) this.notes.copyFrom(new NoteStore(notesDirOf(from)));
    this.spend.clear();
    if (saved && typeof saved === 'object') {
      for (const [agent, s] of Object.entries(saved as Record<string, Spend>)) {
        if (typeof s?.tokens === 'number') this.spend.set(agent, { tokens: s.tokens, cost: typeof s.cost === 'number' ? s.cost : null });
      }
    }
  }
}
