// A card as Stripe has it (its customer, brand, last 4 digits and expiry).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function readPaymentMethod(stripe: StripeClient, id: string): Promise<Stripe.PaymentMethod> {
  return stripe.paymentMethods.retrieve(id);
}
