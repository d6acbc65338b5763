import type { Queryable } from '../db/client.ts';

/**
 * The calls charged by the settlement (decision 0062): the invocations that refer to a call_charge
 * ledger transaction, and how many call_charge transactions no invocation refers to (money moved for
 * no recorded call, which must never happen). An invocation refers to one transaction at most, so a
 * call listed here was charged once; the balances say by how much.
 */
export async function chargedCalls(db: Queryable): Promise<{ ids: string[]; orphans: number }> {
  const charged = await db.query<{ id: string }>(
    `SELECT i.id FROM invocations i JOIN ledger_transactions t ON t.id = i.ledger_transaction_id AND t.kind = 'call_charge' ORDER BY i.id`,
  );
  const orphans = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions t
     WHERE t.kind = 'call_charge' AND NOT EXISTS (SELECT 1 FROM invocations i WHERE i.ledger_transaction_id = t.id)`,
  );
  return { ids: charged.rows.map((row) => row.id), orphans: orphans.rows[0]!.n };
}
