// The SQL of payments: plans (packages), subscriptions, saved cards, credit top-ups, the Stripe
// customers and the webhook's events. Each statement takes the database or the caller's
// transaction explicitly; the rules are in service.ts, ledger.ts and webhook.ts.
import { firstRow, type Queryable } from '../../db/client.ts';

export interface PackageRow {
  id: string;
  app_id: string;
  name: string;
  description: string;
  price_cents: string | number;
  currency: string;
  features: Record<string, string>;
  included_calls: number;
  included_usage_micros: string | number;
  is_active: boolean;
  stripe_product_id: string | null;
  stripe_price_id: string | null;
  stripe_price_cents: string | number | null;
  stripe_price_currency: string | null;
  subscriber_count?: string | number;
}

export interface SubscriptionRow {
  id: string;
  user_id: string;
  package_id: string;
  package_name: string;
  status: string;
  cancel_at_period_end: boolean;
  price_cents: string | number;
  currency: string;
  included_calls: number;
  included_used: number;
  included_usage_micros: string | number;
  usage_used_micros: string | number;
  current_period_end: Date;
  stripe_subscription_id: string | null;
}

export interface PaymentMethodRow {
  id: string;
  stripe_payment_method_id: string;
  card_brand: string;
  card_last4: string;
  card_exp_month: number;
  card_exp_year: number;
  is_default: boolean;
}

/** Subscriptions that are, or may still become, live: a plan with one cannot be subscribed again. */
const LIVE_STATUSES = "('incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused')";

// ---- plans ----

export function selectPackage(db: Queryable, appId: string, id: string): Promise<PackageRow | null> {
  return firstRow<PackageRow>(db, 'SELECT * FROM packages WHERE id = $1 AND app_id = $2', [id, appId]);
}

/** The app's plans, cheapest first, each with its live subscribers. */
export async function selectPackages(db: Queryable, appId: string): Promise<PackageRow[]> {
  const { rows } = await db.query<PackageRow>(
    `SELECT p.*, (SELECT count(*) FROM subscriptions s WHERE s.package_id = p.id AND s.status IN ${LIVE_STATUSES}) AS subscriber_count
     FROM packages p WHERE p.app_id = $1 ORDER BY p.price_cents, p.created_at`,
    [appId],
  );
  return rows;
}

interface PackageFields {
  name: string;
  description: string;
  priceMinor: number;
  currency: string;
  features: Record<string, string>;
  includedCalls: number;
  /** Dollars of usage per period, in micro-dollars (issue 60): calls charged against it at the app's rate. */
  includedUsageMicros: number;
  isActive: boolean;
}

/** A plan's fields as the parameters $2 to $9 of insertPackage's and updatePackage's statements. */
function packageParameters(fields: PackageFields): unknown[] {
  return [
    fields.name,
    fields.description,
    fields.priceMinor,
    fields.currency,
    JSON.stringify(fields.features),
    fields.includedCalls,
    fields.isActive,
    fields.includedUsageMicros,
  ];
}

export async function insertPackage(db: Queryable, appId: string, fields: PackageFields): Promise<PackageRow> {
  const { rows } = await db.query<PackageRow>(
    `INSERT INTO packages (app_id, name, description, price_cents, currency, features, included_calls, is_active, included_usage_micros)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [appId, ...packageParameters(fields)],
  );
  return rows[0]!;
}

export async function updatePackage(db: Queryable, id: string, fields: PackageFields): Promise<void> {
  await db.query(
    `UPDATE packages SET name = $2, description = $3, price_cents = $4, currency = $5, features = $6, included_calls = $7, is_active = $8,
       included_usage_micros = $9, updated_at = now() WHERE id = $1`,
    [id, ...packageParameters(fields)],
  );
}

/** Deletes a plan nobody ever subscribed to; false when it has subscriptions. */
export async function deleteUnsubscribedPackage(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query(
    'DELETE FROM packages p WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.package_id = p.id) RETURNING id',
    [id],
  );
  return rows.length > 0;
}

/** The Stripe product and price of the plan's current price and currency. */
export async function updatePackageStripePrice(
  db: Queryable,
  price: { packageId: string; productId: string; priceId: string; amountMinor: number; currency: string },
): Promise<void> {
  await db.query('UPDATE packages SET stripe_product_id = $2, stripe_price_id = $3, stripe_price_cents = $4, stripe_price_currency = $5 WHERE id = $1', [
    price.packageId,
    price.productId,
    price.priceId,
    price.amountMinor,
    price.currency,
  ]);
}

// ---- subscriptions ----

const SUBSCRIPTION_SELECT = `SELECT s.id, s.user_id, s.package_id, p.name AS package_name, s.status, s.cancel_at_period_end, s.price_cents, s.currency,
  s.included_calls, s.included_used, s.included_usage_micros, s.usage_used_micros, s.current_period_end, s.stripe_subscription_id
  FROM subscriptions s JOIN packages p ON p.id = s.package_id`;

export function selectSubscription(db: Queryable, userId: string, appId: string, id: string): Promise<SubscriptionRow | null> {
  return firstRow<SubscriptionRow>(db, `${SUBSCRIPTION_SELECT} WHERE s.id = $1 AND s.user_id = $2 AND s.app_id = $3`, [id, userId, appId]);
}

/** The user's subscriptions to the app, newest first (those that expired before their first payment left out). */
export async function selectSubscriptions(db: Queryable, userId: string, appId: string): Promise<SubscriptionRow[]> {
  const { rows } = await db.query<SubscriptionRow>(
    `${SUBSCRIPTION_SELECT} WHERE s.user_id = $1 AND s.app_id = $2 AND s.status <> 'incomplete_expired' ORDER BY s.created_at DESC`,
    [userId, appId],
  );
  return rows;
}

/** The user's live subscription to the plan, if any. */
export async function selectLiveSubscription(db: Queryable, userId: string, packageId: string): Promise<{ id: string; status: string } | null> {
  const { rows } = await db.query<{ id: string; status: string }>(
    `SELECT id, status FROM subscriptions WHERE user_id = $1 AND package_id = $2 AND status IN ${LIVE_STATUSES}`,
    [userId, packageId],
  );
  return rows[0] ?? null;
}

/** A free plan's subscription: active at once, its first period a month from now. */
export async function insertFreeSubscription(
  db: Queryable,
  subscription: { id: string; userId: string; appId: string; packageId: string; currency: string; includedCalls: number },
): Promise<Date> {
  const { rows } = await db.query<{ current_period_end: Date }>(
    `INSERT INTO subscriptions (id, user_id, app_id, package_id, status, price_cents, currency, included_calls, current_period_start, current_period_end,
       included_usage_micros)
     VALUES ($1, $2, $3, $4, 'active', 0, $5, $6, now(), now() + interval '1 month', (SELECT included_usage_micros FROM packages WHERE id = $4))
     RETURNING current_period_end`,
    [subscription.id, subscription.userId, subscription.appId, subscription.packageId, subscription.currency, subscription.includedCalls],
  );
  return rows[0]!.current_period_end;
}

/** A paid plan's subscription as Stripe made it (its status and first period, in seconds). */
export async function insertPaidSubscription(
  db: Queryable,
  subscription: {
    id: string;
    userId: string;
    appId: string;
    packageId: string;
    status: string;
    priceMinor: number;
    currency: string;
    includedCalls: number;
    periodStart: number;
    periodEnd: number;
    stripeSubscriptionId: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO subscriptions (id, user_id, app_id, package_id, status, price_cents, currency, included_calls, current_period_start, current_period_end, stripe_subscription_id,
       included_usage_micros)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, to_timestamp($9), to_timestamp($10), $11, (SELECT included_usage_micros FROM packages WHERE id = $4))`,
    [
      subscription.id,
      subscription.userId,
      subscription.appId,
      subscription.packageId,
      subscription.status,
      subscription.priceMinor,
      subscription.currency,
      subscription.includedCalls,
      subscription.periodStart,
      subscription.periodEnd,
      subscription.stripeSubscriptionId,
    ],
  );
}

/** The user's free subscriptions set to end whose period is over: canceled. */
export async function endCancelingFreeSubscriptions(db: Queryable, userId: string) {
  const { rows } = await db.query<{ id: string; user_id: string; app_id: string; currency: string; current_period_end: Date }>(
    `UPDATE subscriptions SET status = 'canceled' WHERE user_id = $1 AND stripe_subscription_id IS NULL AND cancel_at_period_end AND status = 'active' AND current_period_end <= now()
     RETURNING id, user_id, app_id, currency, current_period_end`,
    [userId],
  );
  return rows;
}

/** A Stripe subscription's status and cancel_at_period_end as Stripe answered them; canceled and expired are final. */
export async function updateSubscriptionFromStripe(db: Queryable, id: string, sub: { status: string; cancel_at_period_end: boolean }): Promise<void> {
  await db.query(
    `UPDATE subscriptions SET status = CASE WHEN status IN ('canceled', 'incomplete_expired') THEN status ELSE $2 END, cancel_at_period_end = $3 WHERE id = $1`,
    [id, sub.status, sub.cancel_at_period_end],
  );
}

export async function updateCancelAtPeriodEnd(db: Queryable, id: string, cancel: boolean): Promise<void> {
  await db.query('UPDATE subscriptions SET cancel_at_period_end = $2 WHERE id = $1', [id, cancel]);
}

export async function selectSubscriptionByStripeId(db: Queryable, stripeSubscriptionId: string): Promise<{ id: string; currency: string } | null> {
  const { rows } = await db.query<{ id: string; currency: string }>('SELECT id, currency FROM subscriptions WHERE stripe_subscription_id = $1', [
    stripeSubscriptionId,
  ]);
  return rows[0] ?? null;
}

/** The subscription a Stripe subscription is, locked for a refund or a dispute of its payment. */
export async function lockSubscriptionByStripeId(
  tx: Queryable,
  stripeSubscriptionId: string,
): Promise<{ id: string; user_id: string; current_period_end: Date; currency: string } | null> {
  const { rows } = await tx.query<{ id: string; user_id: string; current_period_end: Date; currency: string }>(
    'SELECT id, user_id, current_period_end, currency FROM subscriptions WHERE stripe_subscription_id = $1 FOR UPDATE',
    [stripeSubscriptionId],
  );
  return rows[0] ?? null;
}

/** The included calls of the subscription's current period are over (its payment was refunded or disputed). */
export async function useUpIncludedCalls(tx: Queryable, subscriptionId: string): Promise<void> {
  await tx.query('UPDATE subscriptions SET included_used = included_calls, usage_used_micros = included_usage_micros WHERE id = $1', [subscriptionId]);
}

/**
 * A Stripe subscription's state from an event (`at`: its created time, seconds), unless a newer one
 * was applied. A new period starts with all its included calls; an older event never moves anything
 * back. Events of the same second arrive in any order: a failed renewal sends "updated" (active, the
 * new period), "invoice.payment_failed" and "updated" (past_due). So within one second, "active" does
 * not undo past_due unless it brings a newer period or the invoice was paid (`paid`). And
 * "incomplete" is only ever a subscription's first state: an event saying so (its creation,
 * delivered last within the second it was paid in) changes nothing once the subscription has left it.
 */
export async function updateSubscriptionState(
  tx: Queryable,
  stripeId: string,
  state: { status?: string; cancelAtPeriodEnd?: boolean; period?: { start: number; end: number } | null },
  at: number,
  paid: boolean,
): Promise<void> {
  await tx.query(
    `UPDATE subscriptions SET
       status = CASE
         WHEN status IN ('canceled', 'incomplete_expired') THEN status
         WHEN status = 'past_due' AND $2 = 'active' AND NOT $7::boolean AND stripe_state_at = $6
              AND NOT ($4::double precision IS NOT NULL AND to_timestamp($4) > current_period_start) THEN status
         ELSE coalesce($2, status) END,
       cancel_at_period_end = coalesce($3, cancel_at_period_end),
       included_used = CASE WHEN $4::double precision IS NOT NULL AND to_timestamp($4) > current_period_start THEN 0 ELSE included_used END,
       usage_used_micros = CASE WHEN $4::double precision IS NOT NULL AND to_timestamp($4) > current_period_start THEN 0 ELSE usage_used_micros END,
       current_period_start = CASE WHEN $4::double precision IS NOT NULL AND to_timestamp($4) > current_period_start THEN to_timestamp($4) ELSE current_period_start END,
       current_period_end = CASE WHEN $5::double precision IS NOT NULL AND to_timestamp($4) >= current_period_start THEN greatest(current_period_end, to_timestamp($5)) ELSE current_period_end END,
       stripe_state_at = greatest(stripe_state_at, $6)
     WHERE stripe_subscription_id = $1 AND stripe_state_at <= $6 AND ($2::text IS DISTINCT FROM 'incomplete' OR status = 'incomplete')`,
    [stripeId, state.status ?? null, state.cancelAtPeriodEnd ?? null, state.period?.start ?? null, state.period?.end ?? null, at, paid],
  );
}

/**
 * A canceled (or expired) subscription whose invoice was paid anyway: active for the period it paid
 * for, with its included calls unused, ending with it (decision 0027). A cancellation Stripe reported
 * in the same second as the payment came before it.
 */
export async function reopenPaidSubscription(tx: Queryable, stripeId: string, period: { start: number; end: number }, at: number): Promise<void> {
  await tx.query(
    `UPDATE subscriptions SET status = 'active', cancel_at_period_end = true, included_used = 0, usage_used_micros = 0,
       current_period_start = to_timestamp($2), current_period_end = to_timestamp($3), stripe_state_at = $4 + 1
     WHERE stripe_subscription_id = $1 AND status IN ('canceled', 'incomplete_expired') AND stripe_state_at <= $4 AND to_timestamp($3) > now()`,
    [stripeId, period.start, period.end, at],
  );
}

/** A failed renewal makes an active subscription past due (a failed first payment leaves it incomplete). */
export async function markSubscriptionPastDue(tx: Queryable, stripeId: string, at: number): Promise<void> {
  await tx.query(
    `UPDATE subscriptions SET status = 'past_due', stripe_state_at = greatest(stripe_state_at, $2)
       WHERE stripe_subscription_id = $1 AND status IN ('active', 'trialing') AND stripe_state_at <= $2`,
    [stripeId, at],
  );
}

// ---- Stripe customers and saved cards ----

export async function selectStripeCustomer(db: Queryable, userId: string): Promise<string | null> {
  const { rows } = await db.query<{ customer_id: string }>('SELECT customer_id FROM stripe_customers WHERE user_id = $1', [userId]);
  return rows[0]?.customer_id ?? null;
}

/** The user a Stripe customer is, if it is one of ours. */
export async function selectUserOfCustomer(db: Queryable, customerId: string): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM stripe_customers WHERE customer_id = $1', [customerId]);
  return rows[0]?.user_id ?? null;
}

/** The user's Stripe customer, unless another request stored one first. */
export async function insertStripeCustomer(db: Queryable, userId: string, customerId: string): Promise<void> {
  await db.query('INSERT INTO stripe_customers (user_id, customer_id) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING', [userId, customerId]);
}

/** What Stripe is told of a new customer. */
export async function selectUserContact(db: Queryable, userId: string): Promise<{ email: string; name: string } | null> {
  const { rows } = await db.query<{ email: string; name: string }>('SELECT email, display_name AS name FROM users WHERE id = $1', [userId]);
  return rows[0] ?? null;
}

export function selectPaymentMethod(db: Queryable, userId: string, id: string): Promise<PaymentMethodRow | null> {
  return firstRow<PaymentMethodRow>(db, 'SELECT * FROM payment_methods WHERE id = $1 AND user_id = $2', [id, userId]);
}

export async function selectPaymentMethods(db: Queryable, userId: string): Promise<PaymentMethodRow[]> {
  const { rows } = await db.query<PaymentMethodRow>('SELECT * FROM payment_methods WHERE user_id = $1 ORDER BY created_at', [userId]);
  return rows;
}

/** Locks the user's default card, if any: whether a card saved now becomes the default. */
export async function lockDefaultPaymentMethod(tx: Queryable, userId: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM payment_methods WHERE user_id = $1 AND is_default FOR UPDATE', [userId]);
  return rows.length > 0;
}

/** A card of the user's (a card already stored gets its new expiry, if it is theirs); its id, or null when it is another user's. */
export async function upsertPaymentMethod(
  tx: Queryable,
  card: { userId: string; stripeId: string; brand: string; last4: string; expMonth: number; expYear: number; isDefault: boolean },
): Promise<string | null> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO payment_methods (user_id, stripe_payment_method_id, card_brand, card_last4, card_exp_month, card_exp_year, is_default)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (stripe_payment_method_id) DO UPDATE SET card_exp_month = EXCLUDED.card_exp_month, card_exp_year = EXCLUDED.card_exp_year
     WHERE payment_methods.user_id = EXCLUDED.user_id
     RETURNING id`,
    [card.userId, card.stripeId, card.brand, card.last4, card.expMonth, card.expYear, card.isDefault],
  );
  return rows[0]?.id ?? null;
}

/** The card becomes the user's only default. */
export async function setDefaultPaymentMethodRow(tx: Queryable, userId: string, id: string): Promise<void> {
  await tx.query('UPDATE payment_methods SET is_default = false WHERE user_id = $1 AND is_default AND id <> $2', [userId, id]);
  await tx.query('UPDATE payment_methods SET is_default = true WHERE id = $1', [id]);
}

export async function deletePaymentMethod(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM payment_methods WHERE id = $1', [id]);
}

// ---- credit top-ups ----

export async function insertTopUp(db: Queryable, topUp: { id: string; userId: string; paymentIntentId: string; amountCents: number }): Promise<void> {
  await db.query('INSERT INTO credit_top_ups (id, user_id, stripe_payment_intent_id, amount_cents, currency) VALUES ($1, $2, $3, $4, $5)', [
    topUp.id,
    topUp.userId,
    topUp.paymentIntentId,
    topUp.amountCents,
    'usd',
  ]);
}

/** Whether the PaymentIntent is one of the user's top-ups. */
export async function isUsersTopUp(db: Queryable, userId: string, paymentIntentId: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM credit_top_ups WHERE stripe_payment_intent_id = $1 AND user_id = $2', [
    paymentIntentId,
    userId,
  ]);
  return rows.length > 0;
}

/** Whether the PaymentIntent paid a top-up (else it paid a subscription's invoice, or is not ours). */
export async function isTopUpPayment(db: Queryable, paymentIntentId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [paymentIntentId]);
  return rows.length > 0;
}

export interface TopUpRow {
  id: string;
  user_id: string;
  amount_cents: string;
  refunded_cents: string;
  status: string;
}

/** The top-up paid by a PaymentIntent, locked; null when the PaymentIntent is not a top-up. */
export function lockTopUp(tx: Queryable, paymentIntentId: string): Promise<TopUpRow | null> {
  return firstRow<TopUpRow>(tx, 'SELECT id, user_id, amount_cents, refunded_cents, status FROM credit_top_ups WHERE stripe_payment_intent_id = $1 FOR UPDATE', [
    paymentIntentId,
  ]);
}

export async function markTopUpSucceeded(tx: Queryable, paymentIntentId: string): Promise<void> {
  await tx.query("UPDATE credit_top_ups SET status = 'succeeded' WHERE stripe_payment_intent_id = $1", [paymentIntentId]);
}

/** A pending top-up whose payment failed or was canceled. */
export async function markTopUpUnpaid(tx: Queryable, paymentIntentId: string, status: 'failed' | 'canceled'): Promise<void> {
  await tx.query("UPDATE credit_top_ups SET status = $2 WHERE stripe_payment_intent_id = $1 AND status = 'pending'", [paymentIntentId, status]);
}

export async function updateTopUpRefunded(tx: Queryable, topUpId: string, refundedCents: number): Promise<void> {
  await tx.query('UPDATE credit_top_ups SET refunded_cents = $2 WHERE id = $1', [topUpId, refundedCents]);
}

// ---- the webhook's events ----

/** Marks a Stripe event handled, in the transaction that applies it; false when it was handled already. */
export async function markEventHandled(tx: Queryable, event: { id: string; type: string }): Promise<boolean> {
  const { rows } = await tx.query('INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id', [event.id, event.type]);
  return rows.length > 0;
}

/** A signed event that does not match what we asked for, for the operator. */
export async function insertEventProblem(
  tx: Queryable,
  problem: { eventId: string; eventType: string; objectId: string | null; problem: string },
): Promise<void> {
  await tx.query('INSERT INTO stripe_event_problems (event_id, event_type, object_id, problem) VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING', [
    problem.eventId,
    problem.eventType,
    problem.objectId,
    problem.problem,
  ]);
}
