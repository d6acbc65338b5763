import { describe, expect, it } from 'vitest';
import { findUnsafeInput, MAX_JSON_DEPTH, unstorableTextReason } from './request-guards.ts';

describe('unstorableTextReason', () => {
  it('passes ordinary text, paired surrogates included', () => {
    expect(unstorableTextReason('Hello, world')).toBeNull();
    expect(unstorableTextReason('')).toBeNull();
    expect(unstorableTextReason('emoji \u{1F600} and ü')).toBeNull();
  });

  it('names NUL characters and unpaired surrogates', () => {
    expect(unstorableTextReason('a\u0000b')).toBe('must not contain NUL characters');
    expect(unstorableTextReason('high \uD83D alone')).toBe('must not contain unpaired UTF-16 surrogates');
    expect(unstorableTextReason('low \uDE00 alone')).toBe('must not contain unpaired UTF-16 surrogates');
    expect(unstorableTextReason('\uDE00\uD83D')).toBe('must not contain unpaired UTF-16 surrogates');
  });
});

describe('findUnsafeInput', () => {
  it('finds nothing in storable input of any shape', () => {
    expect(findUnsafeInput({ model: 'app', messages: [{ role: 'user', content: 'Hi \u{1F600}' }], n: 1, stream: false }, '')).toBeNull();
    expect(findUnsafeInput(null, '')).toBeNull();
    expect(findUnsafeInput(undefined, '')).toBeNull();
    expect(findUnsafeInput(42, '')).toBeNull();
  });

  it('names the field of an unstorable value by its path', () => {
    expect(findUnsafeInput({ inputs: { query: 'a\u0000b' } }, '')).toEqual({ field: 'inputs.query', reason: 'must not contain NUL characters' });
    expect(findUnsafeInput({ messages: [{ role: 'user' }, { content: 'x\uD800' }] }, '')).toEqual({
      field: 'messages.1.content',
      reason: 'must not contain unpaired UTF-16 surrogates',
    });
    expect(findUnsafeInput({ slug: 'a\u0000' }, 'params')).toEqual({ field: 'params.slug', reason: 'must not contain NUL characters' });
    expect(findUnsafeInput('a\u0000', 'body')).toEqual({ field: 'body', reason: 'must not contain NUL characters' });
    expect(findUnsafeInput('a\u0000', '')).toEqual({ field: '', reason: 'must not contain NUL characters' });
  });

  it('names the object whose key is unstorable, or the key itself at the top', () => {
    expect(findUnsafeInput({ inputs: { 'k\u0000': 1 } }, '')).toEqual({ field: 'inputs', reason: 'keys must not contain NUL characters' });
    expect(findUnsafeInput({ 'k\uDC00': 1 }, '')).toEqual({ field: 'k\uDC00', reason: 'keys must not contain unpaired UTF-16 surrogates' });
  });

  it('reads URLSearchParams', () => {
    expect(findUnsafeInput(new URLSearchParams({ q: 'a\u0000' }), '')).toEqual({ field: 'q', reason: 'must not contain NUL characters' });
  });

  it('refuses nesting deeper than MAX_JSON_DEPTH, at the level where it goes too deep', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < MAX_JSON_DEPTH + 5; level++) deep = { a: deep };
    const found = findUnsafeInput(deep, '');
    expect(found?.reason).toBe(`must not be nested more than ${MAX_JSON_DEPTH} levels deep`);
    expect(found?.field.split('.')).toHaveLength(MAX_JSON_DEPTH);

    let fits: unknown = 'leaf';
    for (let level = 0; level < MAX_JSON_DEPTH; level++) fits = { a: fits };
    expect(findUnsafeInput(fits, '')).toBeNull();
  });
});
