// Per-call charging: reserve before the upstream call, settle on success, release on failure.
// A reservation is a hold row plus held_cents on the caller's credits (and on the key's monthly
// spend counter); CHECK constraints make an over-reservation fail inside PostgreSQL, so no number
// of concurrent calls or server processes can spend a cent twice. Settling deletes the hold, so a
// hold is settled or released exactly once; holds of a crashed process expire and are released.
import type { Database, Queryable } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from './ledger.ts';

export interface CreditHold {
  id: string;
  accountId: number;
  amountCents: number;
  apiKeyId: string | null;
  spendMonth: string | null;
}

export const HOLD_LIFETIME_SECONDS = 15 * 60;

/** First day of the current UTC month, as an ISO date. */
export function currentSpendMonth(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
}

const isCheckViolation = (error: unknown) => (error as { code?: string }).code === '23514';

export async function reserveCharge(
  db: Database,
  request: { userId: string; amountCents: number; apiKeyId: string | null; monthlySpendLimitCents: number | null },
): Promise<CreditHold> {
  const accountId = await findOrCreateUserAccount(db, 'user_credits', request.userId);
  const spendMonth = request.apiKeyId ? currentSpendMonth() : null;
  return db.transaction(async (tx) => {
    if (request.apiKeyId && request.monthlySpendLimitCents !== null) {
      await tx.query('INSERT INTO api_key_spend (api_key_id, month) VALUES ($1, $2) ON CONFLICT DO NOTHING', [request.apiKeyId, spendMonth]);
      const limited = await tx.query(
        `UPDATE api_key_spend SET held_cents = held_cents + $3
         WHERE api_key_id = $1 AND month = $2 AND spent_cents + held_cents + $3 <= $4`,
        [request.apiKeyId, spendMonth, request.amountCents, request.monthlySpendLimitCents],
      );
      if (limited.rowCount === 0) throw new AppError('key_limit_exceeded', 'This API key has reached its monthly spend limit');
    }
    try {
      await tx.query('UPDATE ledger_accounts SET held_cents = held_cents + $2 WHERE id = $1', [accountId, request.amountCents]);
    } catch (error) {
      if (isCheckViolation(error)) throw new AppError('insufficient_credits', 'Insufficient credits for this call');
      throw error;
    }
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO credit_holds (account_id, api_key_id, spend_month, amount_cents, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING id`,
      [
        accountId,
        request.apiKeyId,
        request.apiKeyId && request.monthlySpendLimitCents !== null ? spendMonth : null,
        request.amountCents,
        HOLD_LIFETIME_SECONDS,
      ],
    );
    return { id: rows[0]!.id, accountId, amountCents: request.amountCents, apiKeyId: request.apiKeyId, spendMonth };
  });
}

/** Takes the hold away; false when it was already settled, released or swept. */
async function removeHold(tx: Queryable, hold: CreditHold): Promise<boolean> {
  const removed = await tx.query<{ spend_month: string | null }>('DELETE FROM credit_holds WHERE id = $1 RETURNING spend_month', [hold.id]);
  const row = removed.rows[0];
  if (!row) return false;
  await tx.query('UPDATE ledger_accounts SET held_cents = held_cents - $2 WHERE id = $1', [hold.accountId, hold.amountCents]);
  if (row.spend_month) {
    await tx.query('UPDATE api_key_spend SET held_cents = held_cents - $3 WHERE api_key_id = $1 AND month = $2', [
      hold.apiKeyId,
      row.spend_month,
      hold.amountCents,
    ]);
  }
  return true;
}

/**
 * Turns the hold into the charge, inside the caller's transaction (which also records the
 * invocation): caller credits down, creator earnings up, platform fee apart.
 */
export async function settleCharge(
  tx: Queryable,
  hold: CreditHold,
  charge: { creatorId: string; platformFeeBps: number; reference: string; description: string },
): Promise<void> {
  if (!(await removeHold(tx, hold))) {
    // The hold expired and was swept while the call ran: charge only what is still available.
    const { rows } = await tx.query<{ available: number }>('SELECT balance_cents - held_cents AS available FROM ledger_accounts WHERE id = $1 FOR UPDATE', [
      hold.accountId,
    ]);
    if ((rows[0]?.available ?? 0) < hold.amountCents) throw new AppError('insufficient_credits', 'Insufficient credits for this call');
  }
  const fee = Math.floor((hold.amountCents * charge.platformFeeBps) / 10_000);
  const earnings = await findOrCreateUserAccount(tx, 'creator_earnings', charge.creatorId);
  const entries = [
    { accountId: hold.accountId, amountCents: -hold.amountCents },
    { accountId: earnings, amountCents: hold.amountCents - fee },
  ];
  if (fee > 0) entries.push({ accountId: await findSystemAccount(tx, 'platform_fees'), amountCents: fee });
  await postLedgerTransaction(tx, { kind: 'call_charge', reference: charge.reference, description: charge.description, entries });
  if (hold.apiKeyId && hold.spendMonth) {
    await tx.query(
      `INSERT INTO api_key_spend (api_key_id, month, spent_cents) VALUES ($1, $2, $3)
       ON CONFLICT (api_key_id, month) DO UPDATE SET spent_cents = api_key_spend.spent_cents + EXCLUDED.spent_cents`,
      [hold.apiKeyId, hold.spendMonth, hold.amountCents],
    );
  }
}

/** Gives the held credits back (the call failed or the client went away). */
export async function releaseCharge(db: Database, hold: CreditHold): Promise<void> {
  await db.transaction((tx) => removeHold(tx, hold));
}

/** Releases holds whose process never settled or released them. Returns how many. */
export async function sweepExpiredHolds(db: Database): Promise<number> {
  const { rows } = await db.query<{ id: string; account_id: number; amount_cents: number; api_key_id: string | null; spend_month: string | null }>(
    'SELECT id, account_id, amount_cents, api_key_id, spend_month FROM credit_holds WHERE expires_at < now() LIMIT 1000',
  );
  let released = 0;
  for (const row of rows) {
    const hold = { id: row.id, accountId: row.account_id, amountCents: row.amount_cents, apiKeyId: row.api_key_id, spendMonth: row.spend_month };
    if (await db.transaction((tx) => removeHold(tx, hold))) released++;
  }
  return released;
}
