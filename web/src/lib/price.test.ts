import { describe, expect, it } from 'vitest';
import { parsePriceCents } from './price';

describe('parsePriceCents', () => {
  it.each([
    ['100', 100],
    [' 42 ', 42],
    ['2.6', 3],
    ['', 0],
    ['abc', 0],
    ['-5', -5],
  ])('reads %j as %d', (input, cents) => {
    expect(parsePriceCents(input)).toBe(cents);
  });
});
