// Every call, successful or not, is one append-only invocation row. The per-app per-day rollups
// (and the per-day set of end users, and failures by error type) that dashboards read are written
// by the same statement as the rows, from the rows just inserted (RECORD_ROLLUPS below), so they
// can never disagree with the invocations. This is the one definition of those rollups: a failed
// call is recorded by recordInvocation, successful calls by the settlement statement
// (settlement.ts) — both end in RECORD_ROLLUPS. Triggers of migration 0007 keep each end user's
// last active day and the owner's errors from those rollups. A call that was not answered is failed
// or rejected by its error type (call-outcomes.ts, migration 0017_outcomes): rejected calls count
// apart, and their latency stays out of the response times.

import { outcomeOfErrorType } from '../call-outcomes.ts';
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
  /** The model cost (micro-dollars) and platform fee (cents) of an imported or seeded call; 0 for failures. */
  modelCostMicros?: number;
  feeCents?: number;
  conversationId: string | null;
  /** Defaults to now; tests and imports may set it. */
  createdAt?: Date;
}

/** What an `INSERT INTO invocations` CTE named `recorded` returns for RECORD_ROLLUPS to read. */
export const RECORDED_COLUMNS =
  'RETURNING id, app_id, created_at, status, outcome, error_type, latency_ms, input_tokens, output_tokens, price_cents, end_user, model, provider, model_cost_micros, fee_cents, demo';

/**
 * The rollups of the calls in `recorded` (the invocation rows the same statement inserts, with
 * RECORDED_COLUMNS): the day's totals, the end users in the day's set and the failures under
 * their error type. Days are UTC. Rows are written in key order so concurrent statements cannot
 * deadlock. Data-modifying WITH clauses always run to completion, whether or not they are read.
 */
export const RECORD_ROLLUPS = `
rollup_stats AS (
  INSERT INTO app_daily_stats AS s (app_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, last_used_at,
                                    model_cost_micros, fee_cents)
  SELECT app_id, (created_at AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE status = 'success'), count(*) FILTER (WHERE outcome = 'failed'),
         count(*) FILTER (WHERE outcome = 'rejected'), coalesce(sum(latency_ms) FILTER (WHERE outcome <> 'rejected'), 0), sum(input_tokens), sum(output_tokens), sum(price_cents), max(created_at),
         sum(model_cost_micros), sum(fee_cents)
  FROM recorded GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (app_id, day) DO UPDATE SET
    invocations = s.invocations + EXCLUDED.invocations,
    successes = s.successes + EXCLUDED.successes,
    errors = s.errors + EXCLUDED.errors,
    rejections = s.rejections + EXCLUDED.rejections,
    latency_ms_sum = s.latency_ms_sum + EXCLUDED.latency_ms_sum,
    input_tokens = s.input_tokens + EXCLUDED.input_tokens,
    output_tokens = s.output_tokens + EXCLUDED.output_tokens,
    revenue_cents = s.revenue_cents + EXCLUDED.revenue_cents,
    last_used_at = greatest(s.last_used_at, EXCLUDED.last_used_at),
    model_cost_micros = s.model_cost_micros + EXCLUDED.model_cost_micros,
    fee_cents = s.fee_cents + EXCLUDED.fee_cents
),
rollup_models AS (
  INSERT INTO platform_daily_model_stats AS p (day, provider, model, calls, paid_cents, fee_cents, model_cost_micros)
  SELECT (created_at AT TIME ZONE 'UTC')::date, provider, model, count(*) FILTER (WHERE status = 'success'), sum(price_cents), sum(fee_cents), sum(model_cost_micros)
  -- A failed call the model answered (decision 0037) adds its model cost, not a call.
  FROM recorded WHERE (status = 'success' OR model_cost_micros > 0) AND model <> '' AND NOT demo GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (day, provider, model) DO UPDATE SET
    calls = p.calls + EXCLUDED.calls,
    paid_cents = p.paid_cents + EXCLUDED.paid_cents,
    fee_cents = p.fee_cents + EXCLUDED.fee_cents,
    model_cost_micros = p.model_cost_micros + EXCLUDED.model_cost_micros
),
rollup_users AS (
  INSERT INTO app_daily_users (app_id, day, end_user)
  SELECT DISTINCT app_id, (created_at AT TIME ZONE 'UTC')::date, end_user FROM recorded WHERE end_user <> '' ORDER BY 1, 2, 3
  ON CONFLICT DO NOTHING
),
rollup_errors AS (
  INSERT INTO app_daily_errors AS e (app_id, day, error_type, count, outcome)
  SELECT app_id, (created_at AT TIME ZONE 'UTC')::date, error_type, count(*), max(outcome) FROM recorded WHERE status <> 'success' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (app_id, day, error_type) DO UPDATE SET count = e.count + EXCLUDED.count
)`;

const RECORD_SQL = `
WITH recorded AS (
  INSERT INTO invocations (app_id, caller_id, api_key_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, conversation_id, created_at, demo, outcome,
                           model_cost_micros, fee_cents)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
  ${RECORDED_COLUMNS}
),
${RECORD_ROLLUPS}
SELECT id FROM recorded`;

/**
 * Records one call in a single statement, so it is atomic even outside a transaction (a failed
 * call has none of its own), and costs one round trip.
 */
export async function recordInvocation(tx: Queryable, record: InvocationRecord): Promise<{ id: string; createdAt: Date }> {
  const createdAt = record.createdAt ?? new Date();
  const { rows } = await tx.query<{ id: string }>(RECORD_SQL, [
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
    record.demo ?? false,
    record.status === 'success' ? 'success' : outcomeOfErrorType(record.errorType),
    record.modelCostMicros ?? 0,
    record.feeCents ?? 0,
  ]);
  return { id: rows[0]!.id, createdAt };
}
