// Settles successful calls in batches. Calls that finish while a batch is being written queue up
// and go into the next one, so under load many calls share one statement and one commit, and a
// lone call is written at once. A batch is ONE SQL statement: the holds are taken away, the
// caller credits, creator earnings and platform fee move, one balanced ledger transaction per call
// is written (each call's price comes off its hold, which may be a lease serving several calls),
// key spend counters advance, the invocations and their rollups are recorded (the rollups by the
// same SQL as a failed call's, invocations.ts) and chat turns are saved — all or nothing. Whether
// a call's answer waits for its batch is paid-calls.ts's choice (the settlement window); a
// process that dies first leaves holds that expire and come back to the callers.

import type { Database } from '../db/client.ts';
import type { CreditHold } from './charges.ts';
import { currentSpendMonth } from './charges.ts';
import { RECORD_ROLLUPS, RECORDED_COLUMNS } from './invocations.ts';

export interface Settlement {
  invocationId: string;
  appId: string;
  callerId: string;
  apiKeyId: string | null;
  endUser: string;
  mode: 'completion' | 'chat';
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  priceCents: number;
  /** Answered by the built-in demo model (then priceCents is 0 and there is no charge). */
  demo?: boolean;
  createdAt: Date;
  /** Null for free calls (the owner's own). */
  charge: { hold: CreditHold; creatorId: string; feeCents: number; ledgerTransactionId: string; description: string } | null;
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

const MAX_BATCH = 256;
const RETRYABLE = new Set(['40P01', '40001']);

const SETTLE_SQL = `
WITH items AS (
  SELECT * FROM unnest(
    $1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[],
    $10::bigint[], $11::timestamptz[], $12::uuid[], $13::uuid[], $14::bigint[], $15::uuid[], $16::text[],
    $17::uuid[], $18::boolean[], $19::text[], $20::text[], $21::int[], $23::boolean[], $24::text[], $25::text[]
  ) AS t(id, app_id, caller_id, api_key_id, end_user, mode, latency_ms, input_tokens, output_tokens,
         price_cents, created_at, hold_id, creator_id, fee_cents, ledger_tx_id, description,
         conversation_id, new_conversation, user_turn, answer, position, demo, query, inputs)
),
released AS (
  UPDATE credit_holds h SET amount_cents = h.amount_cents - d.amount
  FROM (SELECT hold_id, sum(price_cents) AS amount FROM items WHERE hold_id IS NOT NULL GROUP BY hold_id) d
  WHERE h.id = d.hold_id
  RETURNING h.id, h.account_id, d.amount AS amount_cents, h.api_key_id, h.spend_month
),
credits AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents - d.amount, held_cents = a.held_cents - d.amount
  FROM (SELECT account_id, sum(amount_cents) AS amount FROM released GROUP BY account_id) d
  WHERE a.id = d.account_id RETURNING a.id
),
earnings AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents + d.amount
  FROM (SELECT creator_id, sum(price_cents - fee_cents) AS amount FROM items WHERE hold_id IS NOT NULL GROUP BY creator_id) d
  WHERE a.kind = 'creator_earnings' AND a.user_id = d.creator_id RETURNING a.id, a.user_id
),
fees AS (
  UPDATE ledger_accounts a SET balance_cents = a.balance_cents + d.amount
  FROM (SELECT sum(fee_cents) AS amount FROM items WHERE hold_id IS NOT NULL HAVING sum(fee_cents) > 0) d
  WHERE a.kind = 'platform_fees' AND a.user_id IS NULL RETURNING a.id
),
ledger_transactions_written AS (
  INSERT INTO ledger_transactions (id, kind, reference, description)
  SELECT ledger_tx_id, 'call_charge', 'call:' || id, description FROM items WHERE hold_id IS NOT NULL
),
ledger_entries_written AS (
  INSERT INTO ledger_entries (transaction_id, account_id, amount_cents)
  SELECT i.ledger_tx_id, r.account_id, -i.price_cents FROM items i JOIN released r ON r.id = i.hold_id
  UNION ALL
  SELECT i.ledger_tx_id, e.id, i.price_cents - i.fee_cents FROM items i JOIN earnings e ON e.user_id = i.creator_id
  WHERE i.hold_id IS NOT NULL AND i.price_cents - i.fee_cents <> 0
  UNION ALL
  SELECT i.ledger_tx_id, f.id, i.fee_cents FROM items i CROSS JOIN fees f WHERE i.hold_id IS NOT NULL AND i.fee_cents > 0
),
spend AS (
  INSERT INTO api_key_spend AS s (api_key_id, month, spent_cents)
  SELECT r.api_key_id, coalesce(r.spend_month, $22::date), sum(r.amount_cents)
  FROM released r WHERE r.api_key_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (api_key_id, month) DO UPDATE SET
    spent_cents = s.spent_cents + EXCLUDED.spent_cents,
    held_cents = s.held_cents - (SELECT coalesce(sum(r2.amount_cents), 0) FROM released r2 WHERE r2.api_key_id = s.api_key_id AND r2.spend_month = s.month)
),
recorded AS (
  INSERT INTO invocations (id, app_id, caller_id, api_key_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, conversation_id, created_at, demo)
  SELECT id, app_id, caller_id, api_key_id, end_user, mode, 'success', '', latency_ms, input_tokens, output_tokens, price_cents, conversation_id, created_at, demo FROM items
  ${RECORDED_COLUMNS}
),
${RECORD_ROLLUPS},
conversations_written AS (
  INSERT INTO conversations AS c (id, app_id, caller_id, end_user)
  SELECT conversation_id, app_id, caller_id, end_user FROM items WHERE conversation_id IS NOT NULL AND new_conversation
  ON CONFLICT (id) DO NOTHING
),
conversations_touched AS (
  UPDATE conversations c SET updated_at = now() FROM items i WHERE c.id = i.conversation_id AND NOT i.new_conversation
),
turns AS (
  INSERT INTO conversation_messages (conversation_id, role, content, message_id, query, inputs)
  SELECT conversation_id, role, content, id, query, inputs::jsonb FROM (
    SELECT conversation_id, 'user' AS role, user_turn AS content, position, 0 AS part, id, query, inputs FROM items WHERE conversation_id IS NOT NULL
    UNION ALL
    SELECT conversation_id, 'assistant', answer, position, 1, id, NULL, NULL FROM items WHERE conversation_id IS NOT NULL
  ) t ORDER BY position, part
)
SELECT tollbooth_assert((SELECT count(*) FROM released) = (SELECT count(DISTINCT hold_id) FROM items WHERE hold_id IS NOT NULL), 'a hold was already released')
   AND tollbooth_assert((SELECT count(*) FROM earnings) = (SELECT count(DISTINCT creator_id) FROM items WHERE hold_id IS NOT NULL), 'a creator has no earnings account')
   AS ok`;

/** JSON that jsonb takes: text PostgreSQL cannot store (NUL, lone surrogates) never fails a settlement. */
function storableJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value);
  return /\\u0000|\\ud[89a-f]/i.test(text) ? null : text;
}

async function writeBatch(db: Database, batch: Settlement[]) {
  const column = <T>(pick: (s: Settlement) => T) => batch.map(pick);
  await db.query(SETTLE_SQL, [
    column((s) => s.invocationId),
    column((s) => s.appId),
    column((s) => s.callerId),
    column((s) => s.apiKeyId),
    column((s) => s.endUser),
    column((s) => s.mode),
    column((s) => Math.round(s.latencyMs)),
    column((s) => s.inputTokens),
    column((s) => s.outputTokens),
    column((s) => s.priceCents),
    column((s) => s.createdAt),
    column((s) => s.charge?.hold.id ?? null),
    column((s) => s.charge?.creatorId ?? null),
    column((s) => s.charge?.feeCents ?? 0),
    column((s) => s.charge?.ledgerTransactionId ?? null),
    column((s) => s.charge?.description ?? ''),
    column((s) => s.turn?.conversationId ?? null),
    column((s) => s.turn?.isNew ?? false),
    column((s) => s.turn?.userContent ?? ''),
    column((s) => s.turn?.answer ?? ''),
    batch.map((_, index) => index),
    currentSpendMonth(),
    column((s) => s.demo ?? false),
    column((s) => s.turn?.query ?? null),
    column((s) => storableJson(s.turn?.inputs)),
  ]);
}

export interface SettlementBatcher {
  /** Resolves once the call's settlement is committed. */
  settle(settlement: Settlement): Promise<void>;
}

export function createSettlementBatcher(db: Database): SettlementBatcher {
  let queue: { settlement: Settlement; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let flushing = false;
  let scheduled = false;

  const writeWithRetry = async (batch: Settlement[]) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await writeBatch(db, batch);
      } catch (error) {
        if (attempt < 3 && RETRYABLE.has((error as { code?: string }).code ?? '')) continue;
        throw error;
      }
    }
  };

  const flush = async () => {
    flushing = true;
    try {
      while (queue.length > 0) {
        const pending = queue.slice(0, MAX_BATCH);
        queue = queue.slice(MAX_BATCH);
        try {
          await writeWithRetry(pending.map((entry) => entry.settlement));
          for (const entry of pending) entry.resolve();
        } catch (error) {
          if (pending.length === 1) {
            pending[0]!.reject(error);
            continue;
          }
          // One bad call must not fail the others: write them one by one.
          for (const entry of pending) {
            try {
              await writeWithRetry([entry.settlement]);
              entry.resolve();
            } catch (single) {
              entry.reject(single);
            }
          }
        }
      }
    } finally {
      flushing = false;
    }
  };

  return {
    settle(settlement) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ settlement, resolve, reject });
        // Written on the next turn of the event loop, not now: an answer that does not wait for its
        // commit goes out first, and the calls answered in this turn share the batch.
        if (!flushing && !scheduled) {
          scheduled = true;
          setImmediate(() => {
            scheduled = false;
            if (!flushing) void flush();
          });
        }
      });
    },
  };
}

/**
 * Settles a call whose answer is (or is about to be) delivered. When recording its details fails,
 * the call is still charged from its hold, with the details that could not be stored left out
 * (end user, chat turn); the failure is reported through onDetailsFailed.
 */
export async function settleOrChargeOnly(batcher: SettlementBatcher, settlement: Settlement, onDetailsFailed: (error: unknown) => void): Promise<void> {
  try {
    await batcher.settle(settlement);
  } catch (error) {
    onDetailsFailed(error);
    await batcher.settle({ ...settlement, endUser: '', turn: null });
  }
}
