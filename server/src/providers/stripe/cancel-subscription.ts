// A subscription ended now.
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function cancelSubscription(stripe: StripeClient, id: string): Promise<Stripe.Subscription> {
  return stripe.subscriptions.cancel(id);
}
