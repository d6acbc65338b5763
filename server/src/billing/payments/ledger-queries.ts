// The SQL of ledger.ts (money that comes in from Stripe): what a movement needs to know before it
// is posted, and what it writes beside the ledger. The ledger's own statements are in ../ledger.ts.
import type { Queryable } from '../../db/client.ts';

/** Lets the transaction's next ledger movements overdraw a user's credits (migration 0026), or stops them. */
export async function allowOverdraft(tx: Queryable, allowed: boolean): Promise<void> {
  await tx.query(allowed ? "SELECT set_config('tollbooth.overdraft', 'on', true)" : "SELECT set_config('tollbooth.overdraft', 'off', true)");
}

/** What a subscription payment is for: its app, the app's owner, and the plan's name. */
export async function selectSubscriptionPayee(
  tx: Queryable,
  subscriptionId: string,
): Promise<{ app_id: string; owner_id: string; slug: string; package_name: string } | null> {
  const { rows } = await tx.query<{ app_id: string; owner_id: string; slug: string; package_name: string }>(
    `SELECT s.app_id, a.owner_id, a.slug, p.name AS package_name FROM subscriptions s JOIN apps a ON a.id = s.app_id JOIN packages p ON p.id = s.package_id WHERE s.id = $1`,
    [subscriptionId],
  );
  return rows[0] ?? null;
}

/**
 * A subscription payment counts as the app's revenue of the day it was paid (`paidAt`, UTC): US
 * cents in app_daily_stats, any other currency apart in app_daily_currency_revenue (decision 0035).
 */
export async function addSubscriptionRevenue(tx: Queryable, revenue: { appId: string; paidAt: string; currency: string; amountMinor: number }): Promise<void> {
  if (revenue.currency === 'usd') {
    await tx.query(
      `INSERT INTO app_daily_stats (app_id, day, revenue_cents) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3)
       ON CONFLICT (app_id, day) DO UPDATE SET revenue_cents = app_daily_stats.revenue_cents + EXCLUDED.revenue_cents`,
      [revenue.appId, revenue.paidAt, revenue.amountMinor],
    );
  } else {
    await tx.query(
      `INSERT INTO app_daily_currency_revenue (app_id, day, currency, revenue_minor) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3, $4)
       ON CONFLICT (app_id, day, currency) DO UPDATE SET revenue_minor = app_daily_currency_revenue.revenue_minor + EXCLUDED.revenue_minor`,
      [revenue.appId, revenue.paidAt, revenue.currency, revenue.amountMinor],
    );
  }
}

const TAKEN_FROM_CREDITS_SQL = `SELECT -e.amount_cents AS amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
  JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'user_credits' AND a.currency = 'usd' WHERE t.reference = $1`;
const TAKEN_FROM_FEES_SQL = `SELECT -e.amount_cents AS amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
  JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'platform_fees' WHERE t.reference = $1`;

/** What the ledger transaction `reference` took from an account of this kind (US-dollar credits, or platform fees); null when none. */
export async function selectAmountTaken(tx: Queryable, reference: string, from: 'user_credits' | 'platform_fees'): Promise<number | null> {
  const { rows } = await tx.query<{ amount: string }>(from === 'user_credits' ? TAKEN_FROM_CREDITS_SQL : TAKEN_FROM_FEES_SQL, [reference]);
  return rows[0] ? Number(rows[0].amount) : null;
}

/** The most a charge's refunds have refunded so far (their references are refund:<charge>:<cumulative amount>). */
export async function selectRefundedSoFar(tx: Queryable, chargeId: string): Promise<number> {
  const { rows } = await tx.query<{ reference: string }>("SELECT reference FROM ledger_transactions WHERE kind = 'subscription_refund' AND reference LIKE $1", [
    `refund:${chargeId}:%`,
  ]);
  return Math.max(0, ...rows.map((row) => Number(row.reference.split(':').pop())));
}

export async function ledgerReferenceExists(tx: Queryable, reference: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM ledger_transactions WHERE reference = $1', [reference]);
  return rows.length > 0;
}
