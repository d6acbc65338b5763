// A payout's transfer, if an earlier attempt made it: looked up by its group (keys expire after 24 h; groups do not).
import type Stripe from 'stripe';
import type { StripeClient } from './client.ts';

export async function findPayoutTransfer(stripe: StripeClient, payoutId: string): Promise<Stripe.Transfer | null> {
  const found = await stripe.transfers.list({ transfer_group: `payout_${payoutId}`, limit: 1 });
  return found.data[0] ?? null;
}
