// A SetupIntent as Stripe has it now (whether the browser confirmed it, and its card).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function readSetupIntent(stripe: StripeClient, id: string): Promise<Stripe.SetupIntent> {
  return stripe.setupIntents.retrieve(id);
}
