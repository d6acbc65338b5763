// Idempotency-Key: the same key and body within 24 h gets the stored answer without a second
// charge or upstream call; the same key with another body is a 409. Concurrent duplicates wait for
// the first request to finish. Only successful answers are stored: a failed call is free and may
// simply be retried with the same key.
import { createHash } from 'node:crypto';
import type { Database } from '../db/client.ts';
import { AppError } from '../errors.ts';

export const IDEMPOTENCY_WINDOW_HOURS = 24;
const MAX_KEY_LENGTH = 255;

export type IdempotencyStart = { kind: 'new' } | { kind: 'replay'; status: number; body: unknown };

export function hashRequest(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export function validateIdempotencyKey(key: string) {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH)
    throw new AppError('invalid_param', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, 'Idempotency-Key');
}

export function createIdempotencyStore(db: Database, options: { waitTimeoutMs: number; pollMs?: number }) {
  const pollMs = options.pollMs ?? 25;

  const claim = async (userId: string, key: string, requestHash: string) => {
    // An expired record is removed first so the key can be used again.
    await db.query(`DELETE FROM idempotency_records WHERE user_id = $1 AND key = $2 AND created_at < now() - make_interval(hours => $3)`, [
      userId,
      key,
      IDEMPOTENCY_WINDOW_HOURS,
    ]);
    const inserted = await db.query(
      `INSERT INTO idempotency_records (user_id, key, request_hash, state) VALUES ($1, $2, $3, 'in_progress') ON CONFLICT DO NOTHING`,
      [userId, key, requestHash],
    );
    return inserted.rowCount > 0;
  };

  return {
    async begin(userId: string, key: string, requestHash: string): Promise<IdempotencyStart> {
      validateIdempotencyKey(key);
      const deadline = Date.now() + options.waitTimeoutMs;
      // Waiters back off (with jitter) so many duplicates do not crowd the database while the first runs.
      let wait = pollMs;
      for (;;) {
        if (await claim(userId, key, requestHash)) return { kind: 'new' };
        const { rows } = await db.query<{ request_hash: string; state: string; response_status: number | null; response_body: unknown }>(
          'SELECT request_hash, state, response_status, response_body FROM idempotency_records WHERE user_id = $1 AND key = $2',
          [userId, key],
        );
        const record = rows[0];
        if (!record) continue; // the first request failed and let go of the key: run this one
        if (record.request_hash !== requestHash)
          throw new AppError('conflict', 'This Idempotency-Key was already used with a different request body', 'Idempotency-Key');
        if (record.state === 'done') return { kind: 'replay', status: record.response_status ?? 200, body: record.response_body };
        if (Date.now() > deadline) throw new AppError('conflict', 'A request with this Idempotency-Key is still in progress', 'Idempotency-Key');
        await new Promise((resolve) => setTimeout(resolve, wait * (0.5 + Math.random())));
        wait = Math.min(wait * 2, 400);
      }
    },

    async complete(userId: string, key: string, status: number, body: unknown) {
      await db.query(`UPDATE idempotency_records SET state = 'done', response_status = $3, response_body = $4 WHERE user_id = $1 AND key = $2`, [
        userId,
        key,
        status,
        JSON.stringify(body),
      ]);
    },

    async abandon(userId: string, key: string) {
      await db.query(`DELETE FROM idempotency_records WHERE user_id = $1 AND key = $2 AND state = 'in_progress'`, [userId, key]);
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
