// What a statement needs to know about a ledger movement that its entries do not say (decision
// 0036): a top-up's Stripe receipt (the Charge's receipt_url), and which subscription a paid
// invoice or a refunded subscription charge belongs to. Amounts are never taken from here: every
// figure of a statement is read from the ledger.
import type { Database, Queryable } from '../db/client.ts';
import type { StripeClient } from '../providers/stripe/client.ts';

type ChargeRef = string | { id: string; receipt_url?: string | null } | null | undefined;

/**
 * A succeeded top-up's receipt: the Charge of its PaymentIntent (`latest_charge`, expanded or an id
 * read from Stripe). Stored once known; a failure to ask Stripe leaves it for the next time
 * (the statement asks again for receipts it is missing).
 */
export async function recordTopUpReceipt(db: Queryable, stripe: StripeClient, intent: { id: string; latest_charge?: ChargeRef }): Promise<string | null> {
  const { rows } = await db.query<{ receipt_url: string | null }>(
    "SELECT receipt_url FROM credit_top_ups WHERE stripe_payment_intent_id = $1 AND status = 'succeeded'",
    [intent.id],
  );
  if (!rows[0]) return null;
  if (rows[0].receipt_url) return rows[0].receipt_url;
  let charge = intent.latest_charge;
  if (charge === undefined) charge = (await stripe.paymentIntents.retrieve(intent.id)).latest_charge;
  if (!charge) return null;
  const full = typeof charge === 'string' ? await stripe.charges.retrieve(charge) : charge;
  if (!full.receipt_url) return null;
  await db.query('UPDATE credit_top_ups SET stripe_charge_id = $2, receipt_url = $3 WHERE stripe_payment_intent_id = $1', [
    intent.id,
    full.id,
    full.receipt_url,
  ]);
  return full.receipt_url;
}

/** The same, never failing the caller: a receipt is not worth a failed webhook or top-up confirmation. */
export async function tryRecordTopUpReceipt(
  db: Database,
  stripe: StripeClient | null,
  intent: { id: string; latest_charge?: ChargeRef },
  log?: { warn(details: object, message: string): void },
): Promise<void> {
  if (!stripe) return;
  try {
    await recordTopUpReceipt(db, stripe, intent);
  } catch (error) {
    log?.warn({ paymentIntent: intent.id, error: (error as Error).message }, 'Could not read the top-up receipt from Stripe; the statement will ask again');
  }
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
