// A SetupIntent: the browser saves a card for later payments without paying now.
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createSetupIntent(stripe: StripeClient, customer: string, userId: string): Promise<Stripe.SetupIntent> {
  return stripe.setupIntents.create({ customer, usage: 'off_session', metadata: { tollbooth_user_id: userId } });
}
