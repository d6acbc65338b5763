// Disputes of subscription payments (issue 23 item 4): charge.dispute.created on an invoice's charge
// ends the included calls of the period it paid for (when still current) and moves the disputed
// amount from the platform fees to outside funding in the subscription's currency, once; a won
// dispute gives it back once; events may arrive twice or in any order. End to end: the official SDK
// against the Stripe fake (STRIPE_API_BASE), webhooks signed and delivered over HTTP.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createStripeClient } from '../../providers/stripe/client.ts';
import { callCompletion } from '../../test-support/paid-call.ts';
import { createStripeTestContext, PAYOUT_TEST_ENV } from '../../test-support/stripe-app.ts';

const PRICE = 100;
const ctx = await createStripeTestContext(PAYOUT_TEST_ENV);
const { stripe, webhookUrl, api, sql, newUser } = ctx;
const sdk = createStripeClient(ctx.config.stripe)!;
afterAll(() => ctx.close());
beforeEach(() => stripe.setWebhookUrl(webhookUrl));

let counter = 0;
const ledgerBalanced = async () => expect(Number((await sql<{ t: string }>('SELECT coalesce(sum(amount_cents), 0) AS t FROM ledger_entries'))[0]!.t)).toBe(0);
const system = async (kind: string, currency = 'usd') =>
  Number(
    (await sql<{ b: string }>('SELECT balance_cents AS b FROM ledger_accounts WHERE kind = $1 AND user_id IS NULL AND currency = $2', [kind, currency]))[0]
      ?.b ?? 0,
  );
const earnings = async (userId: string) =>
  Number(
    (
      await sql<{ b: string }>("SELECT coalesce(sum(balance_cents), 0) AS b FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1", [userId])
    )[0]!.b,
  );
const credits = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json().credits_cents as number;
const movements = (disputeId: string) =>
  sql<{ kind: string; reference: string; account: string; currency: string; amount: string }>(
    `SELECT t.kind, t.reference, a.kind AS account, a.currency, e.amount_cents AS amount FROM ledger_transactions t
     JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
     WHERE t.reference IN ($1, $2) ORDER BY t.created_at, a.kind`,
    [`dispute:${disputeId}`, `dispute-won:${disputeId}`],
  );

const call = (slug: string, token: string) => callCompletion(ctx.app, slug, token);

/** A creator's paid app with a plan (9.00 in `currency`, 5 calls included), and a caller subscribed by card who made `calls` calls. */
async function subscribed(calls: number, currency = 'usd') {
  const creator = await newUser('creator');
  const { slug } = await ctx.liveApp(creator.token, { name: `Plan app ${++counter}`, price_cents: PRICE });
  const plan = await api('POST', `/api/app/${slug}/packages/`, creator.token, { name: 'Pro', price: 9, currency, included_calls: 5 });
  expect(plan.statusCode, plan.body).toBe(201);
  const caller = await newUser('caller');
  const sub = await api('POST', `/api/app/${slug}/subscriptions/`, caller.token, { package_id: plan.json().id });
  expect(sub.statusCode, sub.body).toBe(201);
  const intent = (sub.json().client_secret as string).split('_secret_')[0]!;
  stripe.confirmPaymentIntent(intent);
  await stripe.settled();
  for (let i = 0; i < calls; i++) await call(slug, caller.token);
  const row = async () =>
    (
      await sql<{ status: string; included_used: number; included_calls: number; stripe_subscription_id: string }>(
        'SELECT * FROM subscriptions WHERE id = $1',
        [sub.json().id],
      )
    )[0]!;
  return { creator, caller, slug, intent, row };
}

describe('disputes of subscription payments', () => {
  it("a dispute ends the current period's included calls and takes the amount from the platform fees once, however often it arrives; the creator keeps the earnings", async () => {
    const { creator, caller, slug, intent, row } = await subscribed(2);
    expect(await row()).toMatchObject({ status: 'active', included_used: 2, included_calls: 5 });
    const fees = await system('platform_fees');
    const earned = await earnings(creator.id);
    const opened = stripe.dispute(intent);
    await stripe.settled();
    // Stripe's Dispute, read through the official SDK: the charge and PaymentIntent it is about, amount, currency, status.
    const dispute = await sdk.disputes.retrieve(opened.dispute.id as string);
    expect(dispute).toMatchObject({ object: 'dispute', amount: 900, currency: 'usd', status: 'needs_response', payment_intent: intent });
    expect(dispute.charge).toBe((await sdk.paymentIntents.retrieve(intent)).latest_charge);
    // Delivered three times: the same event again, and the same state under a new event id.
    expect(await stripe.deliver(opened.event)).toBe(200);
    expect(await stripe.deliver({ ...opened.event, id: 'evt_dispute_resent' })).toBe(200);

    expect((await movements(dispute.id)).map((m) => [m.kind, m.account, m.currency, Number(m.amount)])).toEqual([
      ['subscription_dispute', 'outside_funding', 'usd', 900],
      ['subscription_dispute', 'platform_fees', 'usd', -900],
    ]);
    expect(await system('platform_fees')).toBe(fees - 900);
    expect(await earnings(creator.id)).toBe(earned);
    expect(await row()).toMatchObject({ status: 'active', included_used: 5 });
    // The next call is no longer included: it is paid from credits at the app's price.
    const before = await credits(caller.token);
    await call(slug, caller.token);
    expect(await credits(caller.token)).toBe(before - PRICE);
    expect((await row()).included_used).toBe(5);
    await ledgerBalanced();
  });

  it('a won dispute gives the amount back to the platform fees once; the included calls stay ended; both statements show the dispute with the refunds', async () => {
    const { creator, caller, slug, intent, row } = await subscribed(1);
    const fees = await system('platform_fees');
    const opened = stripe.dispute(intent);
    await stripe.settled();
    expect(await system('platform_fees')).toBe(fees - 900);
    const closed = stripe.closeDispute(opened.dispute.id as string, 'won');
    await stripe.settled();
    expect(await stripe.deliver(closed)).toBe(200);
    expect(await stripe.deliver({ ...closed, id: 'evt_dispute_won_resent' })).toBe(200);
    expect(await stripe.deliver(opened.event)).toBe(200);
    expect((await movements(opened.dispute.id as string)).map((m) => [m.kind, m.account, Number(m.amount)])).toEqual([
      ['subscription_dispute', 'outside_funding', 900],
      ['subscription_dispute', 'platform_fees', -900],
      ['subscription_dispute_won', 'outside_funding', -900],
      ['subscription_dispute_won', 'platform_fees', 900],
    ]);
    expect(await system('platform_fees')).toBe(fees);
    expect((await row()).included_used).toBe(5);
    await ledgerBalanced();

    // The caller's statement: the payment, its dispute and the dispute won, with the subscription (card), not the credits.
    const month = new Date().toISOString().slice(0, 7);
    const callerStatement = await api('GET', `/api/billing/statements/${month}/?role=caller`, caller.token);
    expect(callerStatement.statusCode, callerStatement.body).toBe(200);
    const usd = callerStatement.json().caller.find((b: { currency: string }) => b.currency === 'usd');
    const id = opened.dispute.id as string;
    expect(usd.adjustments).toEqual([
      expect.objectContaining({ kind: 'subscription_dispute', amount_cents: 900, reference: `dispute:${id}` }),
      expect.objectContaining({ kind: 'subscription_dispute_won', amount_cents: -900, reference: `dispute-won:${id}` }),
    ]);
    expect(usd.subscription_refunds_cents).toBe(0);
    expect(usd.disputes_cents).toBe(0);
    // The creator's: seen with the refunds, the earnings untouched.
    const creatorStatement = await api('GET', `/api/billing/statements/${month}/?role=creator`, creator.token);
    const seen = creatorStatement.json().creator.find((b: { currency: string }) => b.currency === 'usd');
    expect(seen.refunds_seen).toEqual([
      expect.objectContaining({ app_slug: slug, plan: 'Pro', amount_cents: 900, reference: `dispute:${id}` }),
      expect.objectContaining({ app_slug: slug, plan: 'Pro', amount_cents: -900, reference: `dispute-won:${id}` }),
    ]);
    expect(seen.refunds_seen_cents).toBe(0);
    const csv = (await api('GET', `/api/billing/statements/${month}/csv/?role=creator`, creator.token)).body;
    expect(csv).toContain('Subscription payment disputed by the subscriber');
    expect(csv).toContain('Dispute of a subscription payment won');
  });

  it('a closed event arriving before the created one records the dispute first: won nets to zero, lost keeps it taken', async () => {
    for (const outcome of ['won', 'lost'] as const) {
      const { intent, row } = await subscribed(0);
      const fees = await system('platform_fees');
      stripe.setWebhookUrl(null);
      const opened = stripe.dispute(intent);
      const closed = stripe.closeDispute(opened.dispute.id as string, outcome);
      stripe.setWebhookUrl(webhookUrl);
      expect(await stripe.deliver(closed)).toBe(200);
      expect((await row()).included_used).toBe(5);
      expect(await stripe.deliver(opened.event)).toBe(200);
      expect(await stripe.deliver(closed)).toBe(200);
      const kinds = (await movements(opened.dispute.id as string)).filter((m) => m.account === 'platform_fees').map((m) => [m.kind, Number(m.amount)]);
      expect(kinds).toEqual(
        outcome === 'won'
          ? [
              ['subscription_dispute', -900],
              ['subscription_dispute_won', 900],
            ]
          : [['subscription_dispute', -900]],
      );
      expect(await system('platform_fees')).toBe(outcome === 'won' ? fees : fees - 900);
      expect((await row()).included_used).toBe(5);
    }
    await ledgerBalanced();
  });

  it("a dispute of an earlier period's invoice leaves the current period's included calls alone", async () => {
    const { slug, caller, intent, row } = await subscribed(2);
    stripe.renew((await row()).stripe_subscription_id);
    await stripe.settled();
    expect((await row()).included_used).toBe(0);
    await call(slug, caller.token);
    expect((await row()).included_used).toBe(1);
    const fees = await system('platform_fees');
    const opened = stripe.dispute(intent);
    await stripe.settled();
    expect((await row()).included_used).toBe(1);
    expect(await system('platform_fees')).toBe(fees - 900);
    expect(await movements(opened.dispute.id as string)).toHaveLength(2);
    await ledgerBalanced();
  });

  it('takes back no more than the invoice paid less what was already refunded', async () => {
    const { intent } = await subscribed(0);
    stripe.refund(intent, 300);
    await stripe.settled();
    const fees = await system('platform_fees');
    const opened = stripe.dispute(intent);
    await stripe.settled();
    expect(await system('platform_fees')).toBe(fees - 600);
    expect(Number((await movements(opened.dispute.id as string)).find((m) => m.account === 'outside_funding')?.amount)).toBe(600);
    await ledgerBalanced();
  });

  it('takes back what was refunded before the dispute once in all when the refund event arrives after the dispute', async () => {
    const { intent } = await subscribed(0);
    const fees = await system('platform_fees');
    // The refund happens first at Stripe, but its event is delivered after the dispute's.
    stripe.setWebhookUrl(null);
    const refunded = stripe.refund(intent, 300);
    const opened = stripe.dispute(intent);
    stripe.setWebhookUrl(webhookUrl);
    expect(await stripe.deliver(opened.event)).toBe(200);
    expect(await system('platform_fees')).toBe(fees - 600);
    expect(await stripe.deliver(refunded)).toBe(200);
    expect(await stripe.deliver(opened.event)).toBe(200);
    expect(await system('platform_fees')).toBe(fees - 900);
    expect(Number((await movements(opened.dispute.id as string)).find((m) => m.account === 'outside_funding')?.amount)).toBe(600);
    await ledgerBalanced();
  });

  it("books in the subscription's currency", async () => {
    const { intent, row } = await subscribed(0, 'eur');
    const usdFees = await system('platform_fees', 'usd');
    const eurFees = await system('platform_fees', 'eur');
    const opened = stripe.dispute(intent);
    await stripe.settled();
    expect((await movements(opened.dispute.id as string)).map((m) => [m.account, m.currency, Number(m.amount)])).toEqual([
      ['outside_funding', 'eur', 900],
      ['platform_fees', 'eur', -900],
    ]);
    expect(await system('platform_fees', 'eur')).toBe(eurFees - 900);
    expect(await system('platform_fees', 'usd')).toBe(usdFees);
    expect((await row()).included_used).toBe(5);
    await ledgerBalanced();
  });

  it('a dispute in another currency than the subscription is recorded as a problem and applies nothing', async () => {
    const { intent, row } = await subscribed(1);
    stripe.setWebhookUrl(null);
    const opened = stripe.dispute(intent);
    stripe.setWebhookUrl(webhookUrl);
    const forged = { ...opened.event, id: 'evt_dispute_other_currency', data: { object: { ...opened.dispute, currency: 'gbp' } } };
    expect(await stripe.deliver(forged)).toBe(200);
    expect(await movements(opened.dispute.id as string)).toEqual([]);
    expect((await row()).included_used).toBe(1);
    expect(await sql('SELECT problem FROM stripe_event_problems WHERE event_id = $1', [forged.id])).toEqual([
      { problem: expect.stringContaining(`dispute ${String(opened.dispute.id)}`) },
    ]);
  });
});
