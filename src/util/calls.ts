// How a tool call describes itself, safely: the tool's describe() on arguments that may be
// malformed, with only well-typed fields kept. Shared by runTool, the policy and compaction.

import type { CallDescription, Tool } from '../types/tools.js';

/** The call's description, or undefined when its tool has none or fails on these arguments. */
export function describeCall(tool: Tool | undefined, input: Record<string, unknown>): CallDescription | undefined {
  let d: CallDescription | undefined;
  try {
    d = tool?.describe?.(input);
  } catch {
    return undefined;
  }
  if (!d || typeof d.title !== 'string') return undefined;
  const out: CallDescription = { title: d.title };
  for (const key of ['path', 'command', 'url'] as const) if (typeof d[key] === 'string') out[key] = d[key];
  if (d.preview) out.preview = d.preview;
  return out;
}
