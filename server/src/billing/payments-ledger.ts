// Money that comes in from Stripe, into the ledger. Each movement carries a unique reference
// (the PaymentIntent or the Invoice id), so however many webhook deliveries and browser returns
// report the same payment, it is posted once.

import { currencyDecimals } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from './ledger.ts';
import { platformFeeOf } from './platform-fee.ts';

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
 * (its own entry), all in the invoice's currency (its minor unit: ₫100,000 is 100000 VND, never US
 * cents), and the amount counts as the app's revenue of the day it was paid: US cents in
 * app_daily_stats, any other currency apart in app_daily_currency_revenue (decision 0035).
 */
export async function applySubscriptionPayment(
  tx: Queryable,
  payment: { invoiceId: string; amountCents: number; currency: string; subscriptionId: string; feeBps: number; paidAt: Date },
): Promise<boolean> {
  if (payment.amountCents <= 0) return false;
  const { rows } = await tx.query<{ app_id: string; owner_id: string; slug: string; package_name: string }>(
    `SELECT s.app_id, a.owner_id, a.slug, p.name AS package_name FROM subscriptions s JOIN apps a ON a.id = s.app_id JOIN packages p ON p.id = s.package_id WHERE s.id = $1`,
    [payment.subscriptionId],
  );
  const sub = rows[0];
  if (!sub) return false;
  const currency = payment.currency.toLowerCase();
  if (currencyDecimals(currency) === null || !/^[a-z]{3}$/.test(currency))
    throw new PaymentMismatchError(`invoice ${payment.invoiceId}: currency ${currency} is not supported`);
  const fee = platformFeeOf(payment.amountCents, payment.feeBps);
  const posted = await postLedgerTransaction(tx, {
    kind: 'subscription_payment',
    reference: `invoice:${payment.invoiceId}`,
    description: `Subscription to ${sub.slug} (${sub.package_name})`,
    entries: [
      { accountId: await findSystemAccount(tx, 'outside_funding', currency), amountCents: -payment.amountCents },
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', sub.owner_id, currency), amountCents: payment.amountCents - fee },
      { accountId: await findSystemAccount(tx, 'platform_fees', currency), amountCents: fee },
    ],
  });
  if (posted === null) return false;
  const day = payment.paidAt.toISOString();
  if (currency === 'usd') {
    await tx.query(
      `INSERT INTO app_daily_stats (app_id, day, revenue_cents) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3)
       ON CONFLICT (app_id, day) DO UPDATE SET revenue_cents = app_daily_stats.revenue_cents + EXCLUDED.revenue_cents`,
      [sub.app_id, day, payment.amountCents],
    );
  } else {
    await tx.query(
      `INSERT INTO app_daily_currency_revenue (app_id, day, currency, revenue_minor) VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3, $4)
       ON CONFLICT (app_id, day, currency) DO UPDATE SET revenue_minor = app_daily_currency_revenue.revenue_minor + EXCLUDED.revenue_minor`,
      [sub.app_id, day, currency, payment.amountCents],
    );
  }
  return true;
}

/** The top-up paid by a PaymentIntent, locked; null when the PaymentIntent is not a top-up. */
async function lockTopUp(tx: Queryable, paymentIntentId: string) {
  const { rows } = await tx.query<{ id: string; user_id: string; amount_cents: string; refunded_cents: string; status: string }>(
    'SELECT id, user_id, amount_cents, refunded_cents, status FROM credit_top_ups WHERE stripe_payment_intent_id = $1 FOR UPDATE',
    [paymentIntentId],
  );
  return rows[0] ?? null;
}

/**
 * Credits taken back from a top-up (a refund or a dispute): user credits → outside funding. The
 * caller may have spent them already, so the credits may go below zero (SET LOCAL
 * tollbooth.overdraft, migration 0026); paid calls are then refused with 402 until they add credit.
 */
async function takeBackCredits(tx: Queryable, userId: string, amount: number, movement: { kind: string; reference: string; description: string }) {
  await tx.query("SELECT set_config('tollbooth.overdraft', 'on', true)");
  const posted = await postLedgerTransaction(tx, {
    ...movement,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'user_credits', userId), amountCents: -amount },
      { accountId: await findSystemAccount(tx, 'outside_funding'), amountCents: amount },
    ],
  });
  // Only this movement may overdraw; the rest of the transaction is held to the usual rule.
  await tx.query("SELECT set_config('tollbooth.overdraft', 'off', true)");
  return posted;
}

/**
 * charge.refunded of a top-up: Stripe reports the cumulative amount_refunded, so only its growth
 * is taken back (once per amount, whatever the number and order of deliveries). True when it took some.
 */
export async function applyTopUpRefund(tx: Queryable, charge: { id: string; payment_intent: string | null; amount_refunded: number }): Promise<boolean> {
  if (!charge.payment_intent) return false;
  const topUp = await lockTopUp(tx, charge.payment_intent);
  if (topUp?.status !== 'succeeded') return false;
  const refunded = Math.min(charge.amount_refunded, Number(topUp.amount_cents));
  const delta = refunded - Number(topUp.refunded_cents);
  if (delta <= 0) return false;
  await tx.query('UPDATE credit_top_ups SET refunded_cents = $2 WHERE id = $1', [topUp.id, refunded]);
  const posted = await takeBackCredits(tx, topUp.user_id, delta, {
    kind: 'top_up_refund',
    reference: `refund:${charge.id}:${refunded}`,
    description: `Top-up refunded (charge ${charge.id})`,
  });
  return posted !== null;
}

/**
 * A dispute of a top-up: charge.dispute.created takes the disputed amount back (less what was
 * already refunded); charge.dispute.closed as won gives it back. Each once, by the dispute's id.
 */
export async function applyTopUpDispute(
  tx: Queryable,
  /** refunded: what Stripe says the charge refunded (its charge.refunded event may come later: the dispute leaves it out all the same). */
  dispute: { id: string; payment_intent: string | null; amount: number; status: string; refunded: number },
  phase: 'created' | 'closed',
): Promise<boolean> {
  if (!dispute.payment_intent) return false;
  const topUp = await lockTopUp(tx, dispute.payment_intent);
  if (topUp?.status !== 'succeeded') return false;
  const taken = await tx.query<{ amount: string }>(
    `SELECT -e.amount_cents AS amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
     JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'user_credits' AND a.currency = 'usd' WHERE t.reference = $1`,
    [`dispute:${dispute.id}`],
  );
  if (phase === 'created' || taken.rows.length === 0) {
    // A closed event may come first: the dispute was opened all the same.
    const amount = Math.min(dispute.amount, Number(topUp.amount_cents) - Math.max(Number(topUp.refunded_cents), dispute.refunded));
    if (taken.rows.length === 0 && amount > 0) {
      await takeBackCredits(tx, topUp.user_id, amount, {
        kind: 'top_up_dispute',
        reference: `dispute:${dispute.id}`,
        description: `Top-up disputed (${dispute.id})`,
      });
    }
    if (phase === 'created') return amount > 0;
  }
  if (dispute.status !== 'won') return false;
  const given = (
    await tx.query<{ amount: string }>(
      `SELECT -e.amount_cents AS amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
       JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'user_credits' AND a.currency = 'usd' WHERE t.reference = $1`,
      [`dispute:${dispute.id}`],
    )
  ).rows[0];
  if (!given) return false;
  const posted = await postLedgerTransaction(tx, {
    kind: 'top_up_dispute_won',
    reference: `dispute-won:${dispute.id}`,
    description: `Dispute won (${dispute.id}): credits restored`,
    entries: [
      { accountId: await findSystemAccount(tx, 'outside_funding'), amountCents: -Number(given.amount) },
      { accountId: await findOrCreateUserAccount(tx, 'user_credits', topUp.user_id), amountCents: Number(given.amount) },
    ],
  });
  return posted !== null;
}

/**
 * A refunded subscription payment (charge.refunded on an invoice's PaymentIntent): the included calls
 * of that period end (when it is still the current one), and the refund is the platform's: it leaves
 * the platform fees account for outside funding. The creator keeps the earnings the payment booked
 * (the payout hold covers the platform). Stripe reports the cumulative amount_refunded; only its
 * growth is posted, under the subscription's row lock, once per amount, in the charge's currency.
 */
export async function applySubscriptionRefund(
  tx: Queryable,
  refund: { chargeId: string; amountRefunded: number; currency: string; invoiceId: string; stripeSubscriptionId: string; periodEnd: number | null },
): Promise<boolean> {
  const { rows } = await tx.query<{ id: string; current_period_end: Date }>(
    'SELECT id, current_period_end FROM subscriptions WHERE stripe_subscription_id = $1 FOR UPDATE',
    [refund.stripeSubscriptionId],
  );
  const sub = rows[0];
  if (!sub) return false;
  if (refund.periodEnd === null || refund.periodEnd * 1000 >= sub.current_period_end.getTime()) {
    await tx.query('UPDATE subscriptions SET included_used = included_calls WHERE id = $1', [sub.id]);
  }
  const prior = await tx.query<{ reference: string }>("SELECT reference FROM ledger_transactions WHERE kind = 'subscription_refund' AND reference LIKE $1", [
    `refund:${refund.chargeId}:%`,
  ]);
  const already = Math.max(0, ...prior.rows.map((row) => Number(row.reference.split(':').pop())));
  const delta = refund.amountRefunded - already;
  if (delta <= 0) return false;
  const posted = await postLedgerTransaction(tx, {
    kind: 'subscription_refund',
    reference: `refund:${refund.chargeId}:${refund.amountRefunded}`,
    description: `Subscription payment refunded (invoice ${refund.invoiceId})`,
    entries: [
      { accountId: await findSystemAccount(tx, 'platform_fees', refund.currency.toLowerCase()), amountCents: -delta },
      { accountId: await findSystemAccount(tx, 'outside_funding', refund.currency.toLowerCase()), amountCents: delta },
    ],
  });
  return posted !== null;
}

/** A dispute of a subscription payment, with what the webhook learnt from Stripe before its transaction. */
export interface SubscriptionDispute {
  id: string;
  chargeId: string;
  amount: number;
  currency: string;
  status: string;
  invoiceId: string;
  /** What the invoice was paid (Stripe's amount_paid): a dispute never takes back more, less what was refunded. */
  amountPaid: number;
  /**
   * What Stripe says the charge refunded when the dispute event was handled. A refund's event may
   * arrive after the dispute's: the dispute leaves it out all the same, so the two take back the
   * same in either order.
   */
  refunded: number;
  stripeSubscriptionId: string;
  /** End of the period the invoice paid for (its first line); null when Stripe did not say. */
  periodEnd: number | null;
}

/**
 * A dispute of a subscription payment (charge.dispute.created / closed on an invoice's charge), by the
 * rules of a refund (applySubscriptionRefund): the included calls of the period it paid for end, when
 * that period is still the current one, and the disputed amount leaves the platform fees for outside
 * funding, in the subscription's currency (reference dispute:<id>). The creator keeps the earnings the
 * payment booked; the payout hold covers the platform (decision 0031). A closed event that arrives
 * before the created one records the dispute first. A won dispute gives the amount back to the platform
 * fees once (dispute-won:<id>); the included calls stay ended: the caller's use of the period is not
 * given back, as a dispute is the caller's word that they did not want it. Applied once per dispute,
 * under the subscription's row lock, however often and in whatever order the events arrive.
 */
export async function applySubscriptionDispute(tx: Queryable, dispute: SubscriptionDispute, phase: 'created' | 'closed'): Promise<boolean> {
  const { rows } = await tx.query<{ id: string; current_period_end: Date; currency: string }>(
    'SELECT id, current_period_end, currency FROM subscriptions WHERE stripe_subscription_id = $1 FOR UPDATE',
    [dispute.stripeSubscriptionId],
  );
  const sub = rows[0];
  if (!sub) return false;
  if (dispute.currency !== sub.currency)
    throw new PaymentMismatchError(`dispute ${dispute.id}: ${dispute.amount} ${dispute.currency} on a subscription in ${sub.currency}`);
  const opened = await openSubscriptionDispute(tx, dispute, sub);
  if (phase === 'created' || dispute.status !== 'won') return opened;
  const taken = await tx.query<{ amount: string }>(
    `SELECT -e.amount_cents AS amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
     JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'platform_fees' WHERE t.reference = $1`,
    [`dispute:${dispute.id}`],
  );
  const amount = Number(taken.rows[0]?.amount ?? 0);
  if (amount <= 0) return opened;
  const posted = await postLedgerTransaction(tx, {
    kind: 'subscription_dispute_won',
    reference: `dispute-won:${dispute.id}`,
    description: `Dispute won (${dispute.id}, invoice ${dispute.invoiceId})`,
    entries: [
      { accountId: await findSystemAccount(tx, 'outside_funding', sub.currency), amountCents: -amount },
      { accountId: await findSystemAccount(tx, 'platform_fees', sub.currency), amountCents: amount },
    ],
  });
  return opened || posted !== null;
}

/** Records a subscription payment's dispute once: its ledger movement, and the end of the period's included calls. True when this call recorded it. */
async function openSubscriptionDispute(tx: Queryable, dispute: SubscriptionDispute, sub: { id: string; current_period_end: Date; currency: string }) {
  const known = await tx.query('SELECT 1 FROM ledger_transactions WHERE reference = $1', [`dispute:${dispute.id}`]);
  if (known.rows.length > 0) return false;
  const prior = await tx.query<{ reference: string }>("SELECT reference FROM ledger_transactions WHERE kind = 'subscription_refund' AND reference LIKE $1", [
    `refund:${dispute.chargeId}:%`,
  ]);
  const refunded = Math.max(0, dispute.refunded, ...prior.rows.map((row) => Number(row.reference.split(':').pop())));
  const amount = Math.min(dispute.amount, dispute.amountPaid - refunded);
  if (dispute.periodEnd === null || dispute.periodEnd * 1000 >= sub.current_period_end.getTime()) {
    await tx.query('UPDATE subscriptions SET included_used = included_calls WHERE id = $1', [sub.id]);
  }
  if (amount <= 0) return false;
  const posted = await postLedgerTransaction(tx, {
    kind: 'subscription_dispute',
    reference: `dispute:${dispute.id}`,
    description: `Subscription payment disputed (${dispute.id}, invoice ${dispute.invoiceId})`,
    entries: [
      { accountId: await findSystemAccount(tx, 'platform_fees', sub.currency), amountCents: -amount },
      { accountId: await findSystemAccount(tx, 'outside_funding', sub.currency), amountCents: amount },
    ],
  });
  return posted !== null;
}
