import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter } from './rate-limit.ts';

describe('memory rate limiter', () => {
  it('allows the limit per minute, then refuses with the time to reset', async () => {
    const limiter = createMemoryRateLimiter(3);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.hit('key:a'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[3]!.resetSeconds).toBeGreaterThan(0);
    expect(decisions[3]!.resetSeconds).toBeLessThanOrEqual(60);
    expect((await limiter.hit('key:b')).allowed).toBe(true);
  });
});

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisReachable = await (async () => {
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 500, retryStrategy: () => null });
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
})();
if (!redisReachable) console.warn(`Redis at ${redisUrl} is not reachable: the shared rate-limit test does not run`);

describe.runIf(redisReachable)('redis rate limiter', () => {
  const limiters = [createRedisRateLimiter(redisUrl, 5), createRedisRateLimiter(redisUrl, 5)];
  afterAll(() => Promise.all(limiters.map((limiter) => limiter.close())));

  it('shares one count between processes (two limiters on one Redis)', async () => {
    const subject = `test:${Math.random().toString(36).slice(2)}`;
    const decisions = await Promise.all(Array.from({ length: 8 }, (_, i) => limiters[i % 2]!.hit(subject)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.filter((d) => !d.allowed)).toHaveLength(3);
  });
});
