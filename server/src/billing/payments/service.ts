// Plans, subscriptions, saved cards and credit top-ups, with Stripe behind them (providers/stripe/).
// Free plans never touch Stripe. Paid plans are Stripe subscriptions on one Stripe customer per
// user (customers.ts; a product and a price made from the plan; a price change makes a new price,
// so it applies to new subscriptions only); the first invoice is confirmed in the browser with its
// client secret. Money arrives only through webhooks (webhook.ts) or the same code path on a
// browser return (ledger.ts), and every ledger movement has a unique reference, so it happens once.
// The SQL is in queries.ts.

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
import type { AppRow, AppsService } from '../../apps/service.ts';
import type { Database } from '../../db/client.ts';
import type { InvalidationBus } from '../../db/invalidation.ts';
import { AppError, invalidParam } from '../../platform/errors.ts';
import { cancelSubscription } from '../../providers/stripe/cancel-subscription.ts';
import type { StripeClient } from '../../providers/stripe/client.ts';
import { createTopUpPayment } from '../../providers/stripe/create-payment-intent.ts';
import { createMonthlyPrice } from '../../providers/stripe/create-price.ts';
import { createPlanProduct } from '../../providers/stripe/create-product.ts';
import { createSetupIntent } from '../../providers/stripe/create-setup-intent.ts';
import { createSubscription, paymentSecretOf } from '../../providers/stripe/create-subscription.ts';
import { detachPaymentMethod } from '../../providers/stripe/detach-payment-method.ts';
import { readPaymentIntent } from '../../providers/stripe/read-payment-intent.ts';
import { readSetupIntent } from '../../providers/stripe/read-setup-intent.ts';
import { readSubscription, readSubscriptionPayment } from '../../providers/stripe/read-subscription.ts';
import { setDefaultPaymentMethod } from '../../providers/stripe/update-customer.ts';
import { setCancelAtPeriodEnd as setStripeCancelAtPeriodEnd } from '../../providers/stripe/update-subscription.ts';
import { readBalanceCents } from '../ledger.ts';
import { rollFreePeriods } from '../paid-call/included-calls.ts';
import { tryRecordTopUpReceipt } from '../statements/receipts.ts';
import { findOrCreateCustomer, savePaymentMethod } from './customers.ts';
import { applyTopUpPayment } from './ledger.ts';
import {
  deletePaymentMethod,
  deleteUnsubscribedPackage,
  endCancelingFreeSubscriptions,
  insertFreeSubscription,
  insertPackage,
  insertPaidSubscription,
  insertTopUp,
  isUsersTopUp,
  type PackageRow,
  type PaymentMethodRow,
  type SubscriptionRow,
  selectLiveSubscription,
  selectPackage,
  selectPackages,
  selectPaymentMethod,
  selectPaymentMethods,
  selectSubscription,
  selectSubscriptions,
  setDefaultPaymentMethodRow,
  updateCancelAtPeriodEnd,
  updatePackage,
  updatePackageStripePrice,
  updateSubscriptionFromStripe,
} from './queries.ts';
import { recordFreeSubscriptionCreated, recordFreeSubscriptionsEnded } from './subscription-events.ts';

const DAY_MS = 86_400_000;

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
  included_usage_micros: Number(row.included_usage_micros),
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
  included_usage_micros: Number(row.included_usage_micros),
  usage_used_micros: Number(row.usage_used_micros),
});

const toPaymentMethod = (row: PaymentMethodRow): PaymentMethod => ({
  id: row.id,
  card_brand: row.card_brand,
  card_last4: row.card_last4,
  card_exp_month: row.card_exp_month,
  card_exp_year: row.card_exp_year,
  is_default: row.is_default,
});

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

  const readPackage = async (appId: string, id: string) => {
    const row = await selectPackage(db, appId, id);
    if (!row) throw notFound('Package');
    return row;
  };

  /** A plan of the app, for a subscription to it: a 400 naming package_id otherwise. */
  const readPlanToSubscribe = (appId: string, id: string) =>
    readPackage(appId, id).catch(() => {
      throw invalidParam('package_id', 'is not a plan of this application');
    });

  /** The user's Stripe customer (customers.ts). */
  const customerFor = async (userId: string): Promise<string> => findOrCreateCustomer(db, requireStripe(), userId);

  /** The Stripe price of the plan's current price, made on first use. */
  const priceFor = async (pkg: PackageRow, app: AppRow): Promise<string> => {
    const client = requireStripe();
    const cents = Number(pkg.price_cents);
    if (pkg.stripe_price_id && Number(pkg.stripe_price_cents) === cents && pkg.stripe_price_currency === pkg.currency) return pkg.stripe_price_id;
    let productId = pkg.stripe_product_id;
    if (!productId) productId = (await createPlanProduct(client, { id: pkg.id, appId: app.id, name: `${app.name} — ${pkg.name}` })).id;
    const price = await createMonthlyPrice(client, { planId: pkg.id, productId, amountMinor: cents, currency: pkg.currency });
    await updatePackageStripePrice(db, { packageId: pkg.id, productId, priceId: price.id, amountMinor: cents, currency: pkg.currency });
    return price.id;
  };

  const readSubscriptionRow = async (userId: string, appId: string, id: string) => {
    const row = await selectSubscription(db, userId, appId, id);
    if (!row) throw notFound('Subscription');
    return row;
  };

  /**
   * Free plans have no Stripe to renew or end them: a canceling one ends when its period does, the
   * others move to the period that contains now (see paid-call/included-calls.ts), before anyone reads them.
   */
  const endLapsedFreeSubscriptions = async (userId: string) => {
    await db.transaction(async (tx) => recordFreeSubscriptionsEnded(tx, await endCancelingFreeSubscriptions(tx, userId)));
    await rollFreePeriods(db, userId);
  };

  /** Stores a new subscription (`onFailure` undoes what was made for it); a second live one to the same plan (a concurrent subscribe) is a 409. */
  const insertSubscription = async (userId: string, insert: () => Promise<void>, onFailure?: () => Promise<unknown>) => {
    try {
      await insert();
      invalidation?.invalidate('subscriber', userId);
    } catch (error) {
      await onFailure?.();
      if ((error as { code?: string }).code === '23505') throw new AppError('conflict', 'You are already subscribed to this plan');
      throw error;
    }
  };

  const subscribe = async (userId: string, app: AppRow, packageId: string, paymentMethodId?: string): Promise<Subscription> => {
    const pkg = await readPlanToSubscribe(app.id, packageId);
    if (!pkg.is_active) throw invalidParam('package_id', 'this plan is not available');
    const live = await selectLiveSubscription(db, userId, pkg.id);
    const cents = Number(pkg.price_cents);
    if (live && !(live.status === 'incomplete' && cents > 0)) throw new AppError('conflict', 'You are already subscribed to this plan');

    if (cents === 0) {
      const id = randomUUID();
      // The subscription and its subscription.created webhook commit together (issue 62).
      await insertSubscription(userId, () =>
        db.transaction(async (tx) => {
          const currentPeriodEnd = await insertFreeSubscription(tx, {
            id,
            userId,
            appId: app.id,
            packageId: pkg.id,
            currency: pkg.currency,
            includedCalls: pkg.included_calls,
          });
          await recordFreeSubscriptionCreated(tx, { id, userId, appId: app.id, currency: pkg.currency, currentPeriodEnd });
        }),
      );
      return toSubscription(await readSubscriptionRow(userId, app.id, id));
    }

    const client = requireStripe();
    if (live) {
      // A subscription whose first payment was never confirmed: answer its payment again.
      const row = await readSubscriptionRow(userId, app.id, live.id);
      const sub = await readSubscriptionPayment(client, row.stripe_subscription_id!);
      return { ...toSubscription(row), client_secret: paymentSecretOf(sub) };
    }
    const customer = await customerFor(userId);
    const price = await priceFor(pkg, app);
    let defaultPaymentMethod: string | undefined;
    if (paymentMethodId) {
      const card = await selectPaymentMethod(db, userId, paymentMethodId);
      if (!card) throw invalidParam('payment_method_id', 'is not one of your payment methods');
      defaultPaymentMethod = card.stripe_payment_method_id;
    }
    const id = randomUUID();
    const sub = await createSubscription(client, { id, customer, price, defaultPaymentMethod, appId: app.id, planId: pkg.id });
    const item = sub.items.data[0] as unknown as { current_period_start: number; current_period_end: number };
    await insertSubscription(
      userId,
      () =>
        insertPaidSubscription(db, {
          id,
          userId,
          appId: app.id,
          packageId: pkg.id,
          status: sub.status,
          priceMinor: cents,
          currency: pkg.currency,
          includedCalls: pkg.included_calls,
          periodStart: item.current_period_start,
          periodEnd: item.current_period_end,
          stripeSubscriptionId: sub.id,
        }),
      () => cancelSubscription(client, sub.id).catch(() => undefined),
    );
    return { ...toSubscription(await readSubscriptionRow(userId, app.id, id)), client_secret: paymentSecretOf(sub) };
  };

  const setCancelAtPeriodEnd = async (userId: string, slug: string, id: string, cancel: boolean): Promise<Subscription> => {
    const app = await visibleApp(slug, userId);
    const row = await readSubscriptionRow(userId, app.id, id);
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
        const current = await readSubscription(client, row.stripe_subscription_id);
        const paid = current.status === 'active' || current.status === 'trialing' || current.status === 'past_due';
        const sub = paid
          ? await setStripeCancelAtPeriodEnd(client, row.stripe_subscription_id, true)
          : await cancelSubscription(client, row.stripe_subscription_id);
        await updateSubscriptionFromStripe(db, row.id, sub);
      } else {
        const sub = await setStripeCancelAtPeriodEnd(client, row.stripe_subscription_id, cancel);
        await updateSubscriptionFromStripe(db, row.id, sub);
      }
    } else {
      await updateCancelAtPeriodEnd(db, row.id, cancel);
    }
    return toSubscription(await readSubscriptionRow(userId, app.id, id));
  };

  const readCard = async (userId: string, id: string) => {
    const row = await selectPaymentMethod(db, userId, id);
    if (!row) throw notFound('Payment method');
    return row;
  };

  return {
    // ---- plans ----
    async listPackages(slug: string, userId: string): Promise<Package[]> {
      const app = await visibleApp(slug, userId);
      const owner = app.owner_id === userId;
      return (await selectPackages(db, app.id)).map((row) => toPackage(row, owner));
    },

    async createPackage(slug: string, ownerId: string, input: PackageCreate): Promise<Package> {
      const app = await apps.findOwnedApp(slug, ownerId);
      const currency = (input.currency ?? 'usd').toLowerCase();
      const row = await insertPackage(db, app.id, {
        name: input.name.trim(),
        description: input.description ?? '',
        priceMinor: toMinorUnits(input.price, currency),
        currency,
        features: input.features ?? {},
        includedCalls: input.included_calls ?? 0,
        includedUsageMicros: input.included_usage_micros ?? 0,
        isActive: input.is_active ?? true,
      });
      return toPackage(row, true);
    },

    async updatePackage(slug: string, ownerId: string, id: string, input: PackageUpdate): Promise<Package> {
      const app = await apps.findOwnedApp(slug, ownerId);
      const pkg = await readPackage(app.id, id);
      if (input.name !== undefined && input.name.trim() === '') throw invalidParam('name', 'must not be empty');
      // A new currency keeps the shown price (¥ 500 stays 500), so the minor units are made again.
      const currency = input.currency?.toLowerCase() ?? pkg.currency;
      const priceMinor = toMinorUnits(input.price ?? minorToMajor(Number(pkg.price_cents), pkg.currency), currency);
      await updatePackage(db, id, {
        name: input.name?.trim() ?? pkg.name,
        description: input.description ?? pkg.description,
        priceMinor,
        currency,
        features: input.features ?? pkg.features,
        includedCalls: input.included_calls ?? pkg.included_calls,
        includedUsageMicros: input.included_usage_micros ?? Number(pkg.included_usage_micros),
        isActive: input.is_active ?? pkg.is_active,
      });
      const updated = (await this.listPackages(slug, ownerId)).find((p) => p.id === id);
      return updated!;
    },

    async deactivatePackage(slug: string, ownerId: string, id: string): Promise<Package> {
      return this.updatePackage(slug, ownerId, id, { is_active: false });
    },

    /** Deletes a plan nobody ever subscribed to; a plan with subscribers can only be deactivated. */
    async deletePackage(slug: string, ownerId: string, id: string): Promise<void> {
      const app = await apps.findOwnedApp(slug, ownerId);
      await readPackage(app.id, id);
      if (!(await deleteUnsubscribedPackage(db, id))) throw new AppError('conflict', 'A plan with subscribers cannot be deleted; deactivate it instead');
    },

    // ---- subscriptions ----
    async listSubscriptions(slug: string, userId: string): Promise<Subscription[]> {
      const app = await visibleApp(slug, userId);
      await endLapsedFreeSubscriptions(userId);
      return (await selectSubscriptions(db, userId, app.id)).map((row) => toSubscription(row));
    },
    async readSubscription(slug: string, userId: string, id: string): Promise<Subscription> {
      const app = await visibleApp(slug, userId);
      await endLapsedFreeSubscriptions(userId);
      return toSubscription(await readSubscriptionRow(userId, app.id, id));
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
        const intent = await createSetupIntent(client, customer, userId);
        return { client_secret: intent.client_secret! };
      }
      if (!input.package_id) throw invalidParam('package_id', 'is required when amount is above 0');
      const pkg = await readPlanToSubscribe(app.id, input.package_id);
      if (Number(pkg.price_cents) !== input.amount) throw invalidParam('amount', `must be the plan's price × 100 (${pkg.price_cents})`);
      if (pkg.currency !== input.currency) throw invalidParam('currency', `must be the plan's currency (${pkg.currency})`);
      const subscription = await subscribe(userId, app, pkg.id);
      if (!subscription.client_secret) throw new AppError('provider_error', 'Stripe did not return a payment to confirm');
      return { client_secret: subscription.client_secret, subscription_id: subscription.id };
    },

    // ---- payment methods ----
    async listPaymentMethods(slug: string, userId: string): Promise<PaymentMethod[]> {
      await visibleApp(slug, userId);
      return (await selectPaymentMethods(db, userId)).map(toPaymentMethod);
    },

    async addPaymentMethod(slug: string, userId: string, input: PaymentMethodCreate): Promise<PaymentMethod> {
      await visibleApp(slug, userId);
      const client = requireStripe();
      const customer = await customerFor(userId);
      let paymentMethodId = input.payment_method_id;
      if (input.setup_intent_id) {
        const intent = await readSetupIntent(client, input.setup_intent_id).catch(() => null);
        if (!intent || intent.customer !== customer) throw invalidParam('setup_intent_id', 'is not one of your setup intents');
        if (intent.status !== 'succeeded' || !intent.payment_method) throw invalidParam('setup_intent_id', 'has not succeeded');
        paymentMethodId = typeof intent.payment_method === 'string' ? intent.payment_method : intent.payment_method.id;
      }
      if (!paymentMethodId) throw invalidParam('setup_intent_id', 'or payment_method_id is required');
      const saved = await savePaymentMethod(db, client, userId, customer, paymentMethodId);
      if (!saved) throw invalidParam('payment_method_id', 'is not a card of yours');
      return toPaymentMethod(await readCard(userId, saved));
    },

    async makeDefaultPaymentMethod(slug: string, userId: string, id: string): Promise<PaymentMethod> {
      await visibleApp(slug, userId);
      const row = await readCard(userId, id);
      const client = requireStripe();
      const customer = await customerFor(userId);
      await setDefaultPaymentMethod(client, customer, row.stripe_payment_method_id);
      await db.transaction((tx) => setDefaultPaymentMethodRow(tx, userId, id));
      return toPaymentMethod(await readCard(userId, id));
    },

    async removePaymentMethod(slug: string, userId: string, id: string): Promise<void> {
      await visibleApp(slug, userId);
      const row = await readCard(userId, id);
      const client = requireStripe();
      await detachPaymentMethod(client, row.stripe_payment_method_id).catch((error: { code?: string; statusCode?: number }) => {
        // Already detached (e.g. removed at Stripe): removing our copy is still right.
        if (error.statusCode !== 400 && error.statusCode !== 404) throw error;
      });
      await deletePaymentMethod(db, id);
    },

    // ---- credit top-ups ----
    async createTopUp(userId: string, amountCents: number): Promise<TopUp> {
      const client = requireStripe();
      const customer = await customerFor(userId);
      const id = randomUUID();
      const intent = await createTopUpPayment(client, { id, userId, customer, amountCents });
      await insertTopUp(db, { id, userId, paymentIntentId: intent.id, amountCents });
      return { id, payment_intent_id: intent.id, client_secret: intent.client_secret!, amount_cents: amountCents, status: 'pending' };
    },

    /** The browser came back from Stripe: ask Stripe, and credit a succeeded payment (once, as the webhook would). */
    async confirmTopUp(userId: string, paymentIntentId: string): Promise<TopUpResult> {
      if (!(await isUsersTopUp(db, userId, paymentIntentId))) throw notFound('Top-up');
      const intent = await readPaymentIntent(requireStripe(), paymentIntentId);
      let credited = false;
      if (intent.status === 'succeeded') {
        credited = await db.transaction((tx) =>
          applyTopUpPayment(tx, { id: intent.id, amount: intent.amount, currency: intent.currency, status: intent.status }),
        );
        await tryRecordTopUpReceipt(db, stripe, intent);
      }
      return { status: intent.status, credited, credits_cents: Number(await readBalanceCents(db, 'user_credits', userId)) };
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
