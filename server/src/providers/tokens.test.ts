// Token counts: the same as the tokenizer's, and a system prompt is counted once, not on every call.
import { describe, expect, it, vi } from 'vitest';

const counted = vi.hoisted(() => ({ texts: [] as string[] }));
vi.mock('gpt-tokenizer/encoding/cl100k_base', async (original) => {
  const actual = await original<typeof import('gpt-tokenizer/encoding/cl100k_base')>();
  return {
    ...actual,
    countTokens: (text: string, options?: Parameters<typeof actual.countTokens>[1]) => {
      counted.texts.push(text);
      return actual.countTokens(text, options);
    },
  };
});

// Files share a worker's modules (isolate: false): tokens.ts may already be loaded with the real tokenizer.
vi.resetModules();
const { countPromptTokens, countTokens } = await import('./tokens.ts');
const { countTokens: tokenizerCount } = await vi.importActual<typeof import('gpt-tokenizer/encoding/cl100k_base')>('gpt-tokenizer/encoding/cl100k_base');

describe('countPromptTokens', () => {
  it('counts what the tokenizer counts, and counts a system prompt once across calls', () => {
    const system = 'You are a careful assistant for a travel agency. '.repeat(40);
    const call = (question: string) => [
      { role: 'system' as const, content: system },
      { role: 'user' as const, content: question },
    ];
    const plain = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };
    const expected = (question: string) => tokenizerCount(system, plain) + tokenizerCount(question, plain);

    counted.texts.length = 0;
    expect(countPromptTokens(call('A hotel in Lisbon?'))).toBe(expected('A hotel in Lisbon?'));
    expect(countPromptTokens(call('And one in Porto?'))).toBe(expected('And one in Porto?'));
    expect(countPromptTokens(call('A hotel in Lisbon?'))).toBe(expected('A hotel in Lisbon?'));
    // The system prompt went to the tokenizer once; every user turn, each time.
    expect(counted.texts.filter((text) => text === system)).toHaveLength(1);
    expect(counted.texts.filter((text) => text === 'A hotel in Lisbon?')).toHaveLength(2);
  });

  it('treats control-token text in a prompt as plain text', () => {
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
    expect(countPromptTokens([{ role: 'system', content: 'say <|endoftext|>' }])).toBe(countTokens('say <|endoftext|>'));
  });
});
