// HTTP conventions every route shares: request ids, 405 with Allow, trailing slashes, no-store
// on answers that carry a secret, and cursor pagination of the lists that grow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { capturedLog } from '../test-support/log-capture.ts';
import { decodeKeysetCursor, encodeKeysetCursor, takePage } from './pagination.ts';

let ctx: TestContext;
let ada: string;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await ctx.tokenFor('ada');
});
afterAll(() => ctx?.close());

const auth = (token = ada) => ({ authorization: `Bearer ${token}` });

describe('X-Request-Id', () => {
  it('is on every answer: API, errors, not-found, OIDC-free health', async () => {
    for (const [method, url] of [
      ['GET', '/api/health/'],
      ['GET', '/api/keys/'],
      ['GET', '/api/nowhere/'],
      ['DELETE', '/api/health/'],
    ] as const) {
      const response = await ctx.app.inject({ method, url });
      expect(response.headers['x-request-id'], `${method} ${url}`).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('echoes a valid incoming id and replaces an unsafe one', async () => {
    const echoed = await ctx.app.inject({ method: 'GET', url: '/api/health/', headers: { 'x-request-id': 'edge-7f3a.42:retry=1' } });
    expect(echoed.headers['x-request-id']).toBe('edge-7f3a.42:retry=1');
    for (const bad of ['has space', 'x'.repeat(129), 'quote"d', 'new\u2028line']) {
      const response = await ctx.app.inject({ method: 'GET', url: '/api/health/', headers: { 'x-request-id': bad } });
      expect(response.headers['x-request-id']).not.toBe(bad);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('is in every error body and matches the header', async () => {
    const answers = [
      await ctx.app.inject({ method: 'GET', url: '/api/keys/' }),
      await ctx.app.inject({ method: 'POST', url: '/api/keys/', headers: auth(), payload: { name: '' } }),
      await ctx.app.inject({ method: 'GET', url: '/api/app/no-such-app/', headers: auth() }),
      await ctx.app.inject({ method: 'GET', url: '/api/nowhere/' }),
      await ctx.app.inject({ method: 'PUT', url: '/api/keys/', headers: auth() }),
      await ctx.app.inject({ method: 'POST', url: '/api/keys/', headers: { ...auth(), 'content-type': 'application/json' }, payload: '{oops' }),
    ];
    for (const response of answers) {
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.json().request_id).toBe(response.headers['x-request-id']);
    }
    const sent = await ctx.app.inject({ method: 'GET', url: '/api/keys/', headers: { 'x-request-id': 'trace-123' } });
    expect(sent.json()).toMatchObject({ code: 'unauthorized', request_id: 'trace-123' });
  });

  it('is in the request log lines', async () => {
    const { lines, stream } = capturedLog();
    const app = await buildApp({ config: ctx.config, db: ctx.database.db, logger: { level: 'info', stream } });
    await app.ready();
    try {
      await app.inject({ method: 'GET', url: '/api/health/', headers: { 'x-request-id': 'log-me-42' } });
      const entries = lines.flatMap((line) => line.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>);
      const completed = entries.find((entry) => entry.msg === 'request completed');
      expect(completed).toMatchObject({ reqId: 'log-me-42' });
      expect(entries.find((entry) => entry.msg === 'incoming request')).toMatchObject({ reqId: 'log-me-42' });
    } finally {
      await app.close();
    }
  });
});

describe('methods and trailing slashes', () => {
  it('answers 405 with Allow for a known path and a wrong method, 404 for an unknown path', async () => {
    const put = await ctx.app.inject({ method: 'PUT', url: '/api/keys/', headers: auth() });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, POST');
    expect(put.json()).toMatchObject({ code: 'method_not_allowed', status: 405 });

    const onItem = await ctx.app.inject({ method: 'GET', url: '/api/keys/2f1c1f52-7c5a-4d59-9a43-1d0f4b3f3b8e/', headers: auth() });
    expect(onItem.statusCode).toBe(405);
    expect(onItem.headers.allow).toBe('DELETE');

    const health = await ctx.app.inject({ method: 'POST', url: '/api/health' });
    expect(health.statusCode).toBe(405);
    expect(health.headers.allow).toContain('GET');

    expect((await ctx.app.inject({ method: 'PUT', url: '/api/no-such-thing/' })).statusCode).toBe(404);
    // The CORS preflight wildcards (OPTIONS /api/app/:slug/*) do not make every path under an app exist.
    expect((await ctx.app.inject({ method: 'PUT', url: '/api/app/some-app/no-such-thing/' })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/no-such-thing' })).statusCode).toBe(404);
  });

  it('answers every route the same with and without its trailing slash', async () => {
    const withSlash = await ctx.app.inject({ method: 'GET', url: '/api/keys/', headers: auth() });
    const without = await ctx.app.inject({ method: 'GET', url: '/api/keys', headers: auth() });
    expect(without.statusCode).toBe(200);
    expect(without.json()).toEqual(withSlash.json());

    const created = await ctx.app.inject({ method: 'POST', url: '/api/app', headers: auth(), payload: { name: 'No slash', type: 'prompt' } });
    expect(created.statusCode).toBe(201);
    const { slug } = created.json();
    expect((await ctx.app.inject({ method: 'GET', url: `/api/app/${slug}`, headers: auth() })).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: `/api/app/${slug}/`, headers: auth() })).statusCode).toBe(200);
  });
});

describe('Cache-Control on secrets', () => {
  it('sends no-store with a new API key', async () => {
    const response = await ctx.app.inject({ method: 'POST', url: '/api/keys/', headers: auth(), payload: { name: 'Secret' } });
    expect(response.statusCode).toBe(201);
    expect(response.json().key).toMatch(/^tb_/);
    expect(response.headers['cache-control']).toBe('no-store');
  });
});

describe('cursor pagination', () => {
  it('pages API keys with limit and cursor, has_more and next links, without repeats', async () => {
    const token = await ctx.tokenFor('pager');
    for (let index = 0; index < 5; index += 1) {
      const response = await ctx.app.inject({ method: 'POST', url: '/api/keys/', headers: auth(token), payload: { name: `k${index}` } });
      expect(response.statusCode).toBe(201);
    }
    const all = (await ctx.app.inject({ method: 'GET', url: '/api/keys/', headers: auth(token) })).json() as { name: string }[];
    expect(all.map((key) => key.name)).toEqual(['k4', 'k3', 'k2', 'k1', 'k0']);

    const seen: string[] = [];
    let url = '/api/keys/?limit=2';
    for (let pages = 0; pages < 5; pages += 1) {
      const response = await ctx.app.inject({ method: 'GET', url, headers: auth(token) });
      expect(response.statusCode).toBe(200);
      const body = response.json() as { name: string }[];
      expect(Array.isArray(body)).toBe(true);
      seen.push(...body.map((key) => key.name));
      if (response.headers['x-has-more'] === 'false') {
        expect(response.headers['x-next-cursor']).toBeUndefined();
        expect(response.headers.link).toBeUndefined();
        break;
      }
      expect(response.headers['x-has-more']).toBe('true');
      const link = String(response.headers.link);
      expect(link).toMatch(/^<\/api\/keys\/\?limit=2&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
      url = link.slice(1, link.indexOf('>'));
      expect(url).toContain(String(response.headers['x-next-cursor']));
    }
    expect(seen).toEqual(['k4', 'k3', 'k2', 'k1', 'k0']);
  });

  it('pages applications the same way and keeps the array shape', async () => {
    const token = await ctx.tokenFor('app-pager');
    for (const name of ['One', 'Two', 'Three']) {
      expect((await ctx.app.inject({ method: 'POST', url: '/api/app/', headers: auth(token), payload: { name, type: 'prompt' } })).statusCode).toBe(201);
    }
    const first = await ctx.app.inject({ method: 'GET', url: '/api/app/?limit=2', headers: auth(token) });
    expect(first.json().map((app: { name: string }) => app.name)).toEqual(['Three', 'Two']);
    expect(first.headers['x-has-more']).toBe('true');
    const second = await ctx.app.inject({ method: 'GET', url: `/api/app/?limit=2&cursor=${first.headers['x-next-cursor']}`, headers: auth(token) });
    expect(second.json().map((app: { name: string }) => app.name)).toEqual(['One']);
    expect(second.headers['x-has-more']).toBe('false');
    const whole = await ctx.app.inject({ method: 'GET', url: '/api/app/', headers: auth(token) });
    expect(whole.json()).toHaveLength(3);
    expect(whole.headers['x-has-more']).toBe('false');
  });

  it('pages an app’s invocations, rows within one millisecond included', async () => {
    const token = await ctx.tokenFor('calls-pager');
    const app = (await ctx.app.inject({ method: 'POST', url: '/api/app/', headers: auth(token), payload: { name: 'Busy', type: 'prompt' } })).json();
    const { db } = ctx.database;
    // Five calls: three in the same millisecond (microseconds apart), two earlier.
    for (const at of ['12:00:00.000001', '12:00:00.000002', '12:00:00.000003', '11:00:00', '10:00:00']) {
      await db.query(`INSERT INTO invocations (app_id, status, price_cents, created_at) VALUES ($1, 'success', 0, '2026-11-20 ${at}+00')`, [app.id]);
    }
    const url = `/api/app/${app.slug}/analytics/invocations/`;
    const whole = (await ctx.app.inject({ method: 'GET', url, headers: auth(token) })).json() as { id: string }[];
    expect(whole).toHaveLength(5);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 6; pages += 1) {
      const response = await ctx.app.inject({ method: 'GET', url: `${url}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, headers: auth(token) });
      expect(response.statusCode).toBe(200);
      seen.push(...(response.json() as { id: string }[]).map((row) => row.id));
      cursor = response.headers['x-next-cursor'] as string | undefined;
      expect(response.headers['x-has-more']).toBe(cursor ? 'true' : 'false');
      if (!cursor) break;
    }
    expect(seen).toEqual(whole.map((row) => row.id));
  });

  it('refuses a cursor it did not make and a limit out of range with 400 naming the field', async () => {
    for (const cursor of ['nonsense!', 'bm9wZQ', encodeKeysetCursor({ at: '2026-01-01T00:00:00.000000Z', id: '12' })]) {
      const response = await ctx.app.inject({ method: 'GET', url: `/api/keys/?cursor=${encodeURIComponent(cursor)}`, headers: auth() });
      expect(response.statusCode, cursor).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_param', params: 'cursor' });
    }
    for (const limit of ['0', '101', 'x']) {
      const response = await ctx.app.inject({ method: 'GET', url: `/api/app/?limit=${limit}`, headers: auth() });
      expect(response.statusCode, limit).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_param', params: 'limit' });
    }
  });

  it('keeps microseconds in the cursor so rows in the same millisecond are not skipped', () => {
    const cursor = encodeKeysetCursor({ at: '2026-11-23T12:00:00.123456Z', id: 'a1' });
    expect(decodeKeysetCursor(cursor)).toEqual({ at: '2026-11-23T12:00:00.123456Z', id: 'a1' });
    expect(takePage([1, 2, 3], 2, String)).toEqual({ items: [1, 2], has_more: true, next_cursor: '2' });
    expect(takePage([1, 2], 2, String)).toEqual({ items: [1, 2], has_more: false, next_cursor: null });
  });
});
