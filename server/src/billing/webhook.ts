// POST /api/billing/webhook/: Stripe's deliveries. The signature is checked on the raw bytes
// (providers/stripe verifyWebhook: wrong, missing or older than 300 s → 400). Each event id is
// applied once: its row in stripe_events is written in the same transaction as its effects, so a
// concurrent or later redelivery waits for it and then finds it done. Delivery may be out of
// order, so state comes from the object and a subscription ignores events older than the newest
// it has applied; canceled is final. Unknown event types are acknowledged and ignored.

import type Stripe from 'stripe';
import type { Config } from '../config.ts';
import type { Database, Queryable } from '../db/client.ts';
import type { StripeClient, StripeEvent } from '../providers/stripe/client.ts';
import {
  applySubscriptionDispute,
  applySubscriptionPayment,
  applySubscriptionRefund,
  applyTopUpDispute,
  applyTopUpPayment,
  applyTopUpRefund,
  PaymentMismatchError,
  type SubscriptionDispute,
} from './payments-ledger.ts';
import { savePaymentMethod } from './payments-service.ts';
import { applyBankPayoutFailure, applyConnectAccount, applyTransferReversal, confirmPayout, type StripeAccountState } from './payouts-service.ts';
import { recordSubscriptionCharge, recordSubscriptionDispute, recordSubscriptionInvoice, tryRecordTopUpReceipt } from './statements-records.ts';

type Loose = Record<string, unknown>;

const subscriptionIdOfInvoice = (invoice: Loose): string | null => {
  const parent = invoice.parent as { subscription_details?: { subscription?: string | { id: string } } } | null | undefined;
  const fromParent = parent?.subscription_details?.subscription;
  const value = fromParent ?? (invoice.subscription as string | { id: string } | null | undefined);
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
};

const idOf = (value: unknown): string | null => (typeof value === 'string' ? value : ((value as { id?: string } | null | undefined)?.id ?? null));

/** Period of a Stripe subscription: on its first item in recent API versions, on the subscription before. */
const periodOf = (sub: Loose): { start: number; end: number } | null => {
  const item = (sub.items as { data?: Loose[] } | undefined)?.data?.[0];
  const start = (item?.current_period_start ?? sub.current_period_start) as number | undefined;
  const end = (item?.current_period_end ?? sub.current_period_end) as number | undefined;
  return start && end ? { start, end } : null;
};

async function applySubscriptionState(
  tx: Queryable,
  stripeId: string,
  state: { status?: string; cancelAtPeriodEnd?: boolean; period?: { start: number; end: number } | null },
  at: number,
  { paid = false }: { paid?: boolean } = {},
) {
  // A new period starts with all its included calls; an older event never moves anything back.
  // Events of the same second arrive in any order: a failed renewal sends "updated" (active, the new
  // period), "invoice.payment_failed" and "updated" (past_due). So within one second, "active" does
  // not undo past_due unless it brings a newer period or the invoice was paid. And "incomplete" is
  // only ever a subscription's first state: an event saying so (its creation, delivered last within
  // the second it was paid in) changes nothing once the subscription has left it.
  await tx.query(
    `UPDATE subscriptions SET
       status = CASE
         WHEN status IN ('canceled', 'incomplete_expired') THEN status
         WHEN status = 'past_due' AND $2 = 'active' AND NOT $7::boolean AND stripe_state_at = $6
              AND NOT ($4::double precision IS NOT NULL AND to_timestamp($4) > current_period_start) THEN status
         ELSE coalesce($2, status) END,
       cancel_at_period_end = coalesce($3, cancel_at_period_end),
       included_used = CASE WHEN $4::double precision IS NOT NULL AND to_timestamp($4) > current_period_start THEN 0 ELSE included_used END,
       current_period_start = CASE WHEN $4::double precision IS NOT NULL AND to_timestamp($4) > current_period_start THEN to_timestamp($4) ELSE current_period_start END,
       current_period_end = CASE WHEN $5::double precision IS NOT NULL AND to_timestamp($4) >= current_period_start THEN greatest(current_period_end, to_timestamp($5)) ELSE current_period_end END,
       stripe_state_at = greatest(stripe_state_at, $6)
     WHERE stripe_subscription_id = $1 AND stripe_state_at <= $6 AND ($2::text IS DISTINCT FROM 'incomplete' OR status = 'incomplete')`,
    [stripeId, state.status ?? null, state.cancelAtPeriodEnd ?? null, state.period?.start ?? null, state.period?.end ?? null, at, paid],
  );
}

interface ProblemLog {
  error(details: object, message: string): void;
}

export function createWebhookHandler({ db, config, stripe, log }: { db: Database; config: Config; stripe: StripeClient | null; log?: ProblemLog }) {
  /**
   * A signed event that does not match (a top-up paid with another amount): nothing of it is
   * applied, it is recorded for the operator (stripe_event_problems, an error log) and marked
   * handled, so Stripe's redeliveries are acknowledged instead of failing for days.
   */
  const recordProblem = async (event: StripeEvent, problem: string): Promise<boolean> => {
    const objectId = String((event.data.object as unknown as Loose).id ?? '') || null;
    log?.error({ eventId: event.id, eventType: event.type, objectId, problem }, 'Stripe event does not match: recorded, not applied');
    return db.transaction(async (tx) => {
      const fresh = await tx.query('INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id', [event.id, event.type]);
      if (fresh.rows.length === 0) return false;
      await tx.query('INSERT INTO stripe_event_problems (event_id, event_type, object_id, problem) VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING', [
        event.id,
        event.type,
        objectId,
        problem,
      ]);
      return true;
    });
  };

  /** Work that needs Stripe (reading a card) happens before the transaction. */
  const prefetch = async (event: StripeEvent) => {
    if (event.type !== 'setup_intent.succeeded' || !stripe) return null;
    const intent = event.data.object;
    const customer = typeof intent.customer === 'string' ? intent.customer : (intent.customer?.id ?? null);
    const pm = typeof intent.payment_method === 'string' ? intent.payment_method : (intent.payment_method?.id ?? null);
    if (!customer || !pm) return null;
    const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM stripe_customers WHERE customer_id = $1', [customer]);
    if (!rows[0]) return null;
    return { userId: rows[0].user_id, customer, pm };
  };

  /** A refunded charge that paid a subscription invoice: which invoice, subscription and period (asked of Stripe, before the transaction). */
  const refundedInvoice = async (event: StripeEvent) => {
    if (event.type !== 'charge.refunded' || !stripe) return null;
    const charge = event.data.object as unknown as Loose;
    const paymentIntent = idOf(charge.payment_intent);
    if (!paymentIntent) return null;
    const topUp = await db.query('SELECT 1 FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [paymentIntent]);
    if (topUp.rows[0]) return null;
    const payments = await stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: paymentIntent }, limit: 1 });
    const invoiceId = idOf(payments.data[0]?.invoice);
    if (!invoiceId) return null;
    const invoice = (await stripe.invoices.retrieve(invoiceId)) as unknown as Loose;
    const stripeSubscriptionId = subscriptionIdOfInvoice(invoice);
    if (!stripeSubscriptionId) return null;
    const period = (invoice.lines as { data?: { period?: { end: number } }[] } | undefined)?.data?.[0]?.period;
    return {
      chargeId: String(charge.id),
      amountRefunded: Number(charge.amount_refunded ?? 0),
      currency: String(charge.currency ?? invoice.currency ?? 'usd'),
      invoiceId,
      stripeSubscriptionId,
      periodEnd: period?.end ?? null,
    };
  };

  /**
   * The charge of a dispute event as Stripe has it now: what it refunded is taken into account even
   * when its charge.refunded event arrives after the dispute's (Stripe does not order events).
   */
  const disputedCharge = async (event: StripeEvent): Promise<Stripe.Charge | null> => {
    if ((event.type !== 'charge.dispute.created' && event.type !== 'charge.dispute.closed') || !stripe) return null;
    const chargeId = idOf((event.data.object as unknown as Loose).charge);
    return chargeId ? await stripe.charges.retrieve(chargeId) : null;
  };

  /**
   * A disputed charge that paid a subscription invoice: which invoice, subscription and period, and
   * what the invoice was paid (asked of Stripe, before the transaction). Null for a top-up's dispute.
   */
  const disputedInvoice = async (event: StripeEvent, charge: Stripe.Charge | null): Promise<SubscriptionDispute | null> => {
    if (!charge || !stripe) return null;
    const dispute = event.data.object as unknown as Loose;
    const paymentIntent = idOf(dispute.payment_intent) ?? idOf(charge.payment_intent);
    if (!paymentIntent) return null;
    const topUp = await db.query('SELECT 1 FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [paymentIntent]);
    if (topUp.rows[0]) return null;
    const payments = await stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: paymentIntent }, limit: 1 });
    const invoiceId = idOf(payments.data[0]?.invoice);
    if (!invoiceId) return null;
    const invoice = (await stripe.invoices.retrieve(invoiceId)) as unknown as Loose;
    const stripeSubscriptionId = subscriptionIdOfInvoice(invoice);
    if (!stripeSubscriptionId) return null;
    const period = (invoice.lines as { data?: { period?: { end: number } }[] } | undefined)?.data?.[0]?.period;
    return {
      id: String(dispute.id),
      chargeId: charge.id,
      amount: Number(dispute.amount ?? 0),
      currency: String(dispute.currency),
      status: String(dispute.status),
      invoiceId,
      amountPaid: Number(invoice.amount_paid ?? 0),
      refunded: Number(charge.amount_refunded ?? 0),
      stripeSubscriptionId,
      periodEnd: period?.end ?? null,
    };
  };

  return {
    /** Applies one verified event; false when it had already been applied. */
    async handle(event: StripeEvent): Promise<boolean> {
      const card = await prefetch(event);
      const subscriptionRefund = await refundedInvoice(event);
      const charge = await disputedCharge(event);
      const subscriptionDispute = await disputedInvoice(event, charge);
      if (card && stripe) await savePaymentMethod(db, stripe, card.userId, card.customer, card.pm);
      try {
        const applied = await apply(event, subscriptionRefund, subscriptionDispute, Number(charge?.amount_refunded ?? 0));
        // The statement's receipt link (statements-records.ts); after the credits, never failing them.
        if (event.type === 'payment_intent.succeeded') {
          await tryRecordTopUpReceipt(db, stripe, event.data.object, { warn: (details, message) => log?.error(details, message) });
        }
        return applied;
      } catch (error) {
        if (error instanceof PaymentMismatchError) return recordProblem(event, error.message);
        throw error;
      }
    },
  };

  function apply(
    event: StripeEvent,
    subscriptionRefund: Awaited<ReturnType<typeof refundedInvoice>>,
    subscriptionDispute: SubscriptionDispute | null = null,
    /** A dispute event's: what Stripe says its charge refunded. */
    refundedAtStripe = 0,
  ): Promise<boolean> {
    return db.transaction(async (tx) => {
      const fresh = await tx.query('INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id', [event.id, event.type]);
      if (fresh.rows.length === 0) return false;
      const object = event.data.object as unknown as Loose;
      switch (event.type) {
        case 'payment_intent.succeeded':
          await applyTopUpPayment(tx, object as { id: string; amount: number; currency: string; status: string });
          break;
        case 'payment_intent.payment_failed':
        case 'payment_intent.canceled':
          await tx.query("UPDATE credit_top_ups SET status = $2 WHERE stripe_payment_intent_id = $1 AND status = 'pending'", [
            object.id,
            event.type === 'payment_intent.canceled' ? 'canceled' : 'failed',
          ]);
          break;
        case 'invoice.paid': {
          const stripeSub = subscriptionIdOfInvoice(object);
          if (!stripeSub) break;
          const { rows } = await tx.query<{ id: string; currency: string }>('SELECT id, currency FROM subscriptions WHERE stripe_subscription_id = $1', [
            stripeSub,
          ]);
          if (!rows[0]) break;
          const line = (object.lines as { data?: { period?: { start: number; end: number } }[] } | undefined)?.data?.[0]?.period;
          // Paid after it was canceled (the subscriber canceled during the first payment): the
          // money is taken, so the period it paid for is given in full, its included calls
          // unused, and the plan ends with it (docs/decisions/0027). A cancellation Stripe
          // reported in the same second as this payment came before it.
          if (Number(object.amount_paid ?? 0) > 0 && line) {
            await tx.query(
              `UPDATE subscriptions SET status = 'active', cancel_at_period_end = true, included_used = 0,
                 current_period_start = to_timestamp($2), current_period_end = to_timestamp($3), stripe_state_at = $4 + 1
               WHERE stripe_subscription_id = $1 AND status IN ('canceled', 'incomplete_expired') AND stripe_state_at <= $4 AND to_timestamp($3) > now()`,
              [stripeSub, line.start, line.end, event.created],
            );
          }
          await applySubscriptionState(tx, stripeSub, { status: 'active', period: line ?? null }, event.created, { paid: true });
          await applySubscriptionPayment(tx, {
            invoiceId: String(object.id),
            amountCents: Number(object.amount_paid ?? 0),
            // The invoice's own currency (the plan's): its amount is in that currency's minor unit.
            currency: String(object.currency ?? rows[0].currency),
            subscriptionId: rows[0].id,
            feeBps: config.platformFeeBps,
            paidAt: new Date(event.created * 1000),
          });
          await recordSubscriptionInvoice(tx, { invoiceId: String(object.id), subscriptionId: rows[0].id, period: line ?? null });
          break;
        }
        case 'invoice.payment_failed': {
          const stripeSub = subscriptionIdOfInvoice(object);
          // A failed renewal makes an active subscription past due; a failed first payment leaves it incomplete.
          if (stripeSub) {
            await tx.query(
              `UPDATE subscriptions SET status = 'past_due', stripe_state_at = greatest(stripe_state_at, $2)
                 WHERE stripe_subscription_id = $1 AND status IN ('active', 'trialing') AND stripe_state_at <= $2`,
              [stripeSub, event.created],
            );
          }
          break;
        }
        case 'customer.subscription.created':
        case 'customer.subscription.updated':
        case 'customer.subscription.deleted':
          await applySubscriptionState(
            tx,
            String(object.id),
            { status: String(object.status), cancelAtPeriodEnd: Boolean(object.cancel_at_period_end), period: periodOf(object) },
            event.created,
          );
          break;
        // ---- Connect (issue 23): connected accounts, transfers to creators, money taken back ----
        case 'account.updated':
          await applyConnectAccount(tx, object as unknown as StripeAccountState, event.created);
          break;
        case 'transfer.created': {
          // Stripe's word that a payout's transfer exists (its answer may have been lost).
          const payoutId = (object.metadata as Record<string, string> | undefined)?.tollbooth_payout_id;
          if (payoutId) await confirmPayout(tx, payoutId, { id: String(object.id), amount: Number(object.amount), destination: object.destination });
          break;
        }
        case 'transfer.reversed':
          await applyTransferReversal(tx, {
            id: String(object.id),
            amount_reversed: Number(object.amount_reversed ?? 0),
            metadata: object.metadata as Record<string, string> | null,
          });
          break;
        case 'payout.failed': {
          // A connected account's payout to its bank (the event names the account); platform payouts are not ours to show.
          const account = (event as unknown as { account?: string }).account;
          if (account) await applyBankPayoutFailure(tx, account, object as { failure_message?: string; failure_code?: string }, event.created);
          break;
        }
        case 'charge.refunded':
          if (subscriptionRefund) {
            await applySubscriptionRefund(tx, subscriptionRefund);
            await recordSubscriptionCharge(tx, subscriptionRefund);
          }
          await applyTopUpRefund(tx, {
            id: String(object.id),
            payment_intent: idOf(object.payment_intent),
            amount_refunded: Number(object.amount_refunded ?? 0),
          });
          break;
        case 'charge.dispute.created':
        case 'charge.dispute.closed':
          if (subscriptionDispute) {
            await applySubscriptionDispute(tx, subscriptionDispute, event.type === 'charge.dispute.created' ? 'created' : 'closed');
            await recordSubscriptionDispute(tx, subscriptionDispute);
            break;
          }
          await applyTopUpDispute(
            tx,
            {
              id: String(object.id),
              payment_intent: idOf(object.payment_intent),
              amount: Number(object.amount ?? 0),
              status: String(object.status),
              refunded: refundedAtStripe,
            },
            event.type === 'charge.dispute.created' ? 'created' : 'closed',
          );
          break;
        default:
          // setup_intent.succeeded was applied above (it needs Stripe); anything else is acknowledged.
          break;
      }
      return true;
    });
  }
}

export type WebhookHandler = ReturnType<typeof createWebhookHandler>;
