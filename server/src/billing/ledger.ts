// The double-entry credits ledger. Every movement of money is one ledger transaction whose
// entries sum to zero (a trigger refuses any statement that leaves one unbalanced, so a transaction's
// entries are written by one statement: migration 0040) and are all in one currency (keys refuse
// anything else, migration 0032), written in the same database transaction as the balances it
// changes. Callers open the transaction and pass it in.
import type { Queryable } from '../db/client.ts';
import { AppError } from '../platform/errors.ts';

export type UserAccountKind = 'user_credits' | 'creator_earnings';
export type SystemAccountKind = 'platform_fees' | 'outside_funding' | 'model_costs' | 'creator_payouts';

export interface LedgerEntryInput {
  accountId: number;
  amountCents: number;
}

/** A user's account of one kind in one currency (lower-case ISO 4217, amounts in its minor unit). */
export async function findOrCreateUserAccount(tx: Queryable, kind: UserAccountKind | 'payouts_in_transit', userId: string, currency = 'usd'): Promise<number> {
  const inserted = await tx.query<{ id: number }>(
    `INSERT INTO ledger_accounts (kind, user_id, currency) VALUES ($1, $2, $3)
     ON CONFLICT (kind, user_id, currency) WHERE user_id IS NOT NULL DO NOTHING RETURNING id`,
    [kind, userId, currency],
  );
  if (inserted.rows[0]) return inserted.rows[0].id;
  const existing = await tx.query<{ id: number }>('SELECT id FROM ledger_accounts WHERE kind = $1 AND user_id = $2 AND currency = $3', [
    kind,
    userId,
    currency,
  ]);
  return existing.rows[0]!.id;
}

/** The platform's account of one kind in one currency; US-dollar ones exist from the first migration, others are made on first use. */
export async function findSystemAccount(tx: Queryable, kind: SystemAccountKind, currency = 'usd'): Promise<number> {
  const { rows } = await tx.query<{ id: number }>('SELECT id FROM ledger_accounts WHERE kind = $1 AND user_id IS NULL AND currency = $2', [kind, currency]);
  if (rows[0]) return rows[0].id;
  if (currency === 'usd') throw new Error(`system ledger account ${kind} is missing`);
  await tx.query(`INSERT INTO ledger_accounts (kind, currency) VALUES ($1, $2) ON CONFLICT (kind, currency) WHERE user_id IS NULL DO NOTHING`, [
    kind,
    currency,
  ]);
  const created = await tx.query<{ id: number }>('SELECT id FROM ledger_accounts WHERE kind = $1 AND user_id IS NULL AND currency = $2', [kind, currency]);
  return created.rows[0]!.id;
}

/**
 * Posts one balanced ledger transaction and applies it to the account balances.
 * Returns null when `reference` was already posted (the movement happens at most once).
 * A user's credits can never go below zero: that raises insufficient_credits.
 */
export async function postLedgerTransaction(
  tx: Queryable,
  movement: { kind: string; reference?: string; description?: string; entries: LedgerEntryInput[] },
): Promise<string | null> {
  const entries = movement.entries.filter((entry) => entry.amountCents !== 0);
  for (const entry of entries) {
    if (!Number.isSafeInteger(entry.amountCents)) throw new Error(`ledger amounts are integer cents (got ${entry.amountCents})`);
  }
  if (entries.reduce((sum, entry) => sum + entry.amountCents, 0) !== 0) throw new Error('ledger transaction does not balance');
  // The transaction takes its first account's currency; each entry takes its account's. Keys
  // (migration 0032) refuse an entry whose currency is not its transaction's: one currency per movement.
  const created = await tx.query<{ id: string }>(
    `INSERT INTO ledger_transactions (kind, reference, description, currency)
     VALUES ($1, $2, $3, coalesce((SELECT currency FROM ledger_accounts WHERE id = $4), 'usd'))
     ON CONFLICT (reference) DO NOTHING RETURNING id`,
    [movement.kind, movement.reference ?? null, movement.description ?? '', entries[0]?.accountId ?? null],
  );
  const transactionId = created.rows[0]?.id;
  if (!transactionId) return null;
  // Lock accounts in id order so concurrent movements over the same accounts cannot deadlock.
  const sorted = [...entries].sort((a, b) => a.accountId - b.accountId);
  for (const entry of sorted) {
    let updated: number;
    try {
      ({ rowCount: updated } = await tx.query('UPDATE ledger_accounts SET balance_cents = balance_cents + $1 WHERE id = $2', [
        entry.amountCents,
        entry.accountId,
      ]));
    } catch (error) {
      if ((error as { code?: string }).code === '23514') throw new AppError('insufficient_credits', 'Insufficient credits');
      throw error;
    }
    if (updated !== 1) throw new Error(`ledger account ${entry.accountId} does not exist`);
  }
  // The entries in one statement: the balance check runs once per statement that writes entries (migration 0040).
  if (sorted.length > 0) {
    await tx.query(
      `INSERT INTO ledger_entries (transaction_id, account_id, amount_cents, currency)
       SELECT $1, a.id, e.amount, a.currency FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS e(account_id, amount, position)
       JOIN ledger_accounts a ON a.id = e.account_id ORDER BY e.position`,
      [transactionId, sorted.map((entry) => entry.accountId), sorted.map((entry) => entry.amountCents)],
    );
  }
  return transactionId;
}

/** A user's balance of one kind in one currency's minor unit (credits are US cents). */
export async function readBalanceCents(db: Queryable, kind: UserAccountKind, userId: string, currency = 'usd'): Promise<number> {
  const { rows } = await db.query<{ balance_cents: number }>('SELECT balance_cents FROM ledger_accounts WHERE kind = $1 AND user_id = $2 AND currency = $3', [
    kind,
    userId,
    currency,
  ]);
  return rows[0]?.balance_cents ?? 0;
}
