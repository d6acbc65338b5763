// Limits on password guessing at the embedded provider's sign-in form.
//  - Per client address: after FAILURES_PER_ADDRESS failed sign-ins in a minute, that address is
//    refused (429) until the minute is over: password spraying across many accounts stops.
//  - Per email: after FAILURES_PER_EMAIL failed sign-ins in a minute, every attempt for that email
//    waits EMAIL_SLOWDOWN_MS before it is checked, and the page says so. The real owner is never
//    refused because of someone else's failures, only briefly slowed down.
// Counters live in Redis when REDIS_URL is set, else in the database (both shared by every process);
// in this process only when neither is given.
import { Redis } from 'ioredis';
import type { Queryable } from '../../db/client.ts';
import { hitDatabaseCounter, sweepDatabaseCounters } from '../../platform/rate-limit.ts';

export const FAILURES_PER_ADDRESS = 20;
export const FAILURES_PER_EMAIL = 10;
export const EMAIL_SLOWDOWN_MS = 2000;
const WINDOW_MS = 60_000;

/** Fixed-window counters by key, in Redis or in this process. */
export interface WindowCounter {
  count(key: string): Promise<number>;
  add(key: string, windowMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function createWindowCounter(redisUrl: string | null, prefix: string, db?: Queryable): WindowCounter {
  if (redisUrl) return redisCounter(redisUrl, prefix);
  return db ? databaseCounter(db, prefix) : memoryCounter();
}

function databaseCounter(db: Queryable, prefix: string): WindowCounter {
  const name = (key: string) => `${prefix}:${key}`;
  const stopSweeping = sweepDatabaseCounters(db);
  return {
    async count(key) {
      const { rows } = await db.query<{ count: number }>('SELECT count FROM rate_limit_counters WHERE key = $1 AND window_ends_at > now()', [name(key)]);
      return rows[0]?.count ?? 0;
    },
    async add(key, windowMs = WINDOW_MS) {
      await hitDatabaseCounter(db, name(key), Date.now() + windowMs);
    },
    async close() {
      stopSweeping();
    },
  };
}

function memoryCounter(): WindowCounter {
  const windows = new Map<string, { endsAt: number; count: number }>();
  const current = (key: string) => {
    const window = windows.get(key);
    return window && window.endsAt > Date.now() ? window : null;
  };
  return {
    async count(key) {
      return current(key)?.count ?? 0;
    },
    async add(key, windowMs = WINDOW_MS) {
      const window = current(key) ?? { endsAt: Date.now() + windowMs, count: 0 };
      window.count++;
      windows.set(key, window);
      if (windows.size > 100_000) for (const [k, v] of windows) if (v.endsAt <= Date.now()) windows.delete(k);
    },
    async close() {},
  };
}

function redisCounter(url: string, prefix: string): WindowCounter {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  const name = (key: string) => `tollbooth:${prefix}:${key}`;
  return {
    async count(key) {
      return Number((await redis.get(name(key))) ?? 0);
    },
    async add(key, windowMs = WINDOW_MS) {
      await redis.multi().incr(name(key)).pexpire(name(key), windowMs, 'NX').exec();
    },
    async close() {
      redis.disconnect();
    },
  };
}

export type SignInGate = { kind: 'open' } | { kind: 'slowed' } | { kind: 'address_blocked' };

export function createSignInGuard(options: { redisUrl: string | null; db?: Queryable; sleep?: (ms: number) => Promise<void> }) {
  const counter = createWindowCounter(options.redisUrl, 'signin-failures', options.db);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const emailKey = (email: string) => `email:${email.toLowerCase()}`;
  const addressKey = (address: string) => `address:${address}`;
  return {
    /** Call before checking a password; waits out the slowdown when the email is under attack. */
    async enter(email: string, address: string): Promise<SignInGate> {
      if ((await counter.count(addressKey(address))) >= FAILURES_PER_ADDRESS) return { kind: 'address_blocked' };
      if ((await counter.count(emailKey(email))) >= FAILURES_PER_EMAIL) {
        await sleep(EMAIL_SLOWDOWN_MS);
        return { kind: 'slowed' };
      }
      return { kind: 'open' };
    },
    async recordFailure(email: string, address: string) {
      await Promise.all([counter.add(emailKey(email)), counter.add(addressKey(address))]);
    },
    close: () => counter.close(),
  };
}
