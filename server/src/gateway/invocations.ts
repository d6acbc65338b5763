// Every call, successful or not, is one append-only invocation row. The per-app per-day rollups
// (and the per-day set of end users, and failures by error type) that dashboards read are updated
// in the same transaction, so they can never disagree with the invocations. Migration 0007 adds
// a trigger on app_daily_users that keeps each end user's last active day.
import type { Database, Queryable } from '../db/client.ts';

export interface InvocationRecord {
  appId: string;
  callerId: string | null;
  apiKeyId: string | null;
  endUser: string;
  mode: 'completion' | 'chat';
  status: 'success' | 'error';
  errorType: string;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  priceCents: number;
  conversationId: string | null;
  /** Defaults to now; tests and imports may set it. */
  createdAt?: Date;
}

/**
 * Records one call. Given a transaction, it writes inside it; given the database itself (a failed
 * call has no transaction of its own), it opens one, so the rollups never miss a row.
 */
export async function recordInvocation(db: Queryable | Database, record: InvocationRecord): Promise<{ id: string; createdAt: Date }> {
  if ('transaction' in db) return db.transaction((tx) => writeInvocation(tx, record));
  return writeInvocation(db, record);
}

async function writeInvocation(tx: Queryable, record: InvocationRecord): Promise<{ id: string; createdAt: Date }> {
  const createdAt = record.createdAt ?? new Date();
  const day = createdAt.toISOString().slice(0, 10);
  const success = record.status === 'success' ? 1 : 0;
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO invocations (app_id, caller_id, api_key_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, conversation_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
    [
      record.appId,
      record.callerId,
      record.apiKeyId,
      record.endUser,
      record.mode,
      record.status,
      record.errorType,
      Math.round(record.latencyMs),
      record.inputTokens,
      record.outputTokens,
      record.priceCents,
      record.conversationId,
      createdAt,
    ],
  );
  await tx.query(
    `INSERT INTO app_daily_stats AS s (app_id, day, invocations, successes, errors, latency_ms_sum, input_tokens, output_tokens, revenue_cents, last_used_at)
     VALUES ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (app_id, day) DO UPDATE SET
       invocations = s.invocations + 1,
       successes = s.successes + EXCLUDED.successes,
       errors = s.errors + EXCLUDED.errors,
       latency_ms_sum = s.latency_ms_sum + EXCLUDED.latency_ms_sum,
       input_tokens = s.input_tokens + EXCLUDED.input_tokens,
       output_tokens = s.output_tokens + EXCLUDED.output_tokens,
       revenue_cents = s.revenue_cents + EXCLUDED.revenue_cents,
       last_used_at = greatest(s.last_used_at, EXCLUDED.last_used_at)`,
    [record.appId, day, success, 1 - success, Math.round(record.latencyMs), record.inputTokens, record.outputTokens, record.priceCents, createdAt],
  );
  if (record.endUser) {
    await tx.query('INSERT INTO app_daily_users (app_id, day, end_user) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [record.appId, day, record.endUser]);
  }
  if (record.status === 'error') {
    await tx.query(
      `INSERT INTO app_daily_errors AS e (app_id, day, error_type, count) VALUES ($1, $2, $3, 1)
       ON CONFLICT (app_id, day, error_type) DO UPDATE SET count = e.count + 1`,
      [record.appId, day, record.errorType],
    );
  }
  return { id: rows[0]!.id, createdAt };
}
