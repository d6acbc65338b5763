// The holds behind a paid call's charge (the gateway reaches them through service.ts): reserve
// before the upstream call, settle on success (settlement-sql.ts, batched with the invocation
// records), release on failure. Their SQL is in queries.ts.
// A reservation is a hold row plus held_cents on the caller's credits (and on the key's monthly
// and daily spend counters, one row of api_key_spend); CHECK constraints make an over-reservation fail inside PostgreSQL, so no number
// of concurrent calls or server processes can spend a cent twice. Settling deletes the hold, so a
// hold is settled or released exactly once; holds of a crashed process expire and are released.
import { formatCents } from '@tollbooth/contract';
import type { Database, Queryable } from '../../db/client.ts';
import { AppError, SpendCapError } from '../../platform/errors.ts';
import { findOrCreateUserAccount } from '../ledger.ts';
import {
  CREDITS_ACCOUNT_EXISTS_SQL,
  DAY_SPEND_SQL,
  DELETE_EXPIRED_HOLD_SQL,
  DELETE_HOLD_SQL,
  EXPIRED_HOLDS_SQL,
  RELEASE_HELD_CENTS_SQL,
  RELEASE_KEY_SPEND_SQL,
  RENEW_HOLDS_SQL,
  RESERVE_CREDITS_SQL,
  RESERVE_EARNINGS_SQL,
} from './queries.ts';

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
 * A hold lives this long unless its process renews it (leases.ts renews live holds every
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
      const { rows } = await db.query<{ id: string; account_id: number; amount_cents: number }>(RESERVE_CREDITS_SQL, [
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
      ]);
      return rows[0] ?? null;
    } catch (error) {
      if (isCheckViolation(error)) throw new AppError('insufficient_credits', 'Insufficient credits for this call');
      throw error;
    }
  };
  /** Which of the key's caps refused the price (the daily one when today's spend and holds leave less than it). */
  const capReached = async () => {
    if (dailyLimited) {
      const { rows } = await db.query<{ used: number | string }>(DAY_SPEND_SQL, [request.apiKeyId, spendMonth, spendDay]);
      if (Number(rows[0]?.used ?? 0) + request.amountCents > (request.dailySpendLimitCents as number)) {
        return new SpendCapError('day', `This key has reached its daily spend limit (${formatCents(request.dailySpendLimitCents as number)} a UTC day)`);
      }
    }
    return new SpendCapError('month', 'This API key has reached its monthly spend limit');
  };
  let hold = await attempt();
  if (!hold) {
    // Either one of the key's caps refused it, or the caller has no credits account yet.
    const { rows } = await db.query(CREDITS_ACCOUNT_EXISTS_SQL, ['user_credits', request.userId]);
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
  const { rows } = await db.query<{ id: string; account_id: number; amount_cents: number }>(RESERVE_EARNINGS_SQL, [
    request.userId,
    request.amountCents,
    leaseCents,
    request.lifetimeSeconds ?? HOLD_LIFETIME_SECONDS,
    request.leaseOnly === true && leaseCents > request.amountCents,
  ]);
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

/**
 * Takes the hold away with what is left of it; false when it was already released or swept (or,
 * with DELETE_EXPIRED_HOLD_SQL, is no longer one to sweep).
 */
async function removeHold(tx: Queryable, hold: Pick<CreditHold, 'id' | 'accountId' | 'apiKeyId'>, deleteSql = DELETE_HOLD_SQL): Promise<boolean> {
  const removed = await tx.query<{ spend_month: string | null; spend_day: string | null; amount_cents: number }>(deleteSql, [hold.id]);
  const row = removed.rows[0];
  if (!row) return false;
  if (row.amount_cents > 0) {
    await tx.query(RELEASE_HELD_CENTS_SQL, [hold.accountId, row.amount_cents]);
    if (row.spend_month) await tx.query(RELEASE_KEY_SPEND_SQL, [hold.apiKeyId, row.spend_month, row.amount_cents, row.spend_day]);
  }
  return true;
}

/** Gives the held credits back (the call failed or the client went away). */
export async function releaseCharge(db: Database, hold: CreditHold): Promise<void> {
  await db.transaction((tx) => removeHold(tx, hold));
}

/**
 * Releases holds whose process never settled or released them. Returns how many. A hold that still
 * owes answered calls (answered_calls, decision 0039) stays until they are settled from it, and so
 * does one of `keep`: the holds of the sweeping process's own live leases, which may have expired
 * only because their renewal was late (a stalled statement, a frozen event loop) while calls only
 * in its journal file still owe them (decision 0140). Each release checks again, in its statement,
 * that the hold is still expired and owes nothing.
 */
export async function sweepExpiredHolds(db: Database, { keep = [] }: { keep?: readonly string[] } = {}): Promise<number> {
  const { rows } = await db.query<{ id: string; account_id: number; amount_cents: number; api_key_id: string | null; spend_month: string | null }>(
    EXPIRED_HOLDS_SQL,
    [keep],
  );
  let released = 0;
  for (const row of rows) {
    const hold = { id: row.id, accountId: row.account_id, amountCents: row.amount_cents, apiKeyId: row.api_key_id };
    if (await db.transaction((tx) => removeHold(tx, hold, DELETE_EXPIRED_HOLD_SQL))) released++;
  }
  return released;
}

/** Pushes the expiry of holds a live process still uses (but those a statement holds locked: RENEW_HOLDS_SQL); returns how many it pushed. */
export async function renewHolds(db: Database, holdIds: string[], lifetimeSeconds: number): Promise<number> {
  if (holdIds.length === 0) return 0;
  const { rowCount } = await db.query(RENEW_HOLDS_SQL, [holdIds, lifetimeSeconds]);
  return rowCount;
}
