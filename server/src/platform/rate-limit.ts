// Fixed-window rate limiting per caller: paid calls per API key (or user for access tokens), and
// sign-in attempts. With REDIS_URL the counters live in Redis so every server process shares them;
// without it, in the database (rate_limit_counters, migration 0022), which every process on it
// shares too; in this process only when neither is given (unit tests).
import { Redis } from 'ioredis';
import type { Queryable } from '../db/client.ts';

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

/**
 * Counts `by` hits of `key` in its window and answers the new count and when the window ends: one
 * statement, atomic across processes (the row lock of the upsert orders concurrent hits). A window
 * that ended starts again at `by` with the given end.
 */
export async function hitDatabaseCounter(
  db: Queryable,
  key: string,
  windowEndsAtMs: number,
  by = 1,
  /** Windows of this length aligned on the epoch (the rate limiter's minutes): a window the caller named that has ended by the database's clock becomes the current one. */
  periodMs: number | null = null,
): Promise<{ count: number; endsAtMs: number }> {
  // A hit sent just before a window's end can reach the database after it. Storing that ended window
  // would make every later hit start a new count at 1 until a caller names the next one (a burst at
  // the turn of a minute went through a limit of 5 eleven times).
  const { rows } = await db.query<{ count: number; ends_at_ms: string }>(
    `INSERT INTO rate_limit_counters AS c (key, count, window_ends_at) VALUES ($1, $3,
       CASE WHEN $4::double precision IS NULL OR to_timestamp($2::double precision / 1000) > now() THEN to_timestamp($2::double precision / 1000)
            ELSE to_timestamp((floor(extract(epoch FROM now()) * 1000 / $4::double precision) + 1) * $4::double precision / 1000) END)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN c.window_ends_at <= now() THEN $3 ELSE c.count + $3 END,
       window_ends_at = CASE WHEN c.window_ends_at <= now() THEN excluded.window_ends_at ELSE c.window_ends_at END
     RETURNING count, (extract(epoch FROM window_ends_at) * 1000)::bigint AS ends_at_ms`,
    [key, windowEndsAtMs, by, periodMs],
  );
  const row = rows[0]!;
  return { count: row.count, endsAtMs: Number(row.ends_at_ms) };
}

/** Forgets counters whose window ended a while ago, now and then (the table stays small). */
export function sweepDatabaseCounters(db: Queryable): () => void {
  const timer = setInterval(() => {
    db.query("DELETE FROM rate_limit_counters WHERE window_ends_at < now() - interval '5 minutes'").catch(() => {});
  }, 10 * 60_000);
  timer.unref();
  return () => clearInterval(timer);
}

/** A process's share of a subject's window in the database: hits counted there ahead of use. */
interface CounterSlice {
  endsAtMs: number;
  /** The count the next local hit takes, and the last count the database answered (the slice's end). */
  next: number;
  last: number;
  /** How many hits it reserved, and when (Date.now()). */
  size: number;
  reservedAt: number;
}

/** Hits reserved at once from the database: a quarter of what is left of the window's limit, 1 to 32… */
const MAX_SLICE = 32;
/** …or, for a subject whose last slice was used up within a second, twice that slice, up to 512 (decision 0042). */
const MAX_GROWN_SLICE = 512;

/**
 * Database counters shared by every process on the database. A hot subject would put an upsert of
 * one row (a commit, and a row lock that serializes its callers) on every paid call; instead each
 * process counts a slice of hits at once — a quarter of what is left of the limit, at most 32 — and
 * takes the next hits from it in memory. A hit is never allowed past the limit: hits are counted in
 * the database before they are used. A fast subject's next slice is counted while a quarter of its
 * current one is left, so its hits do not all wait for that round trip whenever a slice runs out
 * (decision 0056).
 * Hits reserved but not used by the window's end count against it (at most the rest of one slice
 * and the next, per process), never in the caller's favour; near the limit the slices are one hit,
 * and none is reserved ahead, so the last calls are counted exactly.
 */
export function createDatabaseRateLimiter(db: Queryable, limitPerMinute: number, name = 'calls'): RateLimiter {
  const stopSweeping = sweepDatabaseCounters(db);
  const slices = new Map<string, CounterSlice>();
  /** A fast subject's next slice, counted in the database before its current one runs out. */
  const upcoming = new Map<string, CounterSlice>();
  /** One reservation at a time per subject in this process; concurrent hits wait for it and take from its slice. */
  const reserving = new Map<string, Promise<CounterSlice>>();

  /** Counts the slice after `slice` (the subject's last one, if any) in the database. */
  const reserve = (key: string, slice: CounterSlice | undefined, limit: number, now: number, ahead: boolean): Promise<CounterSlice> => {
    // The first hit of a window counts one and learns the count; later slices are a quarter of what is left.
    const known = slice && slice.endsAtMs > now ? slice.last : null;
    // A fast caller's slices double while it uses each within a second (a hot key at thousands
    // of calls a second would otherwise put an upsert on every 32nd call); never past a quarter
    // of what is left, so near the limit the slices still shrink to one hit.
    const cap = slice && known !== null && now - slice.reservedAt < 1000 ? Math.min(MAX_GROWN_SLICE, Math.max(MAX_SLICE, slice.size * 2)) : MAX_SLICE;
    const by = known === null ? 1 : Math.min(cap, Math.max(1, Math.floor((limit - known) / 4)));
    const windowEnds = now - (now % (WINDOW_SECONDS * 1000)) + WINDOW_SECONDS * 1000;
    const reservation = hitDatabaseCounter(db, key, windowEnds, by, WINDOW_SECONDS * 1000).then(
      ({ count, endsAtMs }) => {
        reserving.delete(key);
        for (const map of [slices, upcoming]) if (map.size > 100_000) for (const [stale, value] of map) if (value.endsAtMs <= now) map.delete(stale);
        const reserved = { endsAtMs, next: count - by + 1, last: count, size: by, reservedAt: now };
        // Hits that waited for it take from it as soon as it is in place.
        if (ahead) upcoming.set(key, reserved);
        else slices.set(key, { ...reserved, next: reserved.next + 1 });
        return reserved;
      },
      (error: unknown) => {
        reserving.delete(key);
        throw error;
      },
    );
    reserving.set(key, reservation);
    return reservation;
  };

  return {
    async hit(subject, limit = limitPerMinute) {
      const key = `rl:${name}:${subject}`;
      for (;;) {
        const now = Date.now();
        const slice = slices.get(key);
        if (slice && slice.endsAtMs > now && slice.next <= slice.last) {
          const count = slice.next++;
          // A slice of at least MAX_SLICE hits used within a second, down to its last quarter: the
          // next one is counted now, in the background (a failure leaves it to the hit that runs out).
          if (slice.size >= MAX_SLICE && slice.last - count <= slice.size / 4 && now - slice.reservedAt < 1000 && !reserving.has(key) && !upcoming.has(key)) {
            reserve(key, slice, limit, now, true).catch(() => undefined);
          }
          return decide(count, limit, slice.endsAtMs);
        }
        const next = upcoming.get(key);
        if (next) {
          upcoming.delete(key);
          // One counted for a window that has ended counts against that window only.
          if (next.endsAtMs > now) {
            slices.set(key, next);
            continue;
          }
        }
        const pending = reserving.get(key);
        if (pending) {
          await pending.catch(() => undefined);
          continue;
        }
        // This hit takes the first count of the slice; the rest are served from memory.
        const reserved = await reserve(key, slice, limit, now, false);
        return decide(reserved.next, limit, reserved.endsAtMs);
      }
    },
    async close() {
      stopSweeping();
      // A slice being counted ahead is in the database before the database may close.
      await Promise.all([...reserving.values()].map((pending) => pending.catch(() => undefined)));
    },
  };
}

export function createRateLimiter(options: { redisUrl: string | null; limitPerMinute: number; db?: Queryable; name?: string }): RateLimiter {
  if (options.redisUrl) return createRedisRateLimiter(options.redisUrl, options.limitPerMinute);
  if (options.db) return createDatabaseRateLimiter(options.db, options.limitPerMinute, options.name);
  return createMemoryRateLimiter(options.limitPerMinute);
}
