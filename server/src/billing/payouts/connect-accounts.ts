// A creator's connected Stripe account as Stripe reports it: its onboarding state (account.updated,
// or read when the creator comes back from Stripe) and its bank payouts' failures (payout.failed).
// An older state never overwrites a newer one.

import type { Queryable } from '../../db/client.ts';
import { recordWebhookEvent } from '../../webhooks/outbox-service.ts';
import { updateBankPayoutFailure, updateConnectAccountState } from './queries.ts';

/** What the SDK gives back for a connected account (the fields we read). */
export interface StripeAccountState {
  id: string;
  details_submitted?: boolean;
  charges_enabled?: boolean;
  payouts_enabled?: boolean;
  capabilities?: { transfers?: string } | null;
  requirements?: { currently_due?: string[] | null; disabled_reason?: string | null } | null;
}

/** Applies a connected account's state from Stripe, unless a newer one was applied (`at`: event created, seconds). */
export function applyConnectAccount(db: Queryable, account: StripeAccountState, at: number): Promise<boolean> {
  return updateConnectAccountState(
    db,
    {
      id: account.id,
      detailsSubmitted: Boolean(account.details_submitted),
      chargesEnabled: Boolean(account.charges_enabled),
      payoutsEnabled: Boolean(account.payouts_enabled),
      transfersActive: account.capabilities?.transfers === 'active',
      requirementsDue: account.requirements?.currently_due ?? [],
      disabledReason: account.requirements?.disabled_reason ?? null,
    },
    at,
  );
}

/**
 * payout.failed of a connected account: the money is in that account's Stripe balance; the page says
 * why, and the creator's webhook endpoints are told (payout.failed with `bank: true` and Stripe's
 * payout id), in the same transaction, once per Stripe payout.
 */
export async function applyBankPayoutFailure(
  tx: Queryable,
  accountId: string,
  payout: { id?: string; amount?: number; currency?: string; failure_message?: string | null; failure_code?: string | null },
  at: number,
) {
  const reason = payout.failure_message || payout.failure_code || 'Stripe could not pay out to your bank account';
  const userId = await updateBankPayoutFailure(tx, accountId, reason, at);
  if (userId === null || !payout.id) return;
  await recordWebhookEvent(tx, {
    type: 'payout.failed',
    userId,
    data: {
      bank: true,
      stripe_payout_id: payout.id,
      stripe_account_id: accountId,
      amount_minor: Number(payout.amount ?? 0),
      currency: String(payout.currency ?? '').toLowerCase(),
      reason,
    },
    dedupeKey: `payout.failed:bank:${payout.id}`,
  });
}
