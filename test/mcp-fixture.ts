// A real MCP server for the tests, written with the SDK feiyu's client uses: tools with text and
// image results, a slow one that notices cancellation, one that crashes the server, one that hangs
// it, one that adds a tool (tools/list_changed), a read-only-annotated one; a resource and a
// prompt. Runs over stdio as a bundle (buildStdioServer; `node <bundle> [log-file]`) or, imported,
// over streamable HTTP on 127.0.0.1 (startHttpServer). `log` records what the server saw (calls,
// cancellations) one JSON line each, for the tests to read. FIXTURE_FAIL_START makes it exit at
// once; FIXTURE_CHILD makes it start a `sleep` in its process group (exit clean-up must stop it).
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** A 2×1 PNG (one red, one blue pixel). */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAD0lEQVQImWP4z8Dwn4EBAAj+Af/KOtJRAAAAAElFTkSuQmCC';

type ToolDef = { name: string; description: string; inputSchema: object; annotations?: object };

const BASE_TOOLS: ToolDef[] = [
  {
    name: 'echo',
    description: 'Echo the text back.\nA second line that the cold list leaves out.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 } }, required: ['text'], additionalProperties: false },
  },
  { name: 'picture', description: 'A small picture.', inputSchema: { type: 'object', properties: {} } },
  { name: 'peek', description: 'Look without touching.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
  { name: 'slow', description: 'Wait, then answer.', inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } },
  { name: 'crash', description: 'Make the server exit.', inputSchema: { type: 'object', properties: {} } },
  { name: 'freeze', description: 'Make the server stop answering anything.', inputSchema: { type: 'object', properties: {} } },
  { name: 'grow', description: 'Add the tool "late".', inputSchema: { type: 'object', properties: {} } },
];

/** One server instance; `log` appends what it saw to a file (empty: nowhere). */
export function fixtureServer(log = ''): Server {
  const tools = [...BASE_TOOLS];
  const note = (entry: object) => log && appendFileSync(log, JSON.stringify(entry) + '\n');
  const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args = {} } = req.params;
    note({ call: name, args });
    switch (name) {
      case 'echo':
        return { content: [{ type: 'text', text: String(args.text).repeat(Number(args.times ?? 1)) }] };
      case 'picture':
        return { content: [{ type: 'text', text: 'Here it is:' }, { type: 'image', data: PNG_BASE64, mimeType: 'image/png' }, { type: 'resource_link', uri: 'note://readme', name: 'readme', mimeType: 'text/plain' }] };
      case 'peek':
        return { content: [{ type: 'text', text: 'nothing changed' }] };
      case 'slow':
        return new Promise((resolve) => {
          const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'done waiting' }] }), Number(args.ms));
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            note({ cancelled: name, reason: String(extra.signal.reason ?? '') });
          });
        });
      case 'crash':
        process.stderr.write('fixture: crashing on purpose\n');
        setTimeout(() => process.exit(3), 10);
        return new Promise(() => {});
      case 'freeze':
        setTimeout(() => {
          for (;;);
        }, 10);
        return new Promise(() => {});
      case 'grow':
        tools.push({ name: 'late', description: 'A tool that came later.', inputSchema: { type: 'object', properties: {} } });
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'grown' }] };
      case 'late':
        return { content: [{ type: 'text', text: 'late but here' }] };
      default:
        return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: 'note://readme', name: 'readme', mimeType: 'text/plain' }] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({ contents: [{ uri: req.params.uri, text: 'read me' }] }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: 'review', description: 'Review a file.', arguments: [{ name: 'file', required: true }, { name: 'focus' }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Review ${req.params.arguments?.file} for ${req.params.arguments?.focus ?? 'anything'}.` } }],
  }));
  return server;
}

/** The fixture over streamable HTTP on 127.0.0.1 (stateless: a server per request); `requests` counts them. */
export async function startHttpServer(): Promise<{ url: string; http: HttpServer; requests: { headers: Record<string, unknown> }[] }> {
  const requests: { headers: Record<string, unknown> }[] = [];
  const http = createServer(async (req, res) => {
    requests.push({ headers: req.headers });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = fixtureServer();
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, http, requests };
}

/** Live processes whose environment holds FIXTURE_MARK=`mark` (a server, and what it started). */
export function processesMarked(mark: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => {
      try {
        return /^\d+$/.test(entry) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, 'utf8')) && readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`FIXTURE_MARK=${mark}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** This file bundled with its packages into one script node runs as it is (node 20 runs no TypeScript). */
export async function buildStdioServer(): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = join(await mkdtemp(join(tmpdir(), 'feiyu-mcp-fixture-')), 'server.mjs');
  // The SDK's CommonJS dependencies (ajv) call require: the bundle gets one.
  const banner = { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" };
  await build({ entryPoints: [import.meta.filename], outfile, bundle: true, platform: 'node', format: 'esm', banner, external: ['esbuild'], logLevel: 'warning', define: { 'process.env.FIXTURE_MAIN': '"1"' } });
  return outfile;
}

if (process.env.FIXTURE_MAIN === '1') {
  if (process.env.FIXTURE_FAIL_START) {
    process.stderr.write('fixture: missing FIXTURE_TOKEN\n');
    process.exit(2);
  }
  if (process.env.FIXTURE_CHILD) spawn('sleep', ['300'], { stdio: 'ignore' });
  await fixtureServer(process.argv[2] ?? '').connect(new StdioServerTransport());
}
