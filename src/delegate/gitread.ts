// git_read: the review specialist's view of the repository — git diff, log, show and status,
// nothing else, run as a read-only command is (the launcher's read profile: the sandbox with
// nothing writable and no network where there is one, git's hardening always). Must not offer
// an option that writes a file, runs a program or reads outside the repository.

import { placeOf, runInGroup, shellQuote } from '../util/process.js';
import { OUTPUT_CAP } from '../util/cap.js';
import { toolError, type Tool } from '../types/tools.js';

const COMMANDS = ['diff', 'log', 'show', 'status'] as const;
type GitCommand = (typeof COMMANDS)[number];

/** Options that would write a file, run an external program or reach outside the repository. */
const REFUSED = /^(--output|-o$|--no-index|--ext-diff|--textconv|--exec|--upload-pack|--receive-pack|--config|-c$)/;
const TIMEOUT_MS = 30_000;
/** Without them git may run a configured diff driver or text converter. */
const SAFE_FLAGS: Record<GitCommand, string[]> = { diff: ['--no-ext-diff', '--no-textconv'], show: ['--no-ext-diff', '--no-textconv'], log: ['--no-ext-diff', '--no-textconv'], status: [] };

export function gitReadTool(): Tool<{ command: GitCommand; args?: string[] }> {
  return {
    name: 'git_read',
    description: 'Runs git diff, log, show or status (read-only) in the workspace. args: further arguments, e.g. ["--staged"], ["-5", "--stat"], ["HEAD~1", "--", "src/x.ts"].',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', enum: [...COMMANDS] }, args: { type: 'array', items: { type: 'string' }, maxItems: 20 } },
      required: ['command'],
      additionalProperties: false,
    },
    kind: 'read',
    describe: (a) => ({ title: `git ${String(a.command)} ${Array.isArray(a.args) ? a.args.join(' ') : ''}`.trim() }),
    async run({ command, args = [] }, ctx) {
      const refused = args.find((a) => REFUSED.test(a));
      if (refused) return toolError(`git_read does not take ${refused}: it only reads the repository`);
      const script = ['git', '--no-pager', command, ...SAFE_FLAGS[command], ...args].map(shellQuote).join(' ');
      const place = placeOf(ctx, 'read');
      const run = await runInGroup(script, { ...place, cwd: ctx.root, env: { ...place.env, GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat' } }, { timeoutMs: TIMEOUT_MS, signal: ctx.signal, cap: OUTPUT_CAP, reap: true });
      const { ending } = run;
      if (ending.kind === 'abort') return toolError('interrupted');
      if (ending.kind === 'timeout') return toolError(`git ${command} took longer than ${TIMEOUT_MS / 1000} s`);
      if (ending.kind === 'spawn') return toolError(`git could not start: ${ending.message}`);
      if (ending.code !== 0) return toolError(`git ${command} failed (exit ${ending.code ?? ending.signal}): ${run.stderr.trim() || run.stdout.trim()}`);
      return { output: run.stdout || '(no output)', summary: { key: 'lines', n: run.stdout ? run.stdout.trimEnd().split('\n').length : 0 } };
    },
  };
}
