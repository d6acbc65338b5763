// Monthly statements (issue 23 item 6, decision 0036): a caller's and a creator's month, every figure
// equal to the ledger summed here independently, the CSV the same figures, nobody else's money in
// it, and a bad month refused with 400. End to end: top-ups, refunds and subscriptions through the
// official SDK against the Stripe fake with signed webhooks, calls through the gateway, a payout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStripeClient } from '../../providers/stripe/client.ts';
import { callCompletion } from '../../test-support/paid-call.ts';
import { createStripeTestContext } from '../../test-support/stripe-app.ts';
import { earningsReleased } from '../../test-support/wait-for.ts';
import { findOrCreateUserAccount, findSystemAccount, postLedgerTransaction } from '../ledger.ts';
import { STATEMENT_CSV_COLUMNS } from './csv.ts';

const ctx = await createStripeTestContext({
  SIGNUP_CREDITS_CENTS: '1000',
  // Calls are answered before their commit and gathered for up to 60 ms, so calls made together share a batch.
  SETTLEMENT_GATHER_MS: '60',
  PLATFORM_FEE_BPS: '1000',
  PAYOUT_HOLD_DAYS: '0',
  PAYOUT_MINIMUM_CENTS: '100',
  PAYOUT_SWEEP_SECONDS: '0',
});
const { stripe, api, sql, newUser } = ctx;
stripe.setBalance('usd', 10_000_000);
afterAll(() => ctx.close());

let counter = 0;
async function liveApp(token: string, name: string, price: number) {
  const { slug } = await ctx.liveApp(token, { name: `${name} ${++counter}`, price_cents: price });
  return slug;
}
/** Calls one after the other, or all at once (`together`): calls settled in one batch share a ledger transaction (decision 0062). */
async function callMany(slug: string, token: string, calls: number, { together = false } = {}) {
  if (together) await Promise.all(Array.from({ length: calls }, () => callCompletion(ctx.app, slug, token)));
  else for (let i = 0; i < calls; i++) await callCompletion(ctx.app, slug, token);
}
async function topUp(token: string, amount: number) {
  const created = (await api('POST', '/api/billing/top-ups/', token, { amount_cents: amount })).json();
  stripe.confirmPaymentIntent(created.payment_intent_id);
  await stripe.settled();
  return created.payment_intent_id as string;
}

/** RFC 4180 parser (quoted fields, doubled quotes, CRLF), for reading the CSV back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  expect(field).toBe('');
  return rows;
}

const now = new Date();
const thisMonth = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
const lastMonthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const lastMonth = lastMonthStart.toISOString().slice(0, 7);

/** Sum of a user's account entries (kind, currency usd) in [from, to), optionally of some transaction kinds only. */
async function ledgerSum(userId: string, accountKind: string, from: Date | null, to: Date, txKinds?: string[]) {
  const rows = await sql<{ s: string }>(
    `SELECT coalesce(sum(e.amount_cents), 0) AS s FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
     JOIN ledger_transactions t ON t.id = e.transaction_id
     WHERE a.kind = $1 AND a.user_id = $2 AND ($3::timestamptz IS NULL OR e.created_at >= $3) AND e.created_at < $4 AND ($5::text[] IS NULL OR t.kind = ANY($5))`,
    [accountKind, userId, from, to, txKinds ?? null],
  );
  return Number(rows[0]!.s);
}
/** Sums of one account kind's entries over the call transactions of an app (by invocation), this month. */
async function callSums(slug: string, accountKind: string, userFilter: 'any' | { not: string } | { is: string } = 'any') {
  const rows = await sql<{ s: string; n: string }>(
    `SELECT coalesce(sum(e.amount_cents), 0) AS s, count(DISTINCT t.id) AS n
     FROM (SELECT DISTINCT i.ledger_transaction_id FROM invocations i JOIN apps ap ON ap.id = i.app_id AND ap.slug = $1) i
     JOIN ledger_transactions t ON t.id = i.ledger_transaction_id
     JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = $2
     WHERE e.created_at >= $3 AND ($4::uuid IS NULL OR a.user_id <> $4) AND ($5::uuid IS NULL OR a.user_id = $5)`,
    [
      slug,
      accountKind,
      monthStart,
      typeof userFilter === 'object' && 'not' in userFilter ? userFilter.not : null,
      typeof userFilter === 'object' && 'is' in userFilter ? userFilter.is : null,
    ],
  );
  return { sum: Number(rows[0]!.s), txs: Number(rows[0]!.n) };
}

describe('monthly statements', () => {
  let creator: { token: string; id: string };
  let caller: { token: string; id: string };
  let other: { token: string; id: string };
  let appA: string;
  let appB: string;
  let topUpIntent: string;
  let otherIntent: string;
  let subscriptionIntent: string;

  beforeAll(async () => {
    creator = await newUser('stmt-creator');
    caller = await newUser('stmt-caller');
    other = await newUser('stmt-other');
    appA = await liveApp(creator.token, '=Alpha', 100);
    appB = await liveApp(creator.token, 'Beta, "the second"', 40);
    // Last month: the caller's sign-up grant (it becomes the opening balance).
    await api('GET', '/api/billing/balance/', caller.token);
    await sql(`UPDATE ledger_entries SET created_at = $2 WHERE account_id IN (SELECT id FROM ledger_accounts WHERE user_id = $1 AND kind = 'user_credits')`, [
      caller.id,
      new Date(lastMonthStart.getTime() + 3 * 86_400_000),
    ]);
    topUpIntent = await topUp(caller.token, 2000);
    // The receipt is stored when the top-up succeeds (the webhook), before any statement is read.
    expect(
      (await sql<{ receipt_url: string | null }>('SELECT receipt_url FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [topUpIntent]))[0]!.receipt_url,
    ).toMatch(/^https:\/\/pay\.stripe\.com\/receipts\//);
    // Refunded through Stripe's API (POST /v1/refunds), as the dashboard or support would.
    const refund = await createStripeClient(ctx.config.stripe)!.refunds.create({ payment_intent: topUpIntent, amount: 500 });
    expect(refund).toMatchObject({ object: 'refund', amount: 500, status: 'succeeded' });
    await stripe.settled();
    await callMany(appA, caller.token, 3, { together: true });
    await callMany(appB, caller.token, 2);
    const shared = await sql<{ n: string }>(
      `SELECT count(DISTINCT i.ledger_transaction_id) AS n FROM invocations i JOIN apps ap ON ap.id = i.app_id AND ap.slug = $1 WHERE i.caller_id = $2`,
      [appA, caller.id],
    );
    // Some of them shared a call_charge transaction, so the statements below count calls, not transactions.
    expect(Number(shared[0]!.n)).toBeLessThan(3);
    // The creator's own call: its model cost comes from the creator's credits.
    await callMany(appA, creator.token, 1);
    // A subscription paid by card, then refunded.
    const plan = await api('POST', `/api/app/${appA}/packages/`, creator.token, { name: '=Pro', price: 9, included_calls: 5 });
    expect(plan.statusCode, plan.body).toBe(201);
    const subscribed = await api('POST', `/api/app/${appA}/subscriptions/`, caller.token, { package_id: plan.json().id });
    expect(subscribed.statusCode, subscribed.body).toBe(201);
    subscriptionIntent = (subscribed.json().client_secret as string).split('_secret_')[0]!;
    stripe.confirmPaymentIntent(subscriptionIntent);
    await stripe.settled();
    stripe.refund(subscriptionIntent, 300);
    await stripe.settled();
    // Someone else's money, on the same apps and on the platform.
    otherIntent = await topUp(other.token, 700);
    await callMany(appB, other.token, 1);
    // A payout of the creator's available earnings.
    const link = await api('POST', '/api/billing/payouts/connect/', creator.token);
    expect(link.statusCode, link.body).toBe(200);
    expect((await fetch(link.json().url, { redirect: 'manual' })).status).toBe(302);
    await stripe.settled();
    await earningsReleased(sql, creator.id);
    const withdrawn = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    await stripe.settled();
  });

  it("lists the current month and earlier months with activity, and refuses a bad month with 400 naming 'month'", async () => {
    const months = await api('GET', '/api/billing/statements/', caller.token);
    expect(months.statusCode, months.body).toBe(200);
    expect(months.json()).toEqual({ current: thisMonth, months: [thisMonth, lastMonth] });
    expect((await api('GET', '/api/billing/statements/?role=creator', creator.token)).json().months).toEqual([thisMonth]);
    for (const bad of ['2026-13', '26-01', 'november', '2026-1', `${now.getUTCFullYear() + 1}-01`]) {
      for (const url of [`/api/billing/statements/${bad}/`, `/api/billing/statements/${bad}/csv/`]) {
        const response = await api('GET', url, caller.token);
        expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
        expect(response.json().message).toMatch(/^month: /);
      }
    }
    expect((await api('GET', `/api/billing/statements/${thisMonth}/?role=banker`, caller.token)).statusCode).toBe(400);
    expect((await ctx.app.inject({ method: 'GET', url: `/api/billing/statements/${thisMonth}/` })).statusCode).toBe(401);
  });

  it("a caller's month: top-up with its receipt, the refund, spend per app, the subscription; every figure the ledger's", async () => {
    const response = await api('GET', `/api/billing/statements/${thisMonth}/?role=caller`, caller.token);
    expect(response.statusCode, response.body).toBe(200);
    const statement = response.json();
    expect(statement).toMatchObject({ month: thisMonth, role: 'caller', from: monthStart.toISOString() });
    expect(statement.caller).toHaveLength(1);
    const usd = statement.caller[0];
    const end = new Date(statement.to);

    // The receipt is the Charge's, stored when the top-up succeeded.
    const charge = stripe.objects.get(String(stripe.objects.get(topUpIntent)!.latest_charge))!;
    expect(charge.receipt_url).toMatch(/^https:\/\//);
    expect(usd.top_ups).toEqual([{ date: expect.any(String), amount_cents: 2000, payment_intent_id: topUpIntent, receipt_url: charge.receipt_url }]);
    expect(
      (await sql<{ receipt_url: string }>('SELECT receipt_url FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [topUpIntent]))[0]!.receipt_url,
    ).toBe(charge.receipt_url);
    expect(usd.adjustments).toEqual([
      expect.objectContaining({ kind: 'refund', amount_cents: -500 }),
      expect.objectContaining({ kind: 'subscription_refund', amount_cents: 300 }),
    ]);

    // Against the ledger, summed here.
    expect(usd.opening_balance_cents).toBe(await ledgerSum(caller.id, 'user_credits', null, monthStart));
    expect(usd.opening_balance_cents).toBe(1000);
    expect(usd.closing_balance_cents).toBe(await ledgerSum(caller.id, 'user_credits', null, end));
    expect(usd.top_ups_cents).toBe(await ledgerSum(caller.id, 'user_credits', monthStart, end, ['credit_top_up']));
    expect(usd.refunds_cents).toBe(await ledgerSum(caller.id, 'user_credits', monthStart, end, ['top_up_refund']));
    expect(usd.spend_cents).toBe(0 - (await ledgerSum(caller.id, 'user_credits', monthStart, end, ['call_charge'])));
    expect(usd.spend_cents).toBe(3 * 100 + 2 * 40);
    expect(usd.opening_balance_cents + usd.top_ups_cents + usd.refunds_cents + usd.disputes_cents - usd.spend_cents + usd.other_cents).toBe(
      usd.closing_balance_cents,
    );
    const perApp = Object.fromEntries(usd.spend_by_app.map((s: { app_slug: string; calls: number; amount_cents: number }) => [s.app_slug, s]));
    expect(Object.keys(perApp).sort()).toEqual([appA, appB].sort());
    expect(perApp[appA]).toMatchObject({ calls: 3, amount_cents: 0 - (await callSums(appA, 'user_credits', { is: caller.id })).sum });
    expect(perApp[appB]).toMatchObject({ calls: 2, amount_cents: 0 - (await callSums(appB, 'user_credits', { is: caller.id })).sum });
    expect(usd.subscriptions).toEqual([
      expect.objectContaining({ app_slug: appA, plan: '=Pro', amount_cents: 900, period_start: expect.any(String), period_end: expect.any(String) }),
    ]);
    expect(usd.subscriptions_cents).toBe(900);
    // Nobody else's money: the other caller's top-up and call are not here.
    expect(JSON.stringify(statement)).not.toContain(otherIntent);
    expect(usd.spend_by_app.reduce((n: number, s: { calls: number }) => n + s.calls, 0)).toBe(5);
  });

  it("a creator's month: per-call revenue, fee, model cost, the subscription payment, the refund seen and the payout; every figure the ledger's", async () => {
    const response = await api('GET', `/api/billing/statements/${thisMonth}/?role=creator`, creator.token);
    expect(response.statusCode, response.body).toBe(200);
    const statement = response.json();
    const usd = statement.creator[0];
    expect(statement.creator).toHaveLength(1);
    const end = new Date(statement.to);
    const lines = Object.fromEntries(usd.calls.map((line: { app_slug: string }) => [line.app_slug, line]));
    for (const slug of [appA, appB]) {
      const gross = await callSums(slug, 'user_credits', { not: creator.id });
      expect(lines[slug].gross_cents).toBe(-gross.sum);
      expect(lines[slug].fee_cents).toBe((await callSums(slug, 'platform_fees')).sum);
      expect(lines[slug].model_cost_cents).toBe((await callSums(slug, 'model_costs')).sum);
      expect(lines[slug].model_cost_from_credits_cents).toBe(0 - (await callSums(slug, 'user_credits', { is: creator.id })).sum);
      expect(lines[slug].net_cents).toBe((await callSums(slug, 'creator_earnings')).sum);
      const txs = await sql<{ n: string }>(
        `SELECT count(*) AS n FROM invocations i JOIN apps ap ON ap.id = i.app_id AND ap.slug = $1 JOIN ledger_transactions t ON t.id = i.ledger_transaction_id`,
        [slug],
      );
      expect(lines[slug].calls).toBe(Number(txs[0]!.n));
      expect(lines[slug].calls).toBeGreaterThanOrEqual(slug === appA ? 3 : 3);
    }
    expect(lines[appA].gross_cents).toBe(300);
    expect(lines[appB].gross_cents).toBe(120);
    expect(lines[appA].fee_cents).toBe(30);
    expect(usd.model_cost_cents).toBeGreaterThan(0);
    expect(usd.gross_calls_cents).toBe(420);
    // The subscription payment: its gross, the fee and the net, as the ledger booked it.
    expect(usd.subscriptions).toEqual([expect.objectContaining({ app_slug: appA, plan: '=Pro', gross_cents: 900, fee_cents: 90, net_cents: 810 })]);
    expect(usd.gross_subscriptions_cents).toBe(900);
    expect(usd.gross_cents).toBe(1320);
    expect(usd.fee_cents).toBe(42 + 90);
    expect(usd.net_cents).toBe(usd.gross_cents - usd.fee_cents - usd.model_cost_cents + usd.model_cost_from_credits_cents);
    expect(usd.net_cents).toBe(await ledgerSum(creator.id, 'creator_earnings', monthStart, end, ['call_charge', 'subscription_payment']));
    expect(usd.refunds_seen).toEqual([expect.objectContaining({ app_slug: appA, plan: '=Pro', amount_cents: 300 })]);
    // The payout: taken from earnings, then confirmed by Stripe.
    expect(usd.payouts.map((p: { kind: string }) => p.kind)).toEqual(['payout', 'payout_sent']);
    expect(usd.payouts_cents).toBe(await ledgerSum(creator.id, 'creator_earnings', monthStart, end, ['payout', 'payout_failed', 'payout_reversed']));
    expect(usd.payouts_cents).toBe(-usd.net_cents);
    expect(usd.opening_balance_cents).toBe(0);
    expect(usd.closing_balance_cents).toBe(await ledgerSum(creator.id, 'creator_earnings', null, end));
    expect(usd.opening_balance_cents + usd.net_cents + usd.payouts_cents + usd.other_cents).toBe(usd.closing_balance_cents);
    // The other caller's call to appB is the creator's revenue; the other caller's top-up is not.
    expect(JSON.stringify(statement)).not.toContain(otherIntent);
    // A caller who creates nothing has no creator statement; the creator's caller statement is their own.
    for (const block of (await api('GET', `/api/billing/statements/${thisMonth}/?role=creator`, other.token)).json().creator) {
      expect(block).toMatchObject({ gross_cents: 0, net_cents: 0, calls: [], subscriptions: [], refunds_seen: [], payouts: [], other: [] });
    }
    const own = (await api('GET', `/api/billing/statements/${thisMonth}/?role=caller`, creator.token)).json().caller[0];
    expect(own.top_ups).toEqual([]);
    // The creator's own call spends their credits only when it posts a model cost cent (decision 0025's rounding).
    expect(own.spend_by_app).toEqual(
      usd.model_cost_from_credits_cents > 0 ? [expect.objectContaining({ app_slug: appA, calls: 1, amount_cents: usd.model_cost_from_credits_cents })] : [],
    );
    // Last month the creator had nothing.
    expect((await api('GET', `/api/billing/statements/${lastMonth}/?role=creator`, creator.token)).json().creator[0]).toMatchObject({
      opening_balance_cents: 0,
      closing_balance_cents: 0,
      calls: [],
      payouts: [],
    });
  });

  it('the CSV: an attachment with a fixed header, RFC 4180 quoting, formula cells defused, and the same figures', async () => {
    for (const role of ['caller', 'creator'] as const) {
      const user = role === 'caller' ? caller : creator;
      const json = (await api('GET', `/api/billing/statements/${thisMonth}/?role=${role}`, user.token)).json();
      const response = await api('GET', `/api/billing/statements/${thisMonth}/csv/?role=${role}`, user.token);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/csv/);
      expect(response.headers['content-disposition']).toBe(`attachment; filename="statement-${thisMonth}-${role}.csv"`);
      const [header, ...rows] = parseCsv(response.body);
      expect(header).toEqual([...STATEMENT_CSV_COLUMNS]);
      const col = (name: string) => header!.indexOf(name);
      const records = rows.map((row) => Object.fromEntries(header!.map((h, i) => [h, row[i]!])));
      for (const record of records) {
        expect(record.currency).toBe('USD');
        expect(Number(record.amount)).toBeCloseTo(Number(record.amount_minor) / 100, 10);
      }
      const block = json[role][0];
      const bySection = (section: string) => records.filter((r) => r.section === section);
      const total = (section: string) => bySection(section).reduce((n, r) => n + Number(r.amount_minor), 0);
      expect(Number(bySection('opening_balance')[0]!.amount_minor)).toBe(block.opening_balance_cents);
      expect(Number(bySection('closing_balance')[0]!.amount_minor)).toBe(block.closing_balance_cents);
      // A cell that a spreadsheet would run as a formula (the plan's name) gets its apostrophe; a name with a comma and quotes is quoted.
      expect(response.body).not.toMatch(/,=Pro/);
      const planCells = records.filter((r) => r.plan !== '').map((r) => r.plan);
      expect(planCells.length).toBeGreaterThan(0);
      expect(new Set(planCells)).toEqual(new Set(["'=Pro"]));
      expect(response.body).toContain('"Calls to Beta, ""the second""');
      if (role === 'caller') {
        expect(total('top_up')).toBe(block.top_ups_cents);
        expect(total('refund')).toBe(block.refunds_cents);
        expect(-total('spend')).toBe(block.spend_cents);
        expect(total('subscription')).toBe(block.subscriptions_cents);
        expect(bySection('top_up')[0]!.receipt_url).toBe(block.top_ups[0].receipt_url);
        expect(bySection('spend').find((r) => r.app === appA)!.description).toMatch(/^Calls to =Alpha/);
        expect(bySection('spend').find((r) => r.app === appB)!.description).toMatch(/^Calls to Beta, "the second"/);
        expect(rows.every((row) => row.length === header!.length)).toBe(true);
      } else {
        expect(total('calls') + total('subscription')).toBe(block.net_cents);
        expect(total('payout')).toBe(block.payouts.find((p: { kind: string }) => p.kind === 'payout').earnings_cents);
        const sum = bySection('total')[0]!;
        expect(Number(sum.gross_minor)).toBe(block.gross_cents);
        expect(Number(sum.fee_minor)).toBe(block.fee_cents);
        expect(Number(sum.model_cost_minor)).toBe(block.model_cost_cents);
        expect(Number(sum.amount_minor)).toBe(block.net_cents);
        expect(Number(bySection('refund_seen')[0]!.amount_minor)).toBe(300);
      }
      expect(col('receipt_url')).toBe(header!.length - 1);
    }
  });

  it('shows a reversed transfer and a refused payout coming back to earnings, each as the ledger booked it', async () => {
    const transfer = [...stripe.objects.values()].find(
      (o) => o.object === 'transfer' && o.metadata && (o.metadata as Record<string, string>).tollbooth_payout_id,
    )!;
    stripe.reverseTransfer(transfer.id, 200);
    await stripe.settled();
    stripe.transferFaults.refuseNext = 1;
    const refused = await api('POST', '/api/billing/payouts/withdraw/', creator.token);
    expect(refused.json()).toMatchObject({ status: 'failed', amount_cents: 200 });
    const statement = (await api('GET', `/api/billing/statements/${thisMonth}/?role=creator`, creator.token)).json();
    const usd = statement.creator[0];
    const kinds = usd.payouts.map((p: { kind: string; earnings_cents: number }) => [p.kind, p.earnings_cents]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['payout_reversed', 200],
        ['payout', -200],
        ['payout_failed', 200],
      ]),
    );
    const end = new Date(statement.to);
    expect(usd.payouts_cents).toBe(await ledgerSum(creator.id, 'creator_earnings', monthStart, end, ['payout', 'payout_failed', 'payout_reversed']));
    expect(usd.closing_balance_cents).toBe(200);
    expect(usd.opening_balance_cents + usd.net_cents + usd.payouts_cents + usd.other_cents).toBe(usd.closing_balance_cents);
  });

  it("another user's statement shows none of this, and theirs none of the caller's", async () => {
    const statement = (await api('GET', `/api/billing/statements/${thisMonth}/?role=caller`, other.token)).json();
    const usd = statement.caller[0];
    expect(usd.top_ups).toEqual([expect.objectContaining({ payment_intent_id: otherIntent, amount_cents: 700 })]);
    expect(usd.spend_by_app).toEqual([expect.objectContaining({ app_slug: appB, calls: 1, amount_cents: 40 })]);
    expect(usd.subscriptions).toEqual([]);
    expect(usd.adjustments).toEqual([]);
    expect(JSON.stringify(statement)).not.toContain(topUpIntent);
    const csv = (await api('GET', `/api/billing/statements/${thisMonth}/csv/?role=caller`, other.token)).body;
    expect(csv).not.toContain(topUpIntent);
    expect(csv).not.toContain(appA);
  });

  it("stores the receipt when the browser's return credits the top-up, and asks Stripe again for one it is missing", async () => {
    const user = await newUser('stmt-receipt');
    const created = (await api('POST', '/api/billing/top-ups/', user.token, { amount_cents: 600 })).json();
    const receipt = async () =>
      (await sql<{ receipt_url: string | null }>('SELECT receipt_url FROM credit_top_ups WHERE stripe_payment_intent_id = $1', [created.payment_intent_id]))[0]!
        .receipt_url;
    // No webhook: the browser's return is what credits it.
    const webhook = ctx.webhookUrl;
    stripe.setWebhookUrl(null);
    try {
      stripe.confirmPaymentIntent(created.payment_intent_id);
      const confirmed = await api('POST', '/api/billing/top-ups/confirm/', user.token, { payment_intent_id: created.payment_intent_id });
      expect(confirmed.json()).toMatchObject({ status: 'succeeded', credited: true });
    } finally {
      stripe.setWebhookUrl(webhook);
    }
    const charge = stripe.objects.get(String(stripe.objects.get(created.payment_intent_id)!.latest_charge))!;
    expect(await receipt()).toBe(charge.receipt_url);
    // Lost (Stripe did not answer at the time): the statement asks again and shows it.
    await sql('UPDATE credit_top_ups SET receipt_url = NULL, stripe_charge_id = NULL WHERE stripe_payment_intent_id = $1', [created.payment_intent_id]);
    const statement = (await api('GET', `/api/billing/statements/${thisMonth}/`, user.token)).json();
    expect(statement.caller[0].top_ups).toEqual([expect.objectContaining({ payment_intent_id: created.payment_intent_id, receipt_url: charge.receipt_url })]);
    expect(await receipt()).toBe(charge.receipt_url);
  });

  it('keeps each currency apart: a payment booked in dong is its own block, never added to dollars', async () => {
    const before = (await api('GET', `/api/billing/statements/${thisMonth}/?role=creator`, creator.token)).json().creator;
    // A ₫100,000 subscription payment, booked as issue 23's currencies book it: accounts in dong.
    await ctx.database.db.transaction(async (tx) =>
      postLedgerTransaction(tx, {
        kind: 'subscription_payment',
        reference: `invoice:in_vnd_${counter}`,
        description: 'Subscription paid in dong',
        entries: [
          { accountId: await findSystemAccount(tx, 'outside_funding', 'vnd'), amountCents: -100_000 },
          { accountId: await findOrCreateUserAccount(tx, 'creator_earnings', creator.id, 'vnd'), amountCents: 90_000 },
          { accountId: await findSystemAccount(tx, 'platform_fees', 'vnd'), amountCents: 10_000 },
        ],
      }),
    );
    const after = (await api('GET', `/api/billing/statements/${thisMonth}/?role=creator`, creator.token)).json().creator;
    expect(after.map((b: { currency: string }) => b.currency)).toEqual(['usd', 'vnd']);
    expect(after[0]).toEqual(before.find((b: { currency: string }) => b.currency === 'usd'));
    expect(after[1]).toMatchObject({
      opening_balance_cents: 0,
      closing_balance_cents: 90_000,
      gross_subscriptions_cents: 100_000,
      fee_cents: 10_000,
      net_cents: 90_000,
    });
    const csv = (await api('GET', `/api/billing/statements/${thisMonth}/csv/?role=creator`, creator.token)).body;
    const vnd = parseCsv(csv).filter((row) => row[2] === 'VND');
    expect(vnd.find((row) => row[3] === 'subscription')).toEqual(expect.arrayContaining(['90000', '100000', '10000']));
  });
});
