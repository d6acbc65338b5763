// Billing with Stripe, end to end through the official SDK pointed at the Stripe fake
// (STRIPE_API_BASE), with webhooks signed by the fake and delivered over HTTP to the real endpoint.
import { afterAll, describe, expect, it } from 'vitest';
import { createInvalidationBus } from '../../db/invalidation.ts';
import { createTestContext } from '../../test-support/app.ts';
import { parseStripeForm, TEST_CARDS } from '../../test-support/fakes/stripe-fake.ts';
import { sendCompletion } from '../../test-support/paid-call.ts';
import { createStripeTestContext } from '../../test-support/stripe-app.ts';
import { watchedDatabase } from '../../test-support/watched-database.ts';
import { createIncludedCalls } from '../paid-call/included-calls.ts';

const PRICE = 100;
const FEE_BPS = 1000;
const ctx = await createStripeTestContext({ PLATFORM_FEE_BPS: String(FEE_BPS) });
const { stripe, model: upstream, api } = ctx;
const owner = await ctx.tokenFor('plan-owner', { name: 'Creator' });
afterAll(() => ctx.close());

let appCounter = 0;
const livePublicApp = () => ctx.liveApp(owner, { name: `Plan App ${++appCounter}`, price_cents: PRICE });
const newUser = () => ctx.newUser('payer');
const createPlan = async (slug: string, plan: object) => {
  const response = await api('POST', `/api/app/${slug}/packages/`, owner, plan);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; price: number; price_cents: number };
};
/** A new user subscribed to a new free plan "Trial" of `slug` with `includedCalls` included calls: the user and the subscription. */
async function freeTrialSubscriber(slug: string, includedCalls: number) {
  const plan = await createPlan(slug, { name: 'Trial', price: 0, included_calls: includedCalls });
  const user = await newUser();
  const sub = (await api('POST', `/api/app/${slug}/subscriptions/`, user.token, { package_id: plan.id })).json();
  return { user, sub };
}
/** Moves a subscription `ago` (an interval) into the past: its start and its first period, of which `used` included calls are used. */
const backdateSubscription = (id: string, ago: string, used: number) =>
  ctx.database.db.query(
    `UPDATE subscriptions SET created_at = now() - $2::interval, current_period_start = now() - $2::interval,
       current_period_end = now() - $2::interval + interval '1 month', included_used = $3 WHERE id = $1`,
    [id, ago, used],
  );
/** Stripe renews a subscription (or fails to charge its renewal), and its events are applied. */
async function renew(id: string, options: { fail?: boolean } = {}) {
  stripe.renew((await subRow(id)).stripe_subscription_id, options);
  await stripe.settled();
}
const balance = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json() as { credits_cents: number; earnings_cents: number };
const callApp = (slug: string, token: string) => sendCompletion(ctx.app, slug, token);
const ledgerBalanced = async () => {
  const { rows } = await ctx.database.db.query<{ total: string }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
  expect(Number(rows[0]!.total)).toBe(0);
};
const subRow = async (id: string) =>
  (
    await ctx.database.db.query<{ status: string; included_used: number; cancel_at_period_end: boolean; stripe_subscription_id: string }>(
      'SELECT * FROM subscriptions WHERE id = $1',
      [id],
    )
  ).rows[0]!;

/** Subscribes to a paid plan and pays the first invoice as the browser would (Stripe.js confirm). */
async function subscribePaid(slug: string, user: { token: string }, planId: string, card = TEST_CARDS.success) {
  const created = await api('POST', `/api/app/${slug}/subscriptions/`, user.token, { package_id: planId });
  expect(created.statusCode, created.body).toBe(201);
  const sub = created.json();
  expect(sub).toMatchObject({ status: 'incomplete', client_secret: expect.stringMatching(/^pi_.+_secret_/) });
  const piId = (sub.client_secret as string).split('_secret_')[0]!;
  try {
    stripe.confirmPaymentIntent(piId, card);
  } catch {
    // declined: the fake reports it as Stripe.js would
  }
  await stripe.settled();
  return sub as { id: string };
}

describe('the Stripe fake speaks the wire format', () => {
  it('parses bracket notation, replays an Idempotency-Key, refuses a reused key with another body, and answers error objects', async () => {
    expect(parseStripeForm('items[0][price]=price_1&metadata[a]=b&expand[]=x&expand[]=y.z')).toEqual({
      items: [{ price: 'price_1' }],
      metadata: { a: 'b' },
      expand: ['x', 'y.z'],
    });
    const post = (body: string, key: string) =>
      fetch(`${stripe.url}/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stripe.secretKey}`, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
        body,
      });
    const first = await (await post('email=a%40b.c', 'k1')).json();
    const again = await (await post('email=a%40b.c', 'k1')).json();
    expect(again.id).toBe(first.id);
    const reused = await post('email=other%40b.c', 'k1');
    expect(reused.status).toBe(400);
    expect((await reused.json()).error.type).toBe('idempotency_error');
    const missing = await fetch(`${stripe.url}/v1/customers/cus_nope`, { headers: { authorization: `Bearer ${stripe.secretKey}` } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
    const unauthenticated = await fetch(`${stripe.url}/v1/customers`, { method: 'POST' });
    expect(unauthenticated.status).toBe(401);
  });
});

describe('plans', () => {
  it('owner creates, updates and deactivates; dollars in the API, cents in storage; others cannot edit; a plan with subscribers is never deleted', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, {
      name: 'Pro',
      description: 'For teams',
      price: 9.99,
      currency: 'USD',
      features: { Support: 'Email' },
      included_calls: 100,
    });
    expect(plan).toMatchObject({
      price: 9.99,
      price_cents: 999,
      currency: 'usd',
      features: { Support: 'Email' },
      included_calls: 100,
      is_active: true,
      subscriber_count: 0,
    });
    const bad = await api('POST', `/api/app/${slug}/packages/`, owner, { name: 'X', price: 1.234 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('price');
    const other = await newUser();
    expect((await api('POST', `/api/app/${slug}/packages/`, other.token, { name: 'Mine', price: 1 })).statusCode).toBe(404);
    const seen = await api('GET', `/api/app/${slug}/packages/`, other.token);
    expect(seen.json()[0]).not.toHaveProperty('subscriber_count');
    const updated = await api('PATCH', `/api/app/${slug}/packages/${plan.id}/`, owner, { price: 12 });
    expect(updated.json()).toMatchObject({ price: 12, price_cents: 1200 });

    const free = await createPlan(slug, { name: 'Trial', price: 0, included_calls: 3 });
    expect((await api('POST', `/api/app/${slug}/subscriptions/`, other.token, { package_id: free.id })).statusCode).toBe(201);
    expect((await api('DELETE', `/api/app/${slug}/packages/${free.id}/`, owner)).statusCode).toBe(409);
    const deactivated = await api('POST', `/api/app/${slug}/packages/${free.id}/deactivate/`, owner);
    expect(deactivated.json()).toMatchObject({ is_active: false, subscriber_count: 1 });
    const late = await newUser();
    const refused = await api('POST', `/api/app/${slug}/subscriptions/`, late.token, { package_id: free.id });
    expect(refused.statusCode).toBe(400);
  });
});

describe('free plans and included calls', () => {
  it('subscribing to a free plan needs no card; its included calls are used before credits', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Trial', price: 0, included_calls: 2 });
    const user = await newUser();
    const sub = await api('POST', `/api/app/${slug}/subscriptions/`, user.token, { package_id: plan.id });
    expect(sub.json()).toMatchObject({ status: 'active', package_name: 'Trial', cancel_at_period_end: false, included_calls: 2, included_calls_used: 0 });
    expect(sub.json().days_remaining).toBeGreaterThanOrEqual(28);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
    expect((await api('GET', `/api/app/${slug}/subscriptions/${sub.json().id}/`, user.token)).json().included_calls_used).toBe(2);
  });

  it("a call above the caller's price cap is refused before an included call covers it", async () => {
    const { slug } = await livePublicApp();
    const { user, sub } = await freeTrialSubscriber(slug, 1);
    const capped = await ctx.app.inject({
      method: 'POST',
      url: `/api/app/${slug}/completion-messages`,
      headers: { authorization: `Bearer ${user.token}`, 'x-max-price-cents': String(PRICE - 1) },
      payload: { inputs: { query: 'Hi' }, response_mode: 'blocking', user: 'u' },
    });
    expect(capped.statusCode).toBe(402);
    expect(capped.json().code).toBe('price_above_limit');
    expect((await subRow(sub.id)).included_used).toBe(0);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await subRow(sub.id)).included_used).toBe(1);
    expect((await balance(user.token)).credits_cents).toBe(500);
  });

  it('10×K concurrent calls with K included calls left: exactly K are covered, the rest are paid or refused', async () => {
    const K = 5;
    const { slug } = await livePublicApp();
    const { user, sub } = await freeTrialSubscriber(slug, K);
    const results = await Promise.all(Array.from({ length: 10 * K }, () => callApp(slug, user.token)));
    const ok = results.filter((r) => r.statusCode === 200).length;
    const refused = results.filter((r) => r.statusCode === 402).length;
    expect(
      ok + refused,
      results
        .filter((r) => r.statusCode !== 200 && r.statusCode !== 402)
        .map((r) => `${r.statusCode} ${r.body}`)
        .join('\n'),
    ).toBe(10 * K);
    // 500 cents of credits pay exactly 5 calls at 100; K are covered.
    expect(ok).toBe(K + 5);
    expect((await subRow(sub.id)).included_used).toBe(K);
    expect((await balance(user.token)).credits_cents).toBe(0);
    const { rows } = await ctx.database.db.query<{ covered: string; paid: string }>(
      `SELECT count(*) FILTER (WHERE i.price_cents = 0) AS covered, count(*) FILTER (WHERE i.price_cents > 0) AS paid
       FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 AND i.status = 'success'`,
      [slug],
    );
    expect(Number(rows[0]!.covered)).toBe(K);
    expect(Number(rows[0]!.paid)).toBe(5);
    await ledgerBalanced();
  });

  it('a failed call gives its included call back; a new period resets them; a canceled plan covers nothing', async () => {
    const { slug, id: appId } = await livePublicApp();
    const { user, sub } = await freeTrialSubscriber(slug, 1);
    upstream.setBehaviour({ status: 500 });
    expect((await callApp(slug, user.token)).statusCode).toBe(502);
    upstream.resetBehaviour();
    expect((await subRow(sub.id)).included_used).toBe(0);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await subRow(sub.id)).included_used).toBe(1);
    // The period ends: the next call starts a new one with its included calls.
    await ctx.database.db.query("UPDATE subscriptions SET current_period_end = now() - interval '1 second' WHERE id = $1", [sub.id]);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await subRow(sub.id)).included_used).toBe(1);
    expect((await balance(user.token)).credits_cents).toBe(500);
    await ctx.database.db.query("UPDATE subscriptions SET status = 'canceled' WHERE id = $1 AND app_id = $2", [sub.id, appId]);
    await ctx.database.db.query('UPDATE subscriptions SET included_used = 0 WHERE id = $1', [sub.id]);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
  });

  it('a free plan starts a new period at each whole month from its start, calls or not: a read shows the current period and unused calls', async () => {
    const { slug } = await livePublicApp();
    const { user, sub } = await freeTrialSubscriber(slug, 2);
    expect(sub.days_remaining).toBeGreaterThanOrEqual(28);
    // Subscribed 2 months and 3 days ago; the first period's calls all used; no call since.
    await backdateSubscription(sub.id, '2 months 3 days', 2);
    const { rows } = await ctx.database.db.query<{ start: Date; end: Date }>(
      `SELECT created_at + interval '2 months' AS start, created_at + interval '3 months' AS end FROM subscriptions WHERE id = $1`,
      [sub.id],
    );
    const expected = rows[0]!;
    const read = (await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, user.token)).json();
    expect(read).toMatchObject({ status: 'active', included_calls_used: 0, current_period_end: expected.end.toISOString() });
    expect(read.days_remaining).toBe(Math.ceil((expected.end.getTime() - Date.now()) / 86_400_000));
    expect((await api('GET', `/api/app/${slug}/subscriptions/`, user.token)).json()[0]).toMatchObject({
      included_calls_used: 0,
      current_period_end: expected.end.toISOString(),
    });
    const row = (await ctx.database.db.query<{ current_period_start: Date }>('SELECT current_period_start FROM subscriptions WHERE id = $1', [sub.id]))
      .rows[0]!;
    expect(row.current_period_start.toISOString()).toBe(expected.start.toISOString());
    // Both of this period's calls are covered, the third is paid from credits.
    for (let i = 0; i < 3; i++) expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await subRow(sub.id)).included_used).toBe(2);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
  });

  it('a call after several periods without calls or reads covers from the period that contains now, anchored to the start', async () => {
    const { slug } = await livePublicApp();
    const { user, sub } = await freeTrialSubscriber(slug, 1);
    await backdateSubscription(sub.id, '5 months 1 day', 1);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
    const { rows } = await ctx.database.db.query<{ aligned: boolean; included_used: number }>(
      `SELECT current_period_start = created_at + interval '5 months' AND current_period_end = created_at + interval '6 months' AS aligned, included_used
       FROM subscriptions WHERE id = $1`,
      [sub.id],
    );
    expect(rows[0]).toEqual({ aligned: true, included_used: 1 });
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
  });

  it('cancel at period end: Canceling until the period ends, then canceled; cancel is refused twice', async () => {
    const { slug } = await livePublicApp();
    const { user, sub } = await freeTrialSubscriber(slug, 1);
    const canceled = await api('POST', `/api/app/${slug}/subscriptions/${sub.id}/cancel/`, user.token);
    expect(canceled.json()).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect((await api('POST', `/api/app/${slug}/subscriptions/${sub.id}/cancel/`, user.token)).statusCode).toBe(409);
    await ctx.database.db.query("UPDATE subscriptions SET current_period_end = now() - interval '1 second' WHERE id = $1", [sub.id]);
    expect((await api('GET', `/api/app/${slug}/subscriptions/`, user.token)).json()[0]).toMatchObject({ status: 'canceled', days_remaining: 0 });
  });
});

describe('paid plans through Stripe', () => {
  it('subscribe: a customer per user, a product and price from the plan, first payment confirmed in the browser, creator earns it less the fee, analytics revenue includes it', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 20, included_calls: 2 });
    const user = await newUser();
    const before = (await balance(owner)).earnings_cents;
    const sub = await subscribePaid(slug, user, plan.id);
    const row = await subRow(sub.id);
    expect(row.status).toBe('active');
    const stripeSub = stripe.read(row.stripe_subscription_id) as {
      customer: string;
      items: { data: { price: { unit_amount: number; currency: string; recurring: { interval: string } } }[] };
    };
    expect(stripeSub.items.data[0]!.price).toMatchObject({ unit_amount: 2000, currency: 'usd', recurring: { interval: 'month' } });
    expect(stripe.read(stripeSub.customer)).toMatchObject({ metadata: { tollbooth_user_id: user.id } });
    expect((await balance(owner)).earnings_cents - before).toBe(2000 - 200);
    const { rows } = await ctx.database.db.query<{ revenue: string }>(
      'SELECT sum(revenue_cents)::bigint AS revenue FROM app_daily_stats s JOIN apps a ON a.id = s.app_id WHERE a.slug = $1',
      [slug],
    );
    expect(Number(rows[0]!.revenue)).toBe(2000);
    const usage = await api('GET', `/api/app/${slug}/analytics/usage/?period=7d`, owner);
    if (usage.statusCode === 200) expect(usage.json().total_revenue_cents).toBe(2000);
    // Included calls are used before credits.
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500);
    // A second subscription with the same customer.
    const plan2 = await createPlan(slug, { name: 'Extra', price: 1 });
    await subscribePaid(slug, user, plan2.id);
    expect(
      stripe.requests.filter(
        (r) =>
          r.method === 'POST' && r.path === '/v1/customers' && r.body.metadata && (r.body.metadata as Record<string, string>).tollbooth_user_id === user.id,
      ),
    ).toHaveLength(1);
    await ledgerBalanced();
  });

  it('renew resets included calls and pays the creator again; a failed renewal is past_due and stops covering; cancel at period end follows Stripe', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 5, included_calls: 1 });
    const user = await newUser();
    const sub = await subscribePaid(slug, user, plan.id);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await subRow(sub.id)).included_used).toBe(1);
    const earned = (await balance(owner)).earnings_cents;
    await renew(sub.id);
    expect(await subRow(sub.id)).toMatchObject({ status: 'active', included_used: 0 });
    expect((await balance(owner)).earnings_cents - earned).toBe(500 - 50);

    await renew(sub.id, { fail: true });
    // On PostgreSQL the renewal's events are applied concurrently and one may be retried by the
    // fake after settled() returned: wait for the state they end in (derived from the objects).
    // Up to 20 s: under a loaded CI machine a retried event took longer than the 5 s this waited before.
    const waitingSince = performance.now();
    while ((await subRow(sub.id)).status !== 'past_due' && performance.now() - waitingSince < 20_000) await new Promise((resolve) => setTimeout(resolve, 25));
    expect((await subRow(sub.id)).status).toBe('past_due');
    const credits = (await balance(user.token)).credits_cents;
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(credits - PRICE);

    const plan2 = await createPlan(slug, { name: 'Pro 2', price: 5, included_calls: 1 });
    const sub2 = await subscribePaid(slug, user, plan2.id);
    const canceling = await api('POST', `/api/app/${slug}/subscriptions/${sub2.id}/cancel/`, user.token);
    expect(canceling.json()).toMatchObject({ status: 'active', cancel_at_period_end: true });
    await stripe.settled();
    await renew(sub2.id);
    expect((await subRow(sub2.id)).status).toBe('canceled');
    await ledgerBalanced();
  });

  it('a price change applies to new subscriptions only: the existing one renews at its price, a new one pays the new price', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 5, included_calls: 1 });
    const early = await newUser();
    const sub = await subscribePaid(slug, early, plan.id);
    expect((await api('PATCH', `/api/app/${slug}/packages/${plan.id}/`, owner, { price: 8 })).json()).toMatchObject({ price_cents: 800 });
    const earned = (await balance(owner)).earnings_cents;
    await renew(sub.id);
    expect((await balance(owner)).earnings_cents - earned).toBe(500 - 50);
    expect((await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, early.token)).json().price).toBe(5);

    const late = await newUser();
    const lateSub = await subscribePaid(slug, late, plan.id);
    expect((await api('GET', `/api/app/${slug}/subscriptions/${lateSub.id}/`, late.token)).json()).toMatchObject({ status: 'active', price: 8 });
    const stripeSub = stripe.read((await subRow(lateSub.id)).stripe_subscription_id) as { items: { data: { price: { unit_amount: number } }[] } };
    expect(stripeSub.items.data[0]!.price.unit_amount).toBe(800);
    expect((await balance(owner)).earnings_cents - earned).toBe(500 - 50 + 800 - 80);
    await ledgerBalanced();
  });

  it('a declined first payment leaves the subscription incomplete; it covers nothing', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 5, included_calls: 5 });
    const user = await newUser();
    const sub = await subscribePaid(slug, user, plan.id, TEST_CARDS.declined);
    expect((await subRow(sub.id)).status).toBe('incomplete');
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
  });

  it("create-payment-intent: amount 0 is a SetupIntent; amount must be the plan's price × 100 in its lower-case currency", async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 7.5 });
    const user = await newUser();
    const setup = await api('POST', `/api/app/${slug}/create-payment-intent/`, user.token, { amount: 0, currency: 'usd' });
    expect(setup.json().client_secret).toMatch(/^seti_.+_secret_/);
    const wrong = await api('POST', `/api/app/${slug}/create-payment-intent/`, user.token, { amount: 700, currency: 'usd', package_id: plan.id });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toContain('amount');
    const upper = await api('POST', `/api/app/${slug}/create-payment-intent/`, user.token, { amount: 750, currency: 'USD', package_id: plan.id });
    expect(upper.statusCode).toBe(400);
    const ok = await api('POST', `/api/app/${slug}/create-payment-intent/`, user.token, { amount: 750, currency: 'usd', package_id: plan.id });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ client_secret: expect.stringMatching(/^pi_/), subscription_id: expect.any(String) });
  });
});

describe('payment methods', () => {
  it('add through a SetupIntent (only brand, last 4, expiry, default stored), make default, remove; another user gets 404', async () => {
    const { slug } = await livePublicApp();
    const user = await newUser();
    const addCard = async (number: string) => {
      const setup = (await api('POST', `/api/app/${slug}/create-payment-intent/`, user.token, { amount: 0, currency: 'usd' })).json();
      const setupId = (setup.client_secret as string).split('_secret_')[0]!;
      stripe.confirmSetupIntent(setupId, number);
      await stripe.settled();
      const added = await api('POST', `/api/app/${slug}/payment-methods/`, user.token, { setup_intent_id: setupId });
      expect(added.statusCode, added.body).toBe(201);
      return added.json();
    };
    const first = await addCard(TEST_CARDS.success);
    expect(first).toEqual({
      id: expect.any(String),
      card_brand: 'visa',
      card_last4: '4242',
      card_exp_month: 12,
      card_exp_year: expect.any(Number),
      is_default: true,
    });
    const second = await addCard('5555555555554444');
    expect(second).toMatchObject({ card_brand: 'mastercard', card_last4: '4444', is_default: false });
    // The webhook (setup_intent.succeeded) and the browser return both saved it: still two cards.
    expect((await api('GET', `/api/app/${slug}/payment-methods/`, user.token)).json()).toHaveLength(2);
    const { rows } = await ctx.database.db.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'payment_methods' ORDER BY 1");
    expect(rows.map((r) => (r as { column_name: string }).column_name)).not.toContain('card_number');

    const made = await api('PATCH', `/api/app/${slug}/payment-methods/${second.id}/`, user.token, { is_default: true });
    expect(made.json().is_default).toBe(true);
    const list = (await api('GET', `/api/app/${slug}/payment-methods/`, user.token)).json() as { id: string; is_default: boolean }[];
    expect(list.filter((m) => m.is_default).map((m) => m.id)).toEqual([second.id]);
    const customerId = (await ctx.database.db.query<{ customer_id: string }>('SELECT customer_id FROM stripe_customers WHERE user_id = $1', [user.id])).rows[0]!
      .customer_id;
    const stripeDefault = (stripe.read(customerId) as { invoice_settings: { default_payment_method: string } }).invoice_settings.default_payment_method;
    expect(stripe.read(stripeDefault)).toMatchObject({ card: { last4: '4444' } });

    const intruder = await newUser();
    expect((await api('PATCH', `/api/app/${slug}/payment-methods/${second.id}/`, intruder.token, { is_default: true })).statusCode).toBe(404);
    expect((await api('DELETE', `/api/app/${slug}/payment-methods/${second.id}/`, intruder.token)).statusCode).toBe(404);
    expect((await api('DELETE', `/api/app/${slug}/payment-methods/${second.id}/`, user.token)).statusCode).toBe(204);
    expect(stripe.read(stripeDefault)).toMatchObject({ customer: null });
    expect((await api('GET', `/api/app/${slug}/payment-methods/`, user.token)).json()).toHaveLength(1);
  });

  it("another user's subscription is 404", async () => {
    const { slug } = await livePublicApp();
    const { sub } = await freeTrialSubscriber(slug, 1);
    const intruder = await newUser();
    expect((await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, intruder.token)).statusCode).toBe(404);
    expect((await api('POST', `/api/app/${slug}/subscriptions/${sub.id}/cancel/`, intruder.token)).statusCode).toBe(404);
    expect((await api('PATCH', `/api/app/${slug}/subscriptions/${sub.id}/`, intruder.token, { cancel_at_period_end: true })).statusCode).toBe(404);
  });
});

describe('credit top-ups', () => {
  it('minimum $5; credited once by the webhook, whatever the redeliveries and browser returns', async () => {
    const user = await newUser();
    const tooSmall = await api('POST', '/api/billing/top-ups/', user.token, { amount_cents: 499 });
    expect(tooSmall.statusCode).toBe(400);
    expect(tooSmall.json().message).toContain('amount_cents');
    const topUp = (await api('POST', '/api/billing/top-ups/', user.token, { amount_cents: 1500 })).json();
    expect(topUp.client_secret).toMatch(/^pi_.+_secret_/);
    stripe.confirmPaymentIntent(topUp.payment_intent_id);
    await stripe.settled();
    expect((await balance(user.token)).credits_cents).toBe(500 + 1500);
    const event = stripe.events.find(
      (e) => e.type === 'payment_intent.succeeded' && (e.data as { object: { id: string } }).object.id === topUp.payment_intent_id,
    )!;
    const statuses = await Promise.all(Array.from({ length: 5 }, () => stripe.deliver(event)));
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const back = await api('POST', '/api/billing/top-ups/confirm/', user.token, { payment_intent_id: topUp.payment_intent_id });
    expect(back.json()).toEqual({ status: 'succeeded', credited: false, credits_cents: 2000 });
    expect((await balance(user.token)).credits_cents).toBe(2000);
    const other = await newUser();
    expect((await api('POST', '/api/billing/top-ups/confirm/', other.token, { payment_intent_id: topUp.payment_intent_id })).statusCode).toBe(404);
    await ledgerBalanced();
  });

  it('a browser return before the webhook credits it, and the webhook then does nothing', async () => {
    const user = await newUser();
    const topUp = (await api('POST', '/api/billing/top-ups/', user.token, { amount_cents: 600 })).json();
    stripe.setWebhookUrl(null);
    stripe.confirmPaymentIntent(topUp.payment_intent_id);
    const back = await api('POST', '/api/billing/top-ups/confirm/', user.token, { payment_intent_id: topUp.payment_intent_id });
    expect(back.json()).toMatchObject({ status: 'succeeded', credited: true, credits_cents: 1100 });
    stripe.setWebhookUrl(ctx.webhookUrl);
    const event = stripe.events.find(
      (e) => e.type === 'payment_intent.succeeded' && (e.data as { object: { id: string } }).object.id === topUp.payment_intent_id,
    )!;
    expect(await stripe.deliver(event)).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(1100);
  });
});

describe('3-D Secure: a card that needs the cardholder to authenticate', () => {
  const card = TEST_CARDS.requiresAuthentication;
  const intentEvents = (id: string) => stripe.events.filter((e) => (e.data as { object: { id: string } }).object.id === id).map((e) => e.type);

  it('top-up: requires_action moves no money; completed, the credits come once; failed, nothing', async () => {
    const user = await newUser();
    const topUp = (await api('POST', '/api/billing/top-ups/', user.token, { amount_cents: 800 })).json();
    const waiting = stripe.confirmPaymentIntent(topUp.payment_intent_id, card) as { status: string; next_action: { type: string } };
    expect(waiting).toMatchObject({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' } });
    await stripe.settled();
    expect(intentEvents(topUp.payment_intent_id)).toEqual(['payment_intent.requires_action']);
    // The browser comes back before authenticating: nothing is credited.
    const early = await api('POST', '/api/billing/top-ups/confirm/', user.token, { payment_intent_id: topUp.payment_intent_id });
    expect(early.json()).toMatchObject({ status: 'requires_action', credited: false, credits_cents: 500 });
    expect((await balance(user.token)).credits_cents).toBe(500);

    stripe.authenticate(topUp.payment_intent_id, 'complete');
    await stripe.settled();
    expect((await balance(user.token)).credits_cents).toBe(1300);
    const back = await api('POST', '/api/billing/top-ups/confirm/', user.token, { payment_intent_id: topUp.payment_intent_id });
    expect(back.json()).toMatchObject({ status: 'succeeded', credited: false, credits_cents: 1300 });

    const failed = (await api('POST', '/api/billing/top-ups/', user.token, { amount_cents: 900 })).json();
    stripe.confirmPaymentIntent(failed.payment_intent_id, card);
    expect(stripe.authenticate(failed.payment_intent_id, 'fail')).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'payment_intent_authentication_failure' },
    });
    await stripe.settled();
    const refused = await api('POST', '/api/billing/top-ups/confirm/', user.token, { payment_intent_id: failed.payment_intent_id });
    expect(refused.json()).toMatchObject({ status: 'requires_payment_method', credited: false, credits_cents: 1300 });
    const { rows } = await ctx.database.db.query<{ status: string }>('SELECT status FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [
      failed.payment_intent_id,
    ]);
    expect(rows[0]!.status).toBe('failed');
    await ledgerBalanced();
  });

  it('subscribe: until the cardholder authenticates the subscription is incomplete, covers nothing and earns nothing; a failed challenge grants nothing', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 4, included_calls: 3 });
    const user = await newUser();
    const earned = (await balance(owner)).earnings_cents;
    const sub = await subscribePaid(slug, user, plan.id, card);
    expect((await subRow(sub.id)).status).toBe('incomplete');
    const read = (await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, user.token)).json();
    expect(read.status).toBe('incomplete');
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
    expect((await balance(owner)).earnings_cents - earned).toBe(PRICE - PRICE / 10);

    // The challenge fails: still nothing.
    const row = await subRow(sub.id);
    const invoice = (stripe.read(row.stripe_subscription_id) as { latest_invoice: string }).latest_invoice;
    const intentId = String(stripe.objects.get(invoice)?._payment_intent);
    stripe.authenticate(intentId, 'fail');
    await stripe.settled();
    expect((await subRow(sub.id)).status).toBe('incomplete');
    expect((await balance(owner)).earnings_cents - earned).toBe(PRICE - PRICE / 10);

    // Asked again, the same subscription's payment; this time the cardholder completes the challenge.
    const again = await api('POST', `/api/app/${slug}/subscriptions/`, user.token, { package_id: plan.id });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().id).toBe(sub.id);
    stripe.confirmPaymentIntent(intentId, card);
    await stripe.settled();
    expect((await subRow(sub.id)).status).toBe('incomplete');
    stripe.authenticate(intentId, 'complete');
    await stripe.settled();
    expect(await subRow(sub.id)).toMatchObject({ status: 'active', included_used: 0 });
    expect((await balance(owner)).earnings_cents - earned).toBe(PRICE - PRICE / 10 + 400 - 40);
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await subRow(sub.id)).included_used).toBe(1);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
    await ledgerBalanced();
  });

  it('add a card: a SetupIntent waiting for authentication saves nothing; completed, the card is saved', async () => {
    const { slug } = await livePublicApp();
    const user = await newUser();
    const setup = (await api('POST', `/api/app/${slug}/create-payment-intent/`, user.token, { amount: 0, currency: 'usd' })).json();
    const setupId = (setup.client_secret as string).split('_secret_')[0]!;
    expect(stripe.confirmSetupIntent(setupId, card)).toMatchObject({ status: 'requires_action' });
    await stripe.settled();
    const early = await api('POST', `/api/app/${slug}/payment-methods/`, user.token, { setup_intent_id: setupId });
    expect(early.statusCode).toBe(400);
    expect((await api('GET', `/api/app/${slug}/payment-methods/`, user.token)).json()).toEqual([]);
    stripe.authenticate(setupId, 'complete');
    await stripe.settled();
    const added = await api('POST', `/api/app/${slug}/payment-methods/`, user.token, { setup_intent_id: setupId });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ card_last4: '3155', is_default: true });
    expect((await api('GET', `/api/app/${slug}/payment-methods/`, user.token)).json()).toHaveLength(1);
  });
});

describe('the webhook', () => {
  const url = () => ctx.webhookUrl;
  const post = (body: string, signature?: string) =>
    fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) }, body });
  const event = (type: string, object: object, created = Math.floor(Date.now() / 1000)) =>
    JSON.stringify({ id: `evt_${Math.random().toString(36).slice(2)}`, object: 'event', type, created, livemode: false, data: { object } });

  it('tampered, wrongly signed, unsigned or stale deliveries are 400; unknown events are acknowledged', async () => {
    const body = event('something.new', { id: 'x', object: 'thing' });
    expect((await post(body, stripe.sign(body))).status).toBe(200);
    const tampered = await post(body.replace('something.new', 'something.old'), stripe.sign(body));
    expect(tampered.status).toBe(400);
    expect((await tampered.json()).code).toBe('invalid_param');
    expect((await post(body, stripe.sign(body, undefined, 'whsec_wrong'))).status).toBe(400);
    expect((await post(body)).status).toBe(400);
    expect((await post(body, stripe.sign(body, Math.floor(Date.now() / 1000) - 301))).status).toBe(400);
  });

  it('the same invoice.paid delivered 5 times concurrently is applied once', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 3 });
    const user = await newUser();
    const sub = await subscribePaid(slug, user, plan.id);
    const paid = stripe.events.filter((e) => e.type === 'invoice.paid').at(-1)!;
    const earned = (await balance(owner)).earnings_cents;
    const body = JSON.stringify({ ...paid, id: 'evt_replayed_invoice' });
    const statuses = await Promise.all(Array.from({ length: 5 }, () => post(body, stripe.sign(body)).then((r) => r.status)));
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect((await balance(owner)).earnings_cents).toBe(earned);
    expect((await subRow(sub.id)).status).toBe('active');
    const { rows } = await ctx.database.db.query<{ n: string }>("SELECT count(*) AS n FROM stripe_events WHERE id = 'evt_replayed_invoice'");
    expect(Number(rows[0]!.n)).toBe(1);
    await ledgerBalanced();
  });

  it('out-of-order subscription events end in the right state', async () => {
    const { slug } = await livePublicApp();
    const plan = await createPlan(slug, { name: 'Pro', price: 3, included_calls: 1 });
    const user = await newUser();
    const sub = await subscribePaid(slug, user, plan.id);
    const stripeId = (await subRow(sub.id)).stripe_subscription_id;
    const snapshot = stripe.read(stripeId);
    const t = Math.floor(Date.now() / 1000) + 100;
    const deleted = event('customer.subscription.deleted', { ...snapshot, status: 'canceled' }, t + 2);
    const olderUpdate = event('customer.subscription.updated', { ...snapshot, status: 'active', cancel_at_period_end: true }, t + 1);
    expect((await post(deleted, stripe.sign(deleted))).status).toBe(200);
    expect((await post(olderUpdate, stripe.sign(olderUpdate))).status).toBe(200);
    expect(await subRow(sub.id)).toMatchObject({ status: 'canceled' });
    expect((await callApp(slug, user.token)).statusCode).toBe(200);
    expect((await balance(user.token)).credits_cents).toBe(500 - PRICE);
    // past_due then (older) active: stays past_due
    const plan2 = await createPlan(slug, { name: 'Pro 2', price: 3 });
    const sub2 = await subscribePaid(slug, user, plan2.id);
    const snapshot2 = stripe.read((await subRow(sub2.id)).stripe_subscription_id);
    const pastDue = event('customer.subscription.updated', { ...snapshot2, status: 'past_due' }, t + 5);
    const stale = event('customer.subscription.updated', { ...snapshot2, status: 'active' }, t + 4);
    await post(pastDue, stripe.sign(pastDue));
    await post(stale, stripe.sign(stale));
    expect((await subRow(sub2.id)).status).toBe('past_due');
    // A failed renewal's events of one second, "past_due" before "active" for the same period (the
    // order they may arrive in): it stays past_due. A paid invoice of that second makes it active.
    const sameSecondPastDue = event('customer.subscription.updated', { ...snapshot2, status: 'past_due' }, t + 6);
    const sameSecondActive = event('customer.subscription.updated', { ...snapshot2, status: 'active' }, t + 6);
    await post(sameSecondPastDue, stripe.sign(sameSecondPastDue));
    await post(sameSecondActive, stripe.sign(sameSecondActive));
    expect((await subRow(sub2.id)).status).toBe('past_due');
  });

  it('without Stripe configured: free plans work, paid ones are 503, the webhook is 503', async () => {
    const plain = await createTestContext();
    try {
      const o = await plain.tokenFor('o');
      const created = await plain.api('POST', '/api/app/', o, { name: 'A', type: 'prompt' });
      const slug = created.json().slug;
      const mk = (price: number) => plain.api('POST', `/api/app/${slug}/packages/`, o, { name: `P${price}`, price });
      const free = (await mk(0)).json();
      const paid = (await mk(5)).json();
      const sub = (id: string) =>
        plain.app.inject({ method: 'POST', url: `/api/app/${slug}/subscriptions/`, headers: { authorization: `Bearer ${o}` }, payload: { package_id: id } });
      expect((await sub(free.id)).statusCode).toBe(201);
      expect((await sub(paid.id)).statusCode).toBe(503);
      expect(
        (await plain.app.inject({ method: 'POST', url: '/api/billing/webhook/', payload: '{}', headers: { 'content-type': 'application/json' } })).statusCode,
      ).toBe(503);
    } finally {
      await plain.close();
    }
  });
});

describe('who has included calls, cached per process', () => {
  /** Included calls as another process would have them, counting its queries on subscriptions. */
  async function countedIncludedCalls() {
    const db = ctx.database.db;
    const counts = { subscribers: 0, covers: 0 };
    const counted = watchedDatabase(db, {
      onQuery: (sql) => {
        if (/SELECT DISTINCT app_id FROM subscriptions/.test(sql)) counts.subscribers++;
        if (/UPDATE subscriptions s SET\s+included_used/.test(sql)) counts.covers++;
      },
    });
    const invalidation = await createInvalidationBus(counted);
    return { included: createIncludedCalls(counted, invalidation), counts, close: () => invalidation.close() };
  }

  it('a caller without subscriptions costs one query, then none; a new subscription anywhere is covered', async () => {
    const { slug, id: appId } = await livePublicApp();
    const user = await newUser();
    const { included, counts, close } = await countedIncludedCalls();
    try {
      for (let i = 0; i < 3; i++) expect(await included.cover(user.id, appId, 0)).toBeNull();
      expect(counts).toEqual({ subscribers: 1, covers: 0 });

      // Subscribed through this test's app, i.e. in another service instance: heard of by NOTIFY.
      const plan = await createPlan(slug, { name: 'Heard of', price: 0, included_calls: 1 });
      expect((await api('POST', `/api/app/${slug}/subscriptions/`, user.token, { package_id: plan.id })).statusCode).toBe(201);
      await expect.poll(() => included.cover(user.id, appId, 0), { timeout: 5_000, interval: 5 }).toMatchObject({ periodStart: expect.any(String) });
      // Used up: the cover statement is asked (and says no); existence alone is cached.
      expect(await included.cover(user.id, appId, 0)).toBeNull();
      expect(counts.covers).toBeGreaterThanOrEqual(2);
    } finally {
      await close();
    }
  });
});

describe('plan currencies', () => {
  it('a ₫100,000 plan is 100000 minor units at Stripe and shows as ₫100,000; ¥ takes whole amounts; three-decimal currencies are refused', async () => {
    const { slug } = await livePublicApp();
    const vnd = await createPlan(slug, { name: 'VND plan', price: 100_000, currency: 'VND', included_calls: 10 });
    expect(vnd).toMatchObject({ price: 100_000, price_cents: 100_000 });
    const user = await newUser();
    const sub = await subscribePaid(slug, user, vnd.id);
    const stripeSub = stripe.read((await subRow(sub.id)).stripe_subscription_id) as { items: { data: { price: { unit_amount: number; currency: string } }[] } };
    expect(stripeSub.items.data[0]!.price).toMatchObject({ unit_amount: 100_000, currency: 'vnd' });
    expect((await api('GET', `/api/app/${slug}/subscriptions/${sub.id}/`, user.token)).json()).toMatchObject({ price: 100_000, currency: 'vnd' });

    expect((await api('POST', `/api/app/${slug}/packages/`, owner, { name: 'Yen', price: 500.5, currency: 'jpy' })).json()).toMatchObject({
      status: 400,
      message: expect.stringContaining('whole amount of JPY'),
    });
    const kwd = await api('POST', `/api/app/${slug}/packages/`, owner, { name: 'Dinar', price: 5, currency: 'kwd' });
    expect(kwd.statusCode).toBe(400);
    expect(kwd.json().message).toMatch(/currency.*three-decimal/);
    // A currency change keeps the shown price: $5 → ¥5 is 5 minor units, not 500.
    const usd = await createPlan(slug, { name: 'Switch', price: 5, included_calls: 1 });
    expect(usd.price_cents).toBe(500);
    const switched = await api('PATCH', `/api/app/${slug}/packages/${usd.id}/`, owner, { currency: 'jpy' });
    expect(switched.json()).toMatchObject({ price: 5, price_cents: 5, currency: 'jpy' });
  });
});
