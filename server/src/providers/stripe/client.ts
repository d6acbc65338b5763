// The Stripe client: the official `stripe` SDK, configured once. STRIPE_API_BASE sends its requests
// elsewhere through the SDK's own host/port/protocol options (tests point it at the loopback fake in
// test-support/fakes/stripe-fake.ts), so the code path under test is the production one. Billing
// calls Stripe through the verbs beside this file (create-customer.ts, create-transfer.ts…), one
// request each, never through the SDK itself.
import Stripe from 'stripe';
import type { Config } from '../../platform/config.ts';

export type StripeClient = Stripe;
export type StripeEvent = Stripe.Event;

/** The API version this code is written against: the one the installed SDK ships with. */
export const STRIPE_API_VERSION = Stripe.API_VERSION;

export function createStripeClient(config: Config['stripe']): Stripe | null {
  if (!config.secretKey) return null;
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, timeout: 20_000 };
  if (config.apiBase) {
    const base = new URL(config.apiBase);
    options.host = base.hostname;
    options.protocol = base.protocol === 'http:' ? 'http' : 'https';
    options.port = Number(base.port || (base.protocol === 'http:' ? 80 : 443));
  }
  return new Stripe(config.secretKey, options);
}
