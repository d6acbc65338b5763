// The settlement sends a batch as one JSON text (decision 0042); PostgreSQL's json refuses NUL and
// unpaired surrogates when it reads them as text, so they become U+FFFD, and nothing else changes.
import { describe, expect, it } from 'vitest';
import { storableJsonText } from './settlement-sql.ts';

const roundTrip = (value: unknown) => JSON.parse(storableJsonText(JSON.stringify(value)));

describe('the JSON text of a settlement batch', () => {
  it('replaces NUL and unpaired surrogates, keeps pairs, escaped backslashes and everything else', () => {
    expect(roundTrip({ a: 'x\u0000y' })).toEqual({ a: 'x\uFFFDy' });
    expect(roundTrip({ a: 'x\uD800y', b: 'z\uDFFF' })).toEqual({ a: 'x\uFFFDy', b: 'z\uFFFD' });
    expect(roundTrip({ a: '😀 ok' })).toEqual({ a: '😀 ok' });
    // Text that only looks like an escape: a backslash followed by "u0000".
    expect(roundTrip({ a: '\\u0000 and \\\\u0000 and \\\u0000' })).toEqual({ a: '\\u0000 and \\\\u0000 and \\\uFFFD' });
    const plain = JSON.stringify({ a: 'nothing to do', n: 1 });
    expect(storableJsonText(plain)).toBe(plain);
  });
});
