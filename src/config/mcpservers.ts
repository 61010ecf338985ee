// MCP servers as configured (Claude Code's `mcpServers` shape): validating an entry, reading a
// project's .mcp.json and a --mcp-config file, `${VAR}` expansion, and the one line per server the
// trust question shows. Must not start anything or decide what a project may run (trust.ts does).

import { join } from 'node:path';
import { isObject } from '../util/jsonfile.js';
import { readConfigText } from './configfile.js';
import { Problem, type MessageKey } from '../i18n/index.js';
import { shellQuote } from '../util/process.js';

/** A server started as a child process over stdio. */
export type StdioServer = { type?: 'stdio'; command: string; args?: string[]; env?: Record<string, string>; cwd?: string };
/** A server reached over HTTP: streamable HTTP (`http`, the default) or the older SSE transport (`sse`). */
export type RemoteServer = { type?: 'http' | 'sse'; url: string; headers?: Record<string, string> };
export type McpServerConfig = StdioServer | RemoteServer;

/** Where a server was configured: it decides nothing but is shown by /mcp. */
export type McpSource = 'user' | 'project' | 'mcp.json' | 'flag';
export type McpServerSpec = { name: string; source: McpSource; config: McpServerConfig };

export const isStdio = (c: McpServerConfig): c is StdioServer => 'command' in c;

export const mcpJsonFile = (root: string): string => join(root, '.mcp.json');

/** Why a settings field holding servers is malformed: the field and what it must be, or null. */
export function mcpServersError(value: unknown, field = 'mcpServers'): { field: string; expected: MessageKey } | null {
  if (value === undefined) return null;
  if (!isObject(value)) return { field, expected: 'expect.object' };
  for (const [name, server] of Object.entries(value)) {
    const at = `${field}.${name}`;
    if (!name.trim()) return { field: at, expected: 'mcp.expect_name' };
    if (!isObject(server)) return { field: at, expected: 'mcp.expect_server' };
    const stdio = typeof server.command === 'string';
    const remote = typeof server.url === 'string';
    if (stdio === remote) return { field: at, expected: 'mcp.expect_server' };
    if (stdio && !(server.command as string).trim()) return { field: `${at}.command`, expected: 'expect.nonempty_string' };
    if (remote && !URL.canParse(server.url as string)) return { field: `${at}.url`, expected: 'mcp.expect_url' };
    const types = stdio ? [undefined, 'stdio'] : [undefined, 'http', 'sse', 'streamable-http'];
    if (!types.includes(server.type as string | undefined)) return { field: `${at}.type`, expected: stdio ? 'mcp.expect_stdio' : 'mcp.expect_remote' };
    if (server.args !== undefined && !(Array.isArray(server.args) && server.args.every((a) => typeof a === 'string'))) return { field: `${at}.args`, expected: 'expect.string_list' };
    if (server.cwd !== undefined && typeof server.cwd !== 'string') return { field: `${at}.cwd`, expected: 'expect.string' };
    for (const key of ['env', 'headers'] as const) {
      const map = server[key];
      if (map !== undefined && !(isObject(map) && Object.values(map).every((v) => typeof v === 'string'))) return { field: `${at}.${key}`, expected: 'mcp.expect_strings' };
    }
  }
  return null;
}

/**
 * The servers of a file in .mcp.json's shape (`{"mcpServers": {...}}`; a bare map is taken too),
 * or of JSON text given on the command line. Throws a Problem naming the file and the field.
 */
export function parseMcpFile(text: string, file: string): Record<string, McpServerConfig> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Problem('settings.json', { file, detail: (err as Error).message });
  }
  if (!isObject(data)) throw new Problem('settings.not_object', { file });
  const servers = data.mcpServers ?? data;
  const found = mcpServersError(servers);
  if (found) throw new Problem('settings.type', { file, field: found.field, expected: new Problem(found.expected) });
  return servers as Record<string, McpServerConfig>;
}

/** A project's .mcp.json: {} when there is none. Throws a Problem when it cannot be read or is malformed. */
export function readMcpJson(root: string): Record<string, McpServerConfig> {
  const file = mcpJsonFile(root);
  const text = readConfigText(file);
  return text?.trim() ? parseMcpFile(text, file) : {};
}

/** A --mcp-config argument: a file, or JSON text (Claude takes both). */
export function readMcpConfigArg(arg: string): Record<string, McpServerConfig> {
  if (arg.trimStart().startsWith('{')) return parseMcpFile(arg, '--mcp-config');
  const text = readConfigText(arg);
  if (text === undefined) throw new Problem('mcp.no_file', { file: arg });
  return parseMcpFile(text, arg);
}

/** The line the trust question shows for one server: what it would run, or where it connects. */
export function serverLine(name: string, c: McpServerConfig): string {
  if (!isStdio(c)) return `mcpServers.${name}: ${c.url}`;
  const env = Object.keys(c.env ?? {});
  const extra = [c.cwd ? `cwd ${c.cwd}` : '', env.length ? `env ${env.join(', ')}` : ''].filter(Boolean);
  return `mcpServers.${name}: ${[c.command, ...(c.args ?? [])].map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : shellQuote(w))).join(' ')}${extra.length ? ` (${extra.join('; ')})` : ''}`;
}

/**
 * `${VAR}` and `${VAR:-default}` replaced from feiyu's own environment, as Claude Code expands
 * .mcp.json. Throws a Problem naming the first variable that is unset and has no default.
 */
export function expandVars(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new Problem('mcp.unset_var', { name });
  });
}

/** A server's configuration with every `${VAR}` expanded. Throws a Problem (an unset variable). */
export function expandServer(c: McpServerConfig, env: NodeJS.ProcessEnv): McpServerConfig {
  const x = (s: string) => expandVars(s, env);
  const map = (m: Record<string, string> | undefined) => m && Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(v)]));
  if (isStdio(c)) return { ...c, command: x(c.command), args: c.args?.map(x), env: map(c.env), cwd: c.cwd && x(c.cwd) };
  return { ...c, url: x(c.url), headers: map(c.headers) };
}
