// The SQL of billing's reads (a user's balances, their own ledger entries, whether the sign-up
// credits were granted) and of test runs. Each room has its own: paid-call/, payments/, payouts/,
// statements/; the ledger's statements are in ledger.ts.
import type { Queryable } from '../db/client.ts';
import type { UserAccountKind } from './ledger.ts';

/** The user's US-dollar credits and earnings (earnings in other currencies are the payouts overview's). */
export async function selectUserBalances(db: Queryable, userId: string) {
  const { rows } = await db.query<{ kind: UserAccountKind; balance_cents: number }>(
    "SELECT kind, balance_cents FROM ledger_accounts WHERE kind IN ('user_credits', 'creator_earnings') AND user_id = $1 AND currency = 'usd'",
    [userId],
  );
  return rows;
}

export interface LedgerEntryRow {
  id: number;
  transaction_id: string;
  kind: string;
  description: string;
  account_kind: UserAccountKind;
  /** The account's currency: amount_cents is in its minor unit. */
  currency: string;
  amount_cents: number;
  created_at: Date;
}

/** Whether the entry is on one of the user's own (credits or earnings) accounts. */
export async function isOwnLedgerEntry(db: Queryable, entryId: number, userId: string): Promise<boolean> {
  const owned = await db.query(
    `SELECT 1 FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
       WHERE e.id = $1 AND a.user_id = $2 AND a.kind IN ('user_credits', 'creator_earnings')`,
    [entryId, userId],
  );
  return owned.rows.length > 0;
}

/**
 * Keyset pagination over (created_at, id), newest first, `limit` entries older than the cursor
 * entry (when given). Each of the user's accounts (credits, and earnings per currency) is read through its (account_id,
 * created_at DESC, id DESC) index and the runs are merged, so a page costs the same however
 * long the history is.
 */
export async function selectLedgerEntries(db: Queryable, userId: string, limit: number, cursorId: number | null): Promise<LedgerEntryRow[]> {
  const afterCursor = cursorId === null ? '' : 'AND (e.created_at, e.id) < (SELECT c.created_at, c.id FROM ledger_entries c WHERE c.id = $3)';
  const { rows } = await db.query<LedgerEntryRow>(
    `SELECT e.id, e.transaction_id, t.kind, t.description, a.kind AS account_kind, a.currency, e.amount_cents, e.created_at
     FROM ledger_accounts a
     CROSS JOIN LATERAL (
       SELECT e.id, e.transaction_id, e.amount_cents, e.created_at FROM ledger_entries e
       WHERE e.account_id = a.id ${afterCursor}
       ORDER BY e.created_at DESC, e.id DESC
       LIMIT $2
     ) e
     JOIN ledger_transactions t ON t.id = e.transaction_id
     WHERE a.kind IN ('user_credits', 'creator_earnings') AND a.user_id = $1
     ORDER BY e.created_at DESC, e.id DESC
     LIMIT $2`,
    cursorId === null ? [userId, limit] : [userId, limit, cursorId],
  );
  return rows;
}

export async function signupGrantExists(tx: Queryable, userId: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM ledger_transactions WHERE reference = $1', [`signup:${userId}`]);
  return rows.length > 0;
}

// ---- test runs (test-runs-service.ts) ----

// A succeeded test run's model cost (decision 0025): the cents by which the owner's running total of
// model cost (micro-dollars, rounded up) grows with the run are posted from their credits to
// model_costs, and the hold the run reserved goes; all in one statement.
const POST_TEST_RUN_SQL = `
WITH metered AS (
  INSERT INTO model_cost_meters AS m (user_id, micros) VALUES ($1, $2::bigint)
  ON CONFLICT (user_id) DO UPDATE SET micros = m.micros + EXCLUDED.micros
  RETURNING (m.micros + 9999) / 10000 - (m.micros - $2::bigint + 9999) / 10000 AS posted
),
hold AS (
  DELETE FROM credit_holds WHERE id = $3 RETURNING account_id, amount_cents
),
credits AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents - (SELECT posted FROM metered), held_cents = a.held_cents - h.amount_cents
  FROM hold h WHERE a.id = h.account_id RETURNING a.id
),
model_costs AS (
  UPDATE ledger_accounts SET balance_cents = balance_cents + (SELECT posted FROM metered)
  WHERE kind = 'model_costs' AND user_id IS NULL AND currency = 'usd' AND (SELECT posted FROM metered) > 0 RETURNING id
),
moved AS (
  INSERT INTO ledger_transactions (id, kind, reference, description)
  SELECT $4::uuid, 'test_run', 'test:' || $5, $6 FROM metered WHERE posted > 0
),
entries AS (
  INSERT INTO ledger_entries (transaction_id, account_id, amount_cents)
  SELECT $4::uuid, c.id, -(SELECT posted FROM metered) FROM credits c WHERE (SELECT posted FROM metered) > 0
  UNION ALL
  SELECT $4::uuid, m.id, (SELECT posted FROM metered) FROM model_costs m
)
SELECT tollbooth_assert((SELECT count(*) FROM credits) = 1, 'the test run''s hold was already released') AS ok, (SELECT posted FROM metered) AS posted`;

const RECORD_TEST_RUN_SQL = `
WITH recorded AS (
  INSERT INTO test_runs (id, user_id, app_id, model, provider, status, error_type, input_tokens, output_tokens, model_cost_micros, demo, latency_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
  RETURNING created_at, model, provider, model_cost_micros, demo, status
)
INSERT INTO platform_daily_model_stats AS p (day, provider, model, test_runs, model_cost_micros)
SELECT (created_at AT TIME ZONE 'UTC')::date, provider, model, 1, model_cost_micros FROM recorded WHERE NOT demo AND status = 'success'
ON CONFLICT (day, provider, model) DO UPDATE SET test_runs = p.test_runs + 1, model_cost_micros = p.model_cost_micros + EXCLUDED.model_cost_micros`;

export async function postTestRunCost(
  tx: Queryable,
  run: { userId: string; micros: number; holdId: string; ledgerTransactionId: string; testRunId: string; description: string },
): Promise<void> {
  await tx.query(POST_TEST_RUN_SQL, [run.userId, run.micros, run.holdId, run.ledgerTransactionId, run.testRunId, run.description]);
}

/** A test run, and a succeeded one's model cost in the platform's daily model rollup (not the demo's). */
export async function recordTestRun(
  q: Queryable,
  run: {
    id: string;
    userId: string;
    appId: string | null;
    model: string;
    provider: string;
    status: 'success' | 'error';
    errorType: string;
    inputTokens: number;
    outputTokens: number;
    modelCostMicros: number;
    demo: boolean;
    latencyMs: number;
  },
): Promise<void> {
  await q.query(RECORD_TEST_RUN_SQL, [
    run.id,
    run.userId,
    run.appId,
    run.model,
    run.provider,
    run.status,
    run.errorType,
    run.inputTokens,
    run.outputTokens,
    run.modelCostMicros,
    run.demo,
    Math.round(run.latencyMs),
  ]);
}
