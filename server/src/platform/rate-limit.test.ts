import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInGuard, FAILURES_PER_ADDRESS } from '../auth/oidc/sign-in-guard.ts';
import { createSignUpGuard } from '../auth/oidc/sign-up-guard.ts';
import { createTestDatabase, type TestDatabase } from '../test-support/database.ts';
import { aFreshMinute } from '../test-support/wait-for.ts';
import { createMemoryRateLimiter, createRateLimiter, createRedisRateLimiter, hitDatabaseCounter } from './rate-limit.ts';

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
    await aFreshMinute();
    const decisions = await Promise.all(Array.from({ length: 8 }, (_, i) => limiters[i % 2]!.hit(subject)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.filter((d) => !d.allowed)).toHaveLength(3);
  });
});

describe('without Redis: counters in the database, shared by every process on it (issue 24)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.cleanup());

  it('two limiters on one database (two processes) enforce one limit for calls', async () => {
    const limiters = [0, 1].map(() => createRateLimiter({ redisUrl: null, limitPerMinute: 5, db: database.db, name: 'calls' }));
    // The windows are minutes of the clock: a minute turning within the burst would open a second count.
    await aFreshMinute();
    try {
      const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => limiters[i % 2]!.hit('key:shared')));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
      expect(decisions.filter((d) => !d.allowed)).toHaveLength(7);
      const last = await limiters[0]!.hit('key:shared');
      expect(last).toMatchObject({ allowed: false, limit: 5, remaining: 0 });
      expect(last.resetSeconds).toBeGreaterThan(0);
      expect(last.resetSeconds).toBeLessThanOrEqual(60);
      // Another subject, and another limit on the same subject, count apart.
      expect((await limiters[1]!.hit('key:other')).allowed).toBe(true);
      const users = createRateLimiter({ redisUrl: null, limitPerMinute: 5, db: database.db, name: 'user-calls' });
      expect((await users.hit('key:shared')).allowed).toBe(true);
      await users.close();
    } finally {
      await Promise.all(limiters.map((limiter) => limiter.close()));
    }
  });

  it('counts a hit that reaches the database after the window it named has ended in the current window, not in a new count of 1', async () => {
    // Both hits name a window that ended a second ago, as hits sent just before a minute's end and
    // received after it do.
    const ended = Date.now() - 1000;
    const first = await hitDatabaseCounter(database.db, 'rl:test:turn-of-minute', ended, 1, 60_000);
    expect(first.count).toBe(1);
    expect(first.endsAtMs).toBeGreaterThan(Date.now());
    expect(first.endsAtMs % 60_000).toBe(0);
    const second = await hitDatabaseCounter(database.db, 'rl:test:turn-of-minute', ended, 1, 60_000);
    expect(second).toEqual({ count: 2, endsAtMs: first.endsAtMs });
  });

  it("a fast caller's slices grow, so a hot key does not put an upsert on every 32nd call, and none passes the limit", async () => {
    // The windows are minutes of the clock: start well inside one, so no window ends during the test.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
    let upserts = 0;
    const counting = {
      ...database.db,
      query: ((sql: string, params?: readonly unknown[]) => {
        if (sql.includes('INSERT INTO rate_limit_counters')) upserts++;
        return database.db.query(sql, params);
      }) as typeof database.db.query,
    };
    const limiter = createRateLimiter({ redisUrl: null, limitPerMinute: 1_000_000, db: counting, name: 'hot' });
    for (let i = 0; i < 3000; i++) expect((await limiter.hit('key:hot')).allowed).toBe(true);
    // 1 + 32 + 64 + 128 + 256 + 512 + 512 + … : 10 upserts with the one counted ahead, where fixed slices of 32 took 95.
    expect(upserts).toBeLessThanOrEqual(11);
    // Closing waits for a slice still being counted ahead: the count below is final.
    await limiter.close();
    const [row] = (await database.db.query<{ count: number }>("SELECT count FROM rate_limit_counters WHERE key = 'rl:hot:key:hot'")).rows;
    // Never fewer than the hits allowed; at most the rest of a slice and the next one more.
    expect(row!.count).toBeGreaterThanOrEqual(3000);
    expect(row!.count).toBeLessThan(3000 + 2 * 512);

    // Near the limit the slices still shrink to single hits: exactly the limit is allowed.
    const tight = createRateLimiter({ redisUrl: null, limitPerMinute: 700, db: database.db, name: 'tight' });
    const decisions = [];
    for (let i = 0; i < 720; i++) decisions.push((await tight.hit('key:tight')).allowed);
    expect(decisions.filter(Boolean)).toHaveLength(700);
    await tight.close();
  }, 60_000);

  it("a fast caller's next slice is counted while a quarter of the current one is left, so its hits do not wait for the database when a slice runs out", async () => {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
    // The database answers an upsert once four more hits were served: faster than a quarter of any
    // slice of 32 or more is used, slower than the hits that find their slice empty.
    const held: { answer: Promise<unknown>; release: () => void; hitsLeft: number }[] = [];
    const gated = {
      ...database.db,
      query: ((sql: string, params?: readonly unknown[]) => {
        const answer = database.db.query(sql, params);
        if (!sql.includes('INSERT INTO rate_limit_counters')) return answer;
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        held.push({ answer, release, hitsLeft: 4 });
        return gate.then(() => answer);
      }) as typeof database.db.query,
    };
    const limiter = createRateLimiter({ redisUrl: null, limitPerMinute: 1_000_000, db: gated, name: 'ahead' });
    const releaseDue = async (all: boolean) => {
      for (const entry of [...held]) {
        if (!all && --entry.hitsLeft > 0) continue;
        held.splice(held.indexOf(entry), 1);
        await entry.answer;
        entry.release();
      }
    };
    let waited = 0;
    const hitOnce = async () => {
      const hit = limiter.hit('key:steady');
      const served = await Promise.race([hit.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
      if (!served) {
        waited++;
        await releaseDue(true);
      } else await releaseDue(false);
      expect((await hit).allowed).toBe(true);
    };
    for (let i = 0; i < 1600; i++) await hitOnce();
    // Only the window's first hit (a slice of one) and its first slice of 32 wait; without counting
    // ahead, each slice that ran out (1, 32, 64, 128, 256, 512, 512) made a hit wait.
    expect(waited).toBeLessThanOrEqual(2);

    // Closing waits for a slice still being counted ahead, so no upsert outlives the limiter.
    for (let i = 0; i < 1000 && held.length === 0; i++) await hitOnce();
    expect(held).toHaveLength(1);
    let closed = false;
    const closing = limiter.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false);
    await releaseDue(true);
    await closing;
    expect(closed).toBe(true);
  }, 60_000);

  it('a window that ended starts again', async () => {
    const limiter = createRateLimiter({ redisUrl: null, limitPerMinute: 1, db: database.db, name: 'calls' });
    expect((await limiter.hit('key:expiring')).allowed).toBe(true);
    expect((await limiter.hit('key:expiring')).allowed).toBe(false);
    await database.db.query("UPDATE rate_limit_counters SET window_ends_at = now() - interval '1 second' WHERE key = 'rl:calls:key:expiring'");
    expect((await limiter.hit('key:expiring')).allowed).toBe(true);
    await limiter.close();
  });

  it('sign-in failures and sign-ups counted by one process are seen by another', async () => {
    const noWait = async () => {};
    const [first, second] = [0, 1].map(() => createSignInGuard({ redisUrl: null, db: database.db, sleep: noWait }));
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await (i % 2 ? first! : second!).recordFailure(`victim${i}@example.com`, '203.0.113.9');
    expect(await first!.enter('someone@example.com', '203.0.113.9')).toEqual({ kind: 'address_blocked' });
    expect(await second!.enter('someone@example.com', '203.0.113.9')).toEqual({ kind: 'address_blocked' });
    expect(await second!.enter('someone@example.com', '203.0.113.10')).toEqual({ kind: 'open' });
    await Promise.all([first!.close(), second!.close()]);

    const [up1, up2] = [0, 1].map(() => createSignUpGuard({ redisUrl: null, db: database.db, perAddressPerHour: 2, perHour: 100 }));
    await up1!.recordSignUp('198.51.100.1');
    await up2!.recordSignUp('198.51.100.1');
    expect(await up1!.allowed('198.51.100.1')).toBe(false);
    expect(await up2!.allowed('198.51.100.1')).toBe(false);
    expect(await up2!.allowed('198.51.100.2')).toBe(true);
    await Promise.all([up1!.close(), up2!.close()]);
  });
});
