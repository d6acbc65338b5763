// Price forms and money finer than a cent (issue 60): per-token, cost-plus and sub-cent per-call
// apps charge their rate × the reported usage (rounded up once per call to a micro-dollar), the
// ledger posts whole cents from running totals so nothing is lost or made up, the platform fee is
// computed on the exact amount, a call is authorised for its most and refused above the caller's
// ceiling before the model is asked, and a rate card's increase waits for the notice like a price's.
import { chargeMicros, type RateCard, rateCardOf } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { paidTestContextForFile } from '../../test-support/app.ts';
import { expectLedgerBalanced, grantFromOutside } from '../../test-support/ledger.ts';
import { liveModelApp, newUserWithKey } from '../../test-support/priced-apps.ts';

const ctx = await paidTestContextForFile({
  PLATFORM_FEE_BPS: '1000',
  SIGNUP_CREDITS_CENTS: '0',
  RATE_LIMIT_PER_MINUTE: '100000',
});
const { model: upstream, api } = ctx;

async function newUser(credits = 0) {
  const user = await newUserWithKey(ctx, 'price-forms-user');
  if (credits > 0) await grantFromOutside(ctx.database.db, user.id, 'user_credits', credits);
  return user;
}

/** A live public prompt app on gpt-4-turbo ($10 / $30 per million tokens upstream) with the given price. */
const liveApp = (token: string, price: object) => liveModelApp(ctx, token, { name: `Priced ${Math.random()}`, ...price }, { max_tokens: 600 });

/** The $20 / $60 per million tokens card the tests price with (upstream gpt-4-turbo costs $10 / $30). */
const TOKEN_PRICING = { form: 'per_token', input_per_mtok_micros: 20_000_000, output_per_mtok_micros: 60_000_000 };

/** A creator and a caller with `credits` cents each, and the creator's live app priced by `pricing`. */
async function pricedApp(pricing: object, credits = 1_000) {
  const creator = await newUser(credits);
  const caller = await newUser(credits);
  return { creator, caller, slug: await liveApp(creator.token, { pricing }) };
}

const difyCall = (slug: string, key: string, headers: Record<string, string> = {}) =>
  ctx.api('POST', `/api/app/${slug}/completion-messages`, key, { inputs: { query: 'Hello?' }, response_mode: 'blocking', user: 'someone' }, headers);

async function totals(slug: string) {
  const { rows } = await ctx.database.db.query<Record<string, string>>(
    `SELECT count(*) AS calls, coalesce(sum(i.price_cents), 0) AS paid, coalesce(sum(i.charge_micros), 0) AS charged, coalesce(sum(i.fee_cents), 0) AS fee,
            coalesce(sum(i.fee_micros), 0) AS fee_micros, coalesce(sum(i.model_cost_micros), 0) AS model_cost
     FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 AND i.status = 'success'`,
    [slug],
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([name, value]) => [name, Number(value)]));
}

const credits = async (token: string) => ((await api('GET', '/api/billing/balance/', token)).json() as { credits_cents: number }).credits_cents;

const PER_TOKEN: RateCard = rateCardOf({ form: 'per_token', input_per_mtok_micros: 20_000_000, output_per_mtok_micros: 60_000_000 });

describe('rate cards on save', () => {
  it('refuse a card that is negative, over-precise, absurd or incomplete with a 400 naming the field', async () => {
    const owner = await newUser();
    const refused = async (pricing: object, field: string) => {
      const response = await api('POST', '/api/app/', owner.token, { name: 'Bad price', type: 'prompt', pricing });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().message).toContain(field);
    };
    await refused({ form: 'per_call', call_micros: -1 }, 'call_micros');
    await refused({ form: 'per_call', call_micros: 1.5 }, 'call_micros');
    await refused({ form: 'per_call', call_micros: 1_000_000_001 }, 'pricing.call_micros');
    await refused({ form: 'per_token', input_per_mtok_micros: 2_000_000_000 }, 'pricing.input_per_mtok_micros');
    await refused({ form: 'per_token' }, 'pricing.input_per_mtok_micros');
    await refused({ form: 'cost_plus' }, 'pricing.markup_bps');
    await refused({ form: 'per_call', call_micros: 10_000, input_per_mtok_micros: 5 }, 'pricing.form');
    await refused({ form: 'per_token', input_per_mtok_micros: 1, minimum_micros: 500, max_call_micros: 100 }, 'pricing.max_call_micros');
    const both = await api('POST', '/api/app/', owner.token, {
      name: 'Both',
      type: 'prompt',
      price_cents: 5,
      pricing: { form: 'per_call', call_micros: 50_000 },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().message).toContain('price_cents');
  });

  it('keep a whole-cent per-call card as price_cents, and show every card in full', async () => {
    const owner = await newUser();
    const whole = await api('POST', '/api/app/', owner.token, { name: 'Whole', type: 'prompt', pricing: { form: 'per_call', call_micros: 50_000 } });
    expect(whole.json()).toMatchObject({ price_cents: 5, pricing: { form: 'per_call', call_micros: 50_000, minimum_micros: 0, max_call_micros: null } });
    const perToken = await api('POST', '/api/app/', owner.token, {
      name: 'Tokens',
      type: 'prompt',
      pricing: { form: 'per_token', input_per_mtok_micros: 20_000_000, output_per_mtok_micros: 60_000_000, minimum_micros: 1_500 },
    });
    // price_cents is the least a call costs, rounded up to a cent (what lists sort by).
    expect(perToken.json()).toMatchObject({ price_cents: 1, pricing: { form: 'per_token', input_per_mtok_micros: 20_000_000, minimum_micros: 1_500 } });
  });
});

describe('per-token, cost-plus and sub-cent calls', () => {
  it('charge each call its rate × the reported usage, post whole cents from running totals, and keep the fee exact', async () => {
    const { caller, slug } = await pricedApp(TOKEN_PRICING);
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 211, outputTokens: 517 } });
    const perCall = chargeMicros(PER_TOKEN, { inputTokens: 211, outputTokens: 517, modelCostMicros: 0 });
    expect(perCall).toBe(211 * 20 + 517 * 60); // 35,240 µ$: 3.524 cents
    const first = await difyCall(slug, caller.key);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().metadata.usage).toMatchObject({ total_price: '0.0352400', prompt_unit_price: '0.000020000000', completion_price: '0.0310200' });
    for (let i = 1; i < 50; i++) expect((await difyCall(slug, caller.key)).statusCode).toBe(200);
    await ctx.app.settledReads();
    const sums = await totals(slug);
    expect(sums.calls).toBe(50);
    expect(sums.charged).toBe(50 * perCall);
    // The caller paid the exact total rounded up once: 176.2 cents → 177, not 50 × 4 = 200.
    expect(sums.paid).toBe(Math.ceil((50 * perCall) / 10_000));
    expect(1_000 - (await credits(caller.token))).toBe(sums.paid);
    // The fee is 10 % of each exact charge (3,524 µ$), posted from the creator's running total rounded down.
    expect(sums.fee_micros).toBe(50 * 3_524);
    expect(sums.fee).toBe(Math.floor((50 * 3_524) / 10_000));
    expect(sums.model_cost).toBe(50 * (211 * 10 + 517 * 30));
    await expectLedgerBalanced(ctx.database.db);
  });

  it('a cost-plus app charges the model cost × markup plus its fee; OpenAI usage.cost says the exact amount', async () => {
    const { caller, slug } = await pricedApp({ form: 'cost_plus', markup_bps: 12_500, call_micros: 1_000 });
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 211, outputTokens: 517 } });
    const response = await ctx.api('POST', '/v1/chat/completions', caller.key, { model: slug, messages: [{ role: 'user', content: 'Hello?' }] });
    expect(response.statusCode, response.body).toBe(200);
    const modelCost = 211 * 10 + 517 * 30;
    const expected = Math.ceil(modelCost * 1.25) + 1_000;
    expect(response.json().usage).toMatchObject({ cost: expected / 1_000_000, cost_cents: Math.ceil(expected / 10_000) });
    await ctx.app.settledReads();
    expect(await totals(slug)).toMatchObject({ calls: 1, charged: expected, model_cost: modelCost });
    await expectLedgerBalanced(ctx.database.db);
  });

  it('a half-cent app: ten calls cost the caller 5 cents, and the fee on them half a cent', async () => {
    const { caller, slug } = await pricedApp({ form: 'per_call', call_micros: 5_000 }, 100);
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 1, outputTokens: 1 } });
    for (let i = 0; i < 10; i++) expect((await difyCall(slug, caller.key)).statusCode).toBe(200);
    await ctx.app.settledReads();
    const sums = await totals(slug);
    expect(sums).toMatchObject({ calls: 10, charged: 50_000, paid: 5, fee_micros: 5_000, fee: 0 });
    expect(100 - (await credits(caller.token))).toBe(5);
    await expectLedgerBalanced(ctx.database.db);
  });
});

describe('cached input tokens', () => {
  it('are priced at the cached rate where the provider reports them (OpenAI prompt_tokens_details.cached_tokens)', async () => {
    const { caller, slug } = await pricedApp({ ...TOKEN_PRICING, cached_input_per_mtok_micros: 2_000_000 });
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 1_000, outputTokens: 100, cachedInputTokens: 800 } });
    const response = await difyCall(slug, caller.key);
    expect(response.statusCode, response.body).toBe(200);
    // 200 × $20 + 800 × $2 + 100 × $60 per million = 11,600 µ$.
    expect(response.json().metadata.usage.total_price).toBe('0.0116000');
  });
});

describe("a caller's ceiling", () => {
  it('refuses a call whose most is above it before the model is asked (402 naming both figures), from a header or the OpenAI body', async () => {
    const { caller, slug } = await pricedApp(TOKEN_PRICING);
    const asked = upstream.requests.length;
    // The most: 600 output tokens × $60 per million alone is $0.036.
    const header = await difyCall(slug, caller.key, { 'x-max-price': '0.01' });
    expect(header.statusCode, header.body).toBe(402);
    expect(header.json()).toMatchObject({ code: 'price_above_limit' });
    expect(header.json().message).toMatch(/may cost up to \$0\.0\d+, above your limit of \$0\.01/);
    const body = await ctx.api('POST', '/v1/chat/completions', caller.key, { model: slug, messages: [{ role: 'user', content: 'Hi' }], max_price: 0.02 });
    expect(body.statusCode, body.body).toBe(402);
    expect(body.json().error.message).toContain('above your limit of $0.02');
    expect(upstream.requests.length).toBe(asked);
    expect(await credits(caller.token)).toBe(1_000);
    // Under a ceiling above the most, the call goes through and costs what it used.
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 10, outputTokens: 10 } });
    const allowed = await difyCall(slug, caller.key, { 'x-max-price': '1' });
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.json().metadata.usage.total_price).toBe('0.0008000');
  });
});

describe('rate card changes', () => {
  it('an increase of a called live app waits for the notice; a decrease applies at once', async () => {
    const { creator, caller, slug } = await pricedApp(TOKEN_PRICING);
    expect((await difyCall(slug, caller.key)).statusCode).toBe(200);
    const raised = await api('PATCH', `/api/app/${slug}/`, creator.token, {
      pricing: { form: 'per_token', input_per_mtok_micros: 20_000_000, output_per_mtok_micros: 90_000_000 },
    });
    expect(raised.statusCode, raised.body).toBe(200);
    expect(raised.json()).toMatchObject({
      pricing: { output_per_mtok_micros: 60_000_000 },
      upcoming_pricing: { output_per_mtok_micros: 90_000_000 },
    });
    expect(raised.json().upcoming_price_at).not.toBeNull();
    const lowered = await api('PATCH', `/api/app/${slug}/`, creator.token, {
      pricing: { form: 'per_token', input_per_mtok_micros: 10_000_000, output_per_mtok_micros: 30_000_000 },
    });
    expect(lowered.json()).toMatchObject({ pricing: { input_per_mtok_micros: 10_000_000, output_per_mtok_micros: 30_000_000 }, upcoming_pricing: null });
    const models = await ctx.api('GET', '/v1/models', caller.key);
    const listed = models.json().data.find((model: { id: string }) => model.id === slug);
    expect(listed.pricing).toEqual({ prompt: '0.00001', completion: '0.00003', request: '0' });
  });
});

describe('plans with dollars of usage', () => {
  async function subscribe(slug: string, owner: { token: string }, caller: { token: string }, includedUsageMicros: number) {
    const plan = await api('POST', `/api/app/${slug}/packages/`, owner.token, {
      name: 'Usage plan',
      price: 0,
      included_usage_micros: includedUsageMicros,
    });
    expect(plan.statusCode, plan.body).toBe(201);
    expect(plan.json()).toMatchObject({ included_usage_micros: includedUsageMicros });
    const subscribed = await api('POST', `/api/app/${slug}/subscriptions/`, caller.token, { package_id: plan.json().id });
    expect(subscribed.statusCode, subscribed.body).toBe(201);
    return subscribed.json().id as string;
  }
  const subscription = async (slug: string, caller: { token: string }, id: string) =>
    (await api('GET', `/api/app/${slug}/subscriptions/${id}/`, caller.token)).json() as { included_usage_micros: number; usage_used_micros: number };

  it("charges calls against the plan at the app's rate until it is spent, then credits pay; a failed call takes nothing", async () => {
    const { creator, caller, slug } = await pricedApp(TOKEN_PRICING);
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 211, outputTokens: 517 } });
    const perCall = 211 * 20 + 517 * 60; // 35,240 µ$
    // The plan covers a call only while its most (600 output tokens at most: ≥ 36,000 µ$) still fits: $0.10 holds two.
    const id = await subscribe(slug, creator, caller, 100_000);
    expect(await subscription(slug, caller, id)).toMatchObject({ included_usage_micros: 100_000, usage_used_micros: 0 });

    expect((await difyCall(slug, caller.key)).statusCode).toBe(200);
    await ctx.app.settledReads();
    // Only what the call used stays charged to the plan; the rest of its most went back.
    expect(await subscription(slug, caller, id)).toMatchObject({ usage_used_micros: perCall });
    expect(await credits(caller.token)).toBe(1_000);

    // A call the upstream fails takes nothing from the plan.
    upstream.setBehaviour({ status: 500 });
    expect((await difyCall(slug, caller.key)).statusCode).not.toBe(200);
    await ctx.app.settledReads();
    expect(await subscription(slug, caller, id)).toMatchObject({ usage_used_micros: perCall });

    upstream.resetBehaviour();
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 211, outputTokens: 517 } });
    expect((await difyCall(slug, caller.key)).statusCode).toBe(200);
    await ctx.app.settledReads();
    expect(await subscription(slug, caller, id)).toMatchObject({ usage_used_micros: 2 * perCall });
    expect(await credits(caller.token)).toBe(1_000);

    // The plan's rest (29,520 µ$) cannot hold a call's most: overage at the app's rate, from credits.
    expect((await difyCall(slug, caller.key)).statusCode).toBe(200);
    await ctx.app.settledReads();
    expect(await subscription(slug, caller, id)).toMatchObject({ usage_used_micros: 2 * perCall });
    expect(1_000 - (await credits(caller.token))).toBe(Math.ceil(perCall / 10_000));
    // Calls the plan covered are not paid and earn nothing; the one paid call is charged in full.
    const sums = await totals(slug);
    expect(sums).toMatchObject({ calls: 3, charged: perCall, paid: Math.ceil(perCall / 10_000) });
    await expectLedgerBalanced(ctx.database.db);
  });

  it('concurrent calls never spend more than the plan includes', async () => {
    const { creator, caller, slug } = await pricedApp({ form: 'per_call', call_micros: 15_000 });
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 1, outputTokens: 1 } });
    const id = await subscribe(slug, creator, caller, 100_000); // six calls' worth, and 10,000 µ$ over
    const results = await Promise.all(Array.from({ length: 20 }, () => difyCall(slug, caller.key)));
    expect(results.every((response) => response.statusCode === 200)).toBe(true);
    await ctx.app.settledReads();
    expect(await subscription(slug, caller, id)).toMatchObject({ usage_used_micros: 90_000 });
    // 14 calls of 1.5 cents from credits: 21 cents, rounded up once.
    expect(1_000 - (await credits(caller.token))).toBe(21);
    await expectLedgerBalanced(ctx.database.db);
  });

  it('refuses included usage that is negative or fractional with a 400 naming the field', async () => {
    const creator = await newUser();
    const slug = await liveApp(creator.token, { price_cents: 1 });
    for (const included_usage_micros of [-1, 1.5]) {
      const response = await api('POST', `/api/app/${slug}/packages/`, creator.token, { name: 'Bad', price: 0, included_usage_micros });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.body).toContain('included_usage_micros');
    }
  });
});
