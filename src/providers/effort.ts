// Reasoning effort, one setting over the providers that have one: Anthropic's extended-thinking
// budget, OpenAI's reasoning_effort, and the thinking switches of DeepSeek and GLM (thinking.type)
// and Qwen (enable_thinking, thinking_budget) behind OpenAI-compatible servers. Pure: which models
// have it, and what a request carries for each level; the wire modules add it to their requests.

import type { Effort, ModelConfig } from '../types/providers.js';

export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high'];

/** How a model takes reasoning effort, or null when it has none to set. */
export type EffortKind = 'anthropic_thinking' | 'openai_reasoning' | 'thinking_switch' | 'qwen_thinking';

export function effortKind(config: ModelConfig): EffortKind | null {
  const id = config.model.trim().toLowerCase().replace(/^.*\//, '');
  if (config.provider === 'anthropic') return /^claude-(3-7-sonnet|(opus|sonnet|haiku)-4)/.test(id) ? 'anthropic_thinking' : null;
  // o1-mini and the gpt-5 chat models take no reasoning_effort (the API refuses the field).
  if (/^(o\d|gpt-5)/.test(id)) return /^o1-mini|^gpt-5[\w.-]*-chat/.test(id) ? null : 'openai_reasoning';
  if (/^(deepseek|glm-(4\.[5-9]|[5-9]))/.test(id)) return 'thinking_switch';
  if (/^(qwen3|qwen-(plus|max|turbo|flash)|qwq)/.test(id)) return 'qwen_thinking';
  return null;
}

/** Thinking tokens per level (Claude Code's think / think hard / ultrathink, roughly). */
const THINKING_BUDGET: Record<Effort, number> = { low: 4000, medium: 12_000, high: 32_000 };
/** Room kept for the answer itself when thinking shares max_tokens with it. */
export const ANSWER_ROOM = 4096;

/** The Anthropic thinking budget of a request: the effort's when set, else keys.json's thinkingBudget (0 = off). */
export function thinkingBudget(config: ModelConfig): number {
  if (!config.effort || effortKind(config) !== 'anthropic_thinking') return config.thinkingBudget ?? 0;
  return Math.max(1024, Math.min(THINKING_BUDGET[config.effort], config.maxOutputTokens - ANSWER_ROOM));
}

/** Fields an OpenAI-compatible request carries for the effort (none when unset or unknown to the model). */
export function effortFields(config: ModelConfig): Record<string, unknown> {
  const effort = config.effort;
  if (!effort) return {};
  switch (effortKind(config)) {
    case 'openai_reasoning':
      return { reasoning_effort: effort };
    case 'thinking_switch':
      // DeepSeek maps low and medium to high; low here means no thinking at all.
      return effort === 'low' ? { thinking: { type: 'disabled' } } : { thinking: { type: 'enabled' }, ...(effort === 'high' ? { reasoning_effort: 'high' } : {}) };
    case 'qwen_thinking':
      return effort === 'low' ? { enable_thinking: false } : { enable_thinking: true, thinking_budget: THINKING_BUDGET[effort] };
    default:
      return {};
  }
}
