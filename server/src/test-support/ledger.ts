// The money tests' ledger: money granted from outside (as a top-up or a subscription payment books
// it), and the ledger's two invariants, checked after the calls: the entries sum to zero, and every
// account's balance equals the sum of its entries.
import { expect } from 'vitest';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from '../billing/ledger.ts';
import type { Database } from '../db/client.ts';

/** Money from outside funding: a top-up to the user's credits, or earnings (as a subscription payment books them). */
export async function grantFromOutside(db: Database, userId: string, kind: 'user_credits' | 'creator_earnings', cents: number): Promise<void> {
  await db.transaction(async (tx) => {
    const account = await findOrCreateUserAccount(tx, kind, userId);
    const funding = await findSystemAccount(tx, 'outside_funding');
    await postLedgerTransaction(tx, {
      kind: 'test_grant',
      entries: [
        { accountId: account, amountCents: cents },
        { accountId: funding, amountCents: -cents },
      ],
    });
  });
}

/** Anything that runs a query: the server's Database, or a PGlite opened on a stopped process's data. */
interface Queries {
  query<Row>(sql: string): Promise<{ rows: Row[] }>;
}

/** The entries sum to zero and every account's balance equals its entries. */
export async function expectLedgerBalanced(db: Queries): Promise<void> {
  const { rows } = await db.query<{ total: number | string }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
  expect(Number(rows[0]!.total)).toBe(0);
  const mismatched = await db.query(
    `SELECT a.id FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
     GROUP BY a.id, a.balance_cents HAVING a.balance_cents <> coalesce(sum(e.amount_cents), 0)`,
  );
  expect(mismatched.rows).toEqual([]);
}
