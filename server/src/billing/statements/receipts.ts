// A top-up's Stripe receipt (the Charge's receipt_url): what a statement shows beside the top-up
// that the ledger does not say (decision 0036). Which subscription a paid invoice or a refunded or
// disputed charge belongs to is recorded by queries.ts (recordSubscriptionInvoice and the others)
// in the webhook's transaction. Amounts are never taken from here: every figure of a statement is
// read from the ledger.
import type { Database, Queryable } from '../../db/client.ts';
import type { StripeClient } from '../../providers/stripe/client.ts';
import { readCharge } from '../../providers/stripe/read-charge.ts';
import { readPaymentIntent } from '../../providers/stripe/read-payment-intent.ts';
import { selectSucceededTopUpReceipt, updateTopUpReceipt } from './queries.ts';

type ChargeRef = string | { id: string; receipt_url?: string | null } | null | undefined;

/**
 * A succeeded top-up's receipt: the Charge of its PaymentIntent (`latest_charge`, expanded or an id
 * read from Stripe). Stored once known; a failure to ask Stripe leaves it for the next time
 * (the statement asks again for receipts it is missing).
 */
export async function recordTopUpReceipt(db: Queryable, stripe: StripeClient, intent: { id: string; latest_charge?: ChargeRef }): Promise<string | null> {
  const topUp = await selectSucceededTopUpReceipt(db, intent.id);
  if (!topUp) return null;
  if (topUp.receipt_url) return topUp.receipt_url;
  let charge = intent.latest_charge;
  if (charge === undefined) charge = (await readPaymentIntent(stripe, intent.id)).latest_charge;
  if (!charge) return null;
  const full = typeof charge === 'string' ? await readCharge(stripe, charge) : charge;
  if (!full.receipt_url) return null;
  await updateTopUpReceipt(db, intent.id, full.id, full.receipt_url);
  return full.receipt_url;
}

/** The same, never failing the caller: a receipt is not worth a failed webhook or top-up confirmation. */
export async function tryRecordTopUpReceipt(
  db: Database,
  stripe: StripeClient | null,
  intent: { id: string; latest_charge?: ChargeRef },
  log?: { warn(details: object, message: string): void },
): Promise<void> {
  if (!stripe) return;
  try {
    await recordTopUpReceipt(db, stripe, intent);
  } catch (error) {
    log?.warn({ paymentIntent: intent.id, error: (error as Error).message }, 'Could not read the top-up receipt from Stripe; the statement will ask again');
  }
}
