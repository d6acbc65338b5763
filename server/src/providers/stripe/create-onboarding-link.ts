// A single-use link to Stripe's hosted onboarding of a connected account, back to `page` after.
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createOnboardingLink(stripe: StripeClient, account: string, page: string): Promise<Stripe.AccountLink> {
  return stripe.accountLinks.create({
    account,
    refresh_url: `${page}?connect=refresh`,
    return_url: `${page}?connect=return`,
    type: 'account_onboarding',
  });
}
