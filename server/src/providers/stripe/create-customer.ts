// A user's Stripe customer (one per user: the idempotency key makes a concurrent second attempt return the same one).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createCustomer(stripe: StripeClient, user: { id: string; email?: string; name?: string }): Promise<Stripe.Customer> {
  return stripe.customers.create({ email: user.email, name: user.name, metadata: { tollbooth_user_id: user.id } }, { idempotencyKey: `customer:${user.id}` });
}
