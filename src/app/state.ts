// What changes while the app runs — the permission mode (and the mode before plan mode), the
// model and the list of models, the reasoning effort, the sandbox level — each with one writer. The writers report
// every change to the one listener the wiring installs; nothing else assigns these values.

import type { LoadedModels } from '../config/keys.js';
import type { Effort, ModelConfig } from '../types/providers.js';
import type { PermissionMode, SandboxLevel } from '../types/permissions.js';

export type StateChange = 'mode' | 'model' | 'sandbox' | 'effort';

/** The stand-in model of a REPL started with nothing configured; the app refuses to send with it. */
const UNCONFIGURED: ModelConfig = { name: '—', provider: 'anthropic', model: '/key add', contextWindow: 200_000, maxOutputTokens: 4096 };

export class AppState {
  private currentMode: PermissionMode;
  /** Where exit_plan returns to. */
  private beforePlan: PermissionMode;
  private currentModel: ModelConfig | undefined;
  private currentModels: LoadedModels;
  private level: SandboxLevel;
  private currentEffort: Effort | undefined;

  constructor(
    init: { mode: PermissionMode; model?: ModelConfig; models: LoadedModels; sandbox: SandboxLevel },
    /** Why the start-up probe turned the sandbox off for good; then only 'off' is possible. */
    readonly sandboxOff: { reason: string; detail: string } | undefined,
    private readonly changed: (what: StateChange) => void,
  ) {
    this.currentMode = init.mode;
    this.beforePlan = init.mode === 'plan' ? 'default' : init.mode;
    this.currentModel = init.model;
    this.currentModels = init.models;
    this.level = init.sandbox;
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  /** The one way the mode changes. Entering plan mode remembers the mode it leaves. */
  setMode(mode: PermissionMode): void {
    if (mode === 'plan' && this.currentMode !== 'plan') this.beforePlan = this.currentMode;
    this.currentMode = mode;
    this.changed('mode');
  }

  /** An approved plan puts back the mode that was in force before plan mode. */
  leavePlanMode(): void {
    this.setMode(this.beforePlan);
  }

  /** The model in use, with the effort set for this session, or the stand-in while none is configured. */
  get model(): ModelConfig {
    const model = this.currentModel ?? UNCONFIGURED;
    return this.currentEffort ? { ...model, effort: this.currentEffort } : model;
  }

  get effort(): Effort | undefined {
    return this.currentEffort;
  }

  /** Reasoning effort for the rest of the session (undefined: the model's default). */
  setEffort(effort: Effort | undefined): void {
    this.currentEffort = effort;
    this.changed('effort');
  }

  get configured(): boolean {
    return this.currentModel !== undefined;
  }

  setModel(model: ModelConfig): void {
    this.currentModel = model;
    this.changed('model');
  }

  get models(): LoadedModels {
    return this.currentModels;
  }

  /** keys.json read again (/key): the model in use stays until setModel. */
  setModels(models: LoadedModels): void {
    this.currentModels = models;
  }

  get sandbox(): SandboxLevel {
    return this.level;
  }

  /** False when the start-up probe turned the sandbox off for good and `level` is not 'off'. */
  setSandbox(level: SandboxLevel): boolean {
    if (this.sandboxOff && level !== 'off') return false;
    this.level = level;
    this.changed('sandbox');
    return true;
  }
}
