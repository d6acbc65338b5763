// A subscription as Stripe has it now.
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function readSubscription(stripe: StripeClient, id: string): Promise<Stripe.Subscription> {
  return stripe.subscriptions.retrieve(id);
}

/** The same, with its latest invoice's confirmation secret (paymentSecretOf): a first payment to answer again. */
export function readSubscriptionPayment(stripe: StripeClient, id: string): Promise<Stripe.Subscription> {
  return stripe.subscriptions.retrieve(id, { expand: ['latest_invoice.confirmation_secret'] });
}
