// A user's Stripe customer (one per user, made on first use) and the cards saved on it. Only a
// card's brand, last 4 digits and expiry are stored; a card is saved for its own customer only.
import type { Database } from '../../db/client.ts';
import type { StripeClient } from '../../providers/stripe/client.ts';
import { createCustomer } from '../../providers/stripe/create-customer.ts';
import { readPaymentMethod } from '../../providers/stripe/read-payment-method.ts';
import { insertStripeCustomer, lockDefaultPaymentMethod, selectStripeCustomer, selectUserContact, upsertPaymentMethod } from './queries.ts';

/** The user's Stripe customer, made once (the idempotency key makes a concurrent second attempt return the same one). */
export async function findOrCreateCustomer(db: Database, stripe: StripeClient, userId: string): Promise<string> {
  const existing = await selectStripeCustomer(db, userId);
  if (existing) return existing;
  const user = await selectUserContact(db, userId);
  const customer = await createCustomer(stripe, { id: userId, email: user?.email || undefined, name: user?.name || undefined });
  await insertStripeCustomer(db, userId, customer.id);
  return (await selectStripeCustomer(db, userId))!;
}

/** Stores a card of the user's Stripe customer (brand, last 4, expiry only); returns its id, or null when it is not theirs. */
export async function savePaymentMethod(db: Database, stripe: StripeClient, userId: string, customer: string, paymentMethodId: string): Promise<string | null> {
  const pm = await readPaymentMethod(stripe, paymentMethodId).catch(() => null);
  if (!pm?.card) return null;
  const owner = typeof pm.customer === 'string' ? pm.customer : (pm.customer?.id ?? null);
  if (owner !== customer) return null;
  const card = pm.card;
  return db.transaction(async (tx) => {
    // The user's first card is their default.
    const hasDefault = await lockDefaultPaymentMethod(tx, userId);
    return upsertPaymentMethod(tx, {
      userId,
      stripeId: pm.id,
      brand: card.brand,
      last4: card.last4,
      expMonth: card.exp_month,
      expYear: card.exp_year,
      isDefault: !hasDefault,
    });
  });
}
