// A payout's money in the ledger (decision 0031): taken from the creator's earnings into payouts in
// transit when it starts (openPayout), then on to the platform's creator payouts once Stripe
// confirms the transfer, or back to the earnings when Stripe refuses it; a reversal brings what
// Stripe reversed back to the earnings. Each movement has its reference, so it happens once however
// often Stripe's answer or event arrives.
import { formatMinorWithCode, type Payout } from '@tollbooth/contract';
import type { Queryable } from '../../db/client.ts';
import { recordWebhookEvent } from '../../webhooks/outbox-service.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from '../ledger.ts';
import {
  insertSendingPayout,
  lockPayout,
  lockPayoutOfTransfer,
  lockSendingPayout,
  markPayoutFailed,
  markPayoutPaid,
  selectPayout,
  updatePayoutReversed,
} from './queries.ts';

/** A new sending payout of the creator's available earnings in one currency: earnings → payouts in transit. */
export async function openPayout(
  tx: Queryable,
  payout: { id: string; userId: string; stripeAccountId: string; amountMinor: number; currency: string; origin: Payout['origin'] },
): Promise<void> {
  await insertSendingPayout(tx, payout);
  await postLedgerTransaction(tx, {
    kind: 'payout',
    reference: `payout:${payout.id}`,
    description: `Payout to Stripe account ${payout.stripeAccountId}`,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', payout.userId, payout.currency), amountCents: -payout.amountMinor },
      { accountId: await findOrCreateUserAccount(tx, 'payouts_in_transit', payout.userId, payout.currency), amountCents: payout.amountMinor },
    ],
  });
}

/**
 * A transfer Stripe confirmed (its answer, a retry's, or transfer.created): the payout is paid and
 * its money leaves payouts in transit for the platform's creator payouts. Once, by reference.
 */
export async function confirmPayout(tx: Queryable, payoutId: string, transfer: { id: string; amount: number; destination: unknown }): Promise<boolean> {
  const payout = await lockSendingPayout(tx, payoutId);
  if (!payout) return false;
  if (Number(payout.amount_cents) !== transfer.amount)
    throw new Error(`payout ${payoutId}: transfer ${transfer.id} of ${transfer.amount}, expected ${payout.amount_cents}`);
  await markPayoutPaid(tx, payoutId, transfer.id);
  await postLedgerTransaction(tx, {
    kind: 'payout_sent',
    reference: `payout-sent:${payoutId}`,
    description: `Stripe transfer ${transfer.id} to ${String(transfer.destination)}`,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'payouts_in_transit', payout.user_id, payout.currency), amountCents: -Number(payout.amount_cents) },
      { accountId: await findSystemAccount(tx, 'creator_payouts', payout.currency), amountCents: Number(payout.amount_cents) },
    ],
  });
  await recordWebhookEvent(tx, {
    type: 'payout.paid',
    userId: payout.user_id,
    data: { payout_id: payoutId, transfer_id: transfer.id, amount_minor: Number(payout.amount_cents), currency: payout.currency },
    dedupeKey: `payout.paid:${payoutId}`,
  });
  return true;
}

/** Stripe refused the transfer: the money goes back to the creator's earnings, with Stripe's reason. */
export async function failPayout(tx: Queryable, payoutId: string, reason: string): Promise<boolean> {
  const payout = await lockSendingPayout(tx, payoutId);
  if (!payout) return false;
  await markPayoutFailed(tx, payoutId, reason);
  await postLedgerTransaction(tx, {
    kind: 'payout_failed',
    reference: `payout-failed:${payoutId}`,
    description: `Payout refused by Stripe: ${reason}`,
    entries: [
      { accountId: await findOrCreateUserAccount(tx, 'payouts_in_transit', payout.user_id, payout.currency), amountCents: -Number(payout.amount_cents) },
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', payout.user_id, payout.currency), amountCents: Number(payout.amount_cents) },
    ],
  });
  await recordWebhookEvent(tx, {
    type: 'payout.failed',
    userId: payout.user_id,
    data: { payout_id: payoutId, amount_minor: Number(payout.amount_cents), currency: payout.currency, reason },
    dedupeKey: `payout.failed:${payoutId}`,
  });
  return true;
}

/**
 * transfer.reversed (all or part): what was reversed comes back from the platform's creator payouts
 * to the creator's earnings. Stripe reports the cumulative amount_reversed, so only the growth is
 * posted, whatever the order or number of deliveries.
 */
export async function applyTransferReversal(tx: Queryable, transfer: { id: string; amount_reversed: number; metadata?: Record<string, string> | null }) {
  let payout = await lockPayoutOfTransfer(tx, transfer.id);
  if (!payout && transfer.metadata?.tollbooth_payout_id) {
    // Reversed before we heard of the transfer itself: it is still ours (its metadata says which payout).
    payout = await lockPayout(tx, transfer.metadata.tollbooth_payout_id);
    if (payout?.status === 'sending') {
      await confirmPayout(tx, payout.id, { id: transfer.id, amount: Number(payout.amount_cents), destination: payout.stripe_account_id });
      payout = await selectPayout(tx, payout.id);
    }
  }
  if (!payout || payout.stripe_transfer_id !== transfer.id) return false;
  const delta = transfer.amount_reversed - Number(payout.amount_reversed_cents);
  if (delta <= 0) return false;
  await updatePayoutReversed(tx, payout.id, {
    amountReversed: transfer.amount_reversed,
    full: transfer.amount_reversed >= Number(payout.amount_cents),
    reason: `Reversed by Stripe (${formatMinorWithCode(transfer.amount_reversed, payout.currency)}); the money is back in your earnings`,
  });
  await postLedgerTransaction(tx, {
    kind: 'payout_reversed',
    reference: `payout-reversed:${transfer.id}:${transfer.amount_reversed}`,
    description: `Stripe transfer ${transfer.id} reversed`,
    entries: [
      { accountId: await findSystemAccount(tx, 'creator_payouts', payout.currency), amountCents: -delta },
      { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', payout.user_id, payout.currency), amountCents: delta },
    ],
  });
  return true;
}
