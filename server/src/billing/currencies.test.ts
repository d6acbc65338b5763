// Money in other currencies is booked, kept and paid in its own currency (issue 23 item 5,
// decision 0035): a ₫100,000 plan books ₫100,000 (never US cents), refunds in dong, analytics never
// add it to dollars, the database refuses a ledger transaction that mixes currencies, and a creator
// with dollar and yen earnings gets one transfer per currency, in that currency. End to end through
// the official SDK against the Stripe fake, webhooks signed and delivered over HTTP.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config.ts';
import { callCompletions } from '../test-support/paid-call.ts';
import { createStripeTestContext, PAYOUT_TEST_ENV } from '../test-support/stripe-app.ts';
import { earningsReleased } from '../test-support/wait-for.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from './ledger.ts';
import { payoutMinimum } from './payouts/service.ts';

const FEE_BPS = 1000;
const ctx = await createStripeTestContext({ ...PAYOUT_TEST_ENV, PLATFORM_FEE_BPS: String(FEE_BPS), PAYOUT_HOLD_DAYS: '7' });
const { stripe, api, sql, newUser } = ctx;
afterAll(() => ctx.close());
beforeEach(() => {
  stripe.setBalance('usd', 10_000_000);
  stripe.setBalance('jpy', 10_000_000);
});

let counter = 0;
/** The balance of one account (a user's when userId is given, else the platform's), in its currency's minor unit. */
const balanceOf = async (kind: string, currency: string, userId: string | null = null) =>
  Number(
    (
      await sql<{ b: string }>('SELECT balance_cents AS b FROM ledger_accounts WHERE kind = $1 AND currency = $2 AND user_id IS NOT DISTINCT FROM $3', [
        kind,
        currency,
        userId,
      ])
    )[0]?.b ?? 0,
  );
/** Every US-dollar account's balance, by id: what a non-USD payment must leave alone. */
const usdBalances = async () => sql<{ id: string; balance_cents: string }>("SELECT id, balance_cents FROM ledger_accounts WHERE currency = 'usd' ORDER BY id");
const eachCurrencyBalanced = async () =>
  expect(
    await sql(
      'SELECT a.currency, sum(e.amount_cents) AS total FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id GROUP BY a.currency HAVING sum(e.amount_cents) <> 0',
    ),
  ).toEqual([]);

const liveApp = async (creator: { token: string }) => (await ctx.liveApp(creator.token, { name: `Currencies ${++counter}`, price_cents: 100 })).slug;
/** A caller subscribes to a plan and pays its first invoice (Stripe.js confirm in the browser, then invoice.paid). */
async function subscribe(slug: string, creator: { token: string }, plan: { price: number; currency: string }, payer?: { token: string; id: string }) {
  const created = await api('POST', `/api/app/${slug}/packages/`, creator.token, { name: `Plan ${++counter}`, included_calls: 5, ...plan });
  expect(created.statusCode, created.body).toBe(201);
  const caller = payer ?? (await newUser('caller'));
  const sub = await api('POST', `/api/app/${slug}/subscriptions/`, caller.token, { package_id: created.json().id });
  expect(sub.statusCode, sub.body).toBe(201);
  const intent = (sub.json().client_secret as string).split('_secret_')[0]!;
  stripe.confirmPaymentIntent(intent);
  await stripe.settled();
  return { caller, intent, subscriptionId: sub.json().id as string };
}

describe('a plan in another currency', () => {
  it('a ₫100,000 paid invoice books exactly 100,000 VND (less the fee) to VND accounts, US-dollar balances unchanged; analytics never add it to dollars; its refund is in dong too', async () => {
    const creator = await newUser('creator');
    const slug = await liveApp(creator);
    const payer = await newUser('payer');
    const usdBefore = await usdBalances();
    const { intent } = await subscribe(slug, creator, { price: 100_000, currency: 'VND' }, payer);

    // Stripe charged 100000 VND (a zero-decimal currency), and the ledger booked the same 100000 VND.
    const invoice = [...stripe.objects.values()].find((o) => o.object === 'invoice' && o.currency === 'vnd');
    expect(invoice).toMatchObject({ amount_paid: 100_000, currency: 'vnd', status: 'paid' });
    const fee = (100_000 * FEE_BPS) / 10_000;
    expect(await balanceOf('creator_earnings', 'vnd', creator.id)).toBe(100_000 - fee);
    expect(await balanceOf('platform_fees', 'vnd')).toBeGreaterThanOrEqual(fee);
    const movement = await sql<{ currency: string; amount_cents: string; kind: string }>(
      `SELECT a.currency, e.amount_cents, a.kind FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
       WHERE t.reference = $1 ORDER BY a.kind`,
      [`invoice:${String(invoice!.id)}`],
    );
    expect(movement.map((m) => [m.kind, m.currency, Number(m.amount_cents)])).toEqual([
      ['creator_earnings', 'vnd', 100_000 - fee],
      ['outside_funding', 'vnd', -100_000],
      ['platform_fees', 'vnd', fee],
    ]);
    expect(await usdBalances()).toEqual(usdBefore);

    // The creator's own views: the ledger entry says its currency; the payouts overview keeps dong apart.
    const entries = (await api('GET', '/api/billing/ledger/?limit=10', creator.token)).json().results as { currency: string; amount_cents: number }[];
    expect(entries).toContainEqual(expect.objectContaining({ currency: 'vnd', amount_cents: 100_000 - fee }));
    const balances = (await api('GET', '/api/billing/payouts/', creator.token)).json().balances as { currency: string; pending_cents: number }[];
    expect(balances.map((b) => b.currency)).toEqual(['usd', 'vnd']);
    expect(balances[0]).toMatchObject({ currency: 'usd', pending_cents: 0 });
    expect(balances[1]).toMatchObject({ currency: 'vnd', pending_cents: 100_000 - fee, minimum_cents: 250_000 });
    expect((await api('GET', '/api/billing/balance/', creator.token)).json().earnings_cents).toBe(0);

    // Analytics: US-dollar revenue untouched; the dong apart, per currency.
    const usage = await api('GET', `/api/app/${slug}/analytics/usage/?days=7`, creator.token);
    expect(usage.statusCode, usage.body).toBe(200);
    expect(usage.json()).toMatchObject({ total_revenue_cents: 0, total_revenue: 0, other_currency_revenue: [{ currency: 'vnd', amount_minor: 100_000 }] });
    expect(
      Number(
        (
          await sql<{ r: string }>('SELECT coalesce(sum(s.revenue_cents), 0) AS r FROM app_daily_stats s JOIN apps a ON a.id = s.app_id WHERE a.slug = $1', [
            slug,
          ])
        )[0]!.r,
      ),
    ).toBe(0);

    // The refund goes back out in dong, once however often it arrives; dollars still untouched.
    const fundingBefore = await balanceOf('outside_funding', 'vnd');
    const refunded = stripe.refund(intent);
    await stripe.settled();
    expect(await stripe.deliver({ ...refunded, id: `${String(refunded.id)}_again` })).toBe(200);
    const refunds = await sql<{ currency: string; amount_cents: string; kind: string }>(
      `SELECT a.currency, e.amount_cents, a.kind FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
       WHERE t.kind = 'subscription_refund' AND t.description LIKE $1 ORDER BY a.kind`,
      [`%${String(invoice!.id)}%`],
    );
    expect(refunds.map((m) => [m.kind, m.currency, Number(m.amount_cents)])).toEqual([
      ['outside_funding', 'vnd', 100_000],
      ['platform_fees', 'vnd', -100_000],
    ]);
    expect(await balanceOf('outside_funding', 'vnd')).toBe(fundingBefore + 100_000);
    expect(await balanceOf('creator_earnings', 'vnd', creator.id)).toBe(100_000 - fee);
    expect(await usdBalances()).toEqual(usdBefore);
    await eachCurrencyBalanced();
  });
});

describe('the ledger refuses to mix currencies', () => {
  it('one transaction with entries on a USD and a VND account is refused, in one statement or in several, in either order; one currency goes through', async () => {
    const user = await newUser('mixer');
    const { db } = ctx.database;
    const accounts = await db.transaction(async (tx) => ({
      usdFunding: await findSystemAccount(tx, 'outside_funding'),
      vndFunding: await findSystemAccount(tx, 'outside_funding', 'vnd'),
      usdEarnings: await findOrCreateUserAccount(tx, 'creator_earnings', user.id),
      vndEarnings: await findOrCreateUserAccount(tx, 'creator_earnings', user.id, 'vnd'),
    }));
    const before = await sql('SELECT id, balance_cents FROM ledger_accounts ORDER BY id');

    // Through the ledger's own function: the entries are written one statement each.
    await expect(
      db.transaction((tx) =>
        postLedgerTransaction(tx, {
          kind: 'test_mixed',
          reference: `mixed:${user.id}`,
          entries: [
            { accountId: accounts.usdFunding, amountCents: -500 },
            { accountId: accounts.vndEarnings, amountCents: 500 },
          ],
        }),
      ),
    ).rejects.toMatchObject({ code: '23503', message: expect.stringMatching(/ledger_entries_transaction_currency/) });
    await expect(
      db.transaction((tx) =>
        postLedgerTransaction(tx, {
          kind: 'test_mixed',
          reference: `mixed-2:${user.id}`,
          entries: [
            { accountId: accounts.vndFunding, amountCents: -500 },
            { accountId: accounts.usdEarnings, amountCents: 500 },
          ],
        }),
      ),
    ).rejects.toMatchObject({ code: '23503', message: expect.stringMatching(/ledger_entries_(transaction|account)_currency/) });
    // A writer that names the entry's currency but not its account's, or its account's but not its transaction's.
    /** A raw dong transaction moving 9 from the dong funding to the dollar earnings, the second entry named in `creditCurrency`. */
    const rawTransfer = (reference: string, creditCurrency: 'vnd' | 'usd') =>
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          "INSERT INTO ledger_transactions (kind, reference, currency) VALUES ('test_mixed', $1, 'vnd') RETURNING id",
          [reference],
        );
        await tx.query(
          `INSERT INTO ledger_entries (transaction_id, account_id, amount_cents, currency) VALUES ($1, $2, -9, 'vnd'), ($1, $3, 9, '${creditCurrency}')`,
          [rows[0]!.id, accounts.vndFunding, accounts.usdEarnings],
        );
      });
    await expect(rawTransfer(`raw:${user.id}`, 'vnd')).rejects.toMatchObject({
      code: '23503',
      message: expect.stringMatching(/ledger_entries_account_currency/),
    });
    await expect(rawTransfer(`raw-2:${user.id}`, 'usd')).rejects.toMatchObject({
      code: '23503',
      message: expect.stringMatching(/ledger_entries_transaction_currency/),
    });
    // In one statement, as the settlement writes a batch (currencies left to their 'usd' defaults): one good transaction and one mixed.
    await expect(
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          "INSERT INTO ledger_transactions (kind, reference) VALUES ('test_mixed', $1), ('test_mixed', $2) RETURNING id",
          [`batch-a:${user.id}`, `batch-b:${user.id}`],
        );
        await tx.query('INSERT INTO ledger_entries (transaction_id, account_id, amount_cents) VALUES ($1, $3, -7), ($1, $4, 7), ($2, $3, -7), ($2, $5, 7)', [
          rows[0]!.id,
          rows[1]!.id,
          accounts.usdFunding,
          accounts.usdEarnings,
          accounts.vndEarnings,
        ]);
      }),
    ).rejects.toMatchObject({ code: '23503', message: expect.stringMatching(/ledger_entries_(transaction|account)_currency/) });
    expect(await sql('SELECT id, balance_cents FROM ledger_accounts ORDER BY id')).toEqual(before);
    expect(await sql("SELECT 1 FROM ledger_transactions WHERE kind = 'test_mixed'")).toEqual([]);

    // One currency is fine.
    const posted = await db.transaction((tx) =>
      postLedgerTransaction(tx, {
        kind: 'test_one_currency',
        reference: `vnd-only:${user.id}`,
        entries: [
          { accountId: accounts.vndFunding, amountCents: -500 },
          { accountId: accounts.vndEarnings, amountCents: 500 },
        ],
      }),
    );
    expect(posted).toEqual(expect.any(String));
    expect(await balanceOf('creator_earnings', 'vnd', user.id)).toBe(500);
  });
});

describe('payouts per currency', () => {
  /** The creator's earnings of every currency were earned `days` ago (the hold is over). */
  const ageEarnings = (userId: string, days: number) =>
    sql(
      `UPDATE ledger_entries SET created_at = created_at - make_interval(days => $2)
       WHERE account_id IN (SELECT id FROM ledger_accounts WHERE kind = 'creator_earnings' AND user_id = $1)`,
      [userId, days],
    );
  async function connectAndOnboard(token: string) {
    const link = await api('POST', '/api/billing/payouts/connect/', token);
    expect(link.statusCode, link.body).toBe(200);
    expect((await fetch(link.json().url, { redirect: 'manual' })).status).toBe(302);
    await stripe.settled();
    return (await api('GET', '/api/billing/payouts/', token)).json().account.stripe_account_id as string;
  }

  it('a creator with USD and JPY earnings withdraws: one transfer per currency, each in its currency and idempotency key; a currency below its minimum stays', async () => {
    const creator = await newUser('creator');
    const slug = await liveApp(creator);
    const caller = await newUser('caller');
    await callCompletions(ctx.app, slug, caller.token, 30);
    await subscribe(slug, creator, { price: 2000, currency: 'JPY' });
    await subscribe(slug, creator, { price: 1000, currency: 'EUR' });
    await ageEarnings(creator.id, 8);
    await earningsReleased(sql, creator.id);
    const usd = await balanceOf('creator_earnings', 'usd', creator.id);
    const jpy = await balanceOf('creator_earnings', 'jpy', creator.id);
    const eur = await balanceOf('creator_earnings', 'eur', creator.id);
    expect(usd).toBeGreaterThanOrEqual(1000);
    expect(jpy).toBe(2000 - 200);
    expect(eur).toBe(100_000 - 10_000); // €1,000.00 is 100000 cents
    const account = await connectAndOnboard(creator.token);
    stripe.setBalance('eur', 0); // Stripe refuses the euro transfer: it comes back, the others go

    const withdrawn = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    const payouts = withdrawn.json().payouts as { id: string; currency: string; amount_cents: number; status: string }[];
    expect(withdrawn.json()).toMatchObject({ currency: 'usd', amount_cents: usd, status: 'paid' });
    expect(payouts.map((p) => [p.currency, p.amount_cents, p.status])).toEqual([
      ['usd', usd, 'paid'],
      ['eur', eur, 'failed'],
      ['jpy', jpy, 'paid'],
    ]);
    const transfers = [...stripe.objects.values()].filter((o) => o.object === 'transfer' && o.destination === account);
    expect(transfers.map((t) => [t.currency, t.amount]).sort()).toEqual([
      ['jpy', jpy],
      ['usd', usd],
    ]);
    const keys = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/transfers').map((r) => r.idempotencyKey);
    for (const payout of payouts) expect(keys).toContain(`payout:${payout.id}:${payout.currency}`);

    expect(await balanceOf('creator_earnings', 'usd', creator.id)).toBe(0);
    expect(await balanceOf('creator_earnings', 'jpy', creator.id)).toBe(0);
    expect(await balanceOf('creator_earnings', 'eur', creator.id)).toBe(eur);
    expect(await balanceOf('creator_payouts', 'jpy')).toBeGreaterThanOrEqual(jpy);
    const overview = (await api('GET', '/api/billing/payouts/', creator.token)).json();
    expect(
      overview.balances.map((b: { currency: string; paid_out_cents: number; available_cents: number }) => [b.currency, b.paid_out_cents, b.available_cents]),
    ).toEqual([
      ['usd', usd, 0],
      ['eur', 0, eur],
      ['jpy', jpy, 0],
    ]);

    // Below the minimum in every currency: nothing to send (¥ under ¥1,500 is not sent either).
    stripe.setBalance('eur', 10_000_000);
    await subscribe(slug, creator, { price: 1000, currency: 'JPY' });
    await ageEarnings(creator.id, 8);
    const again = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json().payouts as { currency: string }[]).map((p) => p.currency)).toEqual(['eur']);
    expect(await balanceOf('creator_earnings', 'jpy', creator.id)).toBe(900);
    const nothing = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().message).toMatch(/below the payout minimum.*0\.00 USD of 10\.00 USD.*900 JPY of 1500 JPY/);
    await eachCurrencyBalanced();
  });
});

describe('the payout minimum of each currency', () => {
  const env = {};
  it('PAYOUT_MINIMUM_CENTS for dollars; PAYOUT_MINIMUMS for others, else about ten dollars of the common zero-decimal ones, else 1000 minor units', () => {
    const config = loadConfig({ ...env, PAYOUT_MINIMUM_CENTS: '2500', PAYOUT_MINIMUMS: 'JPY=3000, eur:500' }).payouts;
    expect(payoutMinimum(config, 'usd')).toBe(2500);
    expect(payoutMinimum(config, 'jpy')).toBe(3000);
    expect(payoutMinimum(config, 'eur')).toBe(500);
    expect(payoutMinimum(config, 'vnd')).toBe(250_000);
    expect(payoutMinimum(config, 'gbp')).toBe(1000);
    const defaults = loadConfig(env).payouts;
    expect([payoutMinimum(defaults, 'usd'), payoutMinimum(defaults, 'jpy'), payoutMinimum(defaults, 'krw')]).toEqual([1000, 1500, 15_000]);
  });
  it('a malformed PAYOUT_MINIMUMS is refused at start, naming it', () => {
    for (const bad of ['jpy', 'jpy=abc', 'jpyy=100', 'jpy=0', 'jpy=-5'])
      expect(() => loadConfig({ ...env, PAYOUT_MINIMUMS: bad }), bad).toThrow(/PAYOUT_MINIMUMS must list currency=amount pairs/);
  });
});
