// The built web app: client-side routes get index.html, files that exist are served, and a path
// naming a file that does not exist is a real 404, not the app's HTML with 200.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';

let ctx: TestContext;

beforeAll(async () => {
  const dist = mkdtempSync(path.join(tmpdir(), 'tollbooth-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Tollbooth</title><div id="root"></div>');
  writeFileSync(path.join(dist, 'robots.txt'), 'User-agent: *\nDisallow: /api/\n');
  writeFileSync(path.join(dist, 'favicon.ico'), Buffer.from([0, 0, 1, 0]));
  writeFileSync(path.join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
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
    for (const url of ['/openapi.json', '/sitemap.xml', '/assets/missing-123.js', '/favicon.png', '/.env', '/wp-login.php']) {
      const response = await ctx.app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).not.toContain('text/html');
    }
  });
});
