// The SQL of the paid-call room, but for the settlement's (settlement-sql.ts): the holds behind a
// charge (holds.ts), included calls (included-calls.ts), the answer journal's copies to
// answered_calls (answer-journal.ts), and every call's invocation row with its rollups. The
// statements a paid call runs are constants its module hands to db.query itself, so no wrapper adds
// a promise or a closure on the call path (decision 0040); the others are functions.

import type { Queryable } from '../../db/client.ts';
import { outcomeOfErrorType } from '../../platform/call-outcomes.ts';

// ---- invocations ----

// Every call, successful or not, is one append-only invocation row. The per-app per-day rollups
// (and the per-day set of end users, and failures by error type) that dashboards read are written
// by the same statement as the rows, from the rows just inserted (RECORD_ROLLUPS below), so they
// can never disagree with the invocations. This is the one definition of those rollups: a failed
// call is recorded by recordInvocation, successful calls by the settlement statement
// (settlement-sql.ts) — both end in RECORD_ROLLUPS. Triggers of migration 0007 keep each end user's
// last active day and the owner's errors from those rollups. A call that was not answered is failed
// or rejected by its error type (call-outcomes.ts, migration 0017_outcomes): rejected calls count
// apart, and their latency stays out of the response times.

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

// ---- holds (holds.ts) ----

/**
 * Holds a price, or a lease's slice, on the caller's credits and the key's spend counters in one
 * statement (reserveCharge says how; $1 user, $2 amount, $3 key, $4 month, $5 monthly capped, $6
 * monthly cap, $7 lifetime in seconds, $8 lease, $9 day, $10 daily capped, $11 daily cap).
 */
export const RESERVE_CREDITS_SQL = `WITH size AS (
  SELECT CASE
    WHEN $8::bigint > $2::bigint
      AND (SELECT balance_cents - held_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1::uuid AND currency = 'usd') >= 2 * $8::bigint
      AND (NOT $5::boolean OR $6::bigint - coalesce((SELECT spent_cents + held_cents FROM api_key_spend WHERE api_key_id = $3::uuid AND month = $4::date), 0) >= 2 * $8::bigint)
      AND (NOT $10::boolean OR $11::bigint - coalesce((SELECT day_spent_cents + day_held_cents FROM api_key_spend WHERE api_key_id = $3::uuid AND month = $4::date AND day = $9::date), 0) >= 2 * $8::bigint)
    THEN $8::bigint ELSE $2::bigint END AS amount
), spend AS (
  -- The month's row counts one day at a time: a hold on a new day starts that day at 0.
  INSERT INTO api_key_spend AS s (api_key_id, month, held_cents, day, day_held_cents)
  SELECT $3::uuid, $4::date, amount, CASE WHEN $10::boolean THEN $9::date END, CASE WHEN $10::boolean THEN amount ELSE 0 END FROM size
  WHERE ($5::boolean OR $10::boolean) AND (NOT $5::boolean OR amount <= $6::bigint) AND (NOT $10::boolean OR amount <= $11::bigint)
    AND EXISTS (SELECT 1 FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1::uuid AND currency = 'usd')
  ON CONFLICT (api_key_id, month) DO UPDATE SET
    held_cents = s.held_cents + EXCLUDED.held_cents,
    day = coalesce(EXCLUDED.day, s.day),
    day_spent_cents = CASE WHEN EXCLUDED.day IS NULL OR s.day = EXCLUDED.day THEN s.day_spent_cents ELSE 0 END,
    day_held_cents = CASE WHEN EXCLUDED.day IS NULL OR s.day = EXCLUDED.day THEN s.day_held_cents ELSE 0 END + EXCLUDED.day_held_cents
    WHERE (NOT $5::boolean OR s.spent_cents + s.held_cents + EXCLUDED.held_cents <= $6::bigint)
      AND (NOT $10::boolean OR CASE WHEN s.day = EXCLUDED.day THEN s.day_spent_cents + s.day_held_cents ELSE 0 END + EXCLUDED.held_cents <= $11::bigint)
  RETURNING 1
), account AS (
  UPDATE ledger_accounts SET held_cents = held_cents + (SELECT amount FROM size)
  WHERE kind = 'user_credits' AND user_id = $1::uuid AND currency = 'usd' AND (NOT ($5::boolean OR $10::boolean) OR EXISTS (SELECT 1 FROM spend))
  RETURNING id
)
INSERT INTO credit_holds (account_id, api_key_id, spend_month, spend_day, amount_cents, expires_at)
SELECT id, $3::uuid, CASE WHEN $5::boolean OR $10::boolean THEN $4::date END, CASE WHEN $10::boolean THEN $9::date END, (SELECT amount FROM size),
       now() + make_interval(secs => $7::double precision) FROM account
RETURNING id, account_id, amount_cents`;

/** Whether the user has a credits account (a reservation that found none makes it). */
export const CREDITS_ACCOUNT_EXISTS_SQL = "SELECT 1 FROM ledger_accounts WHERE kind = $1 AND user_id = $2 AND currency = 'usd'";

/** What a key's day counter has spent and holds, while it counts that day. */
export const DAY_SPEND_SQL = 'SELECT day_spent_cents + day_held_cents AS used FROM api_key_spend WHERE api_key_id = $1 AND month = $2 AND day = $3';

/** Holds part of a creator's earnings (tryReserveEarnings says how; $1 user, $2 amount, $3 lease, $4 lifetime, $5 lease only). */
export const RESERVE_EARNINGS_SQL = `WITH size AS (
  SELECT CASE
    WHEN $3::bigint > $2::bigint
      AND (SELECT balance_cents - held_cents FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1::uuid AND currency = 'usd') >= 2 * $3::bigint
    THEN $3::bigint ELSE $2::bigint END AS amount
), account AS (
  UPDATE ledger_accounts SET held_cents = held_cents + (SELECT amount FROM size)
  WHERE kind = 'creator_earnings' AND user_id = $1::uuid AND currency = 'usd'
    AND balance_cents - held_cents >= (SELECT amount FROM size)
    AND (NOT $5::boolean OR (SELECT amount FROM size) = $3::bigint)
  RETURNING id
)
INSERT INTO credit_holds (account_id, amount_cents, expires_at)
SELECT id, (SELECT amount FROM size), now() + make_interval(secs => $4::double precision) FROM account
RETURNING id, account_id, amount_cents`;

export const DELETE_HOLD_SQL = 'DELETE FROM credit_holds WHERE id = $1 RETURNING spend_month, spend_day, amount_cents';

export const RELEASE_HELD_CENTS_SQL = 'UPDATE ledger_accounts SET held_cents = held_cents - $2 WHERE id = $1';

// The day's counter gives it back only while it still counts the hold's day.
export const RELEASE_KEY_SPEND_SQL = `UPDATE api_key_spend SET held_cents = held_cents - $3,
  day_held_cents = day_held_cents - CASE WHEN day = $4::date THEN $3::bigint ELSE 0 END
WHERE api_key_id = $1 AND month = $2`;

/**
 * Holds whose process stopped renewing them, and that owe no answered call (decision 0039), but for
 * $1, the holds the sweeping process still uses itself (an expired hold of a live process owes the
 * calls journaled in its file: decision 0140).
 */
export const EXPIRED_HOLDS_SQL = `SELECT id, account_id, amount_cents, api_key_id, spend_month FROM credit_holds h
WHERE expires_at < now() AND NOT (h.id = ANY($1::uuid[])) AND NOT EXISTS (SELECT 1 FROM answered_calls a WHERE a.hold_id = h.id OR a.cost_hold_id = h.id)
LIMIT 1000`;

/**
 * The sweeper's release of one hold EXPIRED_HOLDS_SQL found: only if it is still expired and still
 * owes no answered call, as the statement sees it (its owner may have renewed it, or another process
 * journaled a call on it, since the query).
 */
export const DELETE_EXPIRED_HOLD_SQL = `DELETE FROM credit_holds h WHERE h.id = $1 AND h.expires_at < now()
  AND NOT EXISTS (SELECT 1 FROM answered_calls a WHERE a.hold_id = h.id OR a.cost_hold_id = h.id)
RETURNING spend_month, spend_day, amount_cents`;

/**
 * Pushes back the expiry of a live process's holds, but for those a statement holds locked (a stalled
 * settlement's, decision 0140): they are skipped, not waited for, so one stalled statement cannot
 * keep the process's other holds from being renewed. A locked hold cannot be released meanwhile.
 */
export const RENEW_HOLDS_SQL = `UPDATE credit_holds SET expires_at = now() + make_interval(secs => $2::double precision)
WHERE id IN (SELECT id FROM credit_holds WHERE id = ANY($1::uuid[]) FOR UPDATE SKIP LOCKED)`;

// ---- included calls (included-calls.ts) ----

/**
 * The period that contains now() for a free subscription `s` (anchor s.created_at): whole months
 * from the anchor by age(), plus one when the month-end clamp (Jan 31 + 1 month = Feb 28) left the
 * computed period already over.
 */
const ALIGNED_PERIOD = `
  SELECT s.id, CASE WHEN s.created_at + make_interval(months => m.months + 1) <= now() THEN m.months + 1 ELSE m.months END AS months, s.created_at AS anchor
  FROM subscriptions s,
    LATERAL (SELECT (extract(year FROM age(now(), s.created_at)) * 12 + extract(month FROM age(now(), s.created_at)))::int AS months) m`;

export const COVER_INCLUDED_CALL_SQL = `
WITH target AS (
  ${ALIGNED_PERIOD}
  WHERE s.user_id = $1 AND s.app_id = $2 AND s.status IN ('active', 'trialing') AND s.included_calls > 0
    AND (s.current_period_end > now() OR (s.stripe_subscription_id IS NULL AND NOT s.cancel_at_period_end))
    -- Among several plans on one app, one with a call left (issue 24: a second plan's calls were never used).
    AND (s.included_used < s.included_calls OR (s.current_period_end <= now() AND s.stripe_subscription_id IS NULL))
  ORDER BY s.current_period_end DESC
  LIMIT 1
)
UPDATE subscriptions s SET
  included_used = CASE WHEN s.current_period_end > now() THEN s.included_used + 1 ELSE 1 END,
  current_period_start = CASE WHEN s.current_period_end > now() THEN s.current_period_start ELSE target.anchor + make_interval(months => target.months) END,
  current_period_end = CASE WHEN s.current_period_end > now() THEN s.current_period_end ELSE target.anchor + make_interval(months => target.months + 1) END
FROM target
WHERE s.id = target.id AND s.status IN ('active', 'trialing')
  AND (s.included_used < s.included_calls OR (s.current_period_end <= now() AND s.stripe_subscription_id IS NULL))
RETURNING s.id, s.current_period_start::text AS period_start`;

/**
 * Dollars of usage (issue 60): the call's most, in micro-dollars ($3), charged against the plan's
 * usage left in the period (a free plan's lapsed period rolls, as for calls). PostgreSQL re-checks
 * the WHERE after the row lock, so concurrent calls never spend more than the plan includes.
 */
const USAGE_FITS = `s.included_usage_micros >=
    CASE WHEN s.current_period_end > now() THEN s.usage_used_micros + $3 ELSE $3 END`;
export const COVER_INCLUDED_USAGE_SQL = `
WITH target AS (
  ${ALIGNED_PERIOD}
  WHERE s.user_id = $1 AND s.app_id = $2 AND s.status IN ('active', 'trialing')
    AND (s.current_period_end > now() OR (s.stripe_subscription_id IS NULL AND NOT s.cancel_at_period_end))
    AND ${USAGE_FITS}
  ORDER BY s.current_period_end DESC
  LIMIT 1
)
UPDATE subscriptions s SET
  usage_used_micros = CASE WHEN s.current_period_end > now() THEN s.usage_used_micros + $3 ELSE $3 END,
  included_used = CASE WHEN s.current_period_end > now() THEN s.included_used ELSE 0 END,
  current_period_start = CASE WHEN s.current_period_end > now() THEN s.current_period_start ELSE target.anchor + make_interval(months => target.months) END,
  current_period_end = CASE WHEN s.current_period_end > now() THEN s.current_period_end ELSE target.anchor + make_interval(months => target.months + 1) END
FROM target
WHERE s.id = target.id AND s.status IN ('active', 'trialing') AND ${USAGE_FITS}
RETURNING s.id, s.current_period_start::text AS period_start`;

/** Usage given back to the plan (a failed call's whole most, or what a call's most exceeded its charge by), unless a new period has begun. */
export const GIVE_BACK_INCLUDED_USAGE_SQL =
  'UPDATE subscriptions SET usage_used_micros = greatest(0, usage_used_micros - $3) WHERE id = $1 AND current_period_start = $2::timestamptz';

export const ROLL_FREE_PERIODS_SQL = `
WITH lapsed AS (
  ${ALIGNED_PERIOD}
  WHERE s.user_id = $1 AND s.stripe_subscription_id IS NULL AND s.status IN ('active', 'trialing') AND NOT s.cancel_at_period_end
    AND s.current_period_end <= now()
)
UPDATE subscriptions s SET included_used = 0, usage_used_micros = 0,
  current_period_start = lapsed.anchor + make_interval(months => lapsed.months),
  current_period_end = lapsed.anchor + make_interval(months => lapsed.months + 1)
FROM lapsed
WHERE s.id = lapsed.id AND s.current_period_end <= now()`;

/** The apps a caller has a subscription with included calls to (any status). */
export const SUBSCRIBED_APPS_SQL = 'SELECT DISTINCT app_id FROM subscriptions WHERE user_id = $1 AND (included_calls > 0 OR included_usage_micros > 0)';

/** A failed call's included call back, unless a new period has begun since. */
export const GIVE_BACK_INCLUDED_CALL_SQL =
  'UPDATE subscriptions SET included_used = included_used - 1 WHERE id = $1 AND current_period_start = $2::timestamptz AND included_used > 0';

// ---- the answer journal's copies (answer-journal.ts) ----

// Committed with synchronous_commit off: it waits for no WAL flush, and a crash of this process
// loses nothing acknowledged (a PostgreSQL crash can lose the WAL writer's last ~600 ms). A call
// recorded already (settled) is not copied.
export const COPY_ANSWERED_CALLS_SQL = `
WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)
INSERT INTO answered_calls (id, hold_id, cost_hold_id, settlement)
SELECT t.id, t.hold_id, t.cost_hold_id, t.settlement
FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[]) AS t(id, hold_id, cost_hold_id, settlement) CROSS JOIN relaxed
WHERE NOT EXISTS (SELECT 1 FROM invocations i WHERE i.id = t.id)
ON CONFLICT (id) DO NOTHING`;

// PGlite has no WAL writer: an asynchronous commit would stay in its WAL buffers and die with the
// process. Its synchronous commit costs no flush (it runs with fsync off).
export const EMBEDDED_COPY_ANSWERED_CALLS_SQL = `
INSERT INTO answered_calls (id, hold_id, cost_hold_id, settlement)
SELECT t.id, t.hold_id, t.cost_hold_id, t.settlement
FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[]) AS t(id, hold_id, cost_hold_id, settlement)
WHERE NOT EXISTS (SELECT 1 FROM invocations i WHERE i.id = t.id)
ON CONFLICT (id) DO NOTHING`;

/** Calls copied to answered_calls whose settlement committed meanwhile. */
export const DELETE_ANSWERED_CALLS_SQL = 'DELETE FROM answered_calls WHERE id = ANY($1::uuid[])';

/** The database's random identity (migration 0039) and name: its journal directory's name. */
export const DATABASE_IDENTITY_SQL = "SELECT d.id || '-' || current_database() AS id FROM database_identity d";
