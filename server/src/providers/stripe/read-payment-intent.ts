// A PaymentIntent as Stripe has it now (its status, amount and latest charge).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function readPaymentIntent(stripe: StripeClient, id: string): Promise<Stripe.PaymentIntent> {
  return stripe.paymentIntents.retrieve(id);
}
