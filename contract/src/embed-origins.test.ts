import { describe, expect, it } from 'vitest';
import { originHint, originNearMisses, originOf } from './embed-origins.ts';

describe('embed origins (issue 61)', () => {
  it('names the near misses a browser treats as another website', () => {
    expect(originNearMisses('https://www.shop.example', ['https://shop.example'])).toEqual([
      'https://shop.example is listed, but this page is https://www.shop.example: "www." counts, so list both if the site answers on both.',
    ]);
    expect(originNearMisses('http://localhost:3000', ['http://localhost:5173'])[0]).toContain('the port counts');
    expect(originNearMisses('http://shop.example', ['https://shop.example'])[0]).toContain('http and https are different origins');
    expect(originNearMisses('http://127.0.0.1:5173', ['http://localhost:5173'])[0]).toContain('localhost and 127.0.0.1 are different origins');
    expect(originNearMisses('https://elsewhere.example', ['https://shop.example'])).toEqual([]);
    expect(originNearMisses('not a url', ['https://shop.example'])).toEqual([]);
  });

  it('hints at the neighbours of a listed origin, and reads origins', () => {
    expect(originHint('https://shop.example')).toBe('Not https://www.shop.example: list it too if the site answers there.');
    expect(originHint('https://www.shop.example')).toBe('Not https://shop.example: list it too if the site answers there.');
    expect(originHint('http://127.0.0.1:8080')).toBe('Only this port; http://localhost:8080 is a different origin.');
    expect(originHint('https://app.shop.example:8443')).toBe('Only port 8443; the same site on another port is a different origin.');
    expect(originHint('https://app.shop.example')).toBeNull();
    expect(originOf('https://shop.example/path?q=1')).toBe('https://shop.example');
    expect(originOf('null')).toBeNull();
  });
});
