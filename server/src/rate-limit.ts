// Fixed-window rate limiting per caller: paid calls per API key (or user for access tokens), and
// sign-in attempts. With REDIS_URL the counters live in Redis so every server process shares them;
// without it, in this process.
import { Redis } from 'ioredis';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts a call of `subject`; `limitPerMinute` overrides the limiter's own for this subject (a publishable key's per-visitor limit). */
  hit(subject: string, limitPerMinute?: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

const WINDOW_SECONDS = 60;

function decide(count: number, limit: number, windowEndsAtMs: number): RateLimitDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowEndsAtMs - Date.now()) / 1000)),
  };
}

export function createMemoryRateLimiter(limitPerMinute: number): RateLimiter {
  const windows = new Map<string, { endsAt: number; count: number }>();
  return {
    async hit(subject, limit = limitPerMinute) {
      const now = Date.now();
      let window = windows.get(subject);
      if (!window || window.endsAt <= now) {
        window = { endsAt: now - (now % (WINDOW_SECONDS * 1000)) + WINDOW_SECONDS * 1000, count: 0 };
        windows.set(subject, window);
        if (windows.size > 100_000) for (const [key, value] of windows) if (value.endsAt <= now) windows.delete(key);
      }
      window.count++;
      return decide(window.count, limit, window.endsAt);
    },
    async close() {},
  };
}

export function createRedisRateLimiter(url: string, limitPerMinute: number): RateLimiter {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  return {
    async hit(subject, limit = limitPerMinute) {
      const now = Date.now();
      const windowStart = now - (now % (WINDOW_SECONDS * 1000));
      const key = `tollbooth:rl:${subject}:${windowStart}`;
      const [[, count]] = (await redis
        .multi()
        .incr(key)
        .pexpire(key, WINDOW_SECONDS * 1000 + 1000)
        .exec()) as [[Error | null, number]];
      return decide(count, limit, windowStart + WINDOW_SECONDS * 1000);
    },
    async close() {
      redis.disconnect();
    },
  };
}

export function createRateLimiter(options: { redisUrl: string | null; limitPerMinute: number }): RateLimiter {
  return options.redisUrl ? createRedisRateLimiter(options.redisUrl, options.limitPerMinute) : createMemoryRateLimiter(options.limitPerMinute);
}
