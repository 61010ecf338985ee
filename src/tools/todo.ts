// The todo list: the model writes its plan of work as a whole list (the `todo` tool), the session
// saves it, and a reminder sends the model back once per user message when it tries to finish with
// items still open. Must not print: the REPL renders `items` when onChange fires.

import { toolError, type Tool } from '../types/tools.js';

export type TodoStatus = 'pending' | 'in_progress' | 'done';
export type TodoItem = { content: string; status: TodoStatus };

const STATUSES: readonly TodoStatus[] = ['pending', 'in_progress', 'done'];
const MAX_ITEMS = 50;

/** When to keep a list: the tool's line while it is cold, the start of its description while it is declared. */
const WHEN = 'keep one when a request has several parts or touches three or more places, and finish every item';

/** The first problem with a list, worded for the model, or null. */
function problemWith(items: unknown): string | null {
  if (!Array.isArray(items)) return 'items must be a list of {content, status}';
  if (items.length > MAX_ITEMS) return `at most ${MAX_ITEMS} items; group small steps together`;
  for (const [i, item] of items.entries()) {
    if (typeof item?.content !== 'string' || !item.content.trim()) return `item ${i + 1} needs a non-empty content`;
    if (!STATUSES.includes(item.status)) return `item ${i + 1}: status must be pending, in_progress or done`;
  }
  const active = items.filter((item) => item.status === 'in_progress');
  if (active.length > 1) {
    const names = active.map((item) => JSON.stringify(item.content)).join(', ');
    return `only one item may be in_progress, and ${active.length} are (${names}); mark the others pending or done, and send the whole list again`;
  }
  return null;
}

const MARKS: Record<TodoStatus, string> = { done: '[x]', in_progress: '[>]', pending: '[ ]' };

function renderItems(items: readonly TodoItem[]): string[] {
  return items.map((item) => `${MARKS[item.status]} ${item.content}`);
}

/** The session's todo list. Contract: `items` is plain JSON, saved with the session and given back to restore(). */
export class TodoList {
  items: TodoItem[] = [];

  constructor(private readonly onChange?: (items: readonly TodoItem[]) => void) {}

  /** Replaces the whole list; returns a problem worded for the model (the list is unchanged), or null. */
  set(items: unknown): string | null {
    const problem = problemWith(items);
    if (problem) return problem;
    this.items = (items as TodoItem[]).map(({ content, status }) => ({ content: content.trim(), status }));
    this.onChange?.(this.items);
    return null;
  }

  /** Puts back a list saved with the session; anything malformed leaves the list empty. */
  restore(saved: unknown): void {
    this.items = problemWith(saved) ? [] : (saved as TodoItem[]).map(({ content, status }) => ({ content, status }));
  }

  open(): TodoItem[] {
    return this.items.filter((item) => item.status !== 'done');
  }

  /** `[x] done`, `[>] in progress`, `[ ] pending`, one item a line. */
  render(): string {
    return renderItems(this.items).join('\n');
  }
}

/** The `todo` tool over `list`. */
export function todoTool(list: TodoList): Tool<{ items: TodoItem[] }> {
  return {
    name: 'todo',
    brief: `your todo list: ${WHEN}`,
    description: `Your todo list: ${WHEN}. Send the whole list each time, one item in_progress; mark items done as you finish them.`,
    parameters: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { content: { type: 'string' }, status: { enum: STATUSES } },
            required: ['content', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['items'],
      additionalProperties: false,
    },
    kind: 'meta',
    describe: (a) => ({
      title: `${a.items.filter((item) => item.status === 'done').length}/${a.items.length}`,
      preview: { kind: 'lines', lines: renderItems(a.items.map((item) => ({ content: String(item.content).trim(), status: item.status }))) },
    }),
    async run(args) {
      const problem = list.set(args.items);
      if (problem) return toolError(problem);
      return { output: list.render() || '(the list is empty)' };
    },
  };
}

/**
 * Sends the model back when it tries to finish with open items: at most once per user message,
 * so it cannot loop. Call resetForTurn() at each user message, check() from the agent's onStop.
 */
export class TodoReminder {
  private sent = false;

  constructor(private readonly list: TodoList) {}

  resetForTurn(): void {
    this.sent = false;
  }

  /** The text to send back to the model, or null to let it finish. */
  check(): string | null {
    const open = this.list.open();
    if (this.sent || !open.length) return null;
    this.sent = true;
    const names = open.map((item) => `"${item.content}"`).join(', ');
    return `Your todo list still has ${open.length} open item${open.length === 1 ? '' : 's'}: ${names}. Finish them, or update the list (mark done what is done, remove what is no longer needed) and say why.`;
  }
}
