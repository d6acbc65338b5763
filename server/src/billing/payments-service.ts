// Plans, subscriptions, saved cards and credit top-ups, with Stripe behind them (providers/stripe).
// Free plans never touch Stripe. Paid plans are Stripe subscriptions on one Stripe customer per
// user (a product and a price made from the plan; a price change makes a new price, so it applies
// to new subscriptions only); the first invoice is confirmed in the browser with its client secret.
// Money arrives only through webhooks (billing/webhook.ts) or the same code path on a browser
// return, and every ledger movement has a unique reference, so it happens once.

import { randomUUID } from 'node:crypto';
import {
  currencyDecimals,
  minorToMajor,
  type Package,
  type PackageCreate,
  type PackageUpdate,
  type PaymentIntentCreate,
  type PaymentIntentResponse,
  type PaymentMethod,
  type PaymentMethodCreate,
  type Subscription,
  type TopUp,
  type TopUpResult,
} from '@tollbooth/contract';
import type { AppRow, AppsService } from '../apps/service.ts';
import type { Database, Queryable } from '../db/client.ts';
import type { InvalidationBus } from '../db/invalidation.ts';
import { AppError, invalidParam } from '../errors.ts';
import type { StripeClient } from '../providers/stripe/client.ts';
import { rollFreePeriods } from './paid-call/included-calls.ts';
import { applyTopUpPayment } from './payments-ledger.ts';
import { tryRecordTopUpReceipt } from './statements-records.ts';

const DAY_MS = 86_400_000;
const LIVE_STATUSES = "('incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused')";

interface PackageRow {
  id: string;
  app_id: string;
  name: string;
  description: string;
  price_cents: string | number;
  currency: string;
  features: Record<string, string>;
  included_calls: number;
  is_active: boolean;
  stripe_product_id: string | null;
  stripe_price_id: string | null;
  stripe_price_cents: string | number | null;
  stripe_price_currency: string | null;
  subscriber_count?: string | number;
}

interface SubscriptionRow {
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
  current_period_end: Date;
  stripe_subscription_id: string | null;
}

interface PaymentMethodRow {
  id: string;
  stripe_payment_method_id: string;
  card_brand: string;
  card_last4: string;
  card_exp_month: number;
  card_exp_year: number;
  is_default: boolean;
}

const notFound = (what: string) => new AppError('not_found', `${what} not found`);
const stripeNotConfigured = () => new AppError('service_unavailable', 'Card payments are not configured on this server');

/**
 * An amount in the currency's major unit → integer minor units (cents; the whole amount for
 * zero-decimal currencies such as JPY or VND), or a 400 naming the field. Three-decimal currencies
 * are refused (naming `currency`).
 */
export function toMinorUnits(value: number, currency: string, field = 'price'): number {
  const decimals = currencyDecimals(currency);
  if (decimals === null) throw invalidParam('currency', `${currency.toUpperCase()} (a three-decimal currency) is not supported`);
  const scale = 10 ** decimals;
  const minor = Math.round(value * scale);
  if (!Number.isFinite(value) || value < 0 || Math.abs(value * scale - minor) > 1e-6)
    throw invalidParam(
      field,
      decimals === 0 ? `must be a non-negative whole amount of ${currency.toUpperCase()}` : 'must be a non-negative amount with at most 2 decimals',
    );
  return minor;
}

const toPackage = (row: PackageRow, withCount: boolean): Package => ({
  id: row.id,
  name: row.name,
  description: row.description,
  price: minorToMajor(Number(row.price_cents), row.currency),
  price_cents: Number(row.price_cents),
  currency: row.currency,
  features: row.features,
  included_calls: row.included_calls,
  is_active: row.is_active,
  ...(withCount ? { subscriber_count: Number(row.subscriber_count ?? 0) } : {}),
});

const toSubscription = (row: SubscriptionRow, now = Date.now()): Subscription => ({
  id: row.id,
  package_id: row.package_id,
  package_name: row.package_name,
  status: row.status,
  cancel_at_period_end: row.cancel_at_period_end,
  current_period_end: row.current_period_end.toISOString(),
  days_remaining: Math.max(0, Math.ceil((row.current_period_end.getTime() - now) / DAY_MS)),
  price: minorToMajor(Number(row.price_cents), row.currency),
  currency: row.currency,
  included_calls: row.included_calls,
  included_calls_used: row.included_used,
});

const toPaymentMethod = (row: PaymentMethodRow): PaymentMethod => ({
  id: row.id,
  card_brand: row.card_brand,
  card_last4: row.card_last4,
  card_exp_month: row.card_exp_month,
  card_exp_year: row.card_exp_year,
  is_default: row.is_default,
});

const SUBSCRIPTION_SELECT = `SELECT s.id, s.user_id, s.package_id, p.name AS package_name, s.status, s.cancel_at_period_end, s.price_cents, s.currency,
  s.included_calls, s.included_used, s.current_period_end, s.stripe_subscription_id
  FROM subscriptions s JOIN packages p ON p.id = s.package_id`;

export function createPaymentsService({
  db,
  apps,
  stripe,
  invalidation,
}: {
  db: Database;
  apps: AppsService;
  stripe: StripeClient | null;
  /** The paid call caches who has subscriptions: a new one is news at once here (others hear by NOTIFY). */
  invalidation?: InvalidationBus;
}) {
  /** The app, if the user may see it (owner, or live and public/embed). */
  const visibleApp = async (slug: string, userId: string): Promise<AppRow> => {
    const app = await apps.findCallableApp(slug);
    if (!app) throw new AppError('not_found', 'Application not found');
    if (app.owner_id === userId) return app;
    if (app.status === 'live' && (app.visibility === 'public' || app.visibility === 'embed')) return app;
    throw new AppError('not_found', 'Application not found');
  };

  const requireStripe = () => {
    if (!stripe) throw stripeNotConfigured();
    return stripe;
  };

  const readPackage = async (db: Queryable, appId: string, id: string) => {
    const { rows } = await db.query<PackageRow>('SELECT * FROM packages WHERE id = $1 AND app_id = $2', [id, appId]);
    if (!rows[0]) throw notFound('Package');
    return rows[0];
  };

  /** The user's Stripe customer, made once (the idempotency key makes a concurrent second attempt return the same one). */
  const customerFor = async (userId: string): Promise<string> => {
    const client = requireStripe();
    const existing = await db.query<{ customer_id: string }>('SELECT customer_id FROM stripe_customers WHERE user_id = $1', [userId]);
    if (existing.rows[0]) return existing.rows[0].customer_id;
    const user = await db.query<{ email: string; name: string }>('SELECT email, display_name AS name FROM users WHERE id = $1', [userId]);
    const customer = await client.customers.create(
      { email: user.rows[0]?.email || undefined, name: user.rows[0]?.name || undefined, metadata: { tollbooth_user_id: userId } },
      { idempotencyKey: `customer:${userId}` },
    );
    await db.query('INSERT INTO stripe_customers (user_id, customer_id) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING', [userId, customer.id]);
    const { rows } = await db.query<{ customer_id: string }>('SELECT customer_id FROM stripe_customers WHERE user_id = $1', [userId]);
    return rows[0]!.customer_id;
  };

  /** The Stripe price of the plan's current price, made on first use. */
  const priceFor = async (pkg: PackageRow, app: AppRow): Promise<string> => {
    const client = requireStripe();
    const cents = Number(pkg.price_cents);
    if (pkg.stripe_price_id && Number(pkg.stripe_price_cents) === cents && pkg.stripe_price_currency === pkg.currency) return pkg.stripe_price_id;
    let productId = pkg.stripe_product_id;
    if (!productId) {
      const product = await client.products.create(
        { name: `${app.name} — ${pkg.name}`, metadata: { tollbooth_package_id: pkg.id, tollbooth_app_id: app.id } },
        { idempotencyKey: `product:${pkg.id}` },
      );
      productId = product.id;
    }
    const price = await client.prices.create(
      { product: productId, unit_amount: cents, currency: pkg.currency, recurring: { interval: 'month' }, metadata: { tollbooth_package_id: pkg.id } },
      { idempotencyKey: `price:${pkg.id}:${cents}:${pkg.currency}` },
    );
    await db.query('UPDATE packages SET stripe_product_id = $2, stripe_price_id = $3, stripe_price_cents = $4, stripe_price_currency = $5 WHERE id = $1', [
      pkg.id,
      productId,
      price.id,
      cents,
      pkg.currency,
    ]);
    return price.id;
  };

  const readSubscription = async (userId: string, appId: string, id: string) => {
    const { rows } = await db.query<SubscriptionRow>(`${SUBSCRIPTION_SELECT} WHERE s.id = $1 AND s.user_id = $2 AND s.app_id = $3`, [id, userId, appId]);
    if (!rows[0]) throw notFound('Subscription');
    return rows[0];
  };

  /**
   * Free plans have no Stripe to renew or end them: a canceling one ends when its period does, the
   * others move to the period that contains now (see paid-call/included-calls.ts), before anyone reads them.
   */
  const endLapsedFreeSubscriptions = async (userId: string) => {
    await db.query(
      `UPDATE subscriptions SET status = 'canceled' WHERE user_id = $1 AND stripe_subscription_id IS NULL AND cancel_at_period_end AND status = 'active' AND current_period_end <= now()`,
      [userId],
    );
    await rollFreePeriods(db, userId);
  };

  /** Applies a Stripe subscription object we just received as an answer (webhooks do the same later). */
  const applyStripeSubscription = async (id: string, sub: { status: string; cancel_at_period_end: boolean }) => {
    await db.query(
      `UPDATE subscriptions SET status = CASE WHEN status IN ('canceled', 'incomplete_expired') THEN status ELSE $2 END, cancel_at_period_end = $3 WHERE id = $1`,
      [id, sub.status, sub.cancel_at_period_end],
    );
  };

  const subscribe = async (userId: string, app: AppRow, packageId: string, paymentMethodId?: string): Promise<Subscription> => {
    const pkg = await readPackage(db, app.id, packageId).catch(() => {
      throw invalidParam('package_id', 'is not a plan of this application');
    });
    if (!pkg.is_active) throw invalidParam('package_id', 'this plan is not available');
    const live = await db.query<{ id: string; status: string }>(
      `SELECT id, status FROM subscriptions WHERE user_id = $1 AND package_id = $2 AND status IN ${LIVE_STATUSES}`,
      [userId, pkg.id],
    );
    const cents = Number(pkg.price_cents);
    if (live.rows[0] && !(live.rows[0].status === 'incomplete' && cents > 0)) throw new AppError('conflict', 'You are already subscribed to this plan');

    if (cents === 0) {
      const id = randomUUID();
      try {
        await db.query(
          `INSERT INTO subscriptions (id, user_id, app_id, package_id, status, price_cents, currency, included_calls, current_period_start, current_period_end)
           VALUES ($1, $2, $3, $4, 'active', 0, $5, $6, now(), now() + interval '1 month')`,
          [id, userId, app.id, pkg.id, pkg.currency, pkg.included_calls],
        );
        invalidation?.invalidate('subscriber', userId);
      } catch (error) {
        if ((error as { code?: string }).code === '23505') throw new AppError('conflict', 'You are already subscribed to this plan');
        throw error;
      }
      return toSubscription(await readSubscription(userId, app.id, id));
    }

    const client = requireStripe();
    if (live.rows[0]) {
      // A subscription whose first payment was never confirmed: answer its payment again.
      const row = await readSubscription(userId, app.id, live.rows[0].id);
      const sub = await client.subscriptions.retrieve(row.stripe_subscription_id!, { expand: ['latest_invoice.confirmation_secret'] });
      const invoice = sub.latest_invoice as { confirmation_secret?: { client_secret: string } | null } | null;
      return { ...toSubscription(row), client_secret: invoice?.confirmation_secret?.client_secret ?? null };
    }
    const customer = await customerFor(userId);
    const price = await priceFor(pkg, app);
    let defaultPaymentMethod: string | undefined;
    if (paymentMethodId) {
      const pm = await db.query<{ stripe_payment_method_id: string }>('SELECT stripe_payment_method_id FROM payment_methods WHERE id = $1 AND user_id = $2', [
        paymentMethodId,
        userId,
      ]);
      if (!pm.rows[0]) throw invalidParam('payment_method_id', 'is not one of your payment methods');
      defaultPaymentMethod = pm.rows[0].stripe_payment_method_id;
    }
    const id = randomUUID();
    const sub = await client.subscriptions.create(
      {
        customer,
        items: [{ price }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        ...(defaultPaymentMethod ? { default_payment_method: defaultPaymentMethod } : {}),
        metadata: { tollbooth_subscription_id: id, tollbooth_app_id: app.id, tollbooth_package_id: pkg.id },
        expand: ['latest_invoice.confirmation_secret'],
      },
      { idempotencyKey: `subscribe:${id}` },
    );
    const item = sub.items.data[0] as unknown as { current_period_start: number; current_period_end: number };
    try {
      await db.query(
        `INSERT INTO subscriptions (id, user_id, app_id, package_id, status, price_cents, currency, included_calls, current_period_start, current_period_end, stripe_subscription_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, to_timestamp($9), to_timestamp($10), $11)`,
        [id, userId, app.id, pkg.id, sub.status, cents, pkg.currency, pkg.included_calls, item.current_period_start, item.current_period_end, sub.id],
      );
      invalidation?.invalidate('subscriber', userId);
    } catch (error) {
      await client.subscriptions.cancel(sub.id).catch(() => undefined);
      if ((error as { code?: string }).code === '23505') throw new AppError('conflict', 'You are already subscribed to this plan');
      throw error;
    }
    const invoice = sub.latest_invoice as { confirmation_secret?: { client_secret: string } | null } | null;
    return { ...toSubscription(await readSubscription(userId, app.id, id)), client_secret: invoice?.confirmation_secret?.client_secret ?? null };
  };

  const setCancelAtPeriodEnd = async (userId: string, slug: string, id: string, cancel: boolean): Promise<Subscription> => {
    const app = await visibleApp(slug, userId);
    const row = await readSubscription(userId, app.id, id);
    if (cancel && (row.status !== 'active' || row.cancel_at_period_end) && row.status !== 'incomplete') {
      throw new AppError('conflict', 'Only an active subscription that is not already canceling can be canceled');
    }
    if (!cancel && (row.status !== 'active' || !row.cancel_at_period_end)) throw new AppError('conflict', 'Only a canceling subscription can be resumed');
    if (row.stripe_subscription_id) {
      const client = requireStripe();
      if (row.status === 'incomplete') {
        // The first payment may have gone through at Stripe while its webhook is still on its way:
        // that plan is paid, so it ends with the period it paid for, as one canceled during the
        // payment does (decision 0027). Canceled now, it would end at once with its money kept.
        const current = await client.subscriptions.retrieve(row.stripe_subscription_id);
        const paid = current.status === 'active' || current.status === 'trialing' || current.status === 'past_due';
        const sub = paid
          ? await client.subscriptions.update(row.stripe_subscription_id, { cancel_at_period_end: true })
          : await client.subscriptions.cancel(row.stripe_subscription_id);
        await applyStripeSubscription(row.id, sub);
      } else {
        const sub = await client.subscriptions.update(row.stripe_subscription_id, { cancel_at_period_end: cancel });
        await applyStripeSubscription(row.id, sub);
      }
    } else {
      await db.query('UPDATE subscriptions SET cancel_at_period_end = $2 WHERE id = $1', [row.id, cancel]);
    }
    return toSubscription(await readSubscription(userId, app.id, id));
  };

  const readPaymentMethod = async (userId: string, id: string) => {
    const { rows } = await db.query<PaymentMethodRow>('SELECT * FROM payment_methods WHERE id = $1 AND user_id = $2', [id, userId]);
    if (!rows[0]) throw notFound('Payment method');
    return rows[0];
  };

  return {
    // ---- plans ----
    async listPackages(slug: string, userId: string): Promise<Package[]> {
      const app = await visibleApp(slug, userId);
      const owner = app.owner_id === userId;
      const { rows } = await db.query<PackageRow>(
        `SELECT p.*, (SELECT count(*) FROM subscriptions s WHERE s.package_id = p.id AND s.status IN ${LIVE_STATUSES}) AS subscriber_count
         FROM packages p WHERE p.app_id = $1 ORDER BY p.price_cents, p.created_at`,
        [app.id],
      );
      return rows.map((row) => toPackage(row, owner));
    },

    async createPackage(slug: string, ownerId: string, input: PackageCreate): Promise<Package> {
      const app = await apps.findOwnedApp(slug, ownerId);
      const currency = (input.currency ?? 'usd').toLowerCase();
      const { rows } = await db.query<PackageRow>(
        `INSERT INTO packages (app_id, name, description, price_cents, currency, features, included_calls, is_active)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [
          app.id,
          input.name.trim(),
          input.description ?? '',
          toMinorUnits(input.price, currency),
          currency,
          JSON.stringify(input.features ?? {}),
          input.included_calls ?? 0,
          input.is_active ?? true,
        ],
      );
      return toPackage(rows[0]!, true);
    },

    async updatePackage(slug: string, ownerId: string, id: string, input: PackageUpdate): Promise<Package> {
      const app = await apps.findOwnedApp(slug, ownerId);
      const pkg = await readPackage(db, app.id, id);
      if (input.name !== undefined && input.name.trim() === '') throw invalidParam('name', 'must not be empty');
      // A new currency keeps the shown price (¥ 500 stays 500), so the minor units are made again.
      const currency = input.currency?.toLowerCase() ?? pkg.currency;
      const priceMinor = toMinorUnits(input.price ?? minorToMajor(Number(pkg.price_cents), pkg.currency), currency);
      await db.query(
        `UPDATE packages SET name = $2, description = $3, price_cents = $4, currency = $5, features = $6, included_calls = $7, is_active = $8, updated_at = now() WHERE id = $1`,
        [
          id,
          input.name?.trim() ?? pkg.name,
          input.description ?? pkg.description,
          priceMinor,
          currency,
          JSON.stringify(input.features ?? pkg.features),
          input.included_calls ?? pkg.included_calls,
          input.is_active ?? pkg.is_active,
        ],
      );
      const updated = (await this.listPackages(slug, ownerId)).find((p) => p.id === id);
      return updated!;
    },

    async deactivatePackage(slug: string, ownerId: string, id: string): Promise<Package> {
      return this.updatePackage(slug, ownerId, id, { is_active: false });
    },

    /** Deletes a plan nobody ever subscribed to; a plan with subscribers can only be deactivated. */
    async deletePackage(slug: string, ownerId: string, id: string): Promise<void> {
      const app = await apps.findOwnedApp(slug, ownerId);
      await readPackage(db, app.id, id);
      const { rows } = await db.query(
        'DELETE FROM packages p WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.package_id = p.id) RETURNING id',
        [id],
      );
      if (!rows[0]) throw new AppError('conflict', 'A plan with subscribers cannot be deleted; deactivate it instead');
    },

    // ---- subscriptions ----
    async listSubscriptions(slug: string, userId: string): Promise<Subscription[]> {
      const app = await visibleApp(slug, userId);
      await endLapsedFreeSubscriptions(userId);
      const { rows } = await db.query<SubscriptionRow>(
        `${SUBSCRIPTION_SELECT} WHERE s.user_id = $1 AND s.app_id = $2 AND s.status <> 'incomplete_expired' ORDER BY s.created_at DESC`,
        [userId, app.id],
      );
      return rows.map((row) => toSubscription(row));
    },
    async readSubscription(slug: string, userId: string, id: string): Promise<Subscription> {
      const app = await visibleApp(slug, userId);
      await endLapsedFreeSubscriptions(userId);
      return toSubscription(await readSubscription(userId, app.id, id));
    },
    async subscribe(slug: string, userId: string, input: { package_id: string; payment_method_id?: string }): Promise<Subscription> {
      const app = await visibleApp(slug, userId);
      return subscribe(userId, app, input.package_id, input.payment_method_id);
    },
    cancelSubscription: (slug: string, userId: string, id: string) => setCancelAtPeriodEnd(userId, slug, id, true),
    updateSubscription: (slug: string, userId: string, id: string, input: { cancel_at_period_end: boolean }) =>
      setCancelAtPeriodEnd(userId, slug, id, input.cancel_at_period_end),

    /** The spec's create-payment-intent: amount 0 → a SetupIntent to save a card; otherwise the plan's first payment. */
    async createPaymentIntent(slug: string, userId: string, input: PaymentIntentCreate): Promise<PaymentIntentResponse> {
      const app = await visibleApp(slug, userId);
      if (input.amount === 0) {
        const client = requireStripe();
        const customer = await customerFor(userId);
        const intent = await client.setupIntents.create({ customer, usage: 'off_session', metadata: { tollbooth_user_id: userId } });
        return { client_secret: intent.client_secret! };
      }
      if (!input.package_id) throw invalidParam('package_id', 'is required when amount is above 0');
      const pkg = await readPackage(db, app.id, input.package_id).catch(() => {
        throw invalidParam('package_id', 'is not a plan of this application');
      });
      if (Number(pkg.price_cents) !== input.amount) throw invalidParam('amount', `must be the plan's price × 100 (${pkg.price_cents})`);
      if (pkg.currency !== input.currency) throw invalidParam('currency', `must be the plan's currency (${pkg.currency})`);
      const subscription = await subscribe(userId, app, pkg.id);
      if (!subscription.client_secret) throw new AppError('provider_error', 'Stripe did not return a payment to confirm');
      return { client_secret: subscription.client_secret, subscription_id: subscription.id };
    },

    // ---- payment methods ----
    async listPaymentMethods(slug: string, userId: string): Promise<PaymentMethod[]> {
      await visibleApp(slug, userId);
      const { rows } = await db.query<PaymentMethodRow>('SELECT * FROM payment_methods WHERE user_id = $1 ORDER BY created_at', [userId]);
      return rows.map(toPaymentMethod);
    },

    async addPaymentMethod(slug: string, userId: string, input: PaymentMethodCreate): Promise<PaymentMethod> {
      await visibleApp(slug, userId);
      const client = requireStripe();
      const customer = await customerFor(userId);
      let paymentMethodId = input.payment_method_id;
      if (input.setup_intent_id) {
        const intent = await client.setupIntents.retrieve(input.setup_intent_id).catch(() => null);
        if (!intent || intent.customer !== customer) throw invalidParam('setup_intent_id', 'is not one of your setup intents');
        if (intent.status !== 'succeeded' || !intent.payment_method) throw invalidParam('setup_intent_id', 'has not succeeded');
        paymentMethodId = typeof intent.payment_method === 'string' ? intent.payment_method : intent.payment_method.id;
      }
      if (!paymentMethodId) throw invalidParam('setup_intent_id', 'or payment_method_id is required');
      const saved = await savePaymentMethod(db, client, userId, customer, paymentMethodId);
      if (!saved) throw invalidParam('payment_method_id', 'is not a card of yours');
      return toPaymentMethod(await readPaymentMethod(userId, saved));
    },

    async makeDefaultPaymentMethod(slug: string, userId: string, id: string): Promise<PaymentMethod> {
      await visibleApp(slug, userId);
      const row = await readPaymentMethod(userId, id);
      const client = requireStripe();
      const customer = await customerFor(userId);
      await client.customers.update(customer, { invoice_settings: { default_payment_method: row.stripe_payment_method_id } });
      await db.transaction(async (tx) => {
        await tx.query('UPDATE payment_methods SET is_default = false WHERE user_id = $1 AND is_default AND id <> $2', [userId, id]);
        await tx.query('UPDATE payment_methods SET is_default = true WHERE id = $1', [id]);
      });
      return toPaymentMethod(await readPaymentMethod(userId, id));
    },

    async removePaymentMethod(slug: string, userId: string, id: string): Promise<void> {
      await visibleApp(slug, userId);
      const row = await readPaymentMethod(userId, id);
      const client = requireStripe();
      await client.paymentMethods.detach(row.stripe_payment_method_id).catch((error: { code?: string; statusCode?: number }) => {
        // Already detached (e.g. removed at Stripe): removing our copy is still right.
        if (error.statusCode !== 400 && error.statusCode !== 404) throw error;
      });
      await db.query('DELETE FROM payment_methods WHERE id = $1', [id]);
    },

    // ---- credit top-ups ----
    async createTopUp(userId: string, amountCents: number): Promise<TopUp> {
      const client = requireStripe();
      const customer = await customerFor(userId);
      const id = randomUUID();
      const intent = await client.paymentIntents.create(
        {
          amount: amountCents,
          currency: 'usd',
          customer,
          description: 'Tollbooth credits',
          metadata: { tollbooth_kind: 'credit_top_up', tollbooth_user_id: userId, tollbooth_top_up_id: id },
        },
        { idempotencyKey: `top-up:${id}` },
      );
      await db.query('INSERT INTO credit_top_ups (id, user_id, stripe_payment_intent_id, amount_cents, currency) VALUES ($1, $2, $3, $4, $5)', [
        id,
        userId,
        intent.id,
        amountCents,
        'usd',
      ]);
      return { id, payment_intent_id: intent.id, client_secret: intent.client_secret!, amount_cents: amountCents, status: 'pending' };
    },

    /** The browser came back from Stripe: ask Stripe, and credit a succeeded payment (once, as the webhook would). */
    async confirmTopUp(userId: string, paymentIntentId: string): Promise<TopUpResult> {
      const { rows } = await db.query<{ id: string }>('SELECT id FROM credit_top_ups WHERE stripe_payment_intent_id = $1 AND user_id = $2', [
        paymentIntentId,
        userId,
      ]);
      if (!rows[0]) throw notFound('Top-up');
      const intent = await requireStripe().paymentIntents.retrieve(paymentIntentId);
      let credited = false;
      if (intent.status === 'succeeded') {
        credited = await db.transaction((tx) =>
          applyTopUpPayment(tx, { id: intent.id, amount: intent.amount, currency: intent.currency, status: intent.status }),
        );
        await tryRecordTopUpReceipt(db, stripe, intent);
      }
      const balance = await db.query<{ balance_cents: string }>(
        "SELECT balance_cents FROM ledger_accounts WHERE kind = 'user_credits' AND user_id = $1 AND currency = 'usd'",
        [userId],
      );
      return { status: intent.status, credited, credits_cents: Number(balance.rows[0]?.balance_cents ?? 0) };
    },
  };
}

/** Stores a card of the user's Stripe customer (brand, last 4, expiry only); returns its id, or null when it is not theirs. */
export async function savePaymentMethod(db: Database, client: StripeClient, userId: string, customer: string, paymentMethodId: string): Promise<string | null> {
  const pm = await client.paymentMethods.retrieve(paymentMethodId).catch(() => null);
  if (!pm?.card) return null;
  const owner = typeof pm.customer === 'string' ? pm.customer : (pm.customer?.id ?? null);
  if (owner !== customer) return null;
  return db.transaction(async (tx) => {
    const hasDefault = await tx.query('SELECT 1 FROM payment_methods WHERE user_id = $1 AND is_default FOR UPDATE', [userId]);
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO payment_methods (user_id, stripe_payment_method_id, card_brand, card_last4, card_exp_month, card_exp_year, is_default)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (stripe_payment_method_id) DO UPDATE SET card_exp_month = EXCLUDED.card_exp_month, card_exp_year = EXCLUDED.card_exp_year
       WHERE payment_methods.user_id = EXCLUDED.user_id
       RETURNING id`,
      [userId, pm.id, pm.card!.brand, pm.card!.last4, pm.card!.exp_month, pm.card!.exp_year, hasDefault.rows.length === 0],
    );
    return rows[0]?.id ?? null;
  });
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
