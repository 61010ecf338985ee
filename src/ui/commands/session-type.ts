// What a slash command may use of the running REPL: its app, its questions and its output.

import type { App } from '../../app/app.js';
import type { Io } from '../confirm.js';
import type { UndoStack } from '../undo.js';

export type Session = Io & {
  app: App;
  undo: UndoStack;
  /** Runs `work` with Ctrl+C cancelling it. */
  busy<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Sends a message to the model as if typed (through the host), Ctrl+C cancelling it; resolves once it is shown. */
  send(prompt: string): Promise<void>;
  /** Shows the prompt again after the mode or the language changed. */
  refreshPrompt(): void;
  /** Adds a line for the model to the next message (after /undo). */
  tellModel(note: string): void;
};
