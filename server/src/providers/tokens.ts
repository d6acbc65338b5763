// Token counting with a real BPE tokenizer (cl100k_base, GPT-4's encoding), shipped inside the
// gpt-tokenizer package so it works offline. Used by the demo model, and as the fallback when an
// OpenAI-compatible server does not report usage.
import { countTokens as countCl100kTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import type { ChatMessage } from './types.ts';

// Prompts are user text: '<|endoftext|>' in one is plain text, not a control token (the default
// options would throw on it).
const PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text === '' ? 0 : countCl100kTokens(text, PLAIN_TEXT);
}

/**
 * A system prompt's count, kept: a call's model-cost bound counts its whole prompt (gateway/service.ts),
 * and an app's system prompt is the same text on every call (a 2,000-character one takes ~18 µs to
 * count). Only system prompts are kept, the most recent SYSTEM_COUNTS, and none longer than
 * SYSTEM_COUNT_MAX_LENGTH characters.
 */
const systemCounts = new Map<string, number>();
const SYSTEM_COUNTS = 256;
const SYSTEM_COUNT_MAX_LENGTH = 16 * 1024;

function countSystemPrompt(text: string): number {
  if (text.length > SYSTEM_COUNT_MAX_LENGTH) return countTokens(text);
  const known = systemCounts.get(text);
  if (known !== undefined) return known;
  const count = countTokens(text);
  if (systemCounts.size >= SYSTEM_COUNTS) systemCounts.delete(systemCounts.keys().next().value!);
  systemCounts.set(text, count);
  return count;
}

/** The tokens of every message's text, summed (no per-message overhead, no image tokens). */
export function countPromptTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += message.role === 'system' ? countSystemPrompt(message.content) : countTokens(message.content);
  return total;
}
