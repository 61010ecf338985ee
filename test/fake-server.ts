// A fake model server for every test suite: real HTTP on 127.0.0.1, speaking the Anthropic
// Messages and OpenAI Chat Completions wire formats (SSE streaming and plain JSON), playing a
// scripted queue of replies, recording every request, and checking each request's history
// the way the real APIs do (every tool call answered by exactly one result).
//
//   const server = await startFakeServer();
//   server.enqueue({ toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] }, { text: 'Done.' });
//   const provider = createProvider(fakeModel(server, 'openai'), { retry: { baseDelayMs: 5 } });
//   ... run the code under test ...
//   expect(server.violations).toEqual([]);
//   await server.close();
//
// Test files use it through useFakeServer() (test/fixtures.ts), which also fails a test that
// leaves replies unplayed or violations behind. Replies are served in order whatever the wire
// format of the request. `requests` and `violations` are plain arrays: tests may read them and
// empty them (`length = 0`).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { saveKeys } from '../src/config/keys.js';
import type { ModelConfig, WireFormat } from '../src/types/providers.js';
import { anthropicEvents, anthropicJson, openaiEvents, openaiJson, usageFor } from './fake-replies.js';
import { createPromptCache } from './fake-cache.js';

export type FakeToolCall = {
  /** Default: `call_<reply number>_<position>`, the reply number counting from 1 over the server's life. */
  id?: string;
  name: string;
  input?: unknown;
  /** Sent instead of JSON.stringify(input), e.g. to send arguments that do not parse. */
  rawArguments?: string;
};

export type FakeUsage = { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };

/** A model reply. Streamed content comes in several chunks per text, thinking and tool call. */
export type FakeContentReply = {
  text?: string;
  thinking?: string;
  /** The thinking block's signature (Anthropic). Default: `sig-<reply number>` when thinking is set. */
  signature?: string;
  toolCalls?: FakeToolCall[];
  /** Default: tool_use when toolCalls is set, else end. */
  stop?: 'end' | 'tool_use' | 'max_tokens';
  /**
   * Default: input ≈ request body characters / 4, output ≈ reply characters / 4, no cache; with
   * the server's prompt cache on, input and cache tokens as the cache simulation finds them.
   * `input` means tokens outside the cache (the OpenAI format reports prompt_tokens = input + cacheRead).
   */
  usage?: FakeUsage;
  /** OpenAI format only: send no usage at all, even when asked (Anthropic always sends usage). */
  noUsage?: boolean;
  /** Pause between streamed events. */
  chunkDelayMs?: number;
  /** Stream the content, then never finish (no stop reason, connection left open). */
  hang?: boolean;
};
/** An HTTP error. Default body: the wire format's error shape with a message naming the status. */
export type FakeErrorReply = { status: number; body?: unknown; headers?: Record<string, string> };
/** Close the connection without answering. */
export type FakeDropReply = { dropConnection: true };
/**
 * A recorded response played byte for byte: the pieces of `raw` written in order (an SSE body
 * from a real server, an HTML error page), each after `chunkDelayMs`. Default status 200 and
 * content-type text/event-stream; `hang` leaves the connection open after the last piece.
 */
export type FakeRawReply = { raw: string[]; status?: number; headers?: Record<string, string>; chunkDelayMs?: number; hang?: boolean };
export type FakeReply = FakeContentReply | FakeErrorReply | FakeDropReply | FakeRawReply;

export type RecordedRequest = { path: string; headers: Record<string, string>; body: any; format: WireFormat };

export interface FakeServer {
  /** The server root, e.g. http://127.0.0.1:PORT */
  readonly url: string;
  /** baseURL for the Anthropic SDK (the root). */
  readonly anthropicBaseURL: string;
  /** baseURL for the OpenAI SDK (the root + /v1). */
  readonly openaiBaseURL: string;
  readonly requests: RecordedRequest[];
  /** Requests the real APIs would reject (unanswered or orphan tool results), and script errors. */
  readonly violations: string[];
  enqueue(...replies: FakeReply[]): void;
  /** Answers the requests for which `reply` returns a reply (e.g. summary requests: no tools), before the queue. */
  answer(reply: ((body: any) => FakeReply | undefined) | undefined): void;
  /** Replies still queued, in order: a test that ends with some did not play its script out. */
  unplayed(): FakeReply[];
  /** Forgets queued replies, recorded requests and violations (between tests). */
  reset(): void;
  close(): Promise<void>;
}

const PATHS: Record<string, WireFormat> = { '/v1/messages': 'anthropic', '/v1/chat/completions': 'openai' };

export type FakeServerOptions = {
  /** Simulate the providers' prompt caches (fake-cache.ts): usage reports cache reads and writes. */
  promptCache?: boolean;
};

export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const cache = options.promptCache ? createPromptCache() : undefined;
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  let served = 0; // never reset, so default ids stay unique across reset() and between tests
  let answerer: ((body: any) => FakeReply | undefined) | undefined;

  const server = createServer(async (req, res) => {
    res.on('error', () => {}); // a client that aborted mid-stream is normal here
    const raw = await readBody(req);
    if (raw === null) return; // the client went away mid-request: nothing to answer, nothing it did wrong
    const format = PATHS[(req.url ?? '').split('?')[0]!];
    if (req.method !== 'POST' || !format) {
      violations.push(`unexpected request: ${req.method} ${req.url}`);
      return sendJson(res, 404, { error: { type: 'not_found_error', message: `fake server: no route ${req.method} ${req.url}` } });
    }
    let body: any;
    try {
      body = JSON.parse(raw);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object');
    } catch {
      violations.push(`request body is not a JSON object: ${raw.slice(0, 200)}`);
      return sendError(res, format, 400, 'fake server: request body is not a JSON object');
    }
    requests.push({ path: req.url!, headers: flatHeaders(req), body, format });
    const n = requests.length;
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const problems = format === 'anthropic' ? anthropicProblems(messages) : openaiProblems(messages);
    if (problems.length > 0) {
      violations.push(...problems.map((p) => `request ${n}: ${p}`));
      return sendError(res, format, 400, problems.join('; '));
    }
    const reply = answerer?.(body) ?? queue.shift();
    if (!reply) {
      const message = `fake server: the script ran out of replies at request ${n} (${format})`;
      violations.push(message);
      return sendError(res, format, 500, message);
    }
    if ('dropConnection' in reply) return req.socket.destroy();
    if ('raw' in reply) return playRaw(res, reply);
    if ('status' in reply) return sendError(res, format, reply.status, `fake ${reply.status}`, reply.body, reply.headers);
    const serial = ++served;
    const content = { ...reply, toolCalls: (reply.toolCalls ?? []).map((c, i) => ({ ...c, id: c.id ?? `call_${serial}_${i}` })) };
    const usage = usageFor(content, raw.length, cache?.usage(format, body));
    const jsonReply = format === 'anthropic' ? anthropicJson : openaiJson;
    if (body.stream !== true) return sendJson(res, 200, jsonReply(content, usage, body, serial));
    const { events, end } = (format === 'anthropic' ? anthropicEvents : openaiEvents)(content, usage, body, serial);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of [...events, ...(content.hang ? [] : end)]) {
      if (res.destroyed) return;
      res.write(event);
      if (content.chunkDelayMs) await sleep(content.chunkDelayMs);
    }
    if (!content.hang) res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    violations,
    enqueue: (...replies) => void queue.push(...replies),
    answer: (reply) => void (answerer = reply),
    unplayed: () => [...queue],
    reset: () => {
      queue.length = 0;
      answerer = undefined;
      requests.length = 0;
      violations.length = 0;
      cache?.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // hanging streams included
        server.close(() => resolve());
      }),
  };
}

/** A model configuration pointing the real SDK of `format` at the fake server. */
export function fakeModel(server: FakeServer, format: WireFormat, overrides: Partial<ModelConfig> = {}): ModelConfig {
  return {
    name: `fake-${format}`,
    provider: format,
    model: format === 'anthropic' ? 'claude-fake' : 'gpt-fake',
    baseURL: format === 'anthropic' ? server.anthropicBaseURL : server.openaiBaseURL,
    apiKey: 'test-key',
    vision: true,
    contextWindow: 200_000,
    maxOutputTokens: 4096,
    ...overrides,
  };
}

/**
 * Writes `<configHome>/feiyu/keys.json` (configHome = the XDG_CONFIG_HOME a child process gets)
 * with two models, "fake-anthropic" and "fake-openai", the default being `format`'s. Returns its path.
 */
export function writeFakeKeys(configHome: string, server: FakeServer, format: WireFormat = 'anthropic', overrides: Partial<ModelConfig> = {}): string {
  const file = join(configHome, 'feiyu', 'keys.json');
  const models = (['anthropic', 'openai'] as const).map((f) => fakeModel(server, f, overrides));
  saveKeys(file, { default: `fake-${format}`, models });
  return file;
}

// ---------------------------------------------------------------------------------------------
// History checks: what the real APIs reject with a 400

function anthropicProblems(messages: any[]): string[] {
  const problems: string[] = [];
  const blocksOf = (m: any): any[] => (Array.isArray(m?.content) ? m.content : []);
  const callIds = (m: any): string[] => (m?.role === 'assistant' ? blocksOf(m).filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
  messages.forEach((m, i) => {
    const results: string[] = m.role === 'user' ? blocksOf(m).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : [];
    const next = messages[i + 1];
    const nextResults: string[] = next?.role === 'user' ? blocksOf(next).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : [];
    for (const id of callIds(m)) {
      const count = nextResults.filter((r) => r === id).length;
      if (count !== 1) problems.push(`messages[${i}]: tool_use ${id} has ${count} tool_result blocks in the next message (expected 1)`);
    }
    const asked = callIds(messages[i - 1]);
    for (const id of results) if (!asked.includes(id)) problems.push(`messages[${i}]: tool_result ${id} answers no tool_use of the previous message`);
    const firstOther = blocksOf(m).findIndex((b) => b.type !== 'tool_result');
    if (results.length > 0 && firstOther !== -1 && blocksOf(m).slice(firstOther).some((b) => b.type === 'tool_result')) {
      problems.push(`messages[${i}]: tool_result blocks must come before other content`);
    }
  });
  return problems;
}

function openaiProblems(messages: any[]): string[] {
  const problems: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      const answers: string[] = [];
      for (let j = i + 1; messages[j]?.role === 'tool'; j++) answers.push(messages[j].tool_call_id);
      for (const call of m.tool_calls) {
        const count = answers.filter((a) => a === call.id).length;
        if (count !== 1) problems.push(`messages[${i}]: tool call ${call.id} has ${count} tool messages after it (expected 1)`);
      }
    }
    if (m.role === 'tool') {
      let k = i - 1;
      while (messages[k]?.role === 'tool') k--;
      const asked = messages[k]?.role === 'assistant' ? (messages[k].tool_calls ?? []).map((c: any) => c.id) : [];
      if (!asked.includes(m.tool_call_id)) problems.push(`messages[${i}]: tool message ${m.tool_call_id} answers no tool call`);
    }
  });
  return problems;
}

// ---------------------------------------------------------------------------------------------
// HTTP

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function sendError(res: ServerResponse, format: WireFormat, status: number, message: string, body?: unknown, headers: Record<string, string> = {}) {
  const type = ERROR_TYPES[status] ?? 'api_error';
  const standard = format === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, param: null, code: null } };
  sendJson(res, status, body ?? standard, headers);
}

async function playRaw(res: ServerResponse, reply: FakeRawReply) {
  res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  res.flushHeaders(); // a real server answers with its headers at once, before any data
  for (const piece of reply.raw) {
    if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    if (res.destroyed) return;
    res.write(piece);
  }
  if (!reply.hang) res.end();
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    // The client went away before the end (a killed CLI): resolve() after 'end' changes nothing.
    req.on('error', () => resolve(null));
    req.on('close', () => resolve(null));
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
