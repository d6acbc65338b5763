// The settlement statement: ONE SQL statement settles a batch of calls (settlement-batcher.ts
// gathers them). The holds are taken away, the caller credits, creator earnings and platform fee
// move, one balanced ledger transaction is written for the batch's calls of each app, caller and
// description, which each call's invocation refers to (decision 0062; each call's price comes off
// its hold, which may be a lease serving several calls), key spend counters advance (the month's,
// and the day's for a key with a daily cap), the invocations and their rollups are recorded (the
// rollups by the same SQL as a failed call's, queries.ts) and chat turns are saved — all or nothing.
// The statements that recover answered calls from the journal (settlement-recovery.ts) are here too.

import type { Database } from '../../db/client.ts';
import type { CreditHold } from './holds.ts';
import { currentSpendMonth } from './holds.ts';
import { RECORD_ROLLUPS, RECORDED_COLUMNS } from './queries.ts';

export interface Settlement {
  invocationId: string;
  appId: string;
  /** The app's owner: earns the price less the platform fee and the model cost, and bears the model cost. */
  ownerId: string;
  callerId: string;
  apiKeyId: string | null;
  endUser: string;
  mode: 'completion' | 'chat';
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  /** What the call's hold keeps for it, in cents: its charge rounded up (0 for a free call). */
  priceCents: number;
  /**
   * What the call cost its caller, exactly, in micro-dollars (issue 60); the ledger posts the cents by
   * which the caller's running total for the app (charge_meters, rounded up) grows. Absent in journal
   * lines written before it: priceCents × 10,000.
   */
  chargeMicros?: number;
  /** The platform's fee on chargeMicros, in micro-dollars; posted from the creator's running total of fees, rounded down. Absent: charge.feeCents × 10,000. */
  feeMicros?: number;
  /** The model name that answered and its provider kind ('' for workflow calls). */
  model: string;
  provider: string;
  /** What the call cost upstream on the operator's key, in micro-dollars (0 on the demo model, a creator's own key, workflows). */
  modelCostMicros: number;
  /** Answered by the built-in demo model (then priceCents is 0 and there is no charge). */
  demo?: boolean;
  createdAt: Date;
  /**
   * The id of the call's ledger transaction (written when money moves: a price, or a model cost) if
   * it is the first of its batch's calls with its app, caller and description; the others join it.
   */
  ledgerTransactionId: string;
  description: string;
  /** The caller's payment: null for free calls (the owner's own, demo answers, included calls). */
  charge: { hold: CreditHold; feeCents: number } | null;
  /**
   * The owner's reservation for the model cost the call's price does not cover (their own calls,
   * subscription calls, prices below the worst case): the call draws from it what its price less
   * the fee leaves of its model cost, at most `reservedCents`.
   */
  cost: { hold: CreditHold; reservedCents: number } | null;
  /**
   * Set for a call the model answered (its cost was incurred) but that is not charged (decision
   * 0037): recorded as failed under this error type, the caller pays nothing (charge is null), and
   * the owner bears the model cost, from the cost reservation first.
   */
  failure?: { errorType: string; outcome: 'failed' | 'rejected' };
  /** Chat calls: the turn to save. */
  turn: {
    conversationId: string;
    isNew: boolean;
    userContent: string;
    answer: string;
    /** The caller's own query and inputs (GET messages shows them); the turn's message id is the invocation id. */
    query?: string;
    inputs?: Record<string, unknown>;
  } | null;
}

/** What a settled call moved: its caller's payment and its model cost posted in cents, and what it drew from its cost reservation. */
export interface SettledCall {
  paidCents: number;
  postedCents: number;
  drawnCents: number;
}

/** The most calls one statement settles (and the recovery reads at once). */
export const MAX_BATCH = 256;

// Charges that are not whole cents move their caller's running total for the app; a call pays the
// cents by which ceil(total / 10000) grew. A batch of whole-cent charges only (today's per-call
// prices) runs the statement without these two (SETTLE_WHOLE_SQL): nothing to meter, less to plan.
const CHARGE_METERS_SQL = `charge_metered AS (
  INSERT INTO charge_meters AS c (caller_id, app_id, micros)
  SELECT caller_id, app_id, sum(charge_m)::bigint FROM items WHERE charge_m % 10000 <> 0 GROUP BY caller_id, app_id ORDER BY caller_id, app_id
  ON CONFLICT (caller_id, app_id) DO UPDATE SET micros = c.micros + EXCLUDED.micros
  RETURNING c.caller_id, c.app_id, c.micros
),
charged AS (
  SELECT i.id, (run + 9999) / 10000 - (run - i.charge_m + 9999) / 10000 AS paid
  FROM (
    SELECT i.id, i.charge_m, (c.micros - b.batch_micros + sum(i.charge_m) OVER (PARTITION BY i.caller_id, i.app_id ORDER BY i.position))::bigint AS run
    FROM items i
    JOIN charge_metered c ON c.caller_id = i.caller_id AND c.app_id = i.app_id
    JOIN (SELECT caller_id, app_id, sum(charge_m)::bigint AS batch_micros FROM items WHERE charge_m % 10000 <> 0 GROUP BY 1, 2) b
      ON b.caller_id = i.caller_id AND b.app_id = i.app_id
    WHERE i.charge_m % 10000 <> 0
  ) i
),
`;
const NO_CHARGE_METERS_SQL = `charged AS (SELECT NULL::uuid AS id, 0::bigint AS paid WHERE false),
`;

// The money of a call (decision 0025, issue 60): the caller pays from a hold the cents by which its
// running total of charges to the app (charge_meters, micro-dollars, rounded up) grows with this call
// (a whole-cent charge is its cents, and touches no meter); the platform fee goes to platform_fees,
// in the cents by which the owner's running total of fees (model_cost_meters.fee_micros, rounded
// down) grows; the model cost goes to model_costs, in the cents by which the owner's running
// total of model cost (model_cost_meters, micro-dollars, rounded up) grows with this call; what the
// price less the fee does not cover of it is drawn from the owner's cost hold (up to what that
// reserved); the owner's earnings take the rest, which may be negative. Each call's entries sum to 0.
const settleSql = (CHARGE_METERS: string) => `
WITH items AS (
  -- One JSON array of the batch's calls (writeSettlements): node-postgres escapes nothing per value.
  -- charge_m and fee_m: the exact charge and fee of a paid call (0 for a free one).
  SELECT t.*, CASE WHEN t.hold_id IS NULL THEN 0 ELSE t.charge_micros END AS charge_m, CASE WHEN t.hold_id IS NULL THEN 0 ELSE t.fee_micros END AS fee_m
  FROM json_to_recordset($1::json) AS t(
    id uuid, app_id uuid, caller_id uuid, api_key_id uuid, end_user text, mode text, latency_ms int, input_tokens int, output_tokens int,
    price_cents bigint, created_at timestamptz, hold_id uuid, owner_id uuid, fee_cents bigint, ledger_tx_id uuid, description text,
    conversation_id uuid, new_conversation boolean, user_turn text, answer text, position int, demo boolean, query text, inputs text,
    model text, provider text, model_cost_micros bigint, cost_hold_id uuid, cost_reserved_cents bigint, error_type text, outcome text,
    charge_micros bigint, fee_micros bigint)
),
metered AS (
  INSERT INTO model_cost_meters AS m (user_id, micros, fee_micros)
  SELECT owner_id, sum(model_cost_micros)::bigint, sum(fee_m)::bigint FROM items WHERE model_cost_micros > 0 OR fee_m > 0 GROUP BY owner_id ORDER BY owner_id
  ON CONFLICT (user_id) DO UPDATE SET micros = m.micros + EXCLUDED.micros, fee_micros = m.fee_micros + EXCLUDED.fee_micros
  RETURNING m.user_id, m.micros, m.fee_micros
),
costed AS (
  -- Cents posted by each call: ceil(running total / 10000) after it, less before it, for the model
  -- cost; floor(…) after less before for the fee.
  SELECT i.id, (run_cost + 9999) / 10000 - (run_cost - i.model_cost_micros + 9999) / 10000 AS posted, run_fee / 10000 - (run_fee - i.fee_m) / 10000 AS fee_posted
  FROM (
    SELECT i.id, i.model_cost_micros, i.fee_m,
           (m.micros - b.batch_micros + sum(i.model_cost_micros) OVER calls)::bigint AS run_cost,
           (m.fee_micros - b.batch_fees + sum(i.fee_m) OVER calls)::bigint AS run_fee
    FROM items i
    JOIN metered m ON m.user_id = i.owner_id
    JOIN (SELECT owner_id, sum(model_cost_micros)::bigint AS batch_micros, sum(fee_m)::bigint AS batch_fees FROM items GROUP BY owner_id) b ON b.owner_id = i.owner_id
    WHERE i.model_cost_micros > 0 OR i.fee_m > 0
    WINDOW calls AS (PARTITION BY i.owner_id ORDER BY i.position)
  ) i
),
${CHARGE_METERS}money AS (
  SELECT i.id, i.owner_id, i.app_id, i.caller_id, i.position, i.ledger_tx_id, i.description, i.hold_id, i.cost_hold_id,
         CASE WHEN i.hold_id IS NULL THEN 0 WHEN i.charge_m % 10000 = 0 THEN i.charge_m / 10000 ELSE coalesce(ch.paid, 0) END AS paid,
         coalesce(c.fee_posted, 0) AS fee,
         coalesce(c.posted, 0) AS posted,
         CASE WHEN i.cost_hold_id IS NULL THEN 0
              ELSE least(i.cost_reserved_cents, greatest(0, coalesce(c.posted, 0) - CASE WHEN i.hold_id IS NULL THEN 0 ELSE
                (CASE WHEN i.charge_m % 10000 = 0 THEN i.charge_m / 10000 ELSE coalesce(ch.paid, 0) END) - coalesce(c.fee_posted, 0) END))
         END AS drawn
  FROM items i LEFT JOIN costed c ON c.id = i.id LEFT JOIN charged ch ON ch.id = i.id
),
shares AS (
  SELECT m.*, m.paid - m.fee - m.posted + m.drawn AS earned FROM money m
),
draws AS (
  SELECT hold_id, paid AS amount FROM shares WHERE hold_id IS NOT NULL
  UNION ALL
  SELECT cost_hold_id, drawn FROM shares WHERE cost_hold_id IS NOT NULL AND drawn > 0
),
released AS (
  UPDATE credit_holds h SET amount_cents = h.amount_cents - d.amount
  FROM (SELECT hold_id, sum(amount) AS amount FROM draws GROUP BY hold_id) d
  WHERE h.id = d.hold_id
  RETURNING h.id, h.account_id, d.amount AS amount_cents, h.api_key_id, h.spend_month, h.spend_day
),
earnings AS (
  SELECT a.id, a.user_id FROM ledger_accounts a
  WHERE a.kind = 'creator_earnings' AND a.currency = 'usd' AND a.user_id IN (SELECT owner_id FROM shares WHERE hold_id IS NOT NULL OR earned <> 0)
),
-- A hold's draw lowers its account's balance and held amount (the caller's or owner's credits, or
-- the owner's earnings: decision 0037); the owner's earnings take their share. One update per
-- account, so an earnings hold and the earnings it draws from move together.
accounts_moved AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents + d.balance, held_cents = a.held_cents + d.held
  FROM (
    SELECT id, sum(balance) AS balance, sum(held) AS held FROM (
      SELECT account_id AS id, -amount_cents AS balance, -amount_cents AS held FROM released
      UNION ALL
      SELECT e.id, s.earned, 0 FROM shares s JOIN earnings e ON e.user_id = s.owner_id WHERE s.earned <> 0
    ) m GROUP BY id HAVING sum(balance) <> 0 OR sum(held) <> 0
  ) d
  WHERE a.id = d.id RETURNING a.id
),
system_totals AS (
  SELECT sum(fee) AS fees, sum(posted) AS model_costs FROM shares
),
fees AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents + t.fees
  FROM system_totals t WHERE t.fees > 0 AND a.kind = 'platform_fees' AND a.user_id IS NULL AND a.currency = 'usd' RETURNING a.id
),
model_costs AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents + t.model_costs
  FROM system_totals t WHERE t.model_costs > 0 AND a.kind = 'model_costs' AND a.user_id IS NULL AND a.currency = 'usd' RETURNING a.id
),
-- The calls that move money, each with its ledger transaction: one per app, caller and description
-- in the batch (decision 0062), whose id and reference are its first call's.
moving AS (
  SELECT s.*, first_value(s.ledger_tx_id) OVER calls AS tx, first_value(s.id) OVER calls AS first_id,
         count(*) OVER (PARTITION BY s.app_id, s.caller_id, s.description) AS calls
  FROM shares s WHERE s.paid <> 0 OR s.posted <> 0 OR s.drawn <> 0 OR s.earned <> 0
  WINDOW calls AS (PARTITION BY s.app_id, s.caller_id, s.description ORDER BY s.position)
),
ledger_transactions_written AS (
  INSERT INTO ledger_transactions (id, kind, reference, description)
  SELECT tx, 'call_charge', 'calls:' || id, CASE WHEN calls = 1 THEN description ELSE description || ' (' || calls || ' calls)' END
  FROM moving WHERE id = first_id
),
ledger_entries_written AS (
  -- One entry per account and ledger transaction: a draw from the owner's earnings hold and the earnings' share are one.
  INSERT INTO ledger_entries (transaction_id, account_id, amount_cents)
  SELECT tx, account_id, sum(amount) FROM (
    SELECT s.tx, r.account_id, -s.paid AS amount FROM moving s JOIN released r ON r.id = s.hold_id WHERE s.paid <> 0
    UNION ALL
    SELECT s.tx, r.account_id, -s.drawn FROM moving s JOIN released r ON r.id = s.cost_hold_id WHERE s.drawn <> 0
    UNION ALL
    SELECT s.tx, e.id, s.earned FROM moving s JOIN earnings e ON e.user_id = s.owner_id WHERE s.earned <> 0
    UNION ALL
    SELECT s.tx, f.id, s.fee FROM moving s CROSS JOIN fees f WHERE s.fee > 0
    UNION ALL
    SELECT s.tx, c.id, s.posted FROM moving s CROSS JOIN model_costs c WHERE s.posted > 0
  ) p GROUP BY tx, account_id HAVING sum(amount) <> 0
),
spend AS (
  INSERT INTO api_key_spend AS s (api_key_id, month, spent_cents)
  SELECT r.api_key_id, coalesce(r.spend_month, $2::date), sum(r.amount_cents)
  FROM released r WHERE r.api_key_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (api_key_id, month) DO UPDATE SET
    spent_cents = s.spent_cents + EXCLUDED.spent_cents,
    held_cents = s.held_cents - (SELECT coalesce(sum(r2.amount_cents), 0) FROM released r2 WHERE r2.api_key_id = s.api_key_id AND r2.spend_month = s.month),
    -- A daily cap's hold moves to the day's spend while the row still counts its day (holds.ts).
    day_spent_cents = s.day_spent_cents + (SELECT coalesce(sum(r2.amount_cents), 0) FROM released r2 WHERE r2.api_key_id = s.api_key_id AND r2.spend_day = s.day),
    day_held_cents = s.day_held_cents - (SELECT coalesce(sum(r2.amount_cents), 0) FROM released r2 WHERE r2.api_key_id = s.api_key_id AND r2.spend_day = s.day)
),
recorded AS (
  INSERT INTO invocations (id, app_id, caller_id, api_key_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, conversation_id, created_at, demo,
                           model, provider, model_cost_micros, fee_cents, outcome, ledger_transaction_id, charge_micros, fee_micros)
  SELECT i.id, i.app_id, i.caller_id, i.api_key_id, i.end_user, i.mode, CASE WHEN i.error_type = '' THEN 'success' ELSE 'error' END, i.error_type, i.latency_ms, i.input_tokens, i.output_tokens, s.paid, i.conversation_id, i.created_at, i.demo,
         i.model, i.provider, i.model_cost_micros, s.fee, i.outcome, m.tx, i.charge_m, i.fee_m
  FROM items i JOIN shares s ON s.id = i.id LEFT JOIN moving m ON m.id = i.id
  ${RECORDED_COLUMNS}
),
${RECORD_ROLLUPS},
-- The call is no longer owed by its lease (decision 0039): an answered call's journal row goes with its charge.
unjournaled AS (
  DELETE FROM answered_calls a USING items i WHERE a.id = i.id
),
-- A conversation's activity is its calls' time, not the batch's: conversations that calls of one
-- batch started or continued keep the order of those calls (newest activity first).
conversations_written AS (
  INSERT INTO conversations AS c (id, app_id, caller_id, end_user, created_at, updated_at)
  SELECT i.conversation_id, i.app_id, i.caller_id, i.end_user, i.created_at,
         (SELECT max(j.created_at) FROM items j WHERE j.conversation_id = i.conversation_id)
  FROM items i WHERE i.conversation_id IS NOT NULL AND i.new_conversation
  ON CONFLICT (id) DO NOTHING
),
conversations_touched AS (
  UPDATE conversations c SET updated_at = greatest(c.updated_at, i.at)
  FROM (SELECT conversation_id, max(created_at) AS at FROM items WHERE conversation_id IS NOT NULL AND NOT new_conversation GROUP BY 1) i
  WHERE c.id = i.conversation_id
),
turns AS (
  INSERT INTO conversation_messages (conversation_id, role, content, message_id, query, inputs)
  SELECT conversation_id, role, content, id, query, inputs::jsonb FROM (
    SELECT conversation_id, 'user' AS role, user_turn AS content, position, 0 AS part, id, query, inputs FROM items WHERE conversation_id IS NOT NULL
    UNION ALL
    SELECT conversation_id, 'assistant', answer, position, 1, id, NULL, NULL FROM items WHERE conversation_id IS NOT NULL
  ) t ORDER BY position, part
),
checked AS (
  SELECT tollbooth_assert((SELECT count(*) FROM released) = (SELECT count(DISTINCT hold_id) FROM draws), 'a hold was already released')
     AND tollbooth_assert((SELECT count(*) FROM earnings) = (SELECT count(DISTINCT owner_id) FROM shares WHERE hold_id IS NOT NULL OR earned <> 0), 'a creator has no earnings account')
     AS ok
)
SELECT s.id, s.paid, s.posted, s.drawn, c.ok FROM shares s CROSS JOIN checked c`;
const SETTLE_SQL = settleSql(CHARGE_METERS_SQL);
const SETTLE_WHOLE_SQL = settleSql(NO_CHARGE_METERS_SQL);

/** JSON that jsonb takes: text PostgreSQL cannot store (NUL, lone surrogates) never fails a settlement. */
function storableJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value);
  return /\\u0000|\\ud[89a-f]/i.test(text) ? null : text;
}

/**
 * JSON that PostgreSQL's json reads as text: NUL and unpaired surrogates (which JSON.stringify
 * escapes and json's text conversion refuses) become U+FFFD, as node-postgres's UTF-8 would make them.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;
export const storableJsonText = (text: string) => (text.includes('\\u') ? text.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : text);

/** Writes a batch of settlements in one statement: one JSON array of the calls, and the current spend month. */
export async function writeSettlements(db: Database, batch: Settlement[]): Promise<SettledCall[]> {
  const items = batch.map((s, position) => ({
    id: s.invocationId,
    app_id: s.appId,
    caller_id: s.callerId,
    api_key_id: s.apiKeyId,
    end_user: s.endUser,
    mode: s.mode,
    latency_ms: Math.round(s.latencyMs),
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    price_cents: s.priceCents,
    created_at: s.createdAt,
    hold_id: s.charge?.hold.id ?? null,
    owner_id: s.ownerId,
    fee_cents: s.charge?.feeCents ?? 0,
    ledger_tx_id: s.ledgerTransactionId,
    description: s.description,
    conversation_id: s.turn?.conversationId ?? null,
    new_conversation: s.turn?.isNew ?? false,
    user_turn: s.turn?.userContent ?? '',
    answer: s.turn?.answer ?? '',
    position,
    demo: s.demo ?? false,
    query: s.turn?.query ?? null,
    inputs: storableJson(s.turn?.inputs),
    model: s.model,
    provider: s.provider,
    model_cost_micros: s.modelCostMicros,
    cost_hold_id: s.cost?.hold.id ?? null,
    cost_reserved_cents: s.cost?.reservedCents ?? 0,
    error_type: s.failure?.errorType ?? '',
    outcome: s.failure?.outcome ?? 'success',
    charge_micros: s.chargeMicros ?? s.priceCents * 10_000,
    fee_micros: s.feeMicros ?? (s.charge?.feeCents ?? 0) * 10_000,
  }));
  const fractional = items.some((item) => item.hold_id !== null && item.charge_micros % 10_000 !== 0);
  const { rows } = await db.query<{ id: string; paid: string | number; posted: string | number; drawn: string | number }>(
    fractional ? SETTLE_SQL : SETTLE_WHOLE_SQL,
    [storableJsonText(JSON.stringify(items)), currentSpendMonth()],
  );
  const byId = new Map(rows.map((row) => [row.id, { paidCents: Number(row.paid), postedCents: Number(row.posted), drawnCents: Number(row.drawn) }]));
  return batch.map((s) => byId.get(s.invocationId) ?? { paidCents: 0, postedCents: 0, drawnCents: 0 });
}

/** Takes a call out of the journal: its settlement failed after its answer, so it goes free (decision 0024). */
export async function forgetAnsweredCall(db: Database, invocationId: string): Promise<void> {
  await db.query('DELETE FROM answered_calls WHERE id = $1', [invocationId]);
}

/** Whether the call is recorded (its settlement committed). */
export async function isCallRecorded(db: Database, invocationId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM invocations WHERE id = $1', [invocationId])).rows.length > 0;
}

/**
 * Journal rows to settle, oldest first, a batch at most: every row with `all`, else those one of
 * whose holds expired (its process stopped renewing it) or is gone; with how many of their holds
 * still exist and whether the call is recorded already. Never a row on one of `keep`, the holds of
 * the reading process's own live leases: its own settlement of the call is under way (decision 0140).
 */
export async function selectOwedAnsweredCalls(db: Database, all: boolean, keep: readonly string[] = []) {
  const { rows } = await db.query<{ id: string; settlement: string; holds: number; recorded: boolean }>(
    `SELECT a.id, a.settlement,
            (SELECT count(*) FROM credit_holds h WHERE h.id = a.hold_id OR h.id = a.cost_hold_id)::int AS holds,
            EXISTS (SELECT 1 FROM invocations i WHERE i.id = a.id) AS recorded
     FROM answered_calls a
     WHERE ($1::boolean
        OR EXISTS (SELECT 1 FROM credit_holds h WHERE (h.id = a.hold_id OR h.id = a.cost_hold_id) AND h.expires_at < now())
        OR NOT EXISTS (SELECT 1 FROM credit_holds h WHERE h.id = a.hold_id OR h.id = a.cost_hold_id))
       AND NOT (coalesce(a.hold_id = ANY($2::uuid[]), false) OR coalesce(a.cost_hold_id = ANY($2::uuid[]), false))
     ORDER BY a.created_at, a.id LIMIT ${MAX_BATCH}`,
    [all, keep],
  );
  return rows;
}
