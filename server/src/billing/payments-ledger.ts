// Money that comes in from Stripe, into the ledger. Each movement carries a unique reference
// (the PaymentIntent or the Invoice id), so however many webhook deliveries and browser returns
// report the same payment, it is posted once.
import type { Queryable } from '../db/client.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from './ledger.ts';

/** A correctly signed Stripe object that does not match what we asked for: recorded, not applied. */
export class PaymentMismatchError extends Error {
  override name = 'PaymentMismatchError';
}

/** A succeeded top-up PaymentIntent: outside funding → the user's credits. True when this call credited it. */
export async function applyTopUpPayment(tx: Queryable, intent: { id: string; amount: number; currency: string; status: string }): Promise<boolean> {
  if (intent.status !== 'succeeded') return false;
  const { rows } = await tx.query<{ user_id: string; amount_cents: string }>(
    'SELECT user_id, amount_cents FROM credit_top_ups WHERE stripe_payment_intent_id = $1 FOR UPDATE',
    [intent.id],
  );
  const topUp = rows[0];
  if (!topUp) return false;
  // Stripe's amount is what was paid; it must be what was asked for.
  if (Number(topUp.amount_cents) !== intent.amount || intent.currency !== 'usd')
    throw new PaymentMismatchError(`top-up ${intent.id}: paid ${intent.amount} ${intent.currency}, expected ${topUp.amount_cents} usd`);
  await tx.query("UPDATE credit_top_ups SET status = 'succeeded' WHERE stripe_payment_intent_id = $1", [intent.id]);
  const posted = await postLedgerTransaction(tx, {
    kind: 'credit_top_up',
    reference: `topup:${intent.id}`,
    description: 'Credits top-up (card)',
    entries: [
      { accountId: await findSystemAccount(tx, 'outside_funding'), amountCents: -intent.amount },
      { accountId: await findOrCreateUserAccount(tx, 'user_credits', topUp.user_id), amountCents: intent.amount },
    ],
  });
  return posted !== null;
}

/**
 * A paid subscription invoice: outside funding → the creator's earnings, less the platform fee
 * (its own entry), and the amount counts as the app's revenue of the day it was paid.
 */
export async function applySubscriptionPayment(
  tx: Queryable,
  payment: { invoiceId: string; amountCents: number; subscriptionId: string; feeBps: number; paidAt: Date },
): Promise<boolean> {
  if (payment.amountCents <= 0) return false;
  const { rows } = await tx.query<{ app_id: string; owner_id: string; slug: string; package_name: string }>(
    `SELECT s.app_id, a.owner_id, a.slug, p.name AS package_name FROM subscriptions s JOIN apps a ON a.id = s.app_id JOIN packages p ON p.id = s.package_id WHERE s.id = $1`,
    [payment.subscriptionId],
  );
  const sub = rows[0];
  if (!sub) return false;
  const fee = Math.floor((payment.amountCents * payment.feeBps) / 10_000);
  const posted = await postLedgerTransaction(tx, {
    kind: 'subscription_payment',
    reference: `invoice:${payment.invoiceId}`,
    description: `Subscription to ${sub.slug} (${sub.package_name})`,
    entries: [
      { accountId: await findSystemAccount(tx, 'outside_funding'), amountCents: -payment.amountCents },
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', sub.owner_id), amountCents: payment.amountCents - fee },
      { accountId: await findSystemAccount(tx, 'platform_fees'), amountCents: fee },
    ],
  });
  if (posted === null) return false;
  await tx.query(
    `INSERT INTO app_daily_stats (app_id, day, revenue_cents) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3)
     ON CONFLICT (app_id, day) DO UPDATE SET revenue_cents = app_daily_stats.revenue_cents + EXCLUDED.revenue_cents`,
    [sub.app_id, payment.paidAt.toISOString(), payment.amountCents],
  );
  return true;
}
