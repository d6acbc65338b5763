// A connected account's state as Stripe has it now (onboarding, capabilities, requirements).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function readConnectedAccount(stripe: StripeClient, id: string): Promise<Stripe.Account> {
  return stripe.accounts.retrieve(id);
}
