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

/** The tokens of every message's text, summed (no per-message overhead, no image tokens). */
export function countPromptTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += countTokens(message.content);
  return total;
}
