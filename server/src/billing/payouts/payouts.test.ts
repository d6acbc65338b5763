// Creators get paid (issue 23): Stripe Connect onboarding, earnings held then available, payouts as
// Stripe Transfers, and money taken back from refunded or disputed top-ups. End to end through the
// official SDK against the Stripe fake (STRIPE_API_BASE), webhooks signed and delivered over HTTP.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createStripeClient } from '../../providers/stripe/client.ts';
import { callCompletions, sendCompletion } from '../../test-support/paid-call.ts';
import { createStripeTestContext, PAYOUT_TEST_ENV } from '../../test-support/stripe-app.ts';
import { earningsReleased } from '../../test-support/wait-for.ts';
import { releaseCharge, reserveEarnings } from '../paid-call/holds.ts';
import { createPayoutsService } from './service.ts';

const PRICE = 100;
const HOLD_DAYS = 7;
const ctx = await createStripeTestContext({
  ...PAYOUT_TEST_ENV,
  PAYOUT_HOLD_DAYS: String(HOLD_DAYS),
  CLAIM_LIFETIME_SECONDS: '3',
  STRIPE_CONNECT_WEBHOOK_SECRET: 'whsec_connect_endpoint',
});
const { stripe, webhookUrl, api, sql, newUser } = ctx;
const sdk = createStripeClient(ctx.config.stripe)!;
afterAll(() => ctx.close());
beforeEach(() => {
  stripe.setWebhookUrl(webhookUrl);
  stripe.setBalance('usd', 10_000_000);
  Object.assign(stripe.transferFaults, { refuseNext: 0, stall: false, failAfterCreateNext: 0 });
});

let counter = 0;
const overview = async (token: string) => {
  const response = await api('GET', '/api/billing/payouts/', token);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};
const earnings = async (userId: string) =>
  Number(
    (
      await sql<{ b: string }>("SELECT balance_cents AS b FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1 AND currency = 'usd'", [userId])
    )[0]?.b ?? 0,
  );
const ledgerBalanced = async () => expect(Number((await sql<{ t: string }>('SELECT coalesce(sum(amount_cents), 0) AS t FROM ledger_entries'))[0]!.t)).toBe(0);
const transfersTo = (account: string) => [...stripe.objects.values()].filter((o) => o.object === 'transfer' && o.destination === account);

/** A creator with a live app and `calls` paid calls made to it; returns the creator and the app. */
async function creatorWithEarnings(calls: number) {
  const creator = await newUser('creator');
  const { slug } = await ctx.liveApp(creator.token, { name: `Paid ${++counter}`, price_cents: PRICE });
  const caller = await newUser('caller');
  await callCompletions(ctx.app, slug, caller.token, calls);
  await earningsReleased(sql, creator.id);
  return { creator, slug, caller };
}

/** Time passes for what the creator has earned so far: it was earned `days` ago. */
const ageEarnings = (userId: string, days: number) =>
  sql(
    `UPDATE ledger_entries SET created_at = created_at - make_interval(days => $2) WHERE account_id = (SELECT id FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1 AND currency = 'usd')`,
    [userId, days],
  );

/** Connects a Stripe account and finishes Stripe's hosted onboarding (the link's page), as a browser would. */
async function connectAndOnboard(token: string) {
  const link = await api('POST', '/api/billing/payouts/connect/', token);
  expect(link.statusCode, link.body).toBe(200);
  const page = await fetch(link.json().url, { redirect: 'manual' });
  expect(page.status).toBe(302);
  await stripe.settled();
  return { returnUrl: page.headers.get('location')!, account: (await overview(token)).account.stripe_account_id as string };
}

/** A creator whose earnings of `calls` calls are past the hold, with an onboarded Stripe account: the creator, the account and the earnings. */
async function readyToWithdraw(calls: number) {
  const { creator } = await creatorWithEarnings(calls);
  await ageEarnings(creator.id, HOLD_DAYS + 1);
  const { account } = await connectAndOnboard(creator.token);
  return { creator, account, earned: await earnings(creator.id) };
}

describe('the Stripe fake speaks Connect', () => {
  it('makes accounts and account links, transfers once per Idempotency-Key, refuses what Stripe refuses, reverses, and reports the balance', async () => {
    const account = await sdk.accounts.create({ controller: { stripe_dashboard: { type: 'express' } }, capabilities: { transfers: { requested: true } } });
    expect(account).toMatchObject({ object: 'account', details_submitted: false, payouts_enabled: false });
    expect(account.requirements?.currently_due).toContain('external_account');
    const link = await sdk.accountLinks.create({ account: account.id, refresh_url: 'http://x/r', return_url: 'http://x/ok', type: 'account_onboarding' });
    expect(link).toMatchObject({ object: 'account_link', url: expect.stringContaining(account.id), expires_at: expect.any(Number) });
    // Not onboarded: no transfers capability.
    await expect(sdk.transfers.create({ amount: 500, currency: 'usd', destination: account.id })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'insufficient_capabilities_for_transfer',
    });
    stripe.completeOnboarding(account.id);
    expect((await sdk.accounts.retrieve(account.id)).payouts_enabled).toBe(true);
    stripe.setBalance('usd', 1000);
    const first = await sdk.transfers.create({ amount: 600, currency: 'usd', destination: account.id, transfer_group: 'g1' }, { idempotencyKey: 'tk1' });
    const again = await sdk.transfers.create({ amount: 600, currency: 'usd', destination: account.id, transfer_group: 'g1' }, { idempotencyKey: 'tk1' });
    expect(again.id).toBe(first.id);
    await expect(sdk.transfers.create({ amount: 700, currency: 'usd', destination: account.id }, { idempotencyKey: 'tk1' })).rejects.toMatchObject({
      type: 'StripeIdempotencyError',
    });
    await expect(sdk.transfers.create({ amount: 500, currency: 'usd', destination: account.id })).rejects.toMatchObject({ code: 'balance_insufficient' });
    expect((await sdk.balance.retrieve()).available).toEqual([expect.objectContaining({ currency: 'usd', amount: 400 })]);
    expect((await sdk.transfers.list({ transfer_group: 'g1' })).data.map((t) => t.id)).toEqual([first.id]);
    const reversal = await sdk.transfers.createReversal(first.id, { amount: 100 });
    expect(reversal).toMatchObject({ object: 'transfer_reversal', amount: 100 });
    expect(await sdk.transfers.retrieve(first.id)).toMatchObject({ amount_reversed: 100, reversed: false });
    // Connected-account events carry the account on top.
    const updated = stripe.updateAccount(account.id, { payouts_enabled: false });
    expect(updated).toMatchObject({ type: 'account.updated', account: account.id });
    await stripe.settled();
  });
});

describe('onboarding', () => {
  it('connects a Stripe account through an Account Link and shows its state from Stripe, kept current by account.updated', async () => {
    const creator = await newUser('onboarding');
    expect((await overview(creator.token)).account).toBeNull();
    const link = await api('POST', '/api/billing/payouts/connect/', creator.token);
    expect(link.statusCode, link.body).toBe(200);
    const sent = stripe.accountLinks.at(-1)!;
    expect(sent).toMatchObject({
      type: 'account_onboarding',
      return_url: expect.stringMatching(/\/money\?connect=return$/),
      refresh_url: expect.stringMatching(/\/money\?connect=refresh$/),
    });
    const before = (await overview(creator.token)).account;
    expect(before).toMatchObject({ details_submitted: false, payouts_enabled: false, transfers_active: false, schedule: 'weekly' });
    expect(before.requirements_due).toContain('external_account');
    // A second click makes a new link for the same account.
    await api('POST', '/api/billing/payouts/connect/', creator.token);
    expect(stripe.accountLinks.at(-1)!.account).toBe(before.stripe_account_id);

    const page = await fetch(link.json().url, { redirect: 'manual' });
    expect(page.headers.get('location')).toMatch(/connect=return/);
    await stripe.settled();
    const after = (await overview(creator.token)).account;
    expect(after).toMatchObject({ details_submitted: true, payouts_enabled: true, transfers_active: true, requirements_due: [] });

    // Stripe asks for more later: the page says what, from the webhook.
    const asked = stripe.updateAccount(after.stripe_account_id, {
      payouts_enabled: false,
      requirements: { currently_due: ['individual.verification.document'], disabled_reason: 'requirements.past_due' },
    });
    await stripe.settled();
    expect((await overview(creator.token)).account).toMatchObject({ payouts_enabled: false, requirements_due: ['individual.verification.document'] });
    // Out of order: an older account.updated arriving late changes nothing; a duplicate is acknowledged.
    const older = {
      ...asked,
      id: 'evt_older',
      created: Number(asked.created) - 60,
      data: { object: { ...stripe.read(after.stripe_account_id), payouts_enabled: true, requirements: { currently_due: [] } } },
    };
    expect(await stripe.deliver(older as never)).toBe(200);
    expect(await stripe.deliver(asked)).toBe(200);
    expect((await overview(creator.token)).account).toMatchObject({ payouts_enabled: false, requirements_due: ['individual.verification.document'] });
    // The return URL does not mean finished: refresh reads the account from Stripe.
    stripe.objects.get(after.stripe_account_id)!.requirements = { currently_due: [], disabled_reason: null };
    stripe.objects.get(after.stripe_account_id)!.payouts_enabled = true;
    const refreshed = await api('POST', '/api/billing/payouts/refresh/', creator.token);
    expect(refreshed.json().account).toMatchObject({ payouts_enabled: true, requirements_due: [] });
  });

  it('takes connected-account events signed with the Connect endpoint’s own secret, and no other secret', async () => {
    const creator = await newUser('connect-secret');
    await api('POST', '/api/billing/payouts/connect/', creator.token);
    const accountId = (await overview(creator.token)).account.stripe_account_id as string;
    const deliver = (secret: string, id: string) => {
      const payload = JSON.stringify({
        id,
        object: 'event',
        account: accountId,
        type: 'account.updated',
        created: Math.floor(Date.now() / 1000) + 5,
        data: { object: { ...stripe.read(accountId), details_submitted: true, requirements: { currently_due: ['external_account'] } } },
      });
      return fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(payload, undefined, secret) },
        body: payload,
      });
    };
    expect((await deliver('whsec_someone_else', 'evt_forged')).status).toBe(400);
    expect((await overview(creator.token)).account.details_submitted).toBe(false);
    expect((await deliver('whsec_connect_endpoint', 'evt_connect_signed')).status).toBe(200);
    expect((await overview(creator.token)).account).toMatchObject({ details_submitted: true, requirements_due: ['external_account'] });
  });

  it('acknowledges events of unknown accounts and changes nothing', async () => {
    const stranger = await sdk.accounts.create({});
    const event = stripe.updateAccount(stranger.id, { details_submitted: true });
    await stripe.settled();
    expect(stripe.deliveryResults.find((r) => r.eventId === event.id)?.status).toBe(200);
    expect(await sql('SELECT 1 FROM connect_accounts WHERE stripe_account_id = $1', [stranger.id])).toEqual([]);
  });
});

describe('payouts', () => {
  it('pays a creator with $25.00 available one transfer of $25.00, keeps what is still held, and every figure matches the ledger', async () => {
    const { creator, slug, caller } = await creatorWithEarnings(25);
    const earned = await earnings(creator.id);
    expect(earned).toBeGreaterThan(0);
    await ageEarnings(creator.id, HOLD_DAYS + 1);
    await callCompletions(ctx.app, slug, caller.token, 5); // earned today: pending
    const held = (await earnings(creator.id)) - earned;
    const { account } = await connectAndOnboard(creator.token);

    const before = (await overview(creator.token)).balances[0];
    expect(before).toEqual({ currency: 'usd', available_cents: earned, pending_cents: held, in_transit_cents: 0, paid_out_cents: 0, minimum_cents: 1000 });

    const withdrawn = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(withdrawn.json()).toMatchObject({
      status: 'paid',
      amount_cents: earned,
      currency: 'usd',
      origin: 'withdraw',
      stripe_transfer_id: expect.stringMatching(/^tr_/),
    });
    const transfers = transfersTo(account);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({ amount: earned, currency: 'usd', transfer_group: `payout_${withdrawn.json().id}` });
    const payoutRequest = stripe.requests.find((r) => r.path === '/v1/transfers' && r.method === 'POST' && r.body.destination === account)!;
    expect(payoutRequest.idempotencyKey).toBe(`payout:${withdrawn.json().id}:usd`);

    const after = (await overview(creator.token)).balances[0];
    expect(after).toEqual({ currency: 'usd', available_cents: 0, pending_cents: held, in_transit_cents: 0, paid_out_cents: earned, minimum_cents: 1000 });
    expect(await earnings(creator.id)).toBe(held);
    const movements = await sql<{ kind: string; description: string }>(
      'SELECT kind, description FROM ledger_transactions WHERE reference IN ($1, $2) ORDER BY kind',
      [`payout:${withdrawn.json().id}`, `payout-sent:${withdrawn.json().id}`],
    );
    expect(movements.map((m) => m.kind)).toEqual(['payout', 'payout_sent']);
    expect(movements[1]!.description).toContain(transfers[0]!.id);

    // Nothing left above the minimum: a second click sends nothing.
    const second = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toMatch(/below the payout minimum/);
    expect(transfersTo(account)).toHaveLength(1);
    await ledgerBalanced();
  });

  it('puts a refused transfer back into earnings and says why', async () => {
    const { creator, account, earned } = await readyToWithdraw(15);
    stripe.transferFaults.refuseNext = 1;
    const refused = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(refused.json()).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('capabilities') });
    expect(transfersTo(account)).toHaveLength(0);
    expect((await overview(creator.token)).balances[0]).toMatchObject({ available_cents: earned, in_transit_cents: 0, paid_out_cents: 0 });
    // Stripe takes it the next time.
    const paid = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(paid.json()).toMatchObject({ status: 'paid', amount_cents: earned });
    expect(transfersTo(account)).toHaveLength(1);
    await ledgerBalanced();
  });

  it('a transfer Stripe made but whose answer was lost stays in transit, and is confirmed once by transfer.created or by the retry', async () => {
    // Without webhooks: the sweeper asks Stripe for the payout's transfer group and finds the one transfer.
    const { creator, account, earned } = await readyToWithdraw(12);
    stripe.setWebhookUrl(null);
    stripe.transferFaults.failAfterCreateNext = 1;
    const lost = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(lost.statusCode).toBe(502);
    const pending = (await overview(creator.token)) as {
      balances: { in_transit_cents: number; available_cents: number }[];
      payouts: { id: string; status: string; failure_reason: string }[];
    };
    expect(pending.balances[0]).toMatchObject({ in_transit_cents: earned, available_cents: 0 });
    expect(pending.payouts[0]).toMatchObject({ status: 'sending', failure_reason: expect.stringContaining('asked again') });
    expect(transfersTo(account)).toHaveLength(1);
    // A double click meanwhile: the same payout, asked again with its key; still one transfer.
    const again = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(again.json()).toMatchObject({ id: pending.payouts[0]!.id, status: 'paid' });
    expect(transfersTo(account)).toHaveLength(1);
    expect((await overview(creator.token)).balances[0]).toMatchObject({ in_transit_cents: 0, paid_out_cents: earned });

    // With webhooks: transfer.created confirms it before anyone retries.
    stripe.setWebhookUrl(webhookUrl);
    const other = await creatorWithEarnings(12);
    await ageEarnings(other.creator.id, HOLD_DAYS + 1);
    const connected = await connectAndOnboard(other.creator.token);
    stripe.transferFaults.failAfterCreateNext = 1;
    expect((await api('POST', '/api/billing/payouts/withdraw/', other.creator.token)).statusCode).toBe(502);
    await stripe.settled();
    expect((await overview(other.creator.token)).payouts[0]).toMatchObject({ status: 'paid', stripe_transfer_id: transfersTo(connected.account)[0]!.id });
    await ledgerBalanced();
  });

  it('the scheduler retries an unanswered payout once its process is presumed gone, and pays due creators weekly', async () => {
    const payouts = createPayoutsService({ db: ctx.database.db, config: ctx.config, stripe: sdk });
    const { creator, account } = await readyToWithdraw(11);
    stripe.setWebhookUrl(null);
    stripe.transferFaults.failAfterCreateNext = 1;
    expect((await api('POST', '/api/billing/payouts/withdraw/', creator.token)).statusCode).toBe(502);
    await payouts.sweep(); // too early: the sending process may still be waiting for its answer
    expect((await overview(creator.token)).payouts[0].status).toBe('sending');
    await sql("UPDATE payouts SET updated_at = now() - interval '1 minute' WHERE user_id = $1", [creator.id]);
    await payouts.sweep();
    expect((await overview(creator.token)).payouts[0].status).toBe('paid');
    expect(transfersTo(account)).toHaveLength(1);

    // A weekly creator with nothing paid in 7 days gets their available earnings; a manual one does not.
    stripe.setWebhookUrl(webhookUrl);
    // 11 calls: above the $10.00 minimum once the model cost of the answers is taken off the earnings.
    const weekly = await creatorWithEarnings(11);
    const manual = await creatorWithEarnings(11);
    await ageEarnings(weekly.creator.id, HOLD_DAYS + 1);
    await ageEarnings(manual.creator.id, HOLD_DAYS + 1);
    const weeklyAccount = (await connectAndOnboard(weekly.creator.token)).account;
    const manualAccount = (await connectAndOnboard(manual.creator.token)).account;
    const set = await api('PATCH', '/api/billing/payouts/settings/', manual.creator.token, { schedule: 'manual' });
    expect(set.json().account.schedule).toBe('manual');
    expect((await api('PATCH', '/api/billing/payouts/settings/', manual.creator.token, { schedule: 'hourly' })).statusCode).toBe(400);
    await payouts.sweep();
    expect(transfersTo(weeklyAccount)).toHaveLength(1);
    expect((await overview(weekly.creator.token)).payouts[0]).toMatchObject({ origin: 'schedule', status: 'paid' });
    expect(transfersTo(manualAccount)).toHaveLength(0);
    await payouts.sweep(); // paid this week: nothing more
    expect(transfersTo(weeklyAccount)).toHaveLength(1);
    await ledgerBalanced();
  });

  it('transfer.reversed puts the money back once, and payout.failed of the account is shown with its reason', async () => {
    const { creator, account, earned } = await readyToWithdraw(20);
    const paid = (await api('POST', '/api/billing/payouts/withdraw/', creator.token)).json();
    stripe.reverseTransfer(paid.stripe_transfer_id, 500);
    await stripe.settled();
    let state = await overview(creator.token);
    expect(state.balances[0]).toMatchObject({ available_cents: 500, paid_out_cents: earned - 500 });
    expect(state.payouts[0]).toMatchObject({ status: 'paid', amount_reversed_cents: 500, failure_reason: expect.stringContaining('Reversed') });
    const full = stripe.reverseTransfer(paid.stripe_transfer_id);
    await stripe.settled();
    // Redelivered reversal events move nothing more.
    for (const event of stripe.events.filter(
      (e) => e.type === 'transfer.reversed' && (e.data as { object: { id: string } }).object.id === paid.stripe_transfer_id,
    ))
      await stripe.deliver(event);
    state = await overview(creator.token);
    expect(full.amount).toBe(earned - 500);
    expect(state.balances[0]).toMatchObject({ available_cents: earned, paid_out_cents: 0 });
    expect(state.payouts[0]).toMatchObject({ status: 'reversed', amount_reversed_cents: earned });

    stripe.failPayout(account, 1234, 'usd', 'account_closed');
    await stripe.settled();
    expect((await overview(creator.token)).account).toMatchObject({ last_bank_payout_failure: 'The bank account has been closed.' });
    // The creator's systems are told once, however often Stripe delivers the event (issue 62).
    for (const event of stripe.events.filter((e) => e.type === 'payout.failed')) await stripe.deliver(event);
    const told = await ctx.database.db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM webhook_events WHERE user_id = $1 AND type = 'payout.failed'",
      [creator.id],
    );
    expect(told.rows.map((row) => row.data)).toEqual([
      expect.objectContaining({ bank: true, stripe_account_id: account, amount_minor: 1234, currency: 'usd', reason: 'The bank account has been closed.' }),
    ]);
    await ledgerBalanced();
  });

  it('refuses to pay out before onboarding, below the minimum, and after a disconnect; a payout sending at the disconnect still ends once', async () => {
    const { creator } = await creatorWithEarnings(12);
    expect((await api('POST', '/api/billing/payouts/withdraw/', creator.token)).json()).toMatchObject({
      status: 409,
      message: 'Connect a Stripe account first',
    });
    await api('POST', '/api/billing/payouts/connect/', creator.token);
    expect((await api('POST', '/api/billing/payouts/withdraw/', creator.token)).json().message).toMatch(/cannot receive transfers yet/);
    const { account } = await connectAndOnboard(creator.token);
    expect((await api('POST', '/api/billing/payouts/withdraw/', creator.token)).json().message).toMatch(/below the payout minimum/); // all still held
    await ageEarnings(creator.id, HOLD_DAYS + 1);
    stripe.setWebhookUrl(null);
    stripe.transferFaults.failAfterCreateNext = 1;
    expect((await api('POST', '/api/billing/payouts/withdraw/', creator.token)).statusCode).toBe(502);
    const disconnected = await api('DELETE', '/api/billing/payouts/connect/', creator.token);
    expect(disconnected.json().account).toBeNull();
    expect((await api('POST', '/api/billing/payouts/withdraw/', creator.token)).json().message).toBe('Connect a Stripe account first');
    await sql("UPDATE payouts SET updated_at = now() - interval '1 minute' WHERE user_id = $1", [creator.id]);
    await createPayoutsService({ db: ctx.database.db, config: ctx.config, stripe: sdk }).sweep();
    expect((await overview(creator.token)).payouts[0]).toMatchObject({ status: 'paid' });
    expect(transfersTo(account)).toHaveLength(1);
    await ledgerBalanced();
  });

  it('never pays out earnings held for the model cost of calls in flight, even while reservations race the payout (decision 0037)', async () => {
    const { creator } = await creatorWithEarnings(30);
    const earned = await earnings(creator.id);
    await ageEarnings(creator.id, HOLD_DAYS + 1);
    await connectAndOnboard(creator.token);
    // A model-cost reservation holds 300 cents of them: they are not available.
    const hold = await reserveEarnings(ctx.database.db, { userId: creator.id, amountCents: 300 });
    expect((await overview(creator.token)).balances[0]).toMatchObject({ available_cents: earned - 300, pending_cents: 300 });
    // Reservations of 10 cents race a withdrawal: whichever order they take, what is paid out plus what is held never exceeds the earnings.
    const races = Array.from({ length: 30 }, () =>
      reserveEarnings(ctx.database.db, { userId: creator.id, amountCents: 10 }).then(
        () => 10,
        () => 0,
      ),
    );
    const withdrawn = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    const reserved = (await Promise.all(races)).reduce((sum, cents) => sum + cents, 0);
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    const paid = withdrawn.json().amount_cents as number;
    const [account] = await sql<{ balance: number; held: number }>(
      "SELECT balance_cents AS balance, held_cents AS held FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1",
      [creator.id],
    );
    expect(account!.held).toBe(300 + reserved);
    expect(paid + account!.held).toBeLessThanOrEqual(earned);
    expect(account!.balance).toBe(earned - paid);
    expect(account!.balance).toBeGreaterThanOrEqual(account!.held);
    // The hold given back is available to the next payout.
    await releaseCharge(ctx.database.db, hold);
    expect((await overview(creator.token)).balances[0].available_cents).toBe(earned - paid - reserved);
    await ledgerBalanced();
  });
});

describe('refunds and disputes of top-ups', () => {
  const credits = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json().credits_cents as number;
  /** A caller who spent all but `left` of their sign-up credits on a creator's app, then topped up `amount` by card. */
  async function toppedUpCaller(amount: number) {
    const { slug, caller } = await creatorWithEarnings(0);
    const topUp = (await api('POST', '/api/billing/top-ups/', caller.token, { amount_cents: amount })).json();
    stripe.confirmPaymentIntent(topUp.payment_intent_id);
    await stripe.settled();
    return { slug, caller, intent: topUp.payment_intent_id as string };
  }
  const takenBack = (intent: string) =>
    sql<{ kind: string; amount: string }>(
      `SELECT t.kind, e.amount_cents AS amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
       JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'user_credits'
       WHERE t.kind LIKE 'top_up_%' AND a.user_id = (SELECT user_id FROM credit_top_ups WHERE stripe_payment_intent_id = $1) ORDER BY t.created_at`,
      [intent],
    );

  it("a refunded top-up's credits are gone once, however many times the event arrives; a partial refund takes only its growth", async () => {
    const { caller, intent } = await toppedUpCaller(2000);
    const start = await credits(caller.token);
    const partial = stripe.refund(intent, 500);
    await stripe.settled();
    expect(await credits(caller.token)).toBe(start - 500);
    const full = stripe.refund(intent);
    await stripe.settled();
    expect(await credits(caller.token)).toBe(start - 2000);
    // Redelivered (same event ids), and the older partial event arriving again late: nothing more.
    for (const event of [partial, full, partial, full]) expect(await stripe.deliver(event)).toBe(200);
    // The same refund under a new event id (Stripe resends state, not increments): nothing more.
    expect(await stripe.deliver({ ...full, id: 'evt_resent_refund' })).toBe(200);
    expect(await credits(caller.token)).toBe(start - 2000);
    expect((await takenBack(intent)).map((r) => Number(r.amount))).toEqual([-500, -1500]);
    await ledgerBalanced();
  });

  it('a refund of credits already spent leaves the balance below zero, and paid calls are refused with 402 until the caller adds credit', async () => {
    const { caller, intent } = await toppedUpCaller(100_000);
    // An expensive app: four calls spend the sign-up credits and most of the top-up.
    const owner = await newUser('pricey');
    const created = await api('POST', '/api/app/', owner.token, { name: `Pricey ${++counter}`, type: 'prompt', visibility: 'public', price_cents: 40_000 });
    const slug = created.json().slug as string;
    await api('PATCH', `/api/app/${slug}/update_status/`, owner.token, { status: 'live' });
    await callCompletions(ctx.app, slug, caller.token, 4);
    const before = await credits(caller.token);
    expect(before).toBe(200_000 - 160_000);
    stripe.refund(intent);
    await stripe.settled();
    const after = await credits(caller.token);
    expect(after).toBe(before - 100_000);
    const call = () => sendCompletion(ctx.app, slug, caller.token);
    expect((await call()).statusCode).toBe(402);
    // Adding credit pays the debt first: still refused until the balance covers a call.
    const topUp = (await api('POST', '/api/billing/top-ups/', caller.token, { amount_cents: 100_000 })).json();
    stripe.confirmPaymentIntent(topUp.payment_intent_id);
    await stripe.settled();
    expect(await credits(caller.token)).toBe(after + 100_000);
    expect((await call()).statusCode).toBe(200);
    await ledgerBalanced();
  });

  it('a dispute takes the credits back when opened and gives them back when won, each once; a lost one keeps them taken', async () => {
    const won = await toppedUpCaller(3000);
    const start = await credits(won.caller.token);
    const opened = stripe.dispute(won.intent);
    await stripe.settled();
    expect(await credits(won.caller.token)).toBe(start - 3000);
    expect(await stripe.deliver(opened.event)).toBe(200);
    const closed = stripe.closeDispute(opened.dispute.id as string, 'won');
    await stripe.settled();
    expect(await stripe.deliver({ ...closed, id: 'evt_dup_close' })).toBe(200);
    expect(await credits(won.caller.token)).toBe(start);

    const lost = await toppedUpCaller(3000);
    const lostStart = await credits(lost.caller.token);
    const lostDispute = stripe.dispute(lost.intent);
    // Out of order: closed (lost) arrives before created.
    stripe.setWebhookUrl(null);
    const closedFirst = stripe.closeDispute(lostDispute.dispute.id as string, 'lost');
    stripe.setWebhookUrl(webhookUrl);
    expect(await stripe.deliver(closedFirst)).toBe(200);
    await stripe.settled();
    expect(await credits(lost.caller.token)).toBe(lostStart - 3000);
    expect((await takenBack(lost.intent)).map((r) => r.kind)).toEqual(['top_up_dispute']);
    await ledgerBalanced();
  });

  it('a partial refund whose event arrives after the dispute is taken back once in all with it', async () => {
    const { caller, intent } = await toppedUpCaller(3000);
    const start = await credits(caller.token);
    // At Stripe the refund comes first; its event is delivered after the dispute's.
    stripe.setWebhookUrl(null);
    const refunded = stripe.refund(intent, 500);
    const opened = stripe.dispute(intent);
    stripe.setWebhookUrl(webhookUrl);
    expect(await stripe.deliver(opened.event)).toBe(200);
    expect(await credits(caller.token)).toBe(start - 2500);
    expect(await stripe.deliver(refunded)).toBe(200);
    expect(await stripe.deliver(opened.event)).toBe(200);
    expect(await credits(caller.token)).toBe(start - 3000);
    expect((await takenBack(intent)).map((r) => [r.kind, Number(r.amount)])).toEqual([
      ['top_up_dispute', -2500],
      ['top_up_refund', -500],
    ]);
    await ledgerBalanced();
  });

  it("a refunded subscription payment ends that period's included calls, once; the creator keeps the earnings it booked", async () => {
    const { creator, slug, caller } = await creatorWithEarnings(0);
    const plan = await api('POST', `/api/app/${slug}/packages/`, creator.token, { name: 'Pro', price: 9, included_calls: 5 });
    expect(plan.statusCode, plan.body).toBe(201);
    const created = await api('POST', `/api/app/${slug}/subscriptions/`, caller.token, { package_id: plan.json().id });
    expect(created.statusCode, created.body).toBe(201);
    const intent = (created.json().client_secret as string).split('_secret_')[0]!;
    stripe.confirmPaymentIntent(intent);
    await stripe.settled();
    await callCompletions(ctx.app, slug, caller.token, 2);
    const sub = async () =>
      (await sql<{ status: string; included_used: number; included_calls: number }>('SELECT * FROM subscriptions WHERE id = $1', [created.json().id]))[0]!;
    expect(await sub()).toMatchObject({ status: 'active', included_used: 2, included_calls: 5 });
    const earned = await earnings(creator.id);
    const refunded = stripe.refund(intent);
    await stripe.settled();
    expect(await sub()).toMatchObject({ included_used: 5 });
    expect(await stripe.deliver({ ...refunded, id: 'evt_sub_refund_again' })).toBe(200);
    const movements = await sql<{ reference: string }>(
      "SELECT reference FROM ledger_transactions WHERE kind = 'subscription_refund' AND description LIKE '%invoice%' AND reference LIKE $1",
      [`refund:${String((refunded.data as { object: { id: string } }).object.id)}:%`],
    );
    expect(movements).toHaveLength(1);
    expect(await earnings(creator.id)).toBe(earned);
    // The next call is no longer included: it is paid from credits.
    const before = (await api('GET', '/api/billing/balance/', caller.token)).json().credits_cents as number;
    await callCompletions(ctx.app, slug, caller.token, 1);
    expect((await api('GET', '/api/billing/balance/', caller.token)).json().credits_cents).toBe(before - PRICE);
    await ledgerBalanced();
  });
});
