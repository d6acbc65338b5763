// The subscription.* webhooks of a Stripe event (issue 62): what the subscription's row was before the
// event's transaction changed it and what it is after, told in that same transaction
// (webhooks/outbox-service.ts), so the events are exactly the changes that committed.
import { firstRow, type Queryable } from '../../db/client.ts';
import { recordWebhookEvent } from '../../webhooks/outbox-service.ts';

interface SubscriptionState {
  id: string;
  user_id: string;
  app_id: string;
  status: string;
  price_cents: number | string;
  currency: string;
  current_period_end: Date;
}

export function readSubscriptionState(tx: Queryable, stripeSubscriptionId: string): Promise<SubscriptionState | null> {
  return firstRow<SubscriptionState>(
    tx,
    'SELECT id, user_id, app_id, status, price_cents, currency, current_period_end FROM subscriptions WHERE stripe_subscription_id = $1',
    [stripeSubscriptionId],
  );
}

/**
 * Tells the subscriber what the event changed: created or renewed (a paid invoice: its first, or a
 * later one), past_due, canceled. `paidInvoice` is the invoice a payment posted (null: none).
 */
export async function recordSubscriptionEvents(
  tx: Queryable,
  before: SubscriptionState | null,
  after: SubscriptionState | null,
  paidInvoice: { id: string; amountMinor: number; billingReason: string | null } | null,
): Promise<void> {
  if (!after) return;
  const base = { subscription_id: after.id, app_id: after.app_id, currency: after.currency, current_period_end: after.current_period_end.toISOString() };
  if (paidInvoice) {
    const type = paidInvoice.billingReason === 'subscription_create' ? 'subscription.created' : 'subscription.renewed';
    await recordWebhookEvent(tx, {
      type,
      userId: after.user_id,
      data: { ...base, invoice_id: paidInvoice.id, amount_minor: paidInvoice.amountMinor },
      dedupeKey: `${type}:${paidInvoice.id}`,
    });
  }
  if (before?.status === after.status) return;
  if (after.status === 'past_due' || after.status === 'canceled') {
    await recordWebhookEvent(tx, {
      type: after.status === 'past_due' ? 'subscription.past_due' : 'subscription.canceled',
      userId: after.user_id,
      data: { ...base, status: after.status },
    });
  }
}

/** A free plan's subscription.created (no invoice: Stripe is not involved), in the transaction that made it. */
export async function recordFreeSubscriptionCreated(
  tx: Queryable,
  subscription: { id: string; userId: string; appId: string; currency: string; currentPeriodEnd: Date },
): Promise<void> {
  await recordWebhookEvent(tx, {
    type: 'subscription.created',
    userId: subscription.userId,
    data: {
      subscription_id: subscription.id,
      app_id: subscription.appId,
      currency: subscription.currency,
      current_period_end: subscription.currentPeriodEnd.toISOString(),
      amount_minor: 0,
    },
    dedupeKey: `subscription.created:${subscription.id}`,
  });
}

/** subscription.canceled of free subscriptions that ended with their period, in the transaction that ended them. */
export async function recordFreeSubscriptionsEnded(
  tx: Queryable,
  ended: { id: string; user_id: string; app_id: string; currency: string; current_period_end: Date }[],
): Promise<void> {
  for (const subscription of ended) {
    await recordWebhookEvent(tx, {
      type: 'subscription.canceled',
      userId: subscription.user_id,
      data: {
        subscription_id: subscription.id,
        app_id: subscription.app_id,
        currency: subscription.currency,
        current_period_end: subscription.current_period_end.toISOString(),
        status: 'canceled',
      },
      dedupeKey: `subscription.canceled:${subscription.id}`,
    });
  }
}
