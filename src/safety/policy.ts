// The permission policy: one decision per tool call from the mode, the user's rules and saved
// "always" answers, the bash analysis and the hard denies; it asks the user through a callback,
// or, headless, refuses and tells the model how the user can allow the call. Must not run tools
// or print; it changes the mode only when the user answers "auto".

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyzeBash, visible, type BashAnalysis, type BashReasonCode } from './bash/analysis.js';
import { inside } from '../util/paths.js';
import { parseRule, ruleMatches, suggestCommandRule, suggestPathRule, type Rule, type RuleTarget } from './rules.js';
import { checkSecretPath, secretRefusal } from './secrets.js';
import { readProjectsFile, updatePrivateJson } from '../util/jsonfile.js';
import { realPath } from './bash/expand.js';
import type { PermissionMode, Tool, ToolCallBlock } from '../types.js';

export type AskAnswer = { answer: 'yes' } | { answer: 'no'; reason?: string } | { answer: 'always' } | { answer: 'auto' };

/** Why the user is asked; the interface translates it with `reasonParams`. */
export type AskReasonCode = BashReasonCode | 'destructive' | 'write' | 'write_outside' | 'exec' | 'network' | 'unchecked_deny_rule';

export type AskRequest = {
  tool: string;
  input: Record<string, unknown>;
  /** Exactly what will run or be touched: the command (hidden characters made visible), path or URL. */
  display: string;
  reasonCode: AskReasonCode;
  reasonParams: Record<string, string>;
  /** What "always" saves; empty when no rule can allow this call (then do not offer "always"). */
  suggestedRules: string[];
  /** It destroys work (git reset --hard, rm -rf ~ …): show it prominently. */
  destructive: boolean;
};

export type AllowCode = 'read' | 'meta' | 'allowlist' | 'rule' | 'auto_mode' | 'user_yes' | 'user_always' | 'user_auto';
export type DenyCode = 'secret' | 'deny_rule' | 'plan_mode' | 'readonly_mode' | 'headless' | 'user_no' | 'cancelled';

/**
 * A Decision (types.ts) with a code for the interface and the trace. `destructive` on an allow
 * means auto mode is running a work-destroying command: the interface shows it prominently.
 */
export type PolicyDecision =
  | { decision: 'allow'; code: AllowCode; reason: string; destructive?: string }
  | { decision: 'deny'; code: DenyCode; reason: string };

export type PolicyOptions = {
  getMode(): PermissionMode;
  setMode(mode: PermissionMode): void;
  /** The workspace's realpath. */
  root: string;
  home: string;
  configDir: string;
  /** Already merged: the user's rules and, once trusted, the project's. */
  rules: { allow: string[]; deny: string[] };
  /** Default: approvals.json in the config folder. */
  approvalsFile?: string;
  /** Absent = headless: never waits, refuses with instructions. */
  ask?: (req: AskRequest, signal: AbortSignal) => Promise<AskAnswer>;
  getShellCwd(): string;
  /** $PATH of child processes, to catch allowlisted names that resolve into the workspace. */
  path?: string;
};

/** Tools that reach the network ask in default mode whatever their kind. */
const isNetwork = (input: Record<string, unknown>): boolean => typeof input.url === 'string';

type Subject =
  | { kind: 'bash'; command: string; analysis: BashAnalysis }
  | { kind: 'path'; abs: string; shown: string }
  | { kind: 'network'; url: string; host: string }
  | { kind: 'other'; shown: string };

/**
 * Builds the beforeToolCall decision function. Throws at start-up on an invalid rule or a broken
 * approvals file. Contract: hard denies and deny rules refuse in every mode; only the user's
 * answers and setMode change what is allowed.
 */
export function createPolicy(opts: PolicyOptions): (call: ToolCallBlock, tool: Tool, signal: AbortSignal) => Promise<PolicyDecision> {
  const home = opts.home || homedir();
  const ctx = { root: opts.root, home };
  const approvalsFile = opts.approvalsFile ?? join(opts.configDir, 'approvals.json');
  const deny = opts.rules.deny.map(parseRule);
  const allow = [...opts.rules.allow, ...loadApprovals(approvalsFile, opts.root)].map(parseRule);

  return async (call, tool, signal) => {
    const mode = opts.getMode();
    const subject = await describe(call, tool);

    const secret = secretOf(subject);
    if (secret) return { decision: 'deny', code: 'secret', reason: secret };
    const denied = firstMatch(deny, tool.name, subject, true);
    if (denied) return { decision: 'deny', code: 'deny_rule', reason: `The user's rule ${denied.text} forbids this call. Do not try to get around it.` };

    if (tool.kind === 'meta') {
      if (tool.name === 'exit_plan' && mode === 'readonly') return refuseInMode('readonly', 'exit_plan only works in plan mode');
      return { decision: 'allow', code: 'meta', reason: 'meta tool' };
    }
    const readOnly = subject.kind === 'bash' ? subject.analysis.verdict === 'safe' : tool.kind === 'read' && subject.kind !== 'network';
    if (readOnly) {
      return subject.kind === 'bash'
        ? { decision: 'allow', code: 'allowlist', reason: 'read-only command on the allowlist' }
        : { decision: 'allow', code: 'read', reason: 'read tool' };
    }
    if (mode === 'plan' || mode === 'readonly') return refuseInMode(mode, whyNotReadOnly(tool, subject));

    const opaqueDeny = subject.kind === 'bash' && subject.analysis.opaque && deny.some((r) => r.tool === tool.name);
    const destructive = subject.kind === 'bash' ? subject.analysis.commands.find((c) => c.destructive)?.destructive ?? undefined : undefined;
    if (mode === 'auto' && !opaqueDeny) {
      return { decision: 'allow', code: 'auto_mode', reason: destructive ? `auto mode; destroys work: ${destructive}` : 'auto mode', destructive };
    }
    const allowedBy = allowedByRules(tool.name, subject);
    if (allowedBy && !destructive) return { decision: 'allow', code: 'rule', reason: `allowed by ${allowedBy.join(', ')}` };
    return askUser(request(call, tool, subject, opaqueDeny, destructive), signal);
  };

  async function describe(call: ToolCallBlock, tool: Tool): Promise<Subject> {
    const input = call.input;
    if (tool.kind === 'exec' && typeof input.command === 'string') {
      const cwd = opts.getShellCwd();
      const analysis = await analyzeBash(input.command, { root: opts.root, cwd, home, configDir: opts.configDir, path: opts.path });
      return { kind: 'bash', command: input.command, analysis };
    }
    if (isNetwork(input)) {
      const url = input.url as string;
      return { kind: 'network', url, host: URL.canParse(url) ? new URL(url).hostname : url };
    }
    if (typeof input.path === 'string' || tool.kind === 'read') {
      const given = typeof input.path === 'string' && input.path ? input.path : '.';
      const expanded = given === '~' || given.startsWith('~/') ? home + given.slice(1) : given;
      return { kind: 'path', abs: realPath(resolve(opts.root, expanded)), shown: given };
    }
    return { kind: 'other', shown: tool.mainArg?.(input) ?? JSON.stringify(input) };
  }

  function secretOf(subject: Subject): string | null {
    if (subject.kind === 'bash') return subject.analysis.verdict === 'deny' ? subject.analysis.reason! : null;
    if (subject.kind !== 'path') return null;
    const what = checkSecretPath(subject.abs, opts.configDir);
    return what ? secretRefusal(subject.shown, what) : null;
  }

  function targets(subject: Subject): RuleTarget[] {
    switch (subject.kind) {
      case 'bash':
        return subject.analysis.commands.map((c) => ({ kind: 'command', argv: c.argv }));
      case 'path':
        return [{ kind: 'path', abs: subject.abs }];
      case 'network':
        return [{ kind: 'host', host: subject.host }];
      case 'other':
        return [{ kind: 'text', text: subject.shown }];
    }
  }

  function firstMatch(rules: Rule[], tool: string, subject: Subject, unknownMatches: boolean): Rule | undefined {
    return targets(subject).flatMap((t) => rules.filter((r) => ruleMatches(r, tool, t, ctx, unknownMatches)))[0];
  }

  /** The rules that allow the call, or null. A bash call needs every simple command covered and no construct. */
  function allowedByRules(tool: string, subject: Subject): string[] | null {
    if (subject.kind !== 'bash') {
      const rule = firstMatch(allow, tool, subject, false);
      return rule ? [rule.text] : null;
    }
    const { constructs, commands } = subject.analysis;
    if (constructs.length || !commands.length) return null;
    const used = new Set<string>();
    for (const c of commands) {
      if (!c.issue) continue;
      const rule = allow.find((r) => ruleMatches(r, tool, { kind: 'command', argv: c.argv }, ctx));
      if (!rule) return null;
      used.add(rule.text);
    }
    return [...used];
  }

  function request(call: ToolCallBlock, tool: Tool, subject: Subject, opaqueDeny: boolean, destructive: string | undefined): AskRequest {
    const base = { tool: tool.name, input: call.input, destructive: destructive !== undefined };
    switch (subject.kind) {
      case 'bash': {
        const { analysis } = subject;
        const asking = analysis.commands.filter((c) => c.issue && !allow.some((r) => ruleMatches(r, tool.name, { kind: 'command', argv: c.argv }, ctx)));
        const suggestions = asking.map((c) => suggestCommandRule(tool.name, c.argv));
        const ruleable = !destructive && !analysis.constructs.length && suggestions.every((s) => s !== null);
        const first = analysis.constructs[0] ?? asking[0]?.issue ?? analysis.commands.find((c) => c.issue)?.issue;
        const [reasonCode, reasonParams]: [AskReasonCode, Record<string, string>] =
          destructive ? ['destructive', { what: destructive }]
          : opaqueDeny ? ['unchecked_deny_rule', { part: first?.params.part ?? '' }]
          : first ? [first.code, first.params]
          : ['exec', { tool: tool.name }];
        return { ...base, display: visible(subject.command), reasonCode, reasonParams, suggestedRules: ruleable ? [...new Set(suggestions as string[])] : [] };
      }
      case 'path': {
        const reasonCode = tool.kind !== 'write' ? 'exec' : inside(opts.root, subject.abs) ? 'write' : 'write_outside';
        return { ...base, display: subject.shown, reasonCode, reasonParams: { path: subject.shown, tool: tool.name }, suggestedRules: [suggestPathRule(tool.name, subject.abs, opts.root)] };
      }
      case 'network':
        return { ...base, display: subject.url, reasonCode: 'network', reasonParams: { host: subject.host }, suggestedRules: subject.host ? [`${tool.name}(${subject.host})`] : [] };
      case 'other':
        return { ...base, display: subject.shown, reasonCode: 'exec', reasonParams: { tool: tool.name }, suggestedRules: [tool.name] };
    }
  }

  async function askUser(req: AskRequest, signal: AbortSignal): Promise<PolicyDecision> {
    if (!opts.ask) return { decision: 'deny', code: 'headless', reason: headlessRefusal(req) };
    const cancelled: PolicyDecision = { decision: 'deny', code: 'cancelled', reason: 'Cancelled by the user before it ran.' };
    if (signal.aborted) return cancelled;
    let answer: AskAnswer;
    try {
      answer = await opts.ask(req, signal);
    } catch (err) {
      if (signal.aborted) return cancelled;
      throw err;
    }
    switch (answer.answer) {
      case 'yes':
        return { decision: 'allow', code: 'user_yes', reason: 'approved by the user' };
      case 'no':
        return {
          decision: 'deny',
          code: 'user_no',
          reason: `The user declined this call.${answer.reason ? ` Their reason: ${answer.reason.replace(/[.!?。！？]*$/, '')}.` : ''} Do not retry it as it is; change your approach or ask the user.`,
        };
      case 'always':
        if (!req.suggestedRules.length) return { decision: 'allow', code: 'user_yes', reason: 'approved by the user (no rule can cover it)' };
        saveApprovals(approvalsFile, opts.root, req.suggestedRules);
        allow.push(...req.suggestedRules.map(parseRule));
        return { decision: 'allow', code: 'user_always', reason: `approved by the user; saved ${req.suggestedRules.join(', ')}` };
      case 'auto':
        opts.setMode('auto');
        return { decision: 'allow', code: 'user_auto', reason: 'approved by the user, who switched to auto mode' };
    }
  }
}

function whyNotReadOnly(tool: Tool, subject: Subject): string {
  if (subject.kind === 'bash') return subject.analysis.reason ?? 'it is not a read-only command';
  if (subject.kind === 'network') return `${tool.name} reaches the network`;
  return tool.kind === 'write' ? `${tool.name} changes files` : `${tool.name} runs programs`;
}

function refuseInMode(mode: 'plan' | 'readonly', why: string): PolicyDecision {
  if (mode === 'plan') {
    return {
      decision: 'deny',
      code: 'plan_mode',
      reason:
        `feiyu is in plan mode, where nothing may change: only read tools and read-only allowlisted commands run (${why}). ` +
        'Keep investigating with those; when your plan is ready, call exit_plan with it, and the user reviews it before anything changes.',
    };
  }
  return {
    decision: 'deny',
    code: 'readonly_mode',
    reason: `feiyu is in read-only mode: only read tools and read-only allowlisted commands run (${why}). Only the user can change the mode; tell them what you would do instead.`,
  };
}

function headlessRefusal(req: AskRequest): string {
  const what = `${req.tool} ${req.display.length > 200 ? req.display.slice(0, 197) + '...' : req.display}`;
  const head = `${what} needs the user's approval, and feiyu is running headless with no one to ask. Do not retry it.`;
  if (req.suggestedRules.length) {
    const allow = req.suggestedRules.map((r) => JSON.stringify(r)).join(', ');
    return `${head} The user can allow it by running feiyu with --mode auto, or with an allow rule in settings.json: "permissions": {"allow": [${allow}]}.`;
  }
  const why = req.destructive ? 'it destroys work, which always asks' : 'it cannot be checked as written';
  return `${head} No allow rule can cover it (${why}); the user can run feiyu with --mode auto, or you can do it with plain commands that an allow rule like bash(npm test) could cover.`;
}

// ---------------------------------------------------------------------------------------------
// approvals.json: { "version": 1, "projects": { "<workspace realpath>": { "allow": [rules] } } }

type Approvals = { version: 1; projects: Record<string, { allow: string[] }> };

const readApprovals = (file: string): Approvals => readProjectsFile<{ allow: string[] }>(file);

/** The rules the user saved with "always" for this workspace. */
export function loadApprovals(file: string, root: string): string[] {
  const allow = readApprovals(file).projects[root]?.allow ?? [];
  return allow.filter((r) => typeof r === 'string');
}

/** Adds `rules` to this workspace's saved ones; another feiyu saving at the same moment loses nothing. */
export function saveApprovals(file: string, root: string, rules: string[]): void {
  updatePrivateJson(file, readApprovals, (data) => {
    const entry = (data.projects[root] ??= { allow: [] });
    entry.allow = [...new Set([...entry.allow, ...rules])];
  });
}
