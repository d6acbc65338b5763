// A creator's Stripe Connect account (Express dashboard; the platform pays its fees and bears its
// losses), made once per connection (the key names the user and, after a disconnect, its generation).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createConnectedAccount(stripe: StripeClient, creator: { userId: string; email?: string; generation: string }): Promise<Stripe.Account> {
  return stripe.accounts.create(
    {
      controller: {
        stripe_dashboard: { type: 'express' },
        fees: { payer: 'application' },
        losses: { payments: 'application' },
      },
      email: creator.email,
      capabilities: { transfers: { requested: true } },
      metadata: { tollbooth_user_id: creator.userId },
    },
    { idempotencyKey: `connect:${creator.userId}${creator.generation}` },
  );
}
