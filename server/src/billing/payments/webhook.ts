// POST /api/billing/webhook/: Stripe's deliveries. The signature is checked on the raw bytes
// (providers/stripe/verify-webhook.ts: wrong, missing or older than 300 s → 400). Each event id is
// applied once: its row in stripe_events is written in the same transaction as its effects, so a
// concurrent or later redelivery waits for it and then finds it done. Delivery may be out of
// order, so state comes from the object and a subscription ignores events older than the newest
// it has applied; canceled is final. Unknown event types are acknowledged and ignored.

import type Stripe from 'stripe';
import type { Database } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import type { StripeClient, StripeEvent } from '../../providers/stripe/client.ts';
import { findInvoiceOfPayment } from '../../providers/stripe/find-invoice.ts';
import { readCharge } from '../../providers/stripe/read-charge.ts';
import { applyBankPayoutFailure, applyConnectAccount, type StripeAccountState } from '../payouts/connect-accounts.ts';
import { applyTransferReversal, confirmPayout } from '../payouts/ledger.ts';
import { recordSubscriptionCharge, recordSubscriptionDispute, recordSubscriptionInvoice } from '../statements/queries.ts';
import { tryRecordTopUpReceipt } from '../statements/receipts.ts';
import { savePaymentMethod } from './customers.ts';
import {
  applySubscriptionDispute,
  applySubscriptionPayment,
  applySubscriptionRefund,
  applyTopUpDispute,
  applyTopUpPayment,
  applyTopUpRefund,
  PaymentMismatchError,
  type SubscriptionDispute,
} from './ledger.ts';
import {
  insertEventProblem,
  isTopUpPayment,
  markEventHandled,
  markSubscriptionPastDue,
  markTopUpUnpaid,
  reopenPaidSubscription,
  selectSubscriptionByStripeId,
  selectUserOfCustomer,
  updateSubscriptionState,
} from './queries.ts';
import { readSubscriptionState, recordSubscriptionEvents } from './subscription-events.ts';

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
      if (!(await markEventHandled(tx, event))) return false;
      await insertEventProblem(tx, { eventId: event.id, eventType: event.type, objectId, problem });
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
    const userId = await selectUserOfCustomer(db, customer);
    if (!userId) return null;
    return { userId, customer, pm };
  };

  /**
   * The subscription invoice a PaymentIntent paid, asked of Stripe before the transaction: the
   * invoice, its Stripe subscription and the end of the period it paid for (its first line); null for
   * a top-up's payment or one that paid no subscription's invoice.
   */
  const subscriptionInvoiceOf = async (client: StripeClient, paymentIntent: string) => {
    if (await isTopUpPayment(db, paymentIntent)) return null;
    const found = await findInvoiceOfPayment(client, paymentIntent);
    if (!found) return null;
    const invoice = found as unknown as Loose;
    const stripeSubscriptionId = subscriptionIdOfInvoice(invoice);
    if (!stripeSubscriptionId) return null;
    const period = (invoice.lines as { data?: { period?: { end: number } }[] } | undefined)?.data?.[0]?.period;
    return { invoiceId: found.id, invoice, stripeSubscriptionId, periodEnd: period?.end ?? null };
  };

  /** A refunded charge that paid a subscription invoice: which invoice, subscription and period (asked of Stripe, before the transaction). */
  const refundedInvoice = async (event: StripeEvent) => {
    if (event.type !== 'charge.refunded' || !stripe) return null;
    const charge = event.data.object as unknown as Loose;
    const paymentIntent = idOf(charge.payment_intent);
    if (!paymentIntent) return null;
    const paid = await subscriptionInvoiceOf(stripe, paymentIntent);
    if (!paid) return null;
    return {
      chargeId: String(charge.id),
      amountRefunded: Number(charge.amount_refunded ?? 0),
      currency: String(charge.currency ?? paid.invoice.currency ?? 'usd'),
      invoiceId: paid.invoiceId,
      stripeSubscriptionId: paid.stripeSubscriptionId,
      periodEnd: paid.periodEnd,
    };
  };

  /**
   * The charge of a dispute event as Stripe has it now: what it refunded is taken into account even
   * when its charge.refunded event arrives after the dispute's (Stripe does not order events).
   */
  const disputedCharge = async (event: StripeEvent): Promise<Stripe.Charge | null> => {
    if ((event.type !== 'charge.dispute.created' && event.type !== 'charge.dispute.closed') || !stripe) return null;
    const chargeId = idOf((event.data.object as unknown as Loose).charge);
    return chargeId ? await readCharge(stripe, chargeId) : null;
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
    const paid = await subscriptionInvoiceOf(stripe, paymentIntent);
    if (!paid) return null;
    return {
      id: String(dispute.id),
      chargeId: charge.id,
      amount: Number(dispute.amount ?? 0),
      currency: String(dispute.currency),
      status: String(dispute.status),
      invoiceId: paid.invoiceId,
      amountPaid: Number(paid.invoice.amount_paid ?? 0),
      refunded: Number(charge.amount_refunded ?? 0),
      stripeSubscriptionId: paid.stripeSubscriptionId,
      periodEnd: paid.periodEnd,
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
        // The statement's receipt link (statements/receipts.ts); after the credits, never failing them.
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
      if (!(await markEventHandled(tx, event))) return false;
      const object = event.data.object as unknown as Loose;
      // subscription.* webhooks: the subscription's row before and after this event's changes.
      const subscriptionOfEvent = event.type.startsWith('invoice.')
        ? subscriptionIdOfInvoice(object)
        : event.type.startsWith('customer.subscription.')
          ? String(object.id)
          : null;
      const before = subscriptionOfEvent ? await readSubscriptionState(tx, subscriptionOfEvent) : null;
      await applyEvent(tx, object);
      if (subscriptionOfEvent) {
        const paid = event.type === 'invoice.paid' && Number(object.amount_paid ?? 0) > 0;
        await recordSubscriptionEvents(
          tx,
          before,
          await readSubscriptionState(tx, subscriptionOfEvent),
          paid
            ? { id: String(object.id), amountMinor: Number(object.amount_paid), billingReason: (object.billing_reason as string | undefined) ?? null }
            : null,
        );
      }
      return true;
    });

    async function applyEvent(tx: Parameters<Parameters<Database['transaction']>[0]>[0], object: Loose): Promise<void> {
      switch (event.type) {
        case 'payment_intent.succeeded':
          await applyTopUpPayment(tx, object as { id: string; amount: number; currency: string; status: string });
          break;
        case 'payment_intent.payment_failed':
        case 'payment_intent.canceled':
          await markTopUpUnpaid(tx, String(object.id), event.type === 'payment_intent.canceled' ? 'canceled' : 'failed');
          break;
        case 'invoice.paid': {
          const stripeSub = subscriptionIdOfInvoice(object);
          if (!stripeSub) break;
          const subscription = await selectSubscriptionByStripeId(tx, stripeSub);
          if (!subscription) break;
          const line = (object.lines as { data?: { period?: { start: number; end: number } }[] } | undefined)?.data?.[0]?.period;
          // Paid after it was canceled (the subscriber canceled during the first payment): the
          // money is taken, so the period it paid for is given in full, its included calls
          // unused, and the plan ends with it (docs/decisions/0027).
          if (Number(object.amount_paid ?? 0) > 0 && line) await reopenPaidSubscription(tx, stripeSub, line, event.created);
          await updateSubscriptionState(tx, stripeSub, { status: 'active', period: line ?? null }, event.created, true);
          await applySubscriptionPayment(tx, {
            invoiceId: String(object.id),
            amountCents: Number(object.amount_paid ?? 0),
            // The invoice's own currency (the plan's): its amount is in that currency's minor unit.
            currency: String(object.currency ?? subscription.currency),
            subscriptionId: subscription.id,
            feeBps: config.platformFeeBps,
            paidAt: new Date(event.created * 1000),
          });
          await recordSubscriptionInvoice(tx, { invoiceId: String(object.id), subscriptionId: subscription.id, period: line ?? null });
          break;
        }
        case 'invoice.payment_failed': {
          const stripeSub = subscriptionIdOfInvoice(object);
          if (stripeSub) await markSubscriptionPastDue(tx, stripeSub, event.created);
          break;
        }
        case 'customer.subscription.created':
        case 'customer.subscription.updated':
        case 'customer.subscription.deleted':
          await updateSubscriptionState(
            tx,
            String(object.id),
            { status: String(object.status), cancelAtPeriodEnd: Boolean(object.cancel_at_period_end), period: periodOf(object) },
            event.created,
            false,
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
          if (account)
            await applyBankPayoutFailure(
              tx,
              account,
              object as { id?: string; amount?: number; currency?: string; failure_message?: string; failure_code?: string },
              event.created,
            );
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
    }
  }
}

export type WebhookHandler = ReturnType<typeof createWebhookHandler>;
