// A credits top-up's PaymentIntent, in US dollars, confirmed in the browser with its client secret.
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createTopUpPayment(
  stripe: StripeClient,
  topUp: { id: string; userId: string; customer: string; amountCents: number },
): Promise<Stripe.PaymentIntent> {
  return stripe.paymentIntents.create(
    {
      amount: topUp.amountCents,
      currency: 'usd',
      customer: topUp.customer,
      description: 'Tollbooth credits',
      metadata: { tollbooth_kind: 'credit_top_up', tollbooth_user_id: topUp.userId, tollbooth_top_up_id: topUp.id },
    },
    { idempotencyKey: `top-up:${topUp.id}` },
  );
}
