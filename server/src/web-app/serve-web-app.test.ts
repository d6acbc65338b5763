// The built web app: client-side routes get index.html, files that exist are served, and a path
// naming a file that does not exist is a real 404, not the app's HTML with 200. Files go out in the
// encoding the browser accepts from the build's precompressed copies, hashed assets are cached for
// good and the HTML is revalidated.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';

let ctx: TestContext;
/** A hashed chunk with the .br and .gz copies the build writes beside it (web/build/precompress.ts). */
const chunk = Buffer.from(Array.from({ length: 300 }, (_, i) => `export const value${i} = ${i * 7};`).join('\n'));
const chunkBrotli = brotliCompressSync(chunk);
const chunkGzip = gzipSync(chunk, { level: 9 });

beforeAll(async () => {
  const dist = mkdtempSync(path.join(tmpdir(), 'tollbooth-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Tollbooth</title><div id="root"></div>');
  writeFileSync(path.join(dist, 'robots.txt'), 'User-agent: *\nDisallow: /api/\n');
  writeFileSync(path.join(dist, 'favicon.ico'), Buffer.from([0, 0, 1, 0]));
  writeFileSync(path.join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(path.join(dist, 'assets', 'page-d41d8c.js'), chunk);
  writeFileSync(path.join(dist, 'assets', 'page-d41d8c.js.br'), chunkBrotli);
  writeFileSync(path.join(dist, 'assets', 'page-d41d8c.js.gz'), chunkGzip);
  ctx = await createTestContext({ WEB_DIST_DIR: dist });
}, 180_000);
afterAll(() => ctx?.close());

describe('static paths', () => {
  it('serves client-side routes as the app', async () => {
    for (const url of ['/', '/dashboard', '/applications/some-app/edit', '/explore?q=x']) {
      const response = await ctx.app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toContain('text/html');
    }
  });

  it('serves robots.txt and favicon.ico for real', async () => {
    const robots = await ctx.app.inject({ url: '/robots.txt' });
    expect(robots.statusCode).toBe(200);
    expect(robots.headers['content-type']).toContain('text/plain');
    expect(robots.body).toContain('User-agent');
    const favicon = await ctx.app.inject({ url: '/favicon.ico' });
    expect(favicon.statusCode).toBe(200);
    expect(favicon.headers['content-type']).not.toContain('text/html');
  });

  it('answers 404, not the app, for files that do not exist', async () => {
    for (const url of ['/sitemap.xml', '/assets/missing-123.js', '/favicon.png', '/.env', '/wp-login.php']) {
      const response = await ctx.app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).not.toContain('text/html');
    }
  });
});

describe('encodings', () => {
  const chunkUrl = '/assets/page-d41d8c.js';
  const get = (url: string, acceptEncoding?: string) =>
    ctx.app.inject({ url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

  it('sends the brotli copy to a browser that accepts br', async () => {
    const response = await get(chunkUrl, 'gzip, deflate, br, zstd');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-type']).toContain('javascript');
    expect(String(response.headers.vary)).toMatch(/accept-encoding/i);
    expect(Number(response.headers['content-length'])).toBe(chunkBrotli.length);
    expect(brotliDecompressSync(response.rawPayload).equals(chunk)).toBe(true);
  });

  it('sends the gzip copy when brotli is not accepted (or refused with q=0)', async () => {
    for (const accept of ['gzip, deflate', 'br;q=0, gzip']) {
      const response = await get(chunkUrl, accept);
      expect(response.headers['content-encoding'], accept).toBe('gzip');
      expect(Number(response.headers['content-length']), accept).toBe(chunkGzip.length);
      expect(gunzipSync(response.rawPayload).equals(chunk), accept).toBe(true);
    }
  });

  it('sends the file as it is without Accept-Encoding or with identity, still varying on it', async () => {
    for (const accept of [undefined, 'identity']) {
      const response = await get(chunkUrl, accept);
      expect(response.headers['content-encoding'], accept).toBeUndefined();
      expect(String(response.headers.vary), accept).toMatch(/accept-encoding/i);
      expect(response.rawPayload.equals(chunk), accept).toBe(true);
    }
  });

  it('gives each encoding its own validator, so a cache never mixes them', async () => {
    const tags = await Promise.all([get(chunkUrl, 'br'), get(chunkUrl, 'gzip'), get(chunkUrl)]).then((responses) => responses.map((r) => r.headers.etag));
    expect(new Set(tags).size).toBe(3);
  });

  it('does not serve the compressed copies by their own names', async () => {
    for (const url of [`${chunkUrl}.br`, `${chunkUrl}.gz`]) {
      const response = await get(url, 'br, gzip');
      expect(response.statusCode, url).toBe(404);
    }
  });

  it('sends a file without copies (too small to compress) as it is', async () => {
    const response = await get('/assets/index-abc.js', 'br, gzip');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toBe('console.log(1)');
  });
});

describe('caching', () => {
  it('caches hashed assets for a year, immutable, whatever their encoding', async () => {
    for (const accept of ['br', 'gzip', 'identity']) {
      const response = await ctx.app.inject({ url: '/assets/page-d41d8c.js', headers: { 'accept-encoding': accept } });
      expect(response.headers['cache-control'], accept).toBe('public, max-age=31536000, immutable');
    }
  });

  it('sends the app shell for client-side routes compressed as the browser accepts (issue 26)', async () => {
    const html = '<!doctype html><title>Tollbooth</title><div id="root"></div>';
    for (const url of ['/', '/dashboard', '/applications/some-app/edit']) {
      const brotli = await ctx.app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(brotli.headers['content-encoding'], url).toBe('br');
      expect(String(brotli.headers.vary), url).toMatch(/accept-encoding/i);
      expect(brotli.headers['content-type'], url).toContain('text/html');
      expect(brotliDecompressSync(brotli.rawPayload).toString(), url).toBe(html);
      const gzip = await ctx.app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding'], url).toBe('gzip');
      expect(gunzipSync(gzip.rawPayload).toString(), url).toBe(html);
      for (const accept of ['identity', 'br;q=0, gzip;q=0', undefined]) {
        const plain = await ctx.app.inject({ url, headers: accept === undefined ? {} : { 'accept-encoding': accept } });
        expect(plain.headers['content-encoding'], `${url} ${accept}`).toBeUndefined();
        expect(plain.body, `${url} ${accept}`).toBe(html);
      }
    }
  });

  it('has the browser revalidate index.html, the app served for client-side routes, and other public files', async () => {
    for (const url of ['/index.html', '/', '/dashboard', '/applications/some-app/edit', '/robots.txt']) {
      const response = await ctx.app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe('no-cache');
    }
  });
});
