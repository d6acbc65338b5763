// Idempotency-Key: the same key and body within 24 h gets the stored answer without a second
// charge or upstream call; the same key with another body is a 409. Concurrent duplicates wait for
// the first request to finish. Only successful answers are stored: a failed call is free and may
// simply be retried with the same key. A claim (in_progress) lives CLAIM_LIFETIME_SECONDS unless
// the process running its call renews it (every third of that): a claim whose process died is
// taken over by the next request with the key, which then runs the call (once).
export const CLAIM_LIFETIME_SECONDS = 90;

import { createHash } from 'node:crypto';
import type { Database } from '../db/client.ts';
import { AppError } from '../platform/errors.ts';

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

export function createIdempotencyStore(
  db: Database,
  options: { waitTimeoutMs: number; pollMs?: number; claimLifetimeSeconds?: number; onRenewError?: (error: unknown) => void },
) {
  const pollMs = options.pollMs ?? 25;
  const claimLifetimeSeconds = options.claimLifetimeSeconds ?? CLAIM_LIFETIME_SECONDS;
  /** Claims of calls running in this process, renewed until they complete or are abandoned. */
  const running = new Map<string, { userId: string; key: string }>();
  const runningId = (userId: string, key: string) => `${userId}\u0000${key}`;
  const renewer = setInterval(
    () => {
      if (running.size === 0) return;
      const claims = [...running.values()];
      db.query(
        `UPDATE idempotency_records r SET claim_expires_at = now() + make_interval(secs => $3::double precision)
         FROM unnest($1::uuid[], $2::text[]) AS c(user_id, key)
         WHERE r.user_id = c.user_id AND r.key = c.key AND r.state = 'in_progress'`,
        [claims.map((claim) => claim.userId), claims.map((claim) => claim.key), claimLifetimeSeconds],
      ).catch((error: unknown) => options.onRenewError?.(error));
    },
    Math.max(200, (claimLifetimeSeconds * 1000) / 3),
  );
  renewer.unref();

  const claim = async (userId: string, key: string, requestHash: string) => {
    // An expired record, or a claim its process stopped renewing (it crashed), is removed first so
    // the key can be used again.
    await db.query(
      `DELETE FROM idempotency_records WHERE user_id = $1 AND key = $2
         AND (created_at < now() - make_interval(hours => $3) OR (state = 'in_progress' AND claim_expires_at < now()))`,
      [userId, key, IDEMPOTENCY_WINDOW_HOURS],
    );
    const inserted = await db.query(
      `INSERT INTO idempotency_records (user_id, key, request_hash, state, claim_expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() + make_interval(secs => $4::double precision)) ON CONFLICT DO NOTHING`,
      [userId, key, requestHash, claimLifetimeSeconds],
    );
    if (inserted.rowCount > 0) running.set(runningId(userId, key), { userId, key });
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
      running.delete(runningId(userId, key));
      await db.query(`UPDATE idempotency_records SET state = 'done', response_status = $3, response_body = $4 WHERE user_id = $1 AND key = $2`, [
        userId,
        key,
        status,
        JSON.stringify(body),
      ]);
    },

    async abandon(userId: string, key: string) {
      running.delete(runningId(userId, key));
      await db.query(`DELETE FROM idempotency_records WHERE user_id = $1 AND key = $2 AND state = 'in_progress'`, [userId, key]);
    },

    close() {
      clearInterval(renewer);
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
