// Events in plain words, in the interface language: provider failures (which model, which key,
// what to do next, how often it was tried and when the server said to come back), notices, hook
// failures and verify results. Shared by the REPL and headless mode; words come from the catalogue.

import type { AgentEvent, CommandFailure, NoticeCode, NoticeEvent } from '../types/events.js';
import type { ModelConfig, ProviderError } from '../types/providers.js';
import { t, type MessageKey } from './index.js';

/** A provider failure in plain words. `now` is for tests: the clock time a retry-after points to. */
export function explainError(error: ProviderError, model: ModelConfig, now = Date.now()): string {
  const keySource = model.apiKeyEnv
    ? t('key.env', { name: model.apiKeyEnv })
    : model.apiKey
      ? t('key.file', { name: model.name })
      : t('key.none', { name: model.name });
  const sentences = [
    t(`err.${error.kind}` as MessageKey, {
      model: model.name,
      id: model.model,
      status: error.status ?? '-',
      http: error.status ? ` (HTTP ${error.status})` : '',
      msg: error.message.replace(/[.。]\s*$/, ''),
      url: model.baseURL ?? (model.provider === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1'),
      keySource,
      secs: Math.round((error.idleMs ?? 0) / 1000),
    }),
  ];
  if (error.attempts && error.attempts > 1) sentences.push(t('err.attempts', { n: error.attempts }));
  if (error.retryAfterMs !== undefined && error.kind !== 'quota') {
    sentences.push(t('err.retry_at', { wait: duration(error.retryAfterMs), time: clock(now + error.retryAfterMs, now) }));
  } else if (error.kind === 'rate_limit') {
    sentences.push(t('err.wait_minute'));
  }
  return sentences.join(' ');
}

/** "40 s", "5 min", "1 h 30 min", "3 d": how long to wait (or since), rounded up. */
function duration(ms: number): string {
  const secs = Math.max(1, Math.ceil(ms / 1000));
  if (secs < 120) return t('time.secs', { n: secs });
  const mins = Math.ceil(secs / 60);
  if (mins < 120) return t('time.mins', { n: mins });
  if (mins >= 48 * 60) return t('time.days', { n: Math.round(mins / (24 * 60)) });
  const rest = mins % 60;
  return rest ? t('time.hours_mins', { h: Math.floor(mins / 60), m: rest }) : t('time.hours', { h: mins / 60 });
}

/** The local clock time, "14:05", with the date when it is not today. */
function clock(at: number, now: number): string {
  const date = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  const hm = `${two(date.getHours())}:${two(date.getMinutes())}`;
  if (date.toDateString() === new Date(now).toDateString()) return hm;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${hm}`;
}

const NOTICE_KEYS: Record<NoticeCode, MessageKey> = {
  mcp_failed: 'mcp.failed',
  mcp_config_broken: 'mcp.config_broken',
  max_rounds: 'notice.max_rounds',
  max_tokens: 'notice.max_tokens',
  usage_estimated: 'notice.usage_estimated',
  schema_retry: 'notice.schema_retry',
  schema_failed: 'notice.schema_failed',
  no_model: 'cli.no_model_repl',
  trust_ignored: 'trust.ignored',
  memory_dropped: 'memory.dropped',
  auto_unsandboxed: 'sandbox.auto_unsandboxed',
  read_unenforced: 'sandbox.read_unenforced',
  todo_reminded: 'todo.reminded',
  stop_hook_sent_back: 'hook.sent_back',
  prompt_blocked: 'hook.prompt_blocked',
  hook_message: 'compat.hook_message',
  hook_stopped: 'compat.hook_stopped',
  hook_event_unknown: 'compat.hook_event_unknown',
  hook_type_unsupported: 'compat.hook_type_unsupported',
  context_full: 'notice.context_full',
  session_write_failed: 'session.write_failed',
  session_write_recovered: 'session.write_recovered',
  trace_write_failed: 'trace.write_failed',
  trace_write_recovered: 'trace.write_recovered',
  resume_model: 'resume.model',
  resume_forked: 'resume.forked',
  session_skipped: 'session.skipped',
  files_changed: 'session.files_changed',
  resumed: 'resume.said',
  resume_mode: 'resume.mode',
  auto_mode: 'mode.auto_warning',
  broad_root: 'root.broad',
  attached: 'attach.file',
  not_attached: 'attach.not',
  keys_broken: 'keys.broken',
  file_not_regular: 'file.not_regular',
  file_too_big: 'file.too_big',
  keys_made_private: 'keys.mode_fixed',
  keys_exposed: 'keys.mode_open',
  groups_reaped: 'jobs.reaped',
  agent_file_broken: 'agents.file_broken',
  agent_unknown_tools: 'agents.unknown_tools',
  agent_model_unknown: 'agents.model_unknown',
  side_model_unknown: 'agents.side_unknown',
  instructions_cut: 'files.instructions_cut',
  instructions_import_refused: 'files.import_refused',
  instruction_unreadable: 'files.unreadable',
  verify_not_run: 'files.verify_not_run',
  skill_skipped: 'files.skill_skipped',
  skills_shortened: 'files.skills_shortened',
  skills_omitted: 'files.skills_omitted',
  command_skipped: 'files.command_skipped',
  front_matter_broken: 'files.front_matter_broken',
  command_untrusted: 'files.command_untrusted',
  command_unknown_tools: 'files.command_unknown_tools',
  command_model_unknown: 'files.command_model_unknown',
  command_shell: 'files.command_shell',
  command_shell_refused: 'files.command_shell_refused',
  command_file_skipped: 'files.command_file_skipped',
  codeindex_ready: 'codeindex.ready',
  codeindex_cache_corrupt: 'codeindex.cache_corrupt',
  codeindex_build_failed: 'codeindex.build_failed',
  codeindex_save_failed: 'codeindex.save_failed',
  checkpoints_off: 'checkpoint.off_failed',
  checkpoint_failed: 'checkpoint.failed',
  checkpoint_skipped: 'checkpoint.skipped',
};

/** Notices whose `why` is a code, and the catalogue prefix that words it. */
const WHY_PREFIX: Partial<Record<NoticeCode, string>> = {
  instructions_import_refused: 'files.import_why_',
  skill_skipped: 'files.skip_why_',
  command_skipped: 'files.skip_why_',
  front_matter_broken: 'files.front_why_',
  command_file_skipped: 'files.file_why_',
};

/** Why commands run without a sandbox: a failed probe's reason code, or 'flag' (--sandbox off). */
export function unsandboxedWhy(reason: string | number | undefined, detail: string | number = ''): string {
  if (reason === 'bwrap_missing' || reason === 'userns_disabled' || reason === 'bwrap_failed' || reason === 'bwrap_unconfined') return t(`sandbox.${reason}`, { detail });
  return reason === 'turned_off' ? t('sandbox.turned_off') : '--sandbox off';
}

/** A notice in words; `headless` picks the wording that fits a -p run where one differs. */
export function noticeText(n: NoticeEvent, headless = false): string {
  const params = n.params ?? {};
  if (n.code === 'auto_unsandboxed' || n.code === 'read_unenforced') return t(NOTICE_KEYS[n.code], { why: unsandboxedWhy(params.why, params.detail) });
  if (n.code === 'max_rounds' && headless) return t('notice.max_rounds_headless', params);
  if (n.code === 'attached') return t(`attach.${params.what === 'folder' ? 'folder' : params.what === 'image' ? 'image' : 'file'}`, params);
  if (n.code === 'not_attached') return t('attach.not', { ...params, why: t(`attach.why_${String(params.why)}` as MessageKey, params) });
  if (n.code === 'resumed') return t('resume.said', { ...params, ago: duration(Date.now() - Number(params.updated)) });
  const why = WHY_PREFIX[n.code];
  if (why) return t(NOTICE_KEYS[n.code], { ...params, why: t(`${why}${params.why}` as MessageKey, params) });
  // A file's kind (FIFO, device…) is a word of the interface language too.
  if (n.code === 'file_not_regular') return t('file.not_regular', { ...params, kind: t(`file.kind_${String(params.kind).replace(' ', '_')}` as MessageKey) });
  if (n.code === 'mcp_failed') return t('mcp.failed', { server: params.server ?? '', why: mcpWhy(params) });
  if (n.code === 'checkpoints_off' && (params.why === 'home' || params.why === 'no_git')) return t(`checkpoint.off_${params.why}`);
  return t(NOTICE_KEYS[n.code], params);
}

/** Why an MCP server failed (an McpFailure's code, detail and stderr), in words. */
export function mcpWhy(f: { why?: string | number; detail?: string | number; stderr?: string | number }): string {
  const why = t(`mcp.why_${String(f.why)}` as MessageKey, { detail: f.detail ?? '' });
  const stderr = String(f.stderr ?? '').trim().split('\n').slice(-3).join(' ⏎ ');
  return stderr ? t('mcp.stderr', { why, stderr: stderr.length > 300 ? '…' + stderr.slice(-299) : stderr }) : why;
}

/** How a hook or verify command failed: fail.exit {code}, fail.signal {signal}, fail.timeout {secs}, fail.spawn {message}. */
const failureText = (f: CommandFailure): string => t(`fail.${f.kind}`, f);

/** What the interface says about a notice, a failed hook or a verify run; undefined for other events. */
export function explainEvent(event: AgentEvent, headless = false): string | undefined {
  switch (event.type) {
    case 'notice':
      return noticeText(event, headless);
    case 'hook_failed': {
      const why = failureText(event.failure) + (event.stderr ? ` (${event.stderr})` : '');
      return t(event.blocked ? 'hook.failed_blocked' : 'hook.failed', { event: event.event, command: event.command, why });
    }
    case 'verify':
      return event.failure
        ? t('verify.failed', { command: event.command, why: failureText(event.failure), secs: event.secs })
        : t('verify.passed', { command: event.command, secs: event.secs });
    default:
      return undefined;
  }
}
