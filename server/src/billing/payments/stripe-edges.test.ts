// Issue 24, item 7: money edges found with the Stripe fake, through the official SDK pointed at it
// and webhooks it signs. Canceling during the first payment of a paid plan; two plans on one app;
// a correctly signed event that does not match what was asked for.
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../test-support/fakes/stripe-fake.ts';
import { sendCompletion } from '../../test-support/paid-call.ts';
import { createStripeTestContext } from '../../test-support/stripe-app.ts';

const PRICE = 100;
/** The app's error log, as the operator reads it. */
const errors: { details: Record<string, unknown>; message: string }[] = [];
const logger = {
  level: 'error',
  write(line: string) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (Number(entry.level) >= 50) errors.push({ details: entry, message: String(entry.msg) });
  },
};
const ctx = await createStripeTestContext({}, { logger: { level: 'error', stream: logger } as never });
const { stripe, api } = ctx;
const owner = await ctx.tokenFor('edge-plan-owner', { name: 'Creator' });
afterAll(() => ctx.close());

let appCounter = 0;
const livePublicApp = async () => (await ctx.liveApp(owner, { name: `Edge Plan App ${++appCounter}`, price_cents: PRICE })).slug;
let userCounter = 0;
const newUser = async () => ({ token: await ctx.tokenFor(`edge-payer-${++userCounter}`) });
const createPlan = async (slug: string, plan: object) => {
  const response = await api('POST', `/api/app/${slug}/packages/`, owner, plan);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string };
};
const balance = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json() as { credits_cents: number; earnings_cents: number };
const callApp = (slug: string, token: string) => sendCompletion(ctx.app, slug, token);

/** A new user's subscription to a new 9.99 plan with 3 included calls, its first payment not made yet. */
const subscribeToNewPlan = async () => {
  const slug = await livePublicApp();
  const plan = await createPlan(slug, { name: 'Pro', price: 9.99, included_calls: 3 });
  const user = await newUser();
  const created = await api('POST', `/api/app/${slug}/subscriptions/`, user.token, { package_id: plan.id });
  expect(created.statusCode, created.body).toBe(201);
  const sub = created.json() as { id: string; client_secret: string };
  return { slug, user, sub, piId: sub.client_secret.split('_secret_')[0]! };
};

describe('canceling during the first payment of a paid plan', () => {
  it('the payment that went through gives its whole period: included calls usable, canceling at its end (decision 0027)', async () => {
    const { slug, user, sub, piId } = await subscribeToNewPlan();
    // The subscriber cancels while the card payment is under way; the payment then succeeds.
    const canceled = await api('POST', `/api/app/${slug}/subscriptions/${sub.id}/cancel/`, user.token);
    expect(canceled.statusCode, canceled.body).toBe(200);
    await stripe.settled();
    const earningsBefore = (await balance(owner)).earnings_cents;
    stripe.confirmPaymentIntent(piId, TEST_CARDS.success);
    await stripe.settled();
    const earned = (await balance(owner)).earnings_cents - earningsBefore;
    const read = (await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, user.token)).json();
    // Stripe took the payment (999 ¢, the creator earns it less the fee).
    expect(earned).toBeGreaterThan(0);
    expect(read).toMatchObject({ status: 'active', cancel_at_period_end: true, included_calls: 3, included_calls_used: 0 });
    for (let i = 0; i < 3; i++) expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
  });

  it('a payment that went through before the cancel, its webhooks late: the plan still ends with its period, not at once', async () => {
    const { slug, user, sub, piId } = await subscribeToNewPlan();
    await stripe.settled();
    const earningsBefore = (await balance(owner)).earnings_cents;
    // Stripe takes the payment, but its events reach us late; the subscriber, still seeing the
    // plan incomplete, cancels more than a second later (a cancellation in the same second counts
    // as during the payment anyway).
    stripe.transferFaults.holdWebhooks = true;
    try {
      const paidAt = Math.floor(Date.now() / 1000);
      stripe.confirmPaymentIntent(piId, TEST_CARDS.success);
      while (Math.floor(Date.now() / 1000) < paidAt + 2) await new Promise((resolve) => setTimeout(resolve, 50));
      const canceled = await api('POST', `/api/app/${slug}/subscriptions/${sub.id}/cancel/`, user.token);
      expect(canceled.statusCode, canceled.body).toBe(200);
      expect(canceled.json()).toMatchObject({ status: 'active', cancel_at_period_end: true });
    } finally {
      stripe.transferFaults.holdWebhooks = false;
      stripe.releaseHeldEvents();
    }
    await stripe.settled();
    const read = (await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, user.token)).json();
    expect(read).toMatchObject({ status: 'active', cancel_at_period_end: true, included_calls: 3, included_calls_used: 0 });
    expect((await balance(owner)).earnings_cents - earningsBefore).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
  });
});

describe("a first payment's events in any order", () => {
  it("within one second, the subscription's creation (incomplete) arriving last does not undo its paid period", async () => {
    const from = stripe.events.length;
    stripe.transferFaults.holdWebhooks = true;
    let subscription: Awaited<ReturnType<typeof subscribeToNewPlan>>;
    try {
      subscription = await subscribeToNewPlan();
      stripe.confirmPaymentIntent(subscription.piId, TEST_CARDS.success);
    } finally {
      stripe.transferFaults.holdWebhooks = false;
    }
    const { slug, user, sub } = subscription;
    // Stripe sent them in one second, and delivers them in any order: here the newest first.
    const events = stripe.events.slice(from);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['customer.subscription.created', 'invoice.paid', 'customer.subscription.updated']),
    );
    for (const event of events) event.created = events[0]!.created;
    for (const event of events.reverse()) expect(await stripe.deliver(event)).toBe(200);
    // The held copies arrive too, late and twice: each is applied once.
    stripe.releaseHeldEvents();
    await stripe.settled();
    const read = (await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, user.token)).json();
    expect(read).toMatchObject({ status: 'active', included_calls: 3, included_calls_used: 0 });
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
  });
});

describe('two plans on one app', () => {
  it("uses both plans' included calls before credits", async () => {
    const slug = await livePublicApp();
    const first = await createPlan(slug, { name: 'Small', price: 0, included_calls: 3 });
    const second = await createPlan(slug, { name: 'Also small', price: 0, included_calls: 2 });
    const user = await newUser();
    for (const plan of [first, second])
      expect((await api('POST', `/api/app/${slug}/subscriptions/`, user.token, { package_id: plan.id })).statusCode).toBe(201);
    for (let i = 0; i < 5; i++) expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
    const subs = (await api('GET', `/api/app/${slug}/subscriptions/`, user.token)).json() as { included_calls: number; included_calls_used: number }[];
    expect(subs.map((s) => s.included_calls_used).sort()).toEqual([2, 3]);
  });
});

describe('a correctly signed event that does not match', () => {
  it('a top-up paid with another amount: 2xx, nothing credited, recorded for the operator and logged as an error', async () => {
    const user = await newUser();
    const topUp = (await api('POST', '/api/billing/top-ups/', user.token, { amount_cents: 1500 })).json();
    const url = ctx.webhookUrl;
    const body = JSON.stringify({
      id: 'evt_wrong_amount',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: { id: topUp.payment_intent_id, object: 'payment_intent', amount: 150000, currency: 'usd', status: 'succeeded' } },
    });
    const deliver = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(body) }, body });
    const answered = await deliver();
    expect(answered.status).toBe(200);
    expect((await deliver()).status).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
    const { rows } = await ctx.database.db.query<{ event_type: string; object_id: string; problem: string }>(
      "SELECT event_type, object_id, problem FROM stripe_event_problems WHERE event_id = 'evt_wrong_amount'",
    );
    expect(rows).toEqual([{ event_type: 'payment_intent.succeeded', object_id: topUp.payment_intent_id, problem: expect.stringContaining('150000') }]);
    expect(errors.some((entry) => entry.message.includes('does not match') && entry.details.eventId === 'evt_wrong_amount')).toBe(true);
    // The real payment still credits it.
    stripe.confirmPaymentIntent(topUp.payment_intent_id);
    await stripe.settled();
    expect((await balance(user.token)).credits_cents).toBe(2000);
  });
});
