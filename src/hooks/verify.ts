// verify: the project's check command(s) run after every successful write_file / edit_file,
// outside the sandbox, in the workspace, with a timeout; a failure's output (head and tail) goes
// back to the model with the edit's result. Must not decide trust: the caller passes only the
// commands that may run.

import { shellQuote } from '../util/process.js';
import { failureWords, runShell } from './shell.js';
import type { AgentEvent } from '../types/events.js';
import type { ToolCallBlock } from '../types/conversation.js';
import type { ToolOutput } from '../types/tools.js';

const VERIFY_TIMEOUT_S = 120;
/** Characters of a failed verify's output given to the model (head and tail). */
const VERIFY_CAP = 6000;
/** Tools after which verify runs: the file tools, not bash (that would test after every ls). */
const VERIFIED_TOOLS = new Set(['write_file', 'edit_file']);

export type VerifyOptions = {
  commands: string[];
  root: string;
  env: NodeJS.ProcessEnv;
  emit: (event: AgentEvent) => void;
  /** Seconds; default 120. */
  timeout?: number;
};

/** After a call: the note verify adds to its result, or null when it does not run. */
export function createVerify(o: VerifyOptions): (call: ToolCallBlock, result: ToolOutput, signal?: AbortSignal) => Promise<string | null> {
  return async (call, result, signal) => {
    if (!o.commands.length || !VERIFIED_TOOLS.has(call.name) || result.isError || signal?.aborted) return null;
    for (const command of o.commands) {
      const started = Date.now();
      // Merged, so the model reads errors in the order they were printed.
      const ran = await runShell(`exec 2>&1; eval ${shellQuote(command)}`, { cwd: o.root, env: o.env, timeout: o.timeout ?? VERIFY_TIMEOUT_S, signal, cap: VERIFY_CAP });
      const secs = Math.round((Date.now() - started) / 100) / 10;
      const { end } = ran;
      if (end.kind === 'abort') return '[verify was interrupted]';
      if (end.kind === 'exit' && end.code === 0) {
        o.emit({ type: 'verify', command, secs });
        continue;
      }
      o.emit({ type: 'verify', command, secs, failure: end });
      return `[verify failed: \`${command}\` ${failureWords(end)}. The change was written; fix what it reports.]\n${ran.stdout.trimEnd() || '(no output)'}`;
    }
    return `[verify passed: ${o.commands.join('; ')}]`;
  };
}
