// Every call, successful or not, is one append-only invocation row. The per-app per-day rollups
// (and the per-day set of end users, and failures by error type) that dashboards read are written
// by the same statement, so they can never disagree with the invocations. Triggers of migration
// 0007 keep each end user's last active day and the owner's errors from those rollups.
import type { Queryable } from '../db/client.ts';

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
  /** Answered (or attempted) by the built-in demo model: never charged. */
  demo?: boolean;
  conversationId: string | null;
  /** Defaults to now; tests and imports may set it. */
  createdAt?: Date;
}

/**
 * Records one call in a single statement, so it is atomic even outside a transaction (a failed
 * call has none of its own), and costs one round trip.
 */
export async function recordInvocation(tx: Queryable, record: InvocationRecord): Promise<{ id: string; createdAt: Date }> {
  const createdAt = record.createdAt ?? new Date();
  const day = createdAt.toISOString().slice(0, 10);
  const success = record.status === 'success' ? 1 : 0;
  // The invocation, the day's totals, the end user in the day's set and a failure under its error
  // type. Data-modifying WITH clauses always run to completion, whether or not they are read.
  const { rows } = await tx.query<{ id: string }>(
    `WITH invocation AS (
       INSERT INTO invocations (app_id, caller_id, api_key_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, conversation_id, created_at, demo)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $16) RETURNING id
     ), stats AS (
       INSERT INTO app_daily_stats AS s (app_id, day, invocations, successes, errors, latency_ms_sum, input_tokens, output_tokens, revenue_cents, last_used_at)
       VALUES ($1::uuid, $14::date, 1, $15::int, 1 - $15::int, $8::int, $9::int, $10::int, $11::bigint, $13::timestamptz)
       ON CONFLICT (app_id, day) DO UPDATE SET
         invocations = s.invocations + 1,
         successes = s.successes + EXCLUDED.successes,
         errors = s.errors + EXCLUDED.errors,
         latency_ms_sum = s.latency_ms_sum + EXCLUDED.latency_ms_sum,
         input_tokens = s.input_tokens + EXCLUDED.input_tokens,
         output_tokens = s.output_tokens + EXCLUDED.output_tokens,
         revenue_cents = s.revenue_cents + EXCLUDED.revenue_cents,
         last_used_at = greatest(s.last_used_at, EXCLUDED.last_used_at)
     ), daily_user AS (
       INSERT INTO app_daily_users (app_id, day, end_user)
       SELECT $1::uuid, $14::date, $4::text WHERE $4::text <> ''
       ON CONFLICT DO NOTHING
     ), daily_error AS (
       INSERT INTO app_daily_errors AS e (app_id, day, error_type, count)
       SELECT $1::uuid, $14::date, $7::text, 1 WHERE $15::int = 0
       ON CONFLICT (app_id, day, error_type) DO UPDATE SET count = e.count + 1
     )
     SELECT id FROM invocation`,
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
      day,
      success,
      record.demo ?? false,
    ],
  );
  return { id: rows[0]!.id, createdAt };
}
