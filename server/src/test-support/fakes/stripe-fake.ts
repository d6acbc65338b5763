// A loopback fake of the Stripe API for the objects Tollbooth uses (customers, payment methods,
// SetupIntents, PaymentIntents, products, prices, subscriptions, invoices), speaking Stripe's wire
// format: form-encoded bodies in bracket notation, `expand[]`, the Idempotency-Key header (same
// key + same body → the first answer again; different body → 400 idempotency_error), Stripe's error
// objects, and webhooks signed exactly as Stripe signs them (`Stripe-Signature: t=…,v1=HMAC-SHA256`).
// The official SDK reaches it through STRIPE_API_BASE. Browser-side confirmation (what Stripe.js
// does) is POST /v1/{setup,payment}_intents/{id}/confirm with the publishable key and client secret.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stripeJsDouble } from './stripe-js-double.ts';

type StripeObject = Record<string, unknown> & { id: string; object: string };

/** One of the fake's routes: `clientSide` ones are Stripe.js's, answered with the publishable key and the intent's client secret. */
interface Route {
  method: string;
  pattern: RegExp;
  clientSide?: boolean;
  handle: (m: string[], body: Record<string, unknown>, request: IncomingMessage) => StripeObject;
}

export interface StripeFakeRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

export interface StripeFakeOptions {
  secretKey?: string;
  publishableKey?: string;
  webhookSecret?: string;
  /** Where webhooks go (set later with setWebhookUrl when the app's port is known). */
  webhookUrl?: string | null;
}

export const TEST_CARDS = { success: '4242424242424242', requiresAuthentication: '4000002500003155', declined: '4000000000009995' };

const MONTH_SECONDS = 30 * 24 * 3600;
const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
    readonly param?: string,
    readonly declineCode?: string,
  ) {
    super(message);
  }
}

const missing = (param: string) => new StripeError(400, 'invalid_request_error', `Missing required param: ${param}.`, 'parameter_missing', param);
const noSuch = (kind: string, id: string) => new StripeError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', 'id');

/** Parses `a[b][0][c]=v&expand[]=x` into nested objects and arrays, as Stripe does. */
export function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(parts[i + 1]!);
      const container = node as Record<string | number, unknown>;
      const key = Array.isArray(node) && part === '' ? node.length : part;
      if (last) {
        container[key] = value;
      } else {
        if (container[key] === undefined) container[key] = nextIsIndex ? [] : {};
        node = container[key] as Record<string, unknown> | unknown[];
      }
    }
  }
  return root;
}

const CARD_BRANDS: Record<string, string> = { '4': 'visa', '5': 'mastercard', '3': 'amex' };

export async function startStripeFake(options: StripeFakeOptions = {}) {
  const secretKey = options.secretKey ?? 'sk_test_fake';
  const publishableKey = options.publishableKey ?? 'pk_test_fake';
  const webhookSecret = options.webhookSecret ?? 'whsec_fake';
  let webhookUrl = options.webhookUrl ?? null;
  const objects = new Map<string, StripeObject>();
  const accountLinks: Record<string, unknown>[] = [];
  const idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const requests: StripeFakeRequest[] = [];
  const events: StripeObject[] = [];
  const deliveries = new Set<Promise<unknown>>();
  const deliveryResults: { eventId: string; type: string; status: number }[] = [];

  const get = (kind: string, id: unknown): StripeObject => {
    const found = typeof id === 'string' ? objects.get(id) : undefined;
    if (!found || found.object !== kind) throw noSuch(kind, String(id));
    return found;
  };
  const save = <T extends StripeObject>(object: T): T => {
    objects.set(object.id, object);
    return object;
  };
  /** The public view of an object: internal `_` fields dropped, `expand` paths replaced by the objects. */
  const render = (object: StripeObject, expand: string[] = []): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(object)) if (!key.startsWith('_')) out[key] = structuredClone(value);
    for (const path of expand) {
      const [head, ...rest] = path.split('.');
      if (!head) continue;
      if (head === 'confirmation_secret' && object.object === 'invoice') {
        out.confirmation_secret = object._confirmation_secret ?? null;
        continue;
      }
      const value = object[head];
      if (typeof value === 'string' && objects.has(value)) out[head] = render(objects.get(value)!, rest.length ? [rest.join('.')] : []);
    }
    return out;
  };

  const emit = (type: string, object: StripeObject, account?: string) => {
    const event: StripeObject = {
      id: newId('evt'),
      object: 'event',
      ...(account ? { account } : {}),
      api_version: '2026-10-28.endive',
      created: now(),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object: render(object) },
    };
    events.push(event);
    if (webhookUrl && transferFaults.holdWebhooks) heldEvents.push(event);
    else if (webhookUrl) {
      const delivery = deliver(event).finally(() => deliveries.delete(delivery));
      deliveries.add(delivery);
    }
    return event;
  };

  /** The body and Stripe-Signature header of a delivery of this event, signed at `timestamp` with `secret`. */
  const sign = (payload: string, timestamp = now(), secret = webhookSecret) =>
    `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')}`;

  const deliver = async (event: StripeObject, url = webhookUrl) => {
    if (!url) throw new Error('no webhook URL');
    const payload = JSON.stringify(event, null, 2);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': sign(payload),
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
    });
    await response.text();
    deliveryResults.push({ eventId: event.id, type: String(event.type), status: response.status });
    return response.status;
  };

  const cardPaymentMethod = (number: string, customer: string | null, expMonth = 12, expYear = new Date().getUTCFullYear() + 3) => {
    const digits = number.replace(/\s+/g, '');
    return save({
      id: newId('pm'),
      object: 'payment_method',
      type: 'card',
      created: now(),
      customer,
      billing_details: { address: { country: null, postal_code: null }, email: null, name: null },
      card: {
        brand: CARD_BRANDS[digits[0] ?? ''] ?? 'unknown',
        last4: digits.slice(-4),
        exp_month: expMonth,
        exp_year: expYear,
        funding: 'credit',
        country: 'US',
      },
      metadata: {},
      _number: digits,
    });
  };

  /** The payment method a confirm request names or describes. */
  const confirmPaymentMethod = (body: Record<string, unknown>, customer: string | null) => {
    if (typeof body.payment_method === 'string') return get('payment_method', body.payment_method);
    const data = body.payment_method_data as { card?: { number?: string; exp_month?: string; exp_year?: string } } | undefined;
    if (!data?.card?.number) throw missing('payment_method');
    return cardPaymentMethod(data.card.number, customer, Number(data.card.exp_month ?? 12), Number(data.card.exp_year ?? new Date().getUTCFullYear() + 3));
  };

  const declined = (pm: StripeObject) => pm._number === TEST_CARDS.declined;
  /** Stripe's 3-D Secure test card: every confirmation needs the cardholder to authenticate first. */
  const needsAuthentication = (pm: StripeObject) => pm._number === TEST_CARDS.requiresAuthentication;
  /** What Stripe answers for an intent waiting for 3-D Secure; Stripe.js runs the challenge from it. */
  const threeDSecureAction = (intent: StripeObject) => ({
    type: 'use_stripe_sdk',
    use_stripe_sdk: {
      type: 'three_d_secure_redirect',
      stripe_js: `http://127.0.0.1:${port}/_test/three_d_secure/${intent.id as string}`,
      source: newId('src'),
    },
  });
  const AUTHENTICATION_FAILED = {
    type: 'invalid_request_error',
    code: 'payment_intent_authentication_failure',
    message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
  };

  const attach = (pm: StripeObject, customer: string | null) => {
    if (!customer) return;
    pm.customer = customer;
  };

  const subscriptionPeriod = (sub: StripeObject) => (sub.items as { data: { current_period_start: number; current_period_end: number }[] }).data[0]!;

  const newInvoice = (sub: StripeObject, amount: number, currency: string, periodStart: number, periodEnd: number) => {
    const invoice: StripeObject = save({
      id: newId('in'),
      object: 'invoice',
      status: 'open',
      customer: sub.customer,
      currency,
      amount_due: amount,
      amount_paid: 0,
      amount_remaining: amount,
      billing_reason: sub.latest_invoice ? 'subscription_cycle' : 'subscription_create',
      created: now(),
      period_start: periodStart,
      period_end: periodEnd,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      lines: {
        object: 'list',
        has_more: false,
        data: [{ id: newId('il'), object: 'line_item', amount, currency, period: { start: periodStart, end: periodEnd } }],
      },
      metadata: {},
    });
    const intent = save({
      id: newId('pi'),
      object: 'payment_intent',
      amount,
      currency,
      customer: sub.customer,
      status: 'requires_payment_method',
      client_secret: '',
      metadata: {},
      latest_charge: null,
      last_payment_error: null,
      payment_method: null,
      created: now(),
      _invoice: invoice.id,
    });
    intent.client_secret = `${intent.id}_secret_${randomBytes(8).toString('hex')}`;
    invoice._confirmation_secret = { client_secret: intent.client_secret, type: 'payment_intent' };
    invoice._payment_intent = intent.id;
    sub.latest_invoice = invoice.id;
    return invoice;
  };

  const payInvoice = (invoice: StripeObject) => {
    invoice.status = 'paid';
    invoice.amount_paid = invoice.amount_due;
    invoice.amount_remaining = 0;
    const subId = (invoice.parent as { subscription_details: { subscription: string } }).subscription_details.subscription;
    const sub = get('subscription', subId);
    // An ended subscription stays ended (Stripe never reopens one): its invoice paid in the race
    // with the cancellation (decision 0027) sends invoice.paid alone. Reopening it here also sent an
    // "updated" (active, not canceling) that, one second after invoice.paid, undid the plan's end.
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      emit('invoice.paid', invoice);
      return;
    }
    sub.status = 'active';
    emit('invoice.paid', invoice);
    emit('customer.subscription.updated', sub);
  };

  const failInvoice = (invoice: StripeObject) => {
    const subId = (invoice.parent as { subscription_details: { subscription: string } }).subscription_details.subscription;
    const sub = get('subscription', subId);
    invoice.attempt_count = Number(invoice.attempt_count ?? 0) + 1;
    emit('invoice.payment_failed', invoice);
    if (sub.status === 'active') {
      sub.status = 'past_due';
      emit('customer.subscription.updated', sub);
    }
  };

  /** Confirms a PaymentIntent with a card (what the browser does through Stripe.js). */
  const confirmIntent = (intent: StripeObject, body: Record<string, unknown>) => {
    if (intent.status === 'succeeded')
      throw new StripeError(400, 'invalid_request_error', 'This PaymentIntent has already succeeded.', 'payment_intent_unexpected_state');
    const pm = confirmPaymentMethod(body, (intent.customer as string) ?? null);
    intent.payment_method = pm.id;
    if (declined(pm)) {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
      };
      emit('payment_intent.payment_failed', intent);
      if (intent._invoice) failInvoice(get('invoice', intent._invoice));
      throw new StripeError(402, 'card_error', 'Your card has insufficient funds.', 'card_declined', undefined, 'insufficient_funds');
    }
    if (needsAuthentication(pm)) {
      // HTTP 200 with requires_action: no money moves until the cardholder authenticates.
      intent.status = 'requires_action';
      intent.next_action = threeDSecureAction(intent);
      intent.last_payment_error = null;
      emit('payment_intent.requires_action', intent);
      return intent;
    }
    return succeedIntent(intent, pm);
  };

  /** The Charge of a succeeded PaymentIntent (refunds and disputes hang off it). */
  const newCharge = (intent: StripeObject) =>
    save({
      id: newId('ch'),
      object: 'charge',
      created: now(),
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: 0,
      currency: intent.currency,
      customer: intent.customer ?? null,
      payment_intent: intent.id,
      paid: true,
      refunded: false,
      disputed: false,
      status: 'succeeded',
      receipt_url: `https://pay.stripe.com/receipts/fake/${intent.id as string}`,
      refunds: { object: 'list', data: [], has_more: false },
      metadata: {},
    });

  /** The cardholder disputes a PaymentIntent's charge (whole amount): a Dispute object and charge.dispute.created. */
  const openDispute = (paymentIntentId: string) => {
    const intent = get('payment_intent', paymentIntentId);
    const charge = get('charge', intent.latest_charge);
    charge.disputed = true;
    const dispute = save({
      id: newId('dp'),
      object: 'dispute',
      created: now(),
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: intent.id,
      reason: 'fraudulent',
      status: 'needs_response',
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
    });
    return { dispute: render(dispute), event: emit('charge.dispute.created', dispute) };
  };
  /** Closes a dispute won or lost: charge.dispute.closed. */
  const closeDispute = (id: string, status: 'won' | 'lost') => {
    const dispute = get('dispute', id);
    dispute.status = status;
    return emit('charge.dispute.closed', dispute);
  };

  // ---- Connect: connected accounts, account links, transfers and reversals, the platform balance ----
  /** The platform's balance per currency (tests set it; transfers above it fail with balance_insufficient). */
  const platformBalance = new Map<string, number>();
  /** Test switches for transfers: refuse the next ones, or take them and never answer (a timeout, a crash). */
  const transferFaults = { refuseNext: 0, stall: false, failAfterCreateNext: 0, holdWebhooks: false };
  const stalled: (() => void)[] = [];
  /** Events kept back while transferFaults.holdWebhooks (Stripe's deliveries are late), sent on release. */
  const heldEvents: StripeObject[] = [];
  /** Sends the events kept back, in the order Stripe made them. */
  const releaseHeldEvents = () => {
    for (const event of heldEvents.splice(0)) {
      const delivery = deliver(event)
        .catch(() => undefined)
        .finally(() => deliveries.delete(delivery));
      deliveries.add(delivery);
    }
  };

  /** An event of a connected account: Connect endpoints receive it with the account's id on top. */
  const emitConnect = (type: string, object: StripeObject, account: string) => emit(type, object, account);

  const newAccount = (body: Record<string, unknown>) =>
    save({
      id: newId('acct'),
      object: 'account',
      created: now(),
      type: 'express',
      controller: body.controller ?? { type: 'application', stripe_dashboard: { type: 'express' } },
      email: body.email ?? null,
      country: body.country ?? 'US',
      default_currency: 'usd',
      metadata: body.metadata ?? {},
      capabilities: { transfers: 'inactive' },
      details_submitted: false,
      charges_enabled: false,
      payouts_enabled: false,
      requirements: {
        currently_due: ['business_type', 'external_account', 'tos_acceptance.date', 'tos_acceptance.ip'],
        eventually_due: [],
        past_due: [],
        disabled_reason: 'requirements.past_due',
      },
    });

  const createTransfer = (body: Record<string, unknown>) => {
    const amount = positiveInteger(body.amount, 'amount', 1);
    if (typeof body.currency !== 'string') throw missing('currency');
    if (typeof body.destination !== 'string') throw missing('destination');
    const account = objects.get(body.destination);
    if (account?.object !== 'account')
      throw new StripeError(400, 'invalid_request_error', `No such destination: '${body.destination}'`, 'resource_missing', 'destination');
    if (transferFaults.refuseNext > 0) {
      transferFaults.refuseNext--;
      throw new StripeError(
        400,
        'invalid_request_error',
        'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments',
        'insufficient_capabilities_for_transfer',
        'destination',
      );
    }
    if (!(account.capabilities as { transfers: string }).transfers || (account.capabilities as { transfers: string }).transfers !== 'active')
      throw new StripeError(
        400,
        'invalid_request_error',
        'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments',
        'insufficient_capabilities_for_transfer',
        'destination',
      );
    const available = platformBalance.get(body.currency) ?? 0;
    if (available < amount)
      throw new StripeError(
        400,
        'invalid_request_error',
        'You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card.',
        'balance_insufficient',
      );
    platformBalance.set(body.currency, available - amount);
    const transfer = save({
      id: newId('tr'),
      object: 'transfer',
      created: now(),
      amount,
      amount_reversed: 0,
      currency: body.currency,
      destination: account.id,
      destination_payment: newId('py'),
      description: body.description ?? null,
      metadata: body.metadata ?? {},
      reversals: { object: 'list', data: [], has_more: false, total_count: 0 },
      reversed: false,
      transfer_group: body.transfer_group ?? null,
    });
    emit('transfer.created', transfer);
    return transfer;
  };

  const reverseTransfer = (transfer: StripeObject, amount?: number) => {
    const left = Number(transfer.amount) - Number(transfer.amount_reversed);
    const take = amount ?? left;
    if (take < 1 || take > left)
      throw new StripeError(400, 'invalid_request_error', 'The amount exceeds the amount left to reverse.', 'parameter_invalid_integer', 'amount');
    const reversal = {
      id: newId('trr'),
      object: 'transfer_reversal',
      amount: take,
      currency: transfer.currency,
      transfer: transfer.id,
      created: now(),
      metadata: {},
    };
    transfer.amount_reversed = Number(transfer.amount_reversed) + take;
    transfer.reversed = transfer.amount_reversed === transfer.amount;
    (transfer.reversals as { data: unknown[]; total_count: number }).data.unshift(reversal);
    (transfer.reversals as { total_count: number }).total_count++;
    platformBalance.set(String(transfer.currency), (platformBalance.get(String(transfer.currency)) ?? 0) + take);
    emit('transfer.reversed', transfer);
    return reversal;
  };

  const list = (kind: string, filter: (object: StripeObject) => boolean, body: Record<string, unknown>) => {
    const all = [...objects.values()].filter((object) => object.object === kind && filter(object)).reverse();
    const after = typeof body.starting_after === 'string' ? all.findIndex((object) => object.id === body.starting_after) + 1 : 0;
    const limit = Math.min(100, Number(body.limit ?? 10));
    const page = all.slice(after, after + limit);
    return { id: '', object: 'list', url: `/v1/${kind}s`, data: page.map((object) => render(object)), has_more: after + limit < all.length };
  };

  const succeedIntent = (intent: StripeObject, pm: StripeObject) => {
    attach(pm, (intent.customer as string) ?? null);
    intent.status = 'succeeded';
    intent.next_action = null;
    intent.latest_charge = newCharge(intent).id;
    intent.last_payment_error = null;
    emit('payment_intent.succeeded', intent);
    if (intent._invoice) payInvoice(get('invoice', intent._invoice));
    return intent;
  };

  const succeedSetup = (intent: StripeObject, pm: StripeObject) => {
    attach(pm, (intent.customer as string) ?? null);
    intent.payment_method = pm.id;
    intent.status = 'succeeded';
    intent.next_action = null;
    emit('setup_intent.succeeded', intent);
    return intent;
  };

  /**
   * The cardholder's answer to the 3-D Secure challenge (Stripe's test page offers "Complete" and
   * "Fail"): completed, the intent goes on as a plain confirmation would; failed, it needs another
   * payment method and nothing was paid or saved.
   */
  const authenticate = (intent: StripeObject, outcome: 'complete' | 'fail') => {
    if (intent.status !== 'requires_action')
      throw new StripeError(
        400,
        'invalid_request_error',
        `This ${String(intent.object)} does not require authentication.`,
        `${String(intent.object)}_unexpected_state`,
      );
    const pm = get('payment_method', intent.payment_method as string);
    if (outcome === 'complete') return intent.object === 'setup_intent' ? succeedSetup(intent, pm) : succeedIntent(intent, pm);
    intent.status = 'requires_payment_method';
    intent.next_action = null;
    if (intent.object === 'setup_intent') {
      intent.last_setup_error = AUTHENTICATION_FAILED;
      emit('setup_intent.setup_failed', intent);
    } else {
      intent.last_payment_error = AUTHENTICATION_FAILED;
      emit('payment_intent.payment_failed', intent);
      if (intent._invoice) failInvoice(get('invoice', intent._invoice));
    }
    return intent;
  };

  const confirmSetup = (intent: StripeObject, body: Record<string, unknown>) => {
    if (intent.status === 'succeeded')
      throw new StripeError(400, 'invalid_request_error', 'This SetupIntent has already succeeded.', 'setup_intent_unexpected_state');
    const pm = confirmPaymentMethod(body, (intent.customer as string) ?? null);
    if (declined(pm)) {
      intent.last_setup_error = { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' };
      emit('setup_intent.setup_failed', intent);
      throw new StripeError(402, 'card_error', 'Your card has insufficient funds.', 'card_declined', undefined, 'insufficient_funds');
    }
    intent.payment_method = pm.id;
    if (needsAuthentication(pm)) {
      intent.status = 'requires_action';
      intent.next_action = threeDSecureAction(intent);
      emit('setup_intent.requires_action', intent);
      return intent;
    }
    return succeedSetup(intent, pm);
  };

  /** Browser-side calls carry the publishable key and the intent's client secret instead of the secret key. */
  const authorize = (request: IncomingMessage, body: Record<string, unknown>, clientSide: boolean) => {
    const header = request.headers.authorization ?? '';
    if (header === `Bearer ${secretKey}`) return;
    if (clientSide && (body.key === publishableKey || header === `Bearer ${publishableKey}`)) return;
    if (!header && !body.key) throw new StripeError(401, 'invalid_request_error', 'You did not provide an API key.');
    throw new StripeError(401, 'invalid_request_error', 'Invalid API Key provided.');
  };

  const checkClientSecret = (intent: StripeObject, request: IncomingMessage, body: Record<string, unknown>) => {
    if (request.headers.authorization === `Bearer ${secretKey}`) return;
    if (body.client_secret !== intent.client_secret)
      throw new StripeError(400, 'invalid_request_error', 'The client_secret provided does not match.', 'resource_missing', 'client_secret');
  };

  const positiveInteger = (value: unknown, param: string, min = 0) => {
    const n = Number(value);
    if (value === undefined) throw missing(param);
    if (!Number.isInteger(n) || n < min)
      throw new StripeError(400, 'invalid_request_error', `Invalid integer: ${String(value)}`, 'parameter_invalid_integer', param);
    return n;
  };

  /** An intent's client secret, as Stripe makes it: its id, `_secret_`, and random hex. */
  const withClientSecret = (intent: StripeObject) => {
    intent.client_secret = `${intent.id}_secret_${randomBytes(8).toString('hex')}`;
    return intent;
  };

  /** An intent the request may see: its client secret given (checkClientSecret). */
  const checkedIntent = (kind: string, id: unknown, request: IncomingMessage, body: Record<string, unknown>) => {
    const intent = get(kind, id);
    checkClientSecret(intent, request, body);
    return intent;
  };

  /** What Stripe.js asks of an intent with its client secret: read it, and confirm it. */
  const clientSideIntentRoutes = (
    kind: 'setup_intent' | 'payment_intent',
    confirm: (intent: StripeObject, body: Record<string, unknown>) => StripeObject,
  ): Route[] => [
    {
      method: 'GET',
      pattern: new RegExp(`^/v1/${kind}s/([^/]+)$`),
      clientSide: true,
      handle: ([, id], body, request) => checkedIntent(kind, id, request, body),
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/v1/${kind}s/([^/]+)/confirm$`),
      clientSide: true,
      handle: ([, id], body, request) => confirm(checkedIntent(kind, id, request, body), body),
    },
  ];

  const routes: Route[] = [
    {
      method: 'POST',
      pattern: /^\/v1\/customers$/,
      handle: (_m, body) =>
        save({
          id: newId('cus'),
          object: 'customer',
          created: now(),
          email: body.email ?? null,
          name: body.name ?? null,
          metadata: body.metadata ?? {},
          invoice_settings: { default_payment_method: null },
        }),
    },
    { method: 'GET', pattern: /^\/v1\/customers\/([^/]+)$/, handle: ([, id]) => get('customer', id) },
    {
      method: 'POST',
      pattern: /^\/v1\/customers\/([^/]+)$/,
      handle: ([, id], body) => {
        const customer = get('customer', id);
        const settings = body.invoice_settings as { default_payment_method?: string } | undefined;
        if (settings?.default_payment_method !== undefined) {
          const pm = get('payment_method', settings.default_payment_method);
          if (pm.customer !== customer.id)
            throw new StripeError(
              400,
              'invalid_request_error',
              'The payment method must be attached to the customer.',
              'resource_missing',
              'invoice_settings[default_payment_method]',
            );
          customer.invoice_settings = { default_payment_method: pm.id };
        }
        if (body.metadata) customer.metadata = { ...(customer.metadata as object), ...(body.metadata as object) };
        if (body.email !== undefined) customer.email = body.email;
        return customer;
      },
    },
    { method: 'GET', pattern: /^\/v1\/payment_methods\/([^/]+)$/, handle: ([, id]) => get('payment_method', id) },
    {
      method: 'POST',
      pattern: /^\/v1\/payment_methods\/([^/]+)\/attach$/,
      handle: ([, id], body) => {
        const pm = get('payment_method', id);
        get(
          'customer',
          body.customer ??
            (() => {
              throw missing('customer');
            })(),
        );
        pm.customer = body.customer;
        return pm;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/payment_methods\/([^/]+)\/detach$/,
      handle: ([, id]) => {
        const pm = get('payment_method', id);
        if (!pm.customer)
          throw new StripeError(400, 'invalid_request_error', 'The payment method is not attached to a customer.', 'payment_method_unexpected_state');
        const customer = objects.get(pm.customer as string);
        if (customer && (customer.invoice_settings as { default_payment_method: string | null }).default_payment_method === pm.id) {
          customer.invoice_settings = { default_payment_method: null };
        }
        pm.customer = null;
        return pm;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/setup_intents$/,
      handle: (_m, body) => {
        if (body.customer) get('customer', body.customer);
        const intent = save({
          id: newId('seti'),
          object: 'setup_intent',
          created: now(),
          customer: body.customer ?? null,
          usage: body.usage ?? 'off_session',
          status: 'requires_payment_method',
          payment_method: null,
          payment_method_types: body.payment_method_types ?? ['card'],
          metadata: body.metadata ?? {},
          client_secret: '',
          last_setup_error: null,
        });
        return withClientSecret(intent);
      },
    },
    ...clientSideIntentRoutes('setup_intent', confirmSetup),
    {
      method: 'POST',
      pattern: /^\/v1\/payment_intents$/,
      handle: (_m, body) => {
        const amount = positiveInteger(body.amount, 'amount', 50);
        if (typeof body.currency !== 'string') throw missing('currency');
        if (body.currency !== body.currency.toLowerCase())
          throw new StripeError(400, 'invalid_request_error', 'Invalid currency', 'parameter_invalid_string', 'currency');
        if (body.customer) get('customer', body.customer);
        const intent = save({
          id: newId('pi'),
          object: 'payment_intent',
          created: now(),
          amount,
          currency: body.currency,
          customer: body.customer ?? null,
          metadata: body.metadata ?? {},
          status: 'requires_payment_method',
          client_secret: '',
          latest_charge: null,
          last_payment_error: null,
          payment_method: null,
        });
        return withClientSecret(intent);
      },
    },
    ...clientSideIntentRoutes('payment_intent', confirmIntent),
    {
      // Not Stripe's API: the 3-D Secure challenge page's answer (next_action.use_stripe_sdk.stripe_js),
      // sent by the Stripe.js double with the intent's client secret, as the browser would.
      method: 'POST',
      pattern: /^\/_test\/three_d_secure\/((?:pi|seti)_[^/]+)$/,
      clientSide: true,
      handle: ([, id], body, request) => {
        const intent = checkedIntent(id!.startsWith('seti_') ? 'setup_intent' : 'payment_intent', id, request, body);
        if (body.outcome !== 'complete' && body.outcome !== 'fail') throw missing('outcome');
        return authenticate(intent, body.outcome);
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/products$/,
      handle: (_m, body) => {
        if (!body.name) throw missing('name');
        return save({
          id: newId('prod'),
          object: 'product',
          created: now(),
          name: body.name,
          description: body.description ?? null,
          metadata: body.metadata ?? {},
          active: true,
        });
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/prices$/,
      handle: (_m, body) => {
        get(
          'product',
          body.product ??
            (() => {
              throw missing('product');
            })(),
        );
        const amount = positiveInteger(body.unit_amount, 'unit_amount');
        if (typeof body.currency !== 'string') throw missing('currency');
        return save({
          id: newId('price'),
          object: 'price',
          created: now(),
          product: body.product,
          unit_amount: amount,
          currency: body.currency,
          recurring: body.recurring ? { interval: (body.recurring as { interval: string }).interval, interval_count: 1 } : null,
          type: body.recurring ? 'recurring' : 'one_time',
          metadata: body.metadata ?? {},
          active: true,
        });
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/subscriptions$/,
      handle: (_m, body) => {
        const customer = get(
          'customer',
          body.customer ??
            (() => {
              throw missing('customer');
            })(),
        );
        const items = body.items as { price?: string }[] | undefined;
        if (!items?.[0]?.price) throw missing('items[0][price]');
        const price = get('price', items[0].price);
        const start = now();
        const sub = save({
          id: newId('sub'),
          object: 'subscription',
          created: start,
          customer: customer.id,
          status: 'incomplete',
          cancel_at_period_end: false,
          canceled_at: null,
          default_payment_method: body.default_payment_method ?? null,
          metadata: body.metadata ?? {},
          latest_invoice: null,
          items: {
            object: 'list',
            has_more: false,
            data: [
              {
                id: newId('si'),
                object: 'subscription_item',
                price: structuredClone(price),
                quantity: 1,
                current_period_start: start,
                current_period_end: start + MONTH_SECONDS,
              },
            ],
          },
        });
        const invoice = newInvoice(sub, Number(price.unit_amount), String(price.currency), start, start + MONTH_SECONDS);
        emit('customer.subscription.created', sub);
        if (Number(price.unit_amount) === 0) payInvoice(invoice);
        return sub;
      },
    },
    { method: 'GET', pattern: /^\/v1\/subscriptions\/([^/]+)$/, handle: ([, id]) => get('subscription', id) },
    {
      method: 'POST',
      pattern: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: ([, id], body) => {
        const sub = get('subscription', id);
        if (sub.status === 'canceled')
          throw new StripeError(
            400,
            'invalid_request_error',
            'A canceled subscription can only update its cancellation_details and metadata.',
            'resource_missing',
          );
        if (body.cancel_at_period_end !== undefined) sub.cancel_at_period_end = body.cancel_at_period_end === 'true';
        if (body.metadata) sub.metadata = { ...(sub.metadata as object), ...(body.metadata as object) };
        emit('customer.subscription.updated', sub);
        return sub;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/accounts$/,
      handle: (_m, body) => newAccount(body),
    },
    { method: 'GET', pattern: /^\/v1\/accounts\/([^/]+)$/, handle: ([, id]) => get('account', id) },
    {
      method: 'DELETE',
      pattern: /^\/v1\/accounts\/([^/]+)$/,
      handle: ([, id]) => {
        const account = get('account', id);
        objects.delete(account.id);
        return { id: account.id, object: 'account', deleted: true };
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/account_links$/,
      handle: (_m, body) => {
        get(
          'account',
          body.account ??
            (() => {
              throw missing('account');
            })(),
        );
        for (const param of ['refresh_url', 'return_url', 'type']) if (!body[param]) throw missing(param);
        if (body.type !== 'account_onboarding' && body.type !== 'account_update')
          throw new StripeError(400, 'invalid_request_error', `Invalid type: ${String(body.type)}`, 'parameter_invalid_string', 'type');
        const created = now();
        const link = {
          id: newId('acctlink'),
          object: 'account_link',
          created,
          expires_at: created + 300,
          url: `http://127.0.0.1:${port}/_test/connect/onboarding/${body.account as string}?return_url=${encodeURIComponent(String(body.return_url))}`,
        };
        accountLinks.push({ ...link, type: body.type, account: body.account, refresh_url: body.refresh_url, return_url: body.return_url });
        return link;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/transfers$/,
      handle: (_m, body) => createTransfer(body),
    },
    { method: 'GET', pattern: /^\/v1\/transfers\/([^/]+)$/, handle: ([, id]) => get('transfer', id) },
    {
      method: 'GET',
      pattern: /^\/v1\/transfers$/,
      handle: (_m, body) =>
        list(
          'transfer',
          (t) => (!body.transfer_group || t.transfer_group === body.transfer_group) && (!body.destination || t.destination === body.destination),
          body,
        ),
    },
    {
      method: 'POST',
      pattern: /^\/v1\/transfers\/([^/]+)\/reversals$/,
      handle: ([, id], body) => reverseTransfer(get('transfer', id), body.amount === undefined ? undefined : positiveInteger(body.amount, 'amount', 1)),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/balance$/,
      handle: () => ({
        id: '',
        object: 'balance',
        livemode: false,
        available: [...platformBalance].map(([currency, amount]) => ({ amount, currency, source_types: { card: amount } })),
        pending: [],
      }),
    },
    { method: 'GET', pattern: /^\/v1\/charges\/([^/]+)$/, handle: ([, id]) => get('charge', id) },
    { method: 'GET', pattern: /^\/v1\/disputes\/([^/]+)$/, handle: ([, id]) => get('dispute', id) },
    {
      // Refunds all or part of a charge (by `charge` or `payment_intent`): charge.refunded with the cumulative amount_refunded.
      method: 'POST',
      pattern: /^\/v1\/refunds$/,
      handle: (_match, body) => {
        const charge = body.charge
          ? get('charge', String(body.charge))
          : get('charge', String(get('payment_intent', String(body.payment_intent ?? '')).latest_charge ?? ''));
        const left = Number(charge.amount) - Number(charge.amount_refunded);
        const take = body.amount === undefined ? left : positiveInteger(body.amount, 'amount', 1);
        if (take > left || left === 0)
          throw new StripeError(
            400,
            'invalid_request_error',
            `Refund amount (${take}) is greater than unrefunded amount on charge (${left})`,
            'amount_too_large',
            'amount',
          );
        charge.amount_refunded = Number(charge.amount_refunded) + take;
        charge.refunded = charge.amount_refunded === charge.amount;
        const refund = {
          id: newId('re'),
          object: 'refund',
          amount: take,
          charge: charge.id,
          payment_intent: charge.payment_intent,
          currency: charge.currency,
          status: 'succeeded',
          created: now(),
          metadata: {},
        };
        (charge.refunds as { data: unknown[] }).data.unshift(refund);
        emit('charge.refunded', charge);
        return refund as StripeObject;
      },
    },
    { method: 'GET', pattern: /^\/v1\/invoices\/([^/]+)$/, handle: ([, id]) => get('invoice', id) },
    {
      // The payments of invoices, found by invoice or by PaymentIntent (payment[type]=payment_intent&payment[payment_intent]=pi_…).
      method: 'GET',
      pattern: /^\/v1\/invoice_payments$/,
      handle: (_m, body) => {
        const payment = body.payment as { payment_intent?: string } | undefined;
        const invoices = [...objects.values()].filter(
          (o) =>
            o.object === 'invoice' && (!body.invoice || o.id === body.invoice) && (!payment?.payment_intent || o._payment_intent === payment.payment_intent),
        );
        return {
          id: '',
          object: 'list',
          url: '/v1/invoice_payments',
          has_more: false,
          data: invoices.map((invoice) => ({
            id: `inpay_${invoice.id.slice(3)}`,
            object: 'invoice_payment',
            invoice: invoice.id,
            amount_paid: invoice.amount_paid,
            amount_requested: invoice.amount_due,
            currency: invoice.currency,
            is_default: true,
            status: invoice.status === 'paid' ? 'paid' : 'open',
            payment: { type: 'payment_intent', payment_intent: invoice._payment_intent },
          })),
        };
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: ([, id]) => {
        const sub = get('subscription', id);
        if (sub.status === 'canceled') return sub;
        sub.status = sub.status === 'incomplete' ? 'incomplete_expired' : 'canceled';
        sub.canceled_at = now();
        emit('customer.subscription.deleted', sub);
        return sub;
      },
    },
  ];

  const readBody = (request: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      request.on('error', reject);
    });

  const answer = (response: ServerResponse, status: number, body: unknown) => {
    // Stripe's API answers browsers too (Stripe.js confirms from the page).
    response.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req'), 'access-control-allow-origin': '*' });
    response.end(JSON.stringify(body));
  };

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stripe.fake');
    const raw = await readBody(request);
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, DELETE',
        'access-control-allow-headers': 'authorization, content-type, idempotency-key, stripe-version',
      });
      return response.end();
    }
    if (request.method === 'POST' && url.pathname === '/_test/transfer-faults') {
      // Not Stripe's API: a test in another process sets the transfer faults (refuseNext, stall) or answers the stalled transfers.
      const body = parseStripeForm(raw);
      if (body.refuseNext !== undefined) transferFaults.refuseNext = Number(body.refuseNext);
      if (body.stall !== undefined) transferFaults.stall = body.stall === 'true';
      if (body.holdWebhooks !== undefined) transferFaults.holdWebhooks = body.holdWebhooks === 'true';
      if (body.release === 'true') {
        for (const send of stalled.splice(0)) send();
        releaseHeldEvents();
      }
      return answer(response, 200, transferFaults);
    }
    if (request.method === 'POST' && url.pathname === '/_test/disputes') {
      // Not Stripe's API (a cardholder's bank opens disputes): payment_intent=pi_… opens one; dispute=dp_…&status=won|lost closes it.
      const body = parseStripeForm(raw);
      try {
        if (body.dispute) return answer(response, 200, closeDispute(String(body.dispute), body.status === 'won' ? 'won' : 'lost'));
        return answer(response, 200, openDispute(String(body.payment_intent ?? '')).dispute);
      } catch (error) {
        return answer(response, 404, { error: { type: 'invalid_request_error', message: (error as Error).message } });
      }
    }
    const onboarding = url.pathname.match(/^\/_test\/connect\/onboarding\/(acct_[^/]+)$/);
    if (request.method === 'GET' && onboarding) {
      // Stripe-hosted onboarding, answered at once: the account is complete, and the browser goes back.
      const account = objects.get(onboarding[1]!);
      if (account) completeOnboarding(account.id);
      response.writeHead(302, { location: url.searchParams.get('return_url') ?? '/' });
      return response.end();
    }
    if (request.method === 'GET' && url.pathname === '/stripe-js-double.js') {
      response.writeHead(200, { 'content-type': 'application/javascript', 'access-control-allow-origin': '*' });
      return response.end(stripeJsDouble(`http://127.0.0.1:${port}`));
    }
    const body = request.method === 'GET' || request.method === 'DELETE' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(raw);
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    requests.push({ method: request.method ?? '', path: url.pathname, body, idempotencyKey, authorization: request.headers.authorization });
    try {
      const route = routes.find((r) => r.method === request.method && r.pattern.test(url.pathname));
      if (!route) throw new StripeError(404, 'invalid_request_error', `Unrecognized request URL (${request.method}: ${url.pathname}).`);
      authorize(request, body, route.clientSide ?? false);
      let cacheKey: string | null = null;
      if (request.method === 'POST' && idempotencyKey) {
        cacheKey = `${request.headers.authorization ?? ''} ${idempotencyKey}`;
        const fingerprint = createHash('sha256').update(`${url.pathname}\n${raw}`).digest('hex');
        const seen = idempotency.get(cacheKey);
        if (seen) {
          if (seen.fingerprint !== fingerprint) {
            throw new StripeError(
              400,
              'idempotency_error',
              `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            );
          }
          response.setHeader('idempotent-replayed', 'true');
          return answer(response, seen.status, seen.body);
        }
        idempotency.set(cacheKey, { fingerprint, status: 0, body: null });
      }
      try {
        const result = route.handle(url.pathname.match(route.pattern)!, body, request);
        const expand = (body.expand as string[] | undefined) ?? [];
        const rendered = render(result, expand);
        if (cacheKey) idempotency.set(cacheKey, { ...idempotency.get(cacheKey)!, status: 200, body: rendered });
        if (result.object === 'transfer' && request.method === 'POST' && transferFaults.failAfterCreateNext > 0) {
          // Stripe made the transfer and its answer was an error the SDK does not retry (the caller cannot know).
          transferFaults.failAfterCreateNext--;
          response.setHeader('stripe-should-retry', 'false');
          return answer(response, 500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
        }
        if (result.object === 'transfer' && request.method === 'POST' && transferFaults.stall) {
          // Stripe made the transfer, and its answer never arrives (a timeout, or the caller died waiting).
          stalled.push(() => answer(response, 200, rendered));
          return;
        }
        return answer(response, 200, rendered);
      } catch (error) {
        if (cacheKey) idempotency.delete(cacheKey);
        throw error;
      }
    } catch (error) {
      if (error instanceof StripeError) {
        return answer(response, error.status, {
          error: {
            type: error.type,
            message: error.message,
            ...(error.code ? { code: error.code } : {}),
            ...(error.param ? { param: error.param } : {}),
            ...(error.declineCode ? { decline_code: error.declineCode } : {}),
          },
        });
      }
      return answer(response, 500, { error: { type: 'api_error', message: String(error) } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  /** Advances a subscription into its next period: a new invoice, paid by its default card unless `fail`. */
  const renew = (subscriptionId: string, { fail = false } = {}) => {
    const sub = get('subscription', subscriptionId);
    const period = subscriptionPeriod(sub);
    if (sub.cancel_at_period_end) {
      sub.status = 'canceled';
      sub.canceled_at = now();
      emit('customer.subscription.deleted', sub);
      return;
    }
    const start = period.current_period_end;
    period.current_period_start = start;
    period.current_period_end = start + MONTH_SECONDS;
    const price = (sub.items as { data: { price: { unit_amount: number; currency: string } }[] }).data[0]!.price;
    const invoice = newInvoice(sub, price.unit_amount, price.currency, start, start + MONTH_SECONDS);
    emit('customer.subscription.updated', sub);
    if (fail) failInvoice(invoice);
    else {
      // Paid with the saved card: the invoice's PaymentIntent succeeds with a Charge (refunds and disputes hang off it).
      const intent = get('payment_intent', invoice._payment_intent);
      intent.status = 'succeeded';
      intent.latest_charge = newCharge(intent).id;
      payInvoice(invoice);
    }
  };

  /** What Stripe's hosted onboarding does when the creator finishes it: the account can take transfers. */
  const completeOnboarding = (accountId: string) => {
    const account = get('account', accountId);
    account.details_submitted = true;
    account.charges_enabled = true;
    account.payouts_enabled = true;
    account.capabilities = { transfers: 'active' };
    account.requirements = { currently_due: [], eventually_due: [], past_due: [], disabled_reason: null };
    emitConnect('account.updated', account, account.id);
    return render(account);
  };

  return {
    url: `http://127.0.0.1:${port}`,
    accountLinks,
    transferFaults,
    /** Sets the platform's available balance in one currency (minor units). */
    setBalance(currency: string, amount: number) {
      platformBalance.set(currency, amount);
    },
    /** Delivers the events kept back while transferFaults.holdWebhooks (late deliveries arrive). */
    releaseHeldEvents,
    /** Answers every transfer request left hanging by transferFaults.stall. */
    releaseStalled() {
      for (const send of stalled.splice(0)) send();
    },
    completeOnboarding,
    /** Changes a connected account as Stripe would (e.g. new requirements) and sends account.updated. */
    updateAccount(accountId: string, patch: Record<string, unknown>) {
      const account = get('account', accountId);
      Object.assign(account, patch);
      return emitConnect('account.updated', account, account.id);
    },
    /** A payout of the connected account to its bank failed; the event reaches the Connect endpoint. */
    failPayout(accountId: string, amount: number, currency = 'usd', code = 'account_closed') {
      get('account', accountId);
      const payout = save({
        id: newId('po'),
        object: 'payout',
        created: now(),
        amount,
        currency,
        status: 'failed',
        failure_code: code,
        failure_message: 'The bank account has been closed.',
        metadata: {},
      });
      return emitConnect('payout.failed', payout, accountId);
    },
    /** Reverses a transfer (all of it unless amount), as the dashboard or the API would; sends transfer.reversed. */
    reverseTransfer: (id: string, amount?: number) => reverseTransfer(get('transfer', id), amount),
    /** Refunds (part of) a PaymentIntent's charge: charge.refunded with the cumulative amount_refunded. */
    refund(paymentIntentId: string, amount?: number) {
      const intent = get('payment_intent', paymentIntentId);
      const charge = get('charge', intent.latest_charge);
      const take = amount ?? Number(charge.amount) - Number(charge.amount_refunded);
      charge.amount_refunded = Number(charge.amount_refunded) + take;
      charge.refunded = charge.amount_refunded === charge.amount;
      (charge.refunds as { data: unknown[] }).data.unshift({ id: newId('re'), object: 'refund', amount: take, charge: charge.id, status: 'succeeded' });
      return emit('charge.refunded', charge);
    },
    /** Opens a dispute on a PaymentIntent's charge: charge.dispute.created. */
    dispute: (paymentIntentId: string) => openDispute(paymentIntentId),
    /** Closes a dispute won or lost: charge.dispute.closed. */
    closeDispute,
    secretKey,
    publishableKey,
    webhookSecret,
    requests,
    events,
    deliveryResults,
    objects,
    setWebhookUrl(url: string | null) {
      webhookUrl = url;
    },
    /** The public view of an object by id. */
    read: (id: string) =>
      render(
        objects.get(id) ??
          (() => {
            throw new Error(`no object ${id}`);
          })(),
      ),
    /** The Stripe-Signature header for a payload, as Stripe computes it. */
    sign,
    /** Sends (again) an event to the webhook URL, signed; resolves to the HTTP status. */
    deliver,
    /** Waits until every webhook sent so far has been answered. */
    async settled() {
      while (deliveries.size > 0) await Promise.allSettled([...deliveries]);
    },
    /** Confirms an intent with a card number, as Stripe.js would in the browser. */
    confirmSetupIntent: (id: string, cardNumber = TEST_CARDS.success) =>
      render(confirmSetup(get('setup_intent', id), { payment_method_data: { type: 'card', card: { number: cardNumber } } })),
    confirmPaymentIntent: (id: string, cardNumber = TEST_CARDS.success) =>
      render(confirmIntent(get('payment_intent', id), { payment_method_data: { type: 'card', card: { number: cardNumber } } })),
    /** The cardholder completes (or fails) the 3-D Secure challenge of an intent in requires_action. */
    authenticate: (id: string, outcome: 'complete' | 'fail' = 'complete') =>
      render(authenticate(get(id.startsWith('seti_') ? 'setup_intent' : 'payment_intent', id), outcome)),
    renew,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type StripeFake = Awaited<ReturnType<typeof startStripeFake>>;

/** The settings that point a Tollbooth process at the fake: its keys, webhook secret and API base. */
export const stripeEnv = (stripe: StripeFake) => ({
  STRIPE_SECRET_KEY: stripe.secretKey,
  STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
  STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
  STRIPE_API_BASE: stripe.url,
});
