// The management API's per-user limit (issue 26): RateLimit-* headers on signed-in answers, 429 with
// Retry-After once the minute's requests are used, per user; anonymous reads are not counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';

let ctx: TestContext;
const LIMIT = 5;

beforeAll(async () => {
  ctx = await createTestContext({ MANAGEMENT_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
}, 180_000);
afterAll(() => ctx?.close());

const get = (url: string, token?: string) => ctx.app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('the management API rate limit', () => {
  it('says the limit on every signed-in answer, refuses with 429 and Retry-After past it, and counts each user apart', async () => {
    const token = await ctx.tokenFor('management-limit-user');
    const first = await get('/api/app/', token);
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe(String(LIMIT));
    expect(Number(first.headers['ratelimit-remaining'])).toBeLessThan(LIMIT);
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);

    let refused: Awaited<ReturnType<typeof get>> | null = null;
    for (let attempt = 0; attempt < LIMIT + 2 && !refused; attempt++) {
      const response = await get('/api/keys/', token);
      if (response.statusCode === 429) refused = response;
      else expect(response.statusCode).toBe(200);
    }
    expect(refused, 'refused within the limit').not.toBeNull();
    expect(refused!.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused!.headers['ratelimit-remaining']).toBe('0');

    // Another user has their own minute; anonymous reads are not counted at all.
    const other = await get('/api/app/', await ctx.tokenFor('management-limit-other'));
    expect(other.statusCode).toBe(200);
    for (let attempt = 0; attempt < LIMIT + 2; attempt++) {
      const catalog = await get('/api/catalog/');
      expect(catalog.statusCode).toBe(200);
      expect(catalog.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});
