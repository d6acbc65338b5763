// A subscription set to end with its period, or resumed.
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function setCancelAtPeriodEnd(stripe: StripeClient, id: string, cancel: boolean): Promise<Stripe.Subscription> {
  return stripe.subscriptions.update(id, { cancel_at_period_end: cancel });
}
