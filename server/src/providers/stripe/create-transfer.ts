// A payout's transfer to a creator's connected account: the payout's id is its transfer group, and
// with the currency its idempotency key (one payout is one transfer in one currency).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export function createPayoutTransfer(
  stripe: StripeClient,
  payout: { id: string; userId: string; amountMinor: number; currency: string; destination: string },
): Promise<Stripe.Transfer> {
  return stripe.transfers.create(
    {
      amount: payout.amountMinor,
      currency: payout.currency,
      destination: payout.destination,
      transfer_group: `payout_${payout.id}`,
      description: 'Tollbooth earnings',
      metadata: { tollbooth_payout_id: payout.id, tollbooth_user_id: payout.userId },
    },
    { idempotencyKey: `payout:${payout.id}:${payout.currency}` },
  );
}
