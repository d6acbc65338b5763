// A card taken off its customer.
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function detachPaymentMethod(stripe: StripeClient, id: string): Promise<Stripe.PaymentMethod> {
  return stripe.paymentMethods.detach(id);
}
