// The MCP client wired into a session: the hub (src/mcp/, loaded only when servers are
// configured, so a session without them never loads it or the SDK), its tools offered to and
// withdrawn from the agent's tool table, its failures as notices. The interface starts it once
// its prompt is up (loading the SDK holds the event loop for about half a second); ready() starts
// it too.

import type { AppConfig } from './config.js';
import type { ToolTable } from '../core/tooltable.js';
import type { McpHub } from '../mcp/hub.js';
import type { NoticeCode, NoticeEvent } from '../types/events.js';

export type { PromptCommand, ServerView } from '../mcp/hub.js';

/** What the interface and headless mode use of the MCP servers. */
export type McpView = Pick<McpHub, 'start' | 'servers' | 'prompts' | 'runPrompt' | 'restart' | 'ready' | 'stop'>;

type Notify = (code: NoticeCode, params?: NoticeEvent['params']) => void;

/** The configured servers, not started yet; undefined when there are none. */
export async function linkMcp(config: AppConfig, table: Pick<ToolTable, 'add' | 'remove'>, version: string, notify: Notify): Promise<McpView | undefined> {
  if (!config.mcp.servers.length) return undefined;
  const { McpHub } = await import('../mcp/hub.js');
  const hub = new McpHub({
    specs: config.mcp.servers,
    env: config.env,
    childEnv: config.childEnv,
    root: config.root,
    version,
    timeouts: config.mcp.timeouts,
    onTools(added, removed) {
      table.remove(removed);
      table.add(added);
    },
    onFailure: (server, f) => notify('mcp_failed', { server, why: f.code, detail: f.detail, ...(f.stderr && { stderr: f.stderr }) }),
  });
  return hub;
}
