// A Charge as Stripe has it now (its receipt, what it refunded).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function readCharge(stripe: StripeClient, id: string): Promise<Stripe.Charge> {
  return stripe.charges.retrieve(id);
}
