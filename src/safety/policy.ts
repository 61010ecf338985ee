// The permission policy: one verdict per tool call (allow, deny, or ask the user with a request
// saying exactly what and why) from the mode, the rules, the bash analysis and the hard denies,
// and with an allowed bash command the sandbox profile it runs in (profile.ts). Pure: mode, rules
// and places come in as plain values; it asks nobody, writes nothing and changes no mode. The app
// asks, saves "always" answers and switches modes (app/approval.ts).

import { resolve } from 'node:path';
import { analyzeBash, visible, type BashAnalysis, type BashReasonCode } from './bash/analysis.js';
import { inside } from '../util/paths.js';
import { describeCall } from '../util/calls.js';
import { coversTool, readMarkOf, ruleMatches, suggestCommandRule, suggestPathRule, type Rule, type RuleTarget } from './rules.js';
import { checkSecretPath, secretFileKind, secretRefusal } from './secrets.js';
import { realPath } from './bash/expand.js';
import { destructiveOf, type Loss, type RepoFacts } from './destructive.js';
import { gitLayout } from './gitconfig.js';
import { needsGitWrite, profileFor } from './profile.js';
import { hooksPathOf, protectedPath } from './protected.js';
import type { AskAnswer, AskRequest, PermissionMode } from '../types/permissions.js';
import type { SandboxProfile, Tool } from '../types/tools.js';
import type { ToolCallBlock } from '../types/conversation.js';

/** Why the user is asked; the interface translates it with `reasonParams`. */
export type AskReasonCode = BashReasonCode | 'hook' | 'destructive' | 'protected' | 'git_write' | 'write' | 'write_outside' | 'exec' | 'network' | 'unchecked_deny_rule' | 'broad_root' | 'mcp';

/** The policy's question: an AskRequest (types/permissions.ts) whose reason is one of its codes. */
export type PolicyAsk = AskRequest & { reasonCode: AskReasonCode };

export type AllowCode = 'read' | 'meta' | 'allowlist' | 'rule' | 'hook' | 'auto_mode' | 'user_yes' | 'user_always' | 'user_auto';
export type DenyCode = 'secret' | 'deny_rule' | 'hook_deny' | 'plan_mode' | 'readonly_mode' | 'headless' | 'user_no' | 'cancelled';

/**
 * A Decision (types/permissions.ts) with a code for the interface and the trace; an allowed bash command
 * carries the sandbox profile it may run in (read-only when allowed as read-only).
 */
export type PolicyDecision =
  | { decision: 'allow'; code: AllowCode; reason: string; sandbox?: SandboxProfile }
  | { decision: 'deny'; code: DenyCode; reason: string };

/** The policy's whole input: plain values the app reads from its state before each call. */
export type PolicyInput = {
  mode: PermissionMode;
  /** Parsed; `allow` holds the user's rules, the trusted project's and the saved "always" answers. */
  rules: { allow: readonly Rule[]; deny: readonly Rule[] };
  /** The workspace's realpath. */
  root: string;
  home: string;
  configDir: string;
  /** The bash tool's working directory now. */
  cwd: string;
  /** $PATH of child processes, to catch allowlisted names that resolve into the workspace. */
  path?: string;
  /** Folders outside the workspace that read tools may read (the user's skills), as realpaths. */
  readRoots?: readonly string[];
  /** The workspace is / or the home folder and nothing was approved yet: auto mode asks before the first change. */
  confirmFirstChange?: boolean;
  /** What the call's PreToolUse hooks decided, when they allowed it or asked for the user. */
  hook?: HookVerdict;
};

/**
 * A PreToolUse hook's verdict short of a refusal: `allow` answers what would ask (not what hard
 * denies, deny rules and the mode refuse, nor destroying work or changing a protected path);
 * `ask` puts the call to the user even where it would be allowed.
 */
export type HookVerdict = { decision: 'allow' | 'ask'; reason?: string };

/** A decision, or a question for the user; `sandbox` is the profile a yes grants (a bash call). */
export type Verdict = PolicyDecision | { decision: 'ask'; request: PolicyAsk; sandbox?: SandboxProfile };

/**
 * What a call is about, as found on the file system (realpaths, the bash analysis, the repository):
 * a bash command with what running it would lose, a path with the protected path it would change.
 */
export type Subject =
  | { kind: 'bash'; command: string; analysis: BashAnalysis; loss: Loss | null }
  | { kind: 'path'; abs: string; shown: string; protects: string | null }
  | { kind: 'network'; url: string; host: string }
  | { kind: 'other'; shown: string };

/** Without facts about the repository nothing is known: what might discard changes asks. */
const NO_FACTS: RepoFacts = { changed: async () => null, pushedAmong: async () => null };

/**
 * The call's verdict: its subject looked up (`facts` answer questions about the repository), then
 * judged. Contract: never asks, writes or changes a mode.
 */
export async function checkCall(call: ToolCallBlock, tool: Tool, input: PolicyInput, facts: RepoFacts = NO_FACTS): Promise<Verdict> {
  return judge(call, tool, await subjectOf(call, tool, input, facts), input);
}

/**
 * What the call touches, as the call describes itself (Tool.describe): a command, a URL (which
 * asks in default mode whatever the tool's kind), a path, or else its title. Reads the file system
 * (realpaths through symlinks, the bash analysis's look-ups, the repository's layout) and asks
 * `facts` (git, read-only); the judgement reads nothing.
 */
export async function subjectOf(call: ToolCallBlock, tool: Tool, where: Omit<PolicyInput, 'mode' | 'rules'>, facts: RepoFacts = NO_FACTS): Promise<Subject> {
  const about = describeCall(tool, call.input);
  const { root, cwd, home } = where;
  if (tool.kind === 'exec' && about?.command !== undefined) {
    const analysis = await analyzeBash(about.command, { root, cwd, home, configDir: where.configDir, path: where.path });
    const fromAnalysis = analysis.commands.find((c) => c.destructive)?.destructive;
    const loss = (await destructiveOf(analysis.commands, analysis.constructs, { root, cwd, home, facts })) ?? (fromAnalysis ? { what: fromAnalysis, lost: [] } : null);
    return { kind: 'bash', command: about.command, analysis, loss };
  }
  if (about?.url !== undefined) return { kind: 'network', url: about.url, host: URL.canParse(about.url) ? new URL(about.url).hostname : about.url };
  if (about?.path !== undefined) {
    const given = about.path || '.';
    const expanded = given === '~' || given.startsWith('~/') ? home + given.slice(1) : given;
    const abs = realPath(resolve(root, expanded));
    const protects = tool.kind === 'write' ? protectedPath(root, abs, hooksPathOf(root, gitLayout(root))) : null;
    return { kind: 'path', abs, shown: given, protects };
  }
  return { kind: 'other', shown: about?.title ?? JSON.stringify(call.input) };
}

/**
 * The verdict on a call whose subject is known: a pure function of its arguments. Contract: hard
 * denies and deny rules refuse in every mode; in default mode what no rule allows is asked;
 * destroying work and changing a protected path ask in every mode and no rule allows them; a git
 * command that writes the repository asks in auto mode unless a rule allows it. A hook's `allow`
 * counts as a rule; its `ask` asks whatever the mode, short of what the mode refuses.
 */
export function judge(call: ToolCallBlock, tool: Tool, subject: Subject, input: PolicyInput): Verdict {
  const { mode, rules, hook } = input;
  const places = { root: input.root, home: input.home };
  const secret = secretOf(subject, tool, input);
  if (secret) return { decision: 'deny', code: 'secret', reason: secret };
  const denied = firstMatch(rules.deny, tool.name, subject, places, true);
  if (denied) return { decision: 'deny', code: 'deny_rule', reason: `The user's rule ${denied.text} forbids this call. Do not try to get around it.` };

  const hookAsks = hook?.decision === 'ask';
  if (tool.kind === 'meta') {
    if (tool.name === 'exit_plan' && mode === 'readonly') return refuseInMode('readonly', 'exit_plan only works in plan mode');
    if (tool.name === 'remember' && (mode === 'plan' || mode === 'readonly')) return refuseInMode(mode, "remember writes a note into every later session's prompt");
    if (!hookAsks) return { decision: 'allow', code: 'meta', reason: 'meta tool' };
  }
  // An MCP tool an allow rule marks read-only runs as a read tool does, in every mode.
  const readMark = readMarkOf(rules.allow, tool.name);
  if (readMark && !hookAsks) return { decision: 'allow', code: 'rule', reason: `marked read-only by ${readMark.text}` };
  const readOnly = tool.kind === 'meta' || !!readMark || (subject.kind === 'bash' ? subject.analysis.verdict === 'safe' : tool.kind === 'read' && subject.kind !== 'network');
  if (readOnly && !hookAsks) {
    // Allowed as read-only: the kernel holds the command to that (a read-only sandbox).
    return subject.kind === 'bash'
      ? { decision: 'allow', code: 'allowlist', reason: 'read-only command on the allowlist', sandbox: 'read' }
      : { decision: 'allow', code: 'read', reason: 'read tool' };
  }
  if (!readOnly && (mode === 'plan' || mode === 'readonly')) return refuseInMode(mode, whyNotReadOnly(tool, subject));

  const opaqueDeny = subject.kind === 'bash' && subject.analysis.opaque && rules.deny.some((r) => coversTool(r, tool.name));
  // What always asks, whatever the mode: destroying work, and writing what runs outside the sandbox later.
  const loss = subject.kind === 'bash' ? subject.loss : null;
  const protects = subject.kind === 'path' && tool.kind === 'write' ? subject.protects : null;
  const gitWrite = subject.kind === 'bash' && needsGitWrite(subject.analysis);
  const granted = subject.kind === 'bash' ? { sandbox: readOnly ? ('read' as const) : profileFor(subject.analysis, false) } : {};
  const why = { opaqueDeny, loss, protects, gitWriteInAuto: gitWrite && mode === 'auto', allow: rules.allow, places };
  if (hookAsks) {
    const asked = request(call, tool, subject, why);
    return { decision: 'ask', request: { ...asked, reasonCode: 'hook', reasonParams: { reason: hook.reason || '—' }, suggestedRules: [] }, ...granted };
  }
  const firstChange = mode === 'auto' && input.confirmFirstChange === true;
  if (mode === 'auto' && !firstChange && !opaqueDeny && !loss && !protects && !gitWrite) return { decision: 'allow', code: 'auto_mode', reason: 'auto mode', ...granted };
  if (hook?.decision === 'allow' && !opaqueDeny && !loss && !protects) return { decision: 'allow', code: 'hook', reason: hook.reason || 'allowed by a PreToolUse hook', ...granted };
  const allowedBy = loss || protects ? null : allowedByRules(rules.allow, tool.name, subject, places);
  if (allowedBy) return { decision: 'allow', code: 'rule', reason: `allowed by ${allowedBy.join(', ')}`, ...granted };
  const asked = request(call, tool, subject, why);
  // Auto mode in / or the home folder: the first change is the user's to allow, whatever it is.
  const broad = firstChange && !loss && !protects ? { reasonCode: 'broad_root' as const, reasonParams: { root: input.root } } : {};
  return { decision: 'ask', request: { ...asked, ...broad }, ...granted };
}

type Places = { root: string; home: string };

function secretOf(subject: Subject, tool: Tool, input: PolicyInput): string | null {
  if (subject.kind === 'bash') return subject.analysis.verdict === 'deny' ? subject.analysis.reason! : null;
  if (subject.kind !== 'path') return null;
  // A skill folder in feiyu's configuration folder is read like any folder: secrets in it stay secrets.
  const skill = tool.kind === 'read' && input.readRoots?.some((r) => inside(r, subject.abs));
  const what = skill ? secretFileKind(subject.abs, input.home) : checkSecretPath(subject.abs, input.configDir, input.home);
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

function firstMatch(rules: readonly Rule[], tool: string, subject: Subject, places: Places, unknownMatches: boolean): Rule | undefined {
  return targets(subject).flatMap((t) => rules.filter((r) => ruleMatches(r, tool, t, places, unknownMatches)))[0];
}

/** The rules that allow the call, or null. A bash call needs every simple command covered and no construct. */
function allowedByRules(allow: readonly Rule[], tool: string, subject: Subject, places: Places): string[] | null {
  if (subject.kind !== 'bash') {
    const rule = firstMatch(allow, tool, subject, places, false);
    return rule ? [rule.text] : null;
  }
  const { constructs, commands } = subject.analysis;
  if (constructs.length || !commands.length) return null;
  const used = new Set<string>();
  for (const c of commands) {
    if (!c.issue) continue;
    const rule = allow.find((r) => ruleMatches(r, tool, { kind: 'command', argv: c.argv }, places));
    if (!rule) return null;
    used.add(rule.text);
  }
  return [...used];
}

type AskContext = { opaqueDeny: boolean; loss: Loss | null; protects: string | null; gitWriteInAuto: boolean; allow: readonly Rule[]; places: Places };

function request(call: ToolCallBlock, tool: Tool, subject: Subject, o: AskContext): PolicyAsk {
  const preview = describeCall(tool, call.input)?.preview;
  const base = { tool: tool.name, input: call.input, destructive: o.loss !== null, ...(preview && { preview }) };
  switch (subject.kind) {
    case 'bash': {
      const { analysis } = subject;
      const asking = analysis.commands.filter((c) => c.issue && !o.allow.some((r) => ruleMatches(r, tool.name, { kind: 'command', argv: c.argv }, o.places)));
      const suggestions = asking.map((c) => suggestCommandRule(tool.name, c.argv));
      const ruleable = !o.loss && !analysis.constructs.length && suggestions.every((s) => s !== null);
      const first = analysis.constructs[0] ?? asking[0]?.issue ?? analysis.commands.find((c) => c.issue)?.issue;
      const [reasonCode, reasonParams]: [AskReasonCode, Record<string, string>] =
        o.loss ? ['destructive', { what: o.loss.what }]
        : o.opaqueDeny ? ['unchecked_deny_rule', { part: first?.params.part ?? '' }]
        : o.gitWriteInAuto ? ['git_write', { command: visible(subject.command) }]
        : first ? [first.code, first.params]
        : ['exec', { tool: tool.name }];
      const lost = o.loss?.lost.length ? { lost: o.loss.lost } : {};
      return { ...base, ...lost, display: visible(subject.command), reasonCode, reasonParams, suggestedRules: ruleable ? [...new Set(suggestions as string[])] : [] };
    }
    case 'path': {
      if (o.protects) return { ...base, display: subject.shown, reasonCode: 'protected', reasonParams: { path: subject.shown, tool: tool.name, what: o.protects }, suggestedRules: [] };
      const root = o.places.root;
      const reasonCode = tool.kind !== 'write' ? 'exec' : inside(root, subject.abs) ? 'write' : 'write_outside';
      return { ...base, display: subject.shown, reasonCode, reasonParams: { path: subject.shown, tool: tool.name }, suggestedRules: [suggestPathRule(tool.name, subject.abs, root)] };
    }
    case 'network':
      return { ...base, display: subject.url, reasonCode: 'network', reasonParams: { host: subject.host }, suggestedRules: subject.host ? [`${tool.name}(${subject.host})`] : [] };
    case 'other': {
      const server = tool.name.startsWith('mcp__') ? tool.name.split('__')[1] : undefined;
      const why: Pick<PolicyAsk, 'reasonCode' | 'reasonParams'> = server ? { reasonCode: 'mcp', reasonParams: { tool: tool.name, server } } : { reasonCode: 'exec', reasonParams: { tool: tool.name } };
      return { ...base, display: subject.shown, ...why, suggestedRules: [tool.name] };
    }
  }
}

/** The decision a call was asked about gets when asking was cancelled (Ctrl+C, the turn aborted). */
export const CANCELLED: PolicyDecision = { decision: 'deny', code: 'cancelled', reason: 'Cancelled by the user before it ran.' };

/**
 * What the user's answer means: the decision, the rules to save ("always") and the mode to switch
 * to ("auto"). The app carries out the last two.
 */
export function answerDecision(req: AskRequest, answer: AskAnswer): { decision: PolicyDecision; save?: string[]; mode?: PermissionMode } {
  switch (answer.answer) {
    case 'yes':
      return { decision: { decision: 'allow', code: 'user_yes', reason: 'approved by the user' } };
    case 'no': {
      const why = answer.reason ? ` Their reason: ${answer.reason.replace(/[.!?。！？]*$/, '')}.` : '';
      return { decision: { decision: 'deny', code: 'user_no', reason: `The user declined this call.${why} Do not retry it as it is; change your approach or ask the user.` } };
    }
    case 'always':
      if (!req.suggestedRules.length) return { decision: { decision: 'allow', code: 'user_yes', reason: 'approved by the user (no rule can cover it)' } };
      return { decision: { decision: 'allow', code: 'user_always', reason: `approved by the user; saved ${req.suggestedRules.join(', ')}` }, save: req.suggestedRules };
    case 'auto':
      return { decision: { decision: 'allow', code: 'user_auto', reason: 'approved by the user, who switched to auto mode' }, mode: 'auto' };
  }
}

function whyNotReadOnly(tool: Tool, subject: Subject): string {
  if (subject.kind === 'bash') return subject.analysis.reason ?? 'it is not a read-only command';
  if (subject.kind === 'network') return `${tool.name} reaches the network`;
  if (tool.name.startsWith('mcp__')) return `${tool.name} is an MCP tool that no allow rule marks read-only; the user can allow it here with the rule ${tool.name}(read)`;
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

/** The refusal the model reads when a call would ask and no one can answer (headless). */
export function headlessRefusal(req: AskRequest): string {
  const what = `${req.tool} ${req.display.length > 200 ? req.display.slice(0, 197) + '...' : req.display}`;
  const head = `${what} needs the user's approval, and feiyu is running headless with no one to ask. Do not retry it.`;
  if (req.reasonCode === 'broad_root') {
    return `${head} feiyu runs in ${req.reasonParams.root} (not a project folder), where even auto mode asks before the first change. Tell the user; they can start feiyu in the project's folder.`;
  }
  if (req.reasonCode === 'hook') {
    const why = req.reasonParams.reason && req.reasonParams.reason !== '—' ? ` (${req.reasonParams.reason.replace(/[.。]\s*$/, '')})` : '';
    return `${head} A PreToolUse hook of the user's asks the user to confirm it${why}; tell the user what you wanted to do, they can run it themselves.`;
  }
  if (req.reasonCode === 'git_write') {
    const rules = req.suggestedRules.length ? ` with an allow rule in settings.json: "permissions": {"allow": [${req.suggestedRules.map((r) => JSON.stringify(r)).join(', ')}]}` : ' by running it themselves';
    return `${head} It writes the repository's .git, which asks the user even in auto mode; the user can allow it${rules}.`;
  }
  if (req.suggestedRules.length) {
    const allow = req.suggestedRules.map((r) => JSON.stringify(r)).join(', ');
    return `${head} The user can allow it by running feiyu with --mode auto, or with an allow rule in settings.json: "permissions": {"allow": [${allow}]}.`;
  }
  if (req.destructive) {
    const lost = req.lost?.length ? ` What would be lost: ${req.lost.slice(0, 20).join(', ')}${req.lost.length > 20 ? ', …' : ''}.` : '';
    return `${head} It destroys work (${req.reasonParams.what}), which asks the user in every mode, auto included.${lost} Tell the user what you wanted to do and why; they can run it themselves.`;
  }
  if (req.reasonCode === 'protected') {
    return `${head} It changes ${req.reasonParams.what}, which asks the user in every mode, auto included. Tell the user the change you would make; they can make it themselves.`;
  }
  return `${head} No allow rule can cover it (it cannot be checked as written); the user can run feiyu with --mode auto, or you can do it with plain commands that an allow rule like bash(npm test) could cover.`;
}
