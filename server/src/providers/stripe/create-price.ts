// A plan's monthly Stripe price: a new price for each amount and currency (Stripe prices are immutable).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createMonthlyPrice(
  stripe: StripeClient,
  price: { planId: string; productId: string; amountMinor: number; currency: string },
): Promise<Stripe.Price> {
  return stripe.prices.create(
    {
      product: price.productId,
      unit_amount: price.amountMinor,
      currency: price.currency,
      recurring: { interval: 'month' },
      metadata: { tollbooth_package_id: price.planId },
    },
    { idempotencyKey: `price:${price.planId}:${price.amountMinor}:${price.currency}` },
  );
}
