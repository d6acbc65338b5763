// A customer's default card for its invoices (subscriptions).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function setDefaultPaymentMethod(stripe: StripeClient, customer: string, paymentMethodId: string): Promise<Stripe.Customer> {
  return stripe.customers.update(customer, { invoice_settings: { default_payment_method: paymentMethodId } });
}
