// The web app's HTML answers carry a Content-Security-Policy (Stripe's hosts, the configured
// Stripe API base, Monaco's worker, no framing), nosniff and a strict referrer policy.
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
  writeFileSync(path.join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  ctx = await createTestContext({ WEB_DIST_DIR: dist, STRIPE_API_BASE: 'http://127.0.0.1:45678' });
}, 180_000);
afterAll(() => ctx?.close());

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name as string, sources]),
  );
}

describe('security headers on the web app', () => {
  it('every client-side route answers with the CSP, nosniff, no framing and a strict referrer policy', async () => {
    for (const url of ['/', '/dashboard', '/prompts/new', '/billing', '/index.html']) {
      const response = await ctx.app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['referrer-policy'], url).toBe('strict-origin-when-cross-origin');
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      const csp = directives(String(response.headers['content-security-policy'] ?? ''));
      expect(csp.get('frame-ancestors'), url).toEqual(["'none'"]);
      expect(csp.get('default-src'), url).toEqual(["'self'"]);
      expect(csp.get('object-src'), url).toEqual(["'none'"]);
    }
  });

  it('allows Stripe.js, its frames and API (and the configured Stripe API base), Monaco worker, no eval', async () => {
    const response = await ctx.app.inject({ url: '/billing' });
    const csp = directives(String(response.headers['content-security-policy']));
    expect(csp.get('script-src')).toEqual(["'self'", 'https://js.stripe.com']);
    expect(csp.get('frame-src')).toEqual(expect.arrayContaining(['https://js.stripe.com', 'https://hooks.stripe.com']));
    // The test context's OIDC issuer is external (a loopback issuer): its origin is allowed to be fetched and framed.
    const issuer = new URL(ctx.config.oidc.issuer).origin;
    expect(csp.get('connect-src')).toEqual(["'self'", 'https://api.stripe.com', 'http://127.0.0.1:45678', issuer]);
    expect(csp.get('frame-src')).toContain(issuer);
    expect(csp.get('worker-src')).toContain("'self'");
    expect(String(response.headers['content-security-policy'])).not.toContain('unsafe-eval');
  });

  it('static assets are not sniffed; API answers carry no HTML policy', async () => {
    const asset = await ctx.app.inject({ url: '/assets/index-abc.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    const api = await ctx.app.inject({ url: '/api/no-such-thing' });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-security-policy']).toBeUndefined();
  });
});
