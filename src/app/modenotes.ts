// What the model is told of plan mode: its rules and exit_plan's definition when the mode is
// entered, that it is over when it ends. Both are notes at the end of the conversation, so the
// system prompt and the declared tools (the cached start of every request) stay the same across a
// mode switch. Must not change the mode or ask anything.

import type { PermissionMode } from '../types/permissions.js';

export const PLAN_RULES =
  'Plan mode: the user wants a plan before any change. Only read tools and read-only commands run; anything else is refused. Explore what you need, then submit the plan with exit_plan; once the user approves it, carry it out.';
export const PLAN_OVER = 'Plan mode is over: you may make changes now.';

type NoteTarget = { note(text: string): void; tools: { present(names: string[]): string } };

export class ModeNotes {
  /** The model was told it is in plan mode, and not yet that it is over. */
  private told = false;

  constructor(private readonly agent: NoteTarget) {}

  /** After every change of mode, and at start: tells the model what changed for it. */
  update(mode: PermissionMode): void {
    if (mode === 'plan' && !this.told) {
      this.told = true;
      this.agent.note([PLAN_RULES, this.agent.tools.present(['exit_plan'])].filter(Boolean).join('\n'));
    } else if (mode !== 'plan' && this.told) {
      this.told = false;
      this.agent.note(PLAN_OVER);
    }
  }

  /** The plan was approved: exit_plan's result says so, so leaving plan mode needs no note. */
  approved(): void {
    this.told = false;
  }

  /** A new or resumed conversation: the model has been told nothing in it (call update after). */
  forget(): void {
    this.told = false;
  }
}
