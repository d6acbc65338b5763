import { describe, expect, it } from 'vitest';
import { firstFreeSlug, slugify } from './slug.ts';

describe('slugify', () => {
  it.each([
    ['My Cool App', 'my-cool-app'],
    ['  Hello,   World!!  ', 'hello-world'],
    ['--Already-Slugged--', 'already-slugged'],
    ['Ünïcode & Ümlauts 2', 'n-code-mlauts-2'],
    ['GPT_4 / Summariser', 'gpt-4-summariser'],
    ['!!!', 'app'],
    ['', 'app'],
  ])('%j becomes %j', (name, slug) => expect(slugify(name)).toBe(slug));
});

describe('firstFreeSlug', () => {
  it('appends -2, -3… on collision', () => {
    expect(firstFreeSlug('a', new Set())).toBe('a');
    expect(firstFreeSlug('a', new Set(['a']))).toBe('a-2');
    expect(firstFreeSlug('a', new Set(['a', 'a-2', 'a-3']))).toBe('a-4');
  });
});
