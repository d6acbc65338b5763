// The SQL of billing's reads: a user's balances, their own ledger entries, whether the sign-up
// credits were granted. (The SQL that moves
// money lives with its statement: paid-call/, ledger.ts, payments/, payouts/.)
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
