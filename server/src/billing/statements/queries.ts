// The SQL of statements (decision 0036): a user's ledger accounts, their entries of a month and
// the balances around it, the calls and subscriptions those entries paid, and what statements
// record beside the ledger (receipts.ts: receipts, which invoice a movement paid). Every amount is
// read from the ledger; each statement takes the database explicitly.
import type { Queryable } from '../../db/client.ts';

export interface MonthRange {
  month: string;
  from: Date;
  to: Date;
}

/** A call's ledger transaction is written moments after the call (paid-call/settlement-sql.ts); two days cover any settlement, even a recovered one. */
const SETTLEMENT_SLACK = '2 days';
/**
 * The ledger movements of a subscription invoice's charge (si) that went back to the card: its refunds
 * (refund:<charge>:<n>) and its dispute (dispute:<id>, and dispute-won:<id> when the platform won it).
 */
const SUBSCRIPTION_ADJUSTMENT = `((t.kind = 'subscription_refund' AND t.reference LIKE 'refund:' || si.charge_id || ':%')
  OR (t.kind IN ('subscription_dispute', 'subscription_dispute_won') AND t.reference IN ('dispute:' || si.dispute_id, 'dispute-won:' || si.dispute_id)))`;

/** The outside-funding entries, in the month ($2 to $3), of the refunds and disputes of subscription invoices `si`. */
const REFUNDED_OR_DISPUTED_IN_RANGE = `JOIN ledger_transactions t ON ${SUBSCRIPTION_ADJUSTMENT}
     JOIN ledger_entries e ON e.transaction_id = t.id
     JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'outside_funding'
     WHERE (si.charge_id IS NOT NULL OR si.dispute_id IS NOT NULL) AND e.created_at >= $2 AND e.created_at < $3 ORDER BY e.created_at, t.reference`;

// ---- ledger accounts and entries ----

export interface Account {
  id: number;
  currency: string;
  kind: string;
}

/** The user's ledger accounts of these kinds, by currency. */
export async function selectAccounts(db: Queryable, userId: string, kinds: string[]): Promise<Account[]> {
  const { rows } = await db.query<{ id: string; currency: string; kind: string }>(
    'SELECT id, currency, kind FROM ledger_accounts WHERE user_id = $1 AND kind = ANY($2::text[]) ORDER BY currency, kind',
    [userId, kinds],
  );
  return rows.map((row) => ({ id: Number(row.id), currency: row.currency, kind: row.kind }));
}

/** The account's balance as its entries before `from` and before `to` sum it. */
export async function selectBalances(db: Queryable, accountId: number, range: MonthRange): Promise<{ opening: string; closing: string } | undefined> {
  const { rows } = await db.query<{ opening: string; closing: string }>(
    `SELECT coalesce(sum(amount_cents) FILTER (WHERE created_at < $2), 0) AS opening, coalesce(sum(amount_cents), 0) AS closing
     FROM ledger_entries WHERE account_id = $1 AND created_at < $3`,
    [accountId, range.from, range.to],
  );
  return rows[0];
}

/** The time of the account's first entry at or after `after` (one index probe), or null. */
export async function selectFirstEntryAt(db: Queryable, accountId: number, after: Date): Promise<Date | null> {
  const { rows } = await db.query<{ first: Date | null }>('SELECT min(created_at) AS first FROM ledger_entries WHERE account_id = $1 AND created_at >= $2', [
    accountId,
    after,
  ]);
  return rows[0]?.first ?? null;
}

export interface EntryRow {
  transaction_id: string;
  kind: string;
  reference: string | null;
  description: string;
  created_at: Date;
  amount_cents: string;
}

/** One account's entries of the month but those of these transaction kinds, oldest first. */
export async function selectEntriesOfMonth(db: Queryable, accountId: number, range: MonthRange, exceptKinds: string[]): Promise<EntryRow[]> {
  const { rows } = await db.query<EntryRow>(
    `SELECT t.id AS transaction_id, t.kind, t.reference, t.description, e.created_at, e.amount_cents
     FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
     WHERE e.account_id = $1 AND e.created_at >= $2 AND e.created_at < $3 AND NOT (t.kind = ANY($4::text[]))
     ORDER BY e.created_at, e.id`,
    [accountId, range.from, range.to, exceptKinds],
  );
  return rows;
}

// ---- a caller's month ----

/** The receipts known of the user's top-ups paid by these PaymentIntents. */
export async function selectTopUpReceipts(db: Queryable, userId: string, paymentIntentIds: string[]) {
  const { rows } = await db.query<{ stripe_payment_intent_id: string; receipt_url: string | null }>(
    'SELECT stripe_payment_intent_id, receipt_url FROM credit_top_ups WHERE user_id = $1 AND stripe_payment_intent_id = ANY($2::text[])',
    [userId, paymentIntentIds],
  );
  return rows;
}

/**
 * Calls paid from the credits account in the month, per app: a call_charge transaction's calls are
 * the invocations that refer to it, all of one app (decision 0062).
 */
export async function selectSpendByApp(db: Queryable, accountId: number, range: MonthRange) {
  const { rows } = await db.query<{ slug: string | null; name: string | null; calls: string; amount: string }>(
    `SELECT ap.slug, ap.name, sum(x.calls) AS calls, -sum(x.amount) AS amount
     FROM (
       SELECT t.id, sum(e.amount_cents) AS amount, c.app_id, greatest(c.calls, 1) AS calls
       FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id AND t.kind = 'call_charge'
       CROSS JOIN LATERAL (SELECT (array_agg(i.app_id))[1] AS app_id, count(*) AS calls FROM invocations i WHERE i.ledger_transaction_id = t.id) c
       WHERE e.account_id = $1 AND e.created_at >= $2 AND e.created_at < $3
       GROUP BY t.id, c.app_id, c.calls
     ) x LEFT JOIN apps ap ON ap.id = x.app_id
     GROUP BY ap.id, ap.slug, ap.name ORDER BY amount DESC, ap.slug`,
    [accountId, range.from, range.to],
  );
  return rows;
}

/** The caller's subscription invoices paid in the month (by card: outside funding in the invoice's currency). */
export async function selectPaidInvoices(db: Queryable, userId: string, range: MonthRange) {
  const { rows } = await db.query<{
    invoice_id: string;
    period_start: Date | null;
    period_end: Date | null;
    created_at: Date;
    amount: string;
    currency: string;
    plan: string;
    slug: string;
    name: string;
  }>(
    `SELECT si.invoice_id, si.period_start, si.period_end, e.created_at, -e.amount_cents AS amount, a.currency, p.name AS plan, ap.slug, ap.name
     FROM subscription_invoices si
     JOIN subscriptions s ON s.id = si.subscription_id AND s.user_id = $1
     JOIN packages p ON p.id = s.package_id JOIN apps ap ON ap.id = s.app_id
     JOIN ledger_transactions t ON t.reference = 'invoice:' || si.invoice_id AND t.kind = 'subscription_payment'
     JOIN ledger_entries e ON e.transaction_id = t.id
     JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'outside_funding'
     WHERE e.created_at >= $2 AND e.created_at < $3 ORDER BY e.created_at, si.invoice_id`,
    [userId, range.from, range.to],
  );
  return rows;
}

/** The refunds and disputes of the caller's subscription payments in the month. */
export async function selectSubscriptionAdjustments(db: Queryable, userId: string, range: MonthRange) {
  const { rows } = await db.query<{
    created_at: Date;
    amount: string;
    currency: string;
    plan: string;
    slug: string;
    kind: string;
    reference: string;
    description: string;
  }>(
    `SELECT e.created_at, e.amount_cents AS amount, a.currency, p.name AS plan, ap.slug, t.kind, t.reference, t.description
     FROM subscription_invoices si
     JOIN subscriptions s ON s.id = si.subscription_id AND s.user_id = $1
     JOIN packages p ON p.id = s.package_id JOIN apps ap ON ap.id = s.app_id
     ${REFUNDED_OR_DISPUTED_IN_RANGE}`,
    [userId, range.from, range.to],
  );
  return rows;
}

/** The months (UTC) in which the caller paid a subscription invoice (those leave no entry on the caller's accounts). */
export async function selectInvoiceMonths(db: Queryable, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ month: string }>(
    `SELECT DISTINCT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month
     FROM subscription_invoices si JOIN subscriptions s ON s.id = si.subscription_id AND s.user_id = $1
     JOIN ledger_transactions t ON t.reference = 'invoice:' || si.invoice_id`,
    [userId],
  );
  return rows.map((row) => row.month);
}

// ---- a creator's month ----

/**
 * The money of the creator's apps' calls in the month, per currency and app, by the entries of
 * their ledger transactions (one per batch, app, caller and description: decision 0062), each
 * counted with the calls it carries.
 */
export async function selectCallsByApp(db: Queryable, userId: string, range: MonthRange) {
  const { rows } = await db.query<{
    currency: string;
    slug: string;
    name: string;
    calls: string;
    gross: string;
    fee: string;
    model_cost: string;
    model_cost_micros: string;
    drawn: string;
    net: string;
  }>(
    // model_cost_micros: the calls' own model cost, as the rollups analytics reads add it (issue 61: the
    // ledger posts whole cents from a running total, so a month of sub-cent costs could post 0).
    `WITH txs AS (
       SELECT i.ledger_transaction_id AS id, ap.id AS app_id, ap.slug, ap.name, count(*) AS calls,
         coalesce(sum(i.model_cost_micros), 0) AS model_cost_micros
       FROM apps ap JOIN invocations i ON i.app_id = ap.id
       WHERE ap.owner_id = $1 AND i.ledger_transaction_id IS NOT NULL
         AND i.created_at >= $2::timestamptz - interval '${SETTLEMENT_SLACK}' AND i.created_at < $3
       GROUP BY 1, 2, 3, 4
     ),
     moved AS (
       SELECT a.currency, x.app_id, x.slug, x.name, x.calls, x.model_cost_micros,
         coalesce(sum(-e.amount_cents) FILTER (WHERE a.kind = 'user_credits' AND a.user_id <> $1), 0) AS gross,
         coalesce(sum(e.amount_cents) FILTER (WHERE a.kind = 'platform_fees'), 0) AS fee,
         coalesce(sum(e.amount_cents) FILTER (WHERE a.kind = 'model_costs'), 0) AS model_cost,
         coalesce(sum(-e.amount_cents) FILTER (WHERE a.kind = 'user_credits' AND a.user_id = $1), 0) AS drawn,
         coalesce(sum(e.amount_cents) FILTER (WHERE a.kind = 'creator_earnings'), 0) AS net
       FROM txs x JOIN ledger_entries e ON e.transaction_id = x.id JOIN ledger_accounts a ON a.id = e.account_id
       WHERE e.created_at >= $2 AND e.created_at < $3
       GROUP BY x.id, a.currency, x.app_id, x.slug, x.name, x.calls, x.model_cost_micros
     )
     SELECT currency, slug, name, sum(calls) AS calls, sum(gross) AS gross, sum(fee) AS fee, sum(model_cost) AS model_cost,
       sum(model_cost_micros) AS model_cost_micros, sum(drawn) AS drawn, sum(net) AS net
     FROM moved GROUP BY currency, app_id, slug, name ORDER BY currency, gross DESC, slug`,
    [userId, range.from, range.to],
  );
  return rows;
}

/** Refunds and disputes of the creator's callers' subscription payments in the month: the platform's (fees → outside funding). */
export async function selectRefundsSeen(db: Queryable, userId: string, range: MonthRange) {
  const { rows } = await db.query<{ created_at: Date; amount: string; currency: string; plan: string; slug: string; name: string; reference: string }>(
    `SELECT e.created_at, e.amount_cents AS amount, a.currency, p.name AS plan, ap.slug, ap.name, t.reference
     FROM subscription_invoices si
     JOIN subscriptions s ON s.id = si.subscription_id
     JOIN apps ap ON ap.id = s.app_id AND ap.owner_id = $1 JOIN packages p ON p.id = s.package_id
     ${REFUNDED_OR_DISPUTED_IN_RANGE}`,
    [userId, range.from, range.to],
  );
  return rows;
}

/** What each subscription_payment transaction was: its gross, its fee, and its plan, app and invoice when known. */
export async function selectSubscriptionPayments(db: Queryable, transactionIds: string[]) {
  const { rows } = await db.query<{
    id: string;
    gross: string;
    fee: string;
    plan: string | null;
    slug: string | null;
    name: string | null;
    invoice_id: string | null;
  }>(
    `SELECT t.id,
       coalesce((SELECT -sum(e.amount_cents) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'outside_funding' WHERE e.transaction_id = t.id), 0) AS gross,
       coalesce((SELECT sum(e.amount_cents) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'platform_fees' WHERE e.transaction_id = t.id), 0) AS fee,
       p.name AS plan, ap.slug, ap.name, si.invoice_id
     FROM ledger_transactions t
     LEFT JOIN subscription_invoices si ON t.reference = 'invoice:' || si.invoice_id
     LEFT JOIN subscriptions s ON s.id = si.subscription_id LEFT JOIN packages p ON p.id = s.package_id LEFT JOIN apps ap ON ap.id = s.app_id
     WHERE t.id = ANY($1::uuid[])`,
    [transactionIds],
  );
  return rows;
}

// ---- what statements record beside the ledger ----

/** A succeeded top-up's receipt, if known (null when the PaymentIntent is no succeeded top-up). */
export async function selectSucceededTopUpReceipt(db: Queryable, paymentIntentId: string): Promise<{ receipt_url: string | null } | null> {
  const { rows } = await db.query<{ receipt_url: string | null }>(
    "SELECT receipt_url FROM credit_top_ups WHERE stripe_payment_intent_id = $1 AND status = 'succeeded'",
    [paymentIntentId],
  );
  return rows[0] ?? null;
}

/** A top-up's receipt, if known. */
export async function selectTopUpReceipt(db: Queryable, paymentIntentId: string): Promise<string | null> {
  const { rows } = await db.query<{ receipt_url: string | null }>('SELECT receipt_url FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [
    paymentIntentId,
  ]);
  return rows[0]?.receipt_url ?? null;
}

/** The Charge that paid a top-up, and its receipt. */
export async function updateTopUpReceipt(db: Queryable, paymentIntentId: string, chargeId: string, receiptUrl: string): Promise<void> {
  await db.query('UPDATE credit_top_ups SET stripe_charge_id = $2, receipt_url = $3 WHERE stripe_payment_intent_id = $1', [
    paymentIntentId,
    chargeId,
    receiptUrl,
  ]);
}

/** A paid subscription invoice (the ledger's invoice:<id>): its subscription and period. In the webhook's transaction. */
export async function recordSubscriptionInvoice(
  tx: Queryable,
  invoice: { invoiceId: string; subscriptionId: string; period: { start: number; end: number } | null },
): Promise<void> {
  await tx.query(
    `INSERT INTO subscription_invoices (invoice_id, subscription_id, period_start, period_end) VALUES ($1, $2, to_timestamp($3), to_timestamp($4))
     ON CONFLICT (invoice_id) DO UPDATE SET period_start = coalesce(subscription_invoices.period_start, EXCLUDED.period_start),
       period_end = coalesce(subscription_invoices.period_end, EXCLUDED.period_end)`,
    [invoice.invoiceId, invoice.subscriptionId, invoice.period?.start ?? null, invoice.period?.end ?? null],
  );
}

/** A refunded subscription charge (the ledger's refund:<charge>:<n>): which invoice, so which subscription, it paid. */
export async function recordSubscriptionCharge(tx: Queryable, refund: { chargeId: string; invoiceId: string; stripeSubscriptionId: string }): Promise<void> {
  await tx.query(
    `INSERT INTO subscription_invoices (invoice_id, subscription_id, charge_id)
     SELECT $1, id, $2 FROM subscriptions WHERE stripe_subscription_id = $3
     ON CONFLICT (invoice_id) DO UPDATE SET charge_id = EXCLUDED.charge_id`,
    [refund.invoiceId, refund.chargeId, refund.stripeSubscriptionId],
  );
}

/** A disputed subscription charge (the ledger's dispute:<id>, dispute-won:<id>): which invoice, so which subscription, it paid. */
export async function recordSubscriptionDispute(
  tx: Queryable,
  dispute: { id: string; chargeId: string; invoiceId: string; stripeSubscriptionId: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO subscription_invoices (invoice_id, subscription_id, charge_id, dispute_id)
     SELECT $1, id, $2, $3 FROM subscriptions WHERE stripe_subscription_id = $4
     ON CONFLICT (invoice_id) DO UPDATE SET charge_id = EXCLUDED.charge_id, dispute_id = EXCLUDED.dispute_id`,
    [dispute.invoiceId, dispute.chargeId, dispute.id, dispute.stripeSubscriptionId],
  );
}
