// The fake server's prompt cache: what each request would read from and write to a provider's
// prompt cache, deterministic, in o200k tokens. Must not know HTTP: fake-server.ts asks it.
//
// Anthropic (as documented): the prompt is tools → system → messages, in blocks; a block with
// cache_control is a breakpoint. A request reads the longest prefix some earlier request wrote,
// looked up at each breakpoint and at the 20 block boundaries before it; it writes every
// breakpoint's prefix, paying for what lies between the hit and its last breakpoint. Prefixes
// under 1,024 tokens are not cached. cache_control itself is not part of the cached bytes.
//
// OpenAI and compatible servers: no markers; the prompt (system message, then the tools as chat
// templates render them, then the other messages) is cached by its longest prefix shared with an
// earlier request, from 1,024 tokens on, in steps of 128.

import { createHash } from 'node:crypto';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { WireFormat } from '../src/types/providers.js';

export type CacheUsage = { input: number; cacheRead: number; cacheWrite: number };

export interface PromptCache {
  /** What this request reads and writes; it is remembered for the requests after it. */
  usage(format: WireFormat, body: any): CacheUsage;
  clear(): void;
}

const MIN_TOKENS = 1024;
const LOOKBACK = 20;
const OPENAI_STEP = 128;

type Block = { json: string; breakpoint: boolean };

const withoutMarker = (block: any) => {
  if (typeof block !== 'object' || block === null) return block;
  const { cache_control: _marker, ...rest } = block;
  return rest;
};

function anthropicBlocks(body: any): Block[] {
  const blocks: Block[] = [];
  const push = (block: any, role?: string) =>
    blocks.push({ json: JSON.stringify(role ? { role, block: withoutMarker(block) } : withoutMarker(block)), breakpoint: !!block?.cache_control });
  for (const tool of body.tools ?? []) push(tool);
  for (const part of typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? [])) push(part);
  for (const m of body.messages ?? []) for (const b of typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content) push(b, m.role);
  return blocks;
}

/** The system message first, then the tools, then the rest: the order chat templates render. */
function openaiParts(body: any): string[] {
  const messages: any[] = body.messages ?? [];
  const lead = messages[0]?.role === 'system' || messages[0]?.role === 'developer' ? [messages[0]] : [];
  return [...lead.map((m) => JSON.stringify(m)), ...(body.tools ?? []).map((t: any) => JSON.stringify(t)), ...messages.slice(lead.length).map((m) => JSON.stringify(m))];
}

export function createPromptCache(): PromptCache {
  const written = new Map<string, number>(); // Anthropic: prefix hash → its tokens
  const prompts = new Map<string, number[][]>(); // OpenAI: every earlier prompt per model, as tokens

  function anthropic(body: any): CacheUsage {
    const blocks = anthropicBlocks(body);
    const hashes: string[] = [];
    const sums: number[] = [];
    let hash = String(body.model);
    let sum = 0;
    for (const b of blocks) {
      hash = createHash('sha256').update(hash).update(b.json).digest('hex');
      sum += encode(b.json).length;
      hashes.push(hash);
      sums.push(sum);
    }
    const total = sum;
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let hit = -1;
    for (const bp of breakpoints) {
      for (let i = bp; i >= 0 && i > bp - LOOKBACK - 1; i--) if (written.has(hashes[i]!) && i > hit) hit = i;
    }
    const cacheRead = hit >= 0 ? sums[hit]! : 0;
    const cacheable = breakpoints.filter((bp) => sums[bp]! >= MIN_TOKENS);
    for (const bp of cacheable) written.set(hashes[bp]!, sums[bp]!);
    const last = cacheable.at(-1);
    const cacheWrite = last !== undefined && last > hit ? sums[last]! - cacheRead : 0;
    return { input: total - cacheRead - cacheWrite, cacheRead, cacheWrite };
  }

  function openai(body: any): CacheUsage {
    const tokens = openaiParts(body).flatMap((part) => encode(part));
    const earlierPrompts = prompts.get(String(body.model)) ?? [];
    let longest = 0;
    for (const earlier of earlierPrompts) {
      const n = Math.min(earlier.length, tokens.length);
      let i = 0;
      while (i < n && earlier[i] === tokens[i]) i++;
      longest = Math.max(longest, i);
    }
    prompts.set(String(body.model), [...earlierPrompts, tokens]);
    const cacheRead = longest >= MIN_TOKENS ? Math.floor(longest / OPENAI_STEP) * OPENAI_STEP : 0;
    return { input: tokens.length - cacheRead, cacheRead, cacheWrite: 0 };
  }

  return {
    usage: (format, body) => (format === 'anthropic' ? anthropic(body) : openai(body)),
    clear() {
      written.clear();
      prompts.clear();
    },
  };
}
