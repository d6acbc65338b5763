// A paid plan's Stripe subscription, incomplete until its first invoice is confirmed in the browser
// (the invoice's confirmation secret comes back expanded).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createSubscription(
  stripe: StripeClient,
  subscription: { id: string; customer: string; price: string; defaultPaymentMethod?: string; appId: string; planId: string },
): Promise<Stripe.Subscription> {
  return stripe.subscriptions.create(
    {
      customer: subscription.customer,
      items: [{ price: subscription.price }],
      payment_behavior: 'default_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      ...(subscription.defaultPaymentMethod ? { default_payment_method: subscription.defaultPaymentMethod } : {}),
      metadata: { tollbooth_subscription_id: subscription.id, tollbooth_app_id: subscription.appId, tollbooth_package_id: subscription.planId },
      expand: ['latest_invoice.confirmation_secret'],
    },
    { idempotencyKey: `subscribe:${subscription.id}` },
  );
}

/** The client secret of a subscription's latest invoice (expanded: createSubscription, readSubscriptionPayment), for the browser to confirm. */
export function paymentSecretOf(subscription: Stripe.Subscription): string | null {
  const invoice = subscription.latest_invoice as { confirmation_secret?: { client_secret: string } | null } | null;
  return invoice?.confirmation_secret?.client_secret ?? null;
}
