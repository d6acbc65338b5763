import { describe, expect, it } from 'vitest';
import { buildEmbedSnippet } from './embed-snippet.utils';

describe('buildEmbedSnippet', () => {
  it('is one script tag: a chat bubble in the light theme by default', () => {
    expect(buildEmbedSnippet({ origin: 'https://tollbooth.example', slug: 'owl-helper', publishableKey: 'pk_abc', mode: 'bubble', theme: 'light' })).toBe(
      '<script src="https://tollbooth.example/embed/loader.js" data-app="owl-helper" data-key="pk_abc" async></script>',
    );
  });

  it('names the inline frame and the dark theme, and escapes attribute values', () => {
    expect(buildEmbedSnippet({ origin: 'https://t.example', slug: 'a"b', publishableKey: 'pk_<x>', mode: 'inline', theme: 'dark' })).toBe(
      '<script src="https://t.example/embed/loader.js" data-app="a&quot;b" data-key="pk_&lt;x>" data-mode="inline" data-theme="dark" async></script>',
    );
  });
});
