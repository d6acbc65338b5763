// The holds behind a paid call's charge (the gateway reaches them through paid-calls.ts): reserve
// before the upstream call, settle on success (settlement.ts, batched with the invocation
// records), release on failure.
// A reservation is a hold row plus held_cents on the caller's credits (and on the key's monthly
// and daily spend counters, one row of api_key_spend); CHECK constraints make an over-reservation fail inside PostgreSQL, so no number
// of concurrent calls or server processes can spend a cent twice. Settling deletes the hold, so a
// hold is settled or released exactly once; holds of a crashed process expire and are released.
import type { Database, Queryable } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { findOrCreateUserAccount } from './ledger.ts';

export interface CreditHold {
  id: string;
  accountId: number;
  amountCents: number;
  apiKeyId: string | null;
  spendMonth: string | null;
  /** The UTC day whose daily spend counter holds this amount too (keys with a daily cap). */
  spendDay: string | null;
}

/**
 * A hold lives this long unless its process renews it (credit-leases.ts renews live holds every
 * third of it); a crashed process's holds are swept once expired. CLAIM_LIFETIME_SECONDS.
 */
export const HOLD_LIFETIME_SECONDS = 90;

/** First day of the current UTC month, as an ISO date. */
export function currentSpendMonth(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

/** The current UTC day, as an ISO date. */
export function currentSpendDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

const isCheckViolation = (error: unknown) => (error as { code?: string }).code === '23514';

/**
 * Holds the price on the caller's credits (and on the key's monthly and daily spend counters when
 * the key has those caps) in one statement: one round trip, atomic, and refused by PostgreSQL's
 * CHECKs when the available credits do not cover it, or by the counters' conditional upsert when
 * the key's remaining spend this month or this UTC day does not. Both counters are one row (the
 * month's, which also counts its current day), so a price is held on both caps or on neither.
 *
 * With `leaseCents` above the price, it holds that much instead when the caller has plenty (at
 * least twice the lease available, on the credits and on the key), so one process can serve many
 * calls from one hold; with less, it holds exactly the price, so credits near their end are never
 * tied up where another process cannot use them.
 */
export async function reserveCharge(
  db: Database,
  request: {
    userId: string;
    amountCents: number;
    leaseCents?: number;
    apiKeyId: string | null;
    monthlySpendLimitCents: number | null;
    /** A publishable key's daily cap (UTC days); null or absent when the key has none. */
    dailySpendLimitCents?: number | null;
    lifetimeSeconds?: number;
  },
): Promise<CreditHold> {
  const limited = request.apiKeyId !== null && request.monthlySpendLimitCents !== null;
  const dailyLimited = request.apiKeyId !== null && request.dailySpendLimitCents !== undefined && request.dailySpendLimitCents !== null;
  const now = new Date();
  const spendMonth = request.apiKeyId ? currentSpendMonth(now) : null;
  const spendDay = dailyLimited ? currentSpendDay(now) : null;
  const attempt = async () => {
    try {
      const { rows } = await db.query<{ id: string; account_id: number; amount_cents: number }>(
        `WITH size AS (
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
         RETURNING id, account_id, amount_cents`,
        [
          request.userId,
          request.amountCents,
          request.apiKeyId,
          spendMonth,
          limited,
          request.monthlySpendLimitCents,
          request.lifetimeSeconds ?? HOLD_LIFETIME_SECONDS,
          request.leaseCents ?? request.amountCents,
          spendDay,
          dailyLimited,
          request.dailySpendLimitCents ?? null,
        ],
      );
      return rows[0] ?? null;
    } catch (error) {
      if (isCheckViolation(error)) throw new AppError('insufficient_credits', 'Insufficient credits for this call');
      throw error;
    }
  };
  /** Which of the key's caps refused the price (the daily one when today's spend and holds leave less than it). */
  const capReached = async () => {
    if (dailyLimited) {
      const { rows } = await db.query<{ used: number | string }>(
        'SELECT day_spent_cents + day_held_cents AS used FROM api_key_spend WHERE api_key_id = $1 AND month = $2 AND day = $3',
        [request.apiKeyId, spendMonth, spendDay],
      );
      if (Number(rows[0]?.used ?? 0) + request.amountCents > (request.dailySpendLimitCents as number)) {
        return new AppError('key_limit_exceeded', `This key has reached its daily spend limit (${dollars(request.dailySpendLimitCents as number)} a UTC day)`);
      }
    }
    return new AppError('key_limit_exceeded', 'This API key has reached its monthly spend limit');
  };
  let hold = await attempt();
  if (!hold) {
    // Either one of the key's caps refused it, or the caller has no credits account yet.
    const { rows } = await db.query("SELECT 1 FROM ledger_accounts WHERE kind = $1 AND user_id = $2 AND currency = 'usd'", ['user_credits', request.userId]);
    if (rows.length > 0) throw await capReached();
    await findOrCreateUserAccount(db, 'user_credits', request.userId);
    hold = await attempt();
    if (!hold) throw await capReached();
  }
  return { id: hold.id, accountId: hold.account_id, amountCents: hold.amount_cents, apiKeyId: request.apiKeyId, spendMonth, spendDay };
}

/**
 * Holds part of a creator's US-dollar earnings for the model cost of their apps' calls (decision
 * 0037): a hold row like a caller's, and held_cents on the creator_earnings account, in one
 * statement. The account's row lock makes it exact against other reservations and against a payout
 * (which locks the row and pays out only what is not held): the condition `balance − held ≥ amount`
 * is checked on the row as it is when the update gets its lock. With `leaseCents`, that much when
 * the earnings have at least twice it unheld, else exactly the amount; with `leaseOnly`, nothing
 * (null) rather than the single amount. Throws insufficient_credits when not even the amount is there.
 */
export async function tryReserveEarnings(
  db: Database,
  request: { userId: string; amountCents: number; leaseCents?: number; leaseOnly?: boolean; lifetimeSeconds?: number },
): Promise<CreditHold | null> {
  const leaseCents = request.leaseCents ?? request.amountCents;
  const { rows } = await db.query<{ id: string; account_id: number; amount_cents: number }>(
    `WITH size AS (
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
     RETURNING id, account_id, amount_cents`,
    [
      request.userId,
      request.amountCents,
      leaseCents,
      request.lifetimeSeconds ?? HOLD_LIFETIME_SECONDS,
      request.leaseOnly === true && leaseCents > request.amountCents,
    ],
  );
  const hold = rows[0];
  if (!hold) {
    if (request.leaseOnly) return null;
    throw new AppError('insufficient_credits', 'Insufficient earnings for this reservation');
  }
  return { id: hold.id, accountId: hold.account_id, amountCents: Number(hold.amount_cents), apiKeyId: null, spendMonth: null, spendDay: null };
}

/** Holds exactly `amountCents` of a creator's earnings (tryReserveEarnings without a lease); throws insufficient_credits. */
export async function reserveEarnings(db: Database, request: { userId: string; amountCents: number; lifetimeSeconds?: number }): Promise<CreditHold> {
  return (await tryReserveEarnings(db, request)) as CreditHold;
}

/** Takes the hold away with what is left of it; false when it was already released or swept. */
async function removeHold(tx: Queryable, hold: Pick<CreditHold, 'id' | 'accountId' | 'apiKeyId'>): Promise<boolean> {
  const removed = await tx.query<{ spend_month: string | null; spend_day: string | null; amount_cents: number }>(
    'DELETE FROM credit_holds WHERE id = $1 RETURNING spend_month, spend_day, amount_cents',
    [hold.id],
  );
  const row = removed.rows[0];
  if (!row) return false;
  if (row.amount_cents > 0) {
    await tx.query('UPDATE ledger_accounts SET held_cents = held_cents - $2 WHERE id = $1', [hold.accountId, row.amount_cents]);
    if (row.spend_month) {
      // The day's counter gives it back only while it still counts the hold's day.
      await tx.query(
        `UPDATE api_key_spend SET held_cents = held_cents - $3,
           day_held_cents = day_held_cents - CASE WHEN day = $4::date THEN $3::bigint ELSE 0 END
         WHERE api_key_id = $1 AND month = $2`,
        [hold.apiKeyId, row.spend_month, row.amount_cents, row.spend_day],
      );
    }
  }
  return true;
}

/** Gives the held credits back (the call failed or the client went away). */
export async function releaseCharge(db: Database, hold: CreditHold): Promise<void> {
  await db.transaction((tx) => removeHold(tx, hold));
}

/**
 * Releases holds whose process never settled or released them. Returns how many. A hold that still
 * owes answered calls (answered_calls, decision 0039) stays until they are settled from it.
 */
export async function sweepExpiredHolds(db: Database): Promise<number> {
  const { rows } = await db.query<{ id: string; account_id: number; amount_cents: number; api_key_id: string | null; spend_month: string | null }>(
    `SELECT id, account_id, amount_cents, api_key_id, spend_month FROM credit_holds h
     WHERE expires_at < now() AND NOT EXISTS (SELECT 1 FROM answered_calls a WHERE a.hold_id = h.id OR a.cost_hold_id = h.id)
     LIMIT 1000`,
  );
  let released = 0;
  for (const row of rows) {
    const hold = { id: row.id, accountId: row.account_id, amountCents: row.amount_cents, apiKeyId: row.api_key_id };
    if (await db.transaction((tx) => removeHold(tx, hold))) released++;
  }
  return released;
}

/** Pushes the expiry of holds a live process still uses; returns how many still exist. */
export async function renewHolds(db: Database, holdIds: string[], lifetimeSeconds: number): Promise<number> {
  if (holdIds.length === 0) return 0;
  const { rowCount } = await db.query('UPDATE credit_holds SET expires_at = now() + make_interval(secs => $2::double precision) WHERE id = ANY($1::uuid[])', [
    holdIds,
    lifetimeSeconds,
  ]);
  return rowCount;
}
