// Money that comes in from Stripe, into the ledger. Each movement carries a unique reference
// (the PaymentIntent or the Invoice id), so however many webhook deliveries and browser returns
// report the same payment, it is posted once.

import { currencyDecimals } from '@tollbooth/contract';
import type { Queryable } from '../../db/client.ts';
import { recordWebhookEvent } from '../../webhooks/outbox-service.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from '../ledger.ts';
import { platformFeeOf } from '../platform-fee.ts';
import {
  addSubscriptionRevenue,
  allowOverdraft,
  ledgerReferenceExists,
  selectAmountTaken,
  selectRefundedSoFar,
  selectSubscriptionPayee,
} from './ledger-queries.ts';
import { lockSubscriptionByStripeId, lockTopUp, markTopUpSucceeded, updateTopUpRefunded, useUpIncludedCalls } from './queries.ts';

/** A correctly signed Stripe object that does not match what we asked for: recorded, not applied. */
export class PaymentMismatchError extends Error {
  override name = 'PaymentMismatchError';
}

/**
 * Posts a movement and, when this call posted it (its reference was new), records its webhook event in
 * the same transaction (webhooks/outbox-service.ts): committed with the money or not at all. True when posted.
 */
async function postTelling(tx: Queryable, movement: Parameters<typeof postLedgerTransaction>[1], event: Parameters<typeof recordWebhookEvent>[1]) {
  const posted = await postLedgerTransaction(tx, movement);
  if (posted !== null) await recordWebhookEvent(tx, event);
  return posted !== null;
}

/**
 * The entries of a subscription payment's money going back to outside funding (a refund, a dispute):
 * out of the platform fees account, which booked it (the creator keeps the earnings).
 */
async function feesBackToOutsideFunding(tx: Queryable, currency: string, amount: number) {
  return [
    { accountId: await findSystemAccount(tx, 'platform_fees', currency), amountCents: -amount },
    { accountId: await findSystemAccount(tx, 'outside_funding', currency), amountCents: amount },
  ];
}

/** A succeeded top-up PaymentIntent: outside funding → the user's credits. True when this call credited it. */
export async function applyTopUpPayment(tx: Queryable, intent: { id: string; amount: number; currency: string; status: string }): Promise<boolean> {
  if (intent.status !== 'succeeded') return false;
  const topUp = await lockTopUp(tx, intent.id);
  if (!topUp) return false;
  // Stripe's amount is what was paid; it must be what was asked for.
  if (Number(topUp.amount_cents) !== intent.amount || intent.currency !== 'usd')
    throw new PaymentMismatchError(`top-up ${intent.id}: paid ${intent.amount} ${intent.currency}, expected ${topUp.amount_cents} usd`);
  await markTopUpSucceeded(tx, intent.id);
  const movement = {
    kind: 'credit_top_up',
    reference: `topup:${intent.id}`,
    description: 'Credits top-up (card)',
    entries: [
      { accountId: await findSystemAccount(tx, 'outside_funding'), amountCents: -intent.amount },
      { accountId: await findOrCreateUserAccount(tx, 'user_credits', topUp.user_id), amountCents: intent.amount },
    ],
  };
  return postTelling(tx, movement, {
    type: 'topup.succeeded',
    userId: topUp.user_id,
    data: { top_up_id: topUp.id, payment_intent_id: intent.id, amount_cents: intent.amount, currency: 'usd' },
    dedupeKey: `topup.succeeded:${intent.id}`,
  });
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
  const sub = await selectSubscriptionPayee(tx, payment.subscriptionId);
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
  await addSubscriptionRevenue(tx, { appId: sub.app_id, paidAt: payment.paidAt.toISOString(), currency, amountMinor: payment.amountCents });
  return true;
}

/**
 * Credits taken back from a top-up (a refund or a dispute): user credits → outside funding. The
 * caller may have spent them already, so the credits may go below zero (SET LOCAL
 * tollbooth.overdraft, migration 0026); paid calls are then refused with 402 until they add credit.
 */
async function takeBackCredits(tx: Queryable, userId: string, amount: number, movement: { kind: string; reference: string; description: string }) {
  await allowOverdraft(tx, true);
  const posted = await postLedgerTransaction(tx, {
    ...movement,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'user_credits', userId), amountCents: -amount },
      { accountId: await findSystemAccount(tx, 'outside_funding'), amountCents: amount },
    ],
  });
  // Only this movement may overdraw; the rest of the transaction is held to the usual rule.
  await allowOverdraft(tx, false);
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
  await updateTopUpRefunded(tx, topUp.id, refunded);
  const posted = await takeBackCredits(tx, topUp.user_id, delta, {
    kind: 'top_up_refund',
    reference: `refund:${charge.id}:${refunded}`,
    description: `Top-up refunded (charge ${charge.id})`,
  });
  if (posted !== null) {
    await recordWebhookEvent(tx, {
      type: 'refund.created',
      userId: topUp.user_id,
      data: { charge_id: charge.id, top_up_id: topUp.id, amount_cents: delta, refunded_total_cents: refunded, currency: 'usd', of: 'top_up' },
      dedupeKey: `refund.created:${charge.id}:${refunded}`,
    });
  }
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
  const taken = await selectAmountTaken(tx, `dispute:${dispute.id}`, 'user_credits');
  if (phase === 'created' || taken === null) {
    // A closed event may come first: the dispute was opened all the same.
    const amount = Math.min(dispute.amount, Number(topUp.amount_cents) - Math.max(Number(topUp.refunded_cents), dispute.refunded));
    if (taken === null && amount > 0) {
      await takeBackCredits(tx, topUp.user_id, amount, {
        kind: 'top_up_dispute',
        reference: `dispute:${dispute.id}`,
        description: `Top-up disputed (${dispute.id})`,
      });
      await recordWebhookEvent(tx, {
        type: 'dispute.created',
        userId: topUp.user_id,
        data: { dispute_id: dispute.id, top_up_id: topUp.id, amount_cents: amount, currency: 'usd', of: 'top_up' },
        dedupeKey: `dispute.created:${dispute.id}`,
      });
    }
    if (phase === 'created') return amount > 0;
  }
  const closed = (restored: number) =>
    recordWebhookEvent(tx, {
      type: 'dispute.closed',
      userId: topUp.user_id,
      data: { dispute_id: dispute.id, top_up_id: topUp.id, status: dispute.status, amount_restored_cents: restored, currency: 'usd', of: 'top_up' },
      dedupeKey: `dispute.closed:${dispute.id}`,
    });
  if (dispute.status !== 'won') {
    if (dispute.status === 'lost') await closed(0);
    return false;
  }
  const given = await selectAmountTaken(tx, `dispute:${dispute.id}`, 'user_credits');
  if (given === null) return false;
  await closed(given);
  const posted = await postLedgerTransaction(tx, {
    kind: 'top_up_dispute_won',
    reference: `dispute-won:${dispute.id}`,
    description: `Dispute won (${dispute.id}): credits restored`,
    entries: [
      { accountId: await findSystemAccount(tx, 'outside_funding'), amountCents: -given },
      { accountId: await findOrCreateUserAccount(tx, 'user_credits', topUp.user_id), amountCents: given },
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
  const sub = await lockSubscriptionByStripeId(tx, refund.stripeSubscriptionId);
  if (!sub) return false;
  await endPaidPeriod(tx, sub, refund.periodEnd);
  const delta = refund.amountRefunded - (await selectRefundedSoFar(tx, refund.chargeId));
  if (delta <= 0) return false;
  const movement = {
    kind: 'subscription_refund',
    reference: `refund:${refund.chargeId}:${refund.amountRefunded}`,
    description: `Subscription payment refunded (invoice ${refund.invoiceId})`,
    entries: await feesBackToOutsideFunding(tx, refund.currency.toLowerCase(), delta),
  };
  return postTelling(tx, movement, {
    type: 'refund.created',
    userId: sub.user_id,
    data: {
      charge_id: refund.chargeId,
      subscription_id: sub.id,
      invoice_id: refund.invoiceId,
      amount_minor: delta,
      refunded_total_minor: refund.amountRefunded,
      currency: refund.currency.toLowerCase(),
      of: 'subscription',
    },
    dedupeKey: `refund.created:${refund.chargeId}:${refund.amountRefunded}`,
  });
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
  const sub = await lockSubscriptionByStripeId(tx, dispute.stripeSubscriptionId);
  if (!sub) return false;
  if (dispute.currency !== sub.currency)
    throw new PaymentMismatchError(`dispute ${dispute.id}: ${dispute.amount} ${dispute.currency} on a subscription in ${sub.currency}`);
  const opened = await openSubscriptionDispute(tx, dispute, sub);
  if (phase === 'closed' && (dispute.status === 'won' || dispute.status === 'lost')) {
    await recordWebhookEvent(tx, {
      type: 'dispute.closed',
      userId: sub.user_id,
      data: {
        dispute_id: dispute.id,
        subscription_id: sub.id,
        invoice_id: dispute.invoiceId,
        status: dispute.status,
        currency: sub.currency,
        of: 'subscription',
      },
      dedupeKey: `dispute.closed:${dispute.id}`,
    });
  }
  if (phase === 'created' || dispute.status !== 'won') return opened;
  const amount = (await selectAmountTaken(tx, `dispute:${dispute.id}`, 'platform_fees')) ?? 0;
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
async function openSubscriptionDispute(
  tx: Queryable,
  dispute: SubscriptionDispute,
  sub: { id: string; user_id: string; current_period_end: Date; currency: string },
) {
  if (await ledgerReferenceExists(tx, `dispute:${dispute.id}`)) return false;
  const refunded = Math.max(dispute.refunded, await selectRefundedSoFar(tx, dispute.chargeId));
  const amount = Math.min(dispute.amount, dispute.amountPaid - refunded);
  await endPaidPeriod(tx, sub, dispute.periodEnd);
  if (amount <= 0) return false;
  const movement = {
    kind: 'subscription_dispute',
    reference: `dispute:${dispute.id}`,
    description: `Subscription payment disputed (${dispute.id}, invoice ${dispute.invoiceId})`,
    entries: await feesBackToOutsideFunding(tx, sub.currency, amount),
  };
  return postTelling(tx, movement, {
    type: 'dispute.created',
    userId: sub.user_id,
    data: {
      dispute_id: dispute.id,
      subscription_id: sub.id,
      invoice_id: dispute.invoiceId,
      amount_minor: amount,
      currency: sub.currency,
      of: 'subscription',
    },
    dedupeKey: `dispute.created:${dispute.id}`,
  });
}

/** The included calls of the period a refunded or disputed payment paid for end, when that period is still the current one (periodEnd null: Stripe did not say). */
async function endPaidPeriod(tx: Queryable, sub: { id: string; current_period_end: Date }, periodEnd: number | null): Promise<void> {
  if (periodEnd === null || periodEnd * 1000 >= sub.current_period_end.getTime()) await useUpIncludedCalls(tx, sub.id);
}
