// /mcp (the servers: state, why one failed, tools, resources, prompts; /mcp restart NAME) and the
// servers' prompts as slash commands `/<server>:<prompt>`. What a server says of itself is shown
// inert: its names and descriptions are external data.

import type { Session } from './session-type.js';
import type { PromptCommand, ServerView } from '../../app/mcp.js';
import { mcpWhy } from '../../i18n/explain.js';
import { t, type MessageKey } from '../../i18n/index.js';
import { color } from '../render.js';
import { inert } from '../../util/text.js';
import { truncate } from '../width.js';

/** Items of one list shown before "… and N more". */
const SHOWN = 20;

const STATE_COLOR = { ready: color.green, starting: color.yellow, failed: color.red, stopped: color.dim } as const;

export async function mcpCommand(arg: string, s: Session): Promise<void> {
  const { app, ui } = s;
  const mcp = app.mcp;
  if (!mcp) return ui.note(t('mcp.none'));
  const [verb, name] = arg.split(/\s+/);
  if (verb === 'restart' && name) {
    const names = mcp.servers().map((v) => v.name);
    if (!names.includes(name)) return ui.fail(t('mcp.unknown', { name, names: names.join(', ') }));
    await s.busy(() => mcp.restart(name));
    const view = mcp.servers().find((v) => v.name === name)!;
    return printServer(s, view);
  }
  if (arg) return ui.fail(t('mcp.usage'));
  for (const view of mcp.servers()) printServer(s, view);
}

function printServer(s: Session, v: ServerView): void {
  const { ui } = s;
  const width = Math.max(20, ui.columns() - 6);
  const state = ui.paint(STATE_COLOR[v.state], t(`mcp.state_${v.state}` as MessageKey));
  ui.line(ui.paint(color.bold, t('mcp.server', { name: inert(v.name), state, transport: v.transport, source: t(`mcp.source_${v.source}` as MessageKey) })));
  if (v.info) ui.note(`  ${t('mcp.server_info', { info: inert(v.info) })}`);
  if (v.failure) ui.line(`  ${t('mcp.why', { why: inert(mcpWhy({ why: v.failure.code, detail: v.failure.detail, stderr: v.failure.stderr })) })}`);
  if (v.tools.length) {
    ui.line(`  ${t('mcp.tools', { n: v.tools.length })}`);
    for (const tool of v.tools.slice(0, SHOWN)) {
      const hint = tool.readOnlyHint ? t('mcp.read_only_hint') : '';
      ui.line(`    ${truncate(t('mcp.tool_line', { name: inert(tool.name), hint, brief: inert(tool.brief) }), width)}`);
    }
    more(s, v.tools.length);
  }
  if (v.resources.length) {
    ui.line(`  ${t('mcp.resources', { n: v.resources.length })}`);
    for (const r of v.resources.slice(0, SHOWN)) ui.line(`    ${truncate(inert(`${r.name} · ${r.uri}`), width)}`);
    more(s, v.resources.length);
  }
  if (v.prompts.length) ui.line(`  ${truncate(t('mcp.prompts', { n: v.prompts.length, names: inert(v.prompts.map((p) => `/${v.name}:${p}`).join(', ')) }), width)}`);
}

function more(s: Session, n: number): void {
  if (n > SHOWN) s.ui.note(`    ${t('mcp.more', { n: n - SHOWN })}`);
}

/** The server prompt a line names (`/<server>:<prompt> args`), with the rest of the line; null when none does. */
export function findPrompt(line: string, s: Pick<Session, 'app'>): { prompt: PromptCommand; arg: string } | null {
  const match = /^(\/[^\s:]+:\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  const prompt = match && s.app.mcp?.prompts().find((p) => p.command === match[1]);
  return prompt ? { prompt, arg: (match[2] ?? '').trim() } : null;
}

/** A server prompt's text with the arguments filled, for the next user message; undefined when it failed (said why). */
export async function runPrompt(found: { prompt: PromptCommand; arg: string }, s: Session): Promise<string | undefined> {
  const { prompt, arg } = found;
  const name = `${prompt.server}:${prompt.prompt}`;
  const given = arg ? arg.split(/\s+/).length : 0;
  const required = prompt.args.filter((a) => a.required);
  if (given < required.length) {
    const usage = prompt.args.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
    s.ui.fail(t('mcp.prompt_missing', { name: inert(name), args: inert(required.map((a) => a.name).join(', ')), usage: inert(usage) }));
    return undefined;
  }
  try {
    return await s.busy(() => s.app.mcp!.runPrompt(prompt, arg));
  } catch (err) {
    s.ui.fail(t('mcp.prompt_failed', { name: inert(name), msg: inert((err as Error).message) }));
    return undefined;
  }
}
