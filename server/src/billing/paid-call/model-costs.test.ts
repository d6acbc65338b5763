// The model bill (issue 22, decision 0025): every call on the operator's key records its model cost
// from the reported usage and the model's prices; the caller pays the price, the creator's net is
// price − fee − model cost (drawn from their credits when negative), the owner's own calls and test
// runs pay the model cost from their credits, and an account without credit gets no model answer.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config.ts';
import { datasetPrice, modelCostMicros } from '../../providers/model-prices.ts';
import { createModelRouter, parseModelTable } from '../../providers/registry.ts';
import { createTestContext, paidTestContextForFile, TEST_MODEL_API_KEY } from '../../test-support/app.ts';
import { expectLedgerBalanced, grantFromOutside } from '../../test-support/ledger.ts';
import { liveModelApp, newUserWithKey } from '../../test-support/priced-apps.ts';

const ctx = await paidTestContextForFile({
  PLATFORM_FEE_BPS: '1000',
  // Nobody starts with credit: every model answer must be paid for by someone who added some.
  SIGNUP_CREDITS_CENTS: '0',
  RATE_LIMIT_PER_MINUTE: '100000',
});
const { model: upstream, api } = ctx;

const newUser = () => newUserWithKey(ctx, 'model-cost-user');

/** Adds credit the way a top-up does: from outside funding to the user's credits. */
const addCredit = (userId: string, cents: number) => grantFromOutside(ctx.database.db, userId, 'user_credits', cents);

const balances = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json() as { credits_cents: number; earnings_cents: number };

const liveApp = (token: string, overrides: object = {}, config: object = {}) =>
  liveModelApp(ctx, token, { name: `Cost App ${Math.random()}`, price_cents: 1, ...overrides }, config);

const call = (slug: string, key: string) =>
  ctx.api('POST', `/api/app/${slug}/completion-messages`, key, { inputs: { query: 'Hello?' }, response_mode: 'blocking', user: 'someone' });

async function systemBalance(kind: 'model_costs' | 'platform_fees') {
  const { rows } = await ctx.database.db.query<{ balance: string }>(
    'SELECT balance_cents AS balance FROM ledger_accounts WHERE kind = $1 AND user_id IS NULL',
    [kind],
  );
  return Number(rows[0]!.balance);
}

describe('model prices', () => {
  it('come from the price dataset, and MODEL_TABLE overrides them', () => {
    expect(datasetPrice('openai', 'gpt-4-turbo')).toMatchObject({ input: { base: 10_000_000 }, output: { base: 30_000_000 }, source: 'dataset' });
    const table = parseModelTable('{"gpt-4-turbo": {"provider": "openai", "upstreamModel": "gpt-4-turbo", "prices": {"input": 0.15, "output": 0.6}}}');
    const router = createModelRouter(loadConfig({ OPENAI_API_KEY: 'sk', LOG_LEVEL: 'silent' }).models, { table });
    const price = router.priceOf('gpt-4-turbo')!;
    expect(price.source).toBe('model_table');
    // 7 × $0.15 + 3 × $0.60 per million tokens = 2.85 µ$, rounded up once.
    expect(modelCostMicros(price, { inputTokens: 7, outputTokens: 3 })).toBe(3);
    expect(modelCostMicros(price, { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(750_000);
  });

  it('refuse a model without a known price on the operator key, and name it at start-up', () => {
    const table = parseModelTable('{"house-model": {"provider": "openai", "upstreamModel": "house-model-7b"}}');
    const router = createModelRouter(loadConfig({ OPENAI_API_KEY: 'sk', LOG_LEVEL: 'silent' }).models, { table });
    expect(router.unpricedModels()).toContain('house-model');
    expect(() => router.resolve('house-model')).toThrow(/no known price/);
    expect(() => parseModelTable('{"m": {"provider": "openai", "upstreamModel": "m", "prices": {"input": -1}}}')).toThrow(/prices.input.*prices.output/s);
  });
});

describe('who pays the model', () => {
  it("a caller's 1,000 calls to a 1-cent gpt-4-turbo app: the caller pays 1,000 cents, the model cost is usage × prices, the creator's negative net comes from their credits", async () => {
    const creator = await newUser();
    const caller = await newUser();
    await addCredit(creator.id, 5_000);
    await addCredit(caller.id, 1_000);
    const slug = await liveApp(creator.token, {}, { max_tokens: 600 });
    // 211 × $10 + 517 × $30 per million tokens = 17,620 µ$ a call: 1.762 cents, above the 1-cent price.
    upstream.setBehaviour({ text: 'answer', usage: { inputTokens: 211, outputTokens: 517 } });
    const modelCostsBefore = await systemBalance('model_costs');
    const feesBefore = await systemBalance('platform_fees');
    const upstreamBefore = upstream.requests.length;
    for (let batch = 0; batch < 50; batch++) {
      const responses = await Promise.all(Array.from({ length: 20 }, () => call(slug, caller.key)));
      for (const response of responses) expect(response.statusCode, response.body).toBe(200);
    }
    expect(upstream.requests.length - upstreamBefore).toBe(1000);
    // One more call is refused: the caller has no credit left, and the model is not asked.
    expect((await call(slug, caller.key)).json()).toMatchObject({ code: 'insufficient_credits', status: 402 });
    expect(upstream.requests.length - upstreamBefore).toBe(1000);

    const callerAfter = await balances(caller.token);
    expect(callerAfter.credits_cents).toBe(0);
    const totals = await ctx.database.db.query<{ micros: string; fee: string; paid: string; fee_micros: string }>(
      `SELECT sum(i.model_cost_micros) AS micros, sum(i.fee_cents) AS fee, sum(i.price_cents) AS paid, sum(i.fee_micros) AS fee_micros
       FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 AND i.status = 'success'`,
      [slug],
    );
    const micros = Number(totals.rows[0]!.micros);
    expect(micros).toBe(1000 * (211 * 10 + 517 * 30));
    expect(Number(totals.rows[0]!.paid)).toBe(1000);
    const fee = Number(totals.rows[0]!.fee);
    // 10 % of 1 cent is 1,000 µ$ a call, kept exactly (issue 60): 1,000 calls post 100 cents of fee, not 0.
    expect(Number(totals.rows[0]!.fee_micros)).toBe(1_000_000);
    expect(fee).toBe(100);
    const modelCostCents = Math.ceil(micros / 10_000);
    expect((await systemBalance('model_costs')) - modelCostsBefore).toBe(modelCostCents);
    expect((await systemBalance('platform_fees')) - feesBefore).toBe(fee);
    const creatorAfter = await balances(creator.token);
    // The creator's net, negative here, is the price less the fee and the model cost: earnings and credits together.
    expect(creatorAfter.earnings_cents + (creatorAfter.credits_cents - 5_000)).toBe(1000 - fee - modelCostCents);
    expect(creatorAfter.credits_cents).toBeGreaterThanOrEqual(0);
    const meter = await ctx.database.db.query<{ micros: string }>('SELECT micros FROM model_cost_meters WHERE user_id = $1', [creator.id]);
    expect(Number(meter.rows[0]!.micros)).toBe(micros);
    await expectLedgerBalanced(ctx.database.db);
  }, 300_000);

  it('an account without credit gets no model answer from its own app, the console or a test run; with credit each pays exactly its model cost', async () => {
    const owner = await newUser();
    const slug = await liveApp(owner.token, { visibility: 'private' });
    upstream.setBehaviour({ text: 'owned answer', usage: { inputTokens: 100, outputTokens: 200 } });
    const upstreamBefore = upstream.requests.length;

    const ownCall = await call(slug, owner.key);
    expect(ownCall.statusCode).toBe(402);
    expect(ownCall.json()).toMatchObject({ code: 'insufficient_credits' });
    expect(ownCall.json().message).toMatch(/Money page \(\/money\)/);
    const consoleCall = await ctx.api('POST', `/api/app/${slug}/completion-messages`, owner.token, {
      inputs: { query: 'from the console' },
      response_mode: 'streaming',
    });
    expect(consoleCall.statusCode).toBe(402);
    const testRun = await api('POST', `/api/app/${slug}/prompt/test-config/`, owner.token, {
      prompt_template: '{{query}}',
      test_inputs: { query: 'hi' },
      run: true,
    });
    expect(testRun.statusCode).toBe(402);
    expect(testRun.json().message).toMatch(/Money page/);
    const builderRun = await api('POST', '/api/prompt/test-config/', owner.token, {
      prompt_template: 'Write {{topic}}',
      test_inputs: { topic: 'x' },
      run: true,
      model: 'gpt-4-turbo',
      max_tokens: 4000,
    });
    expect(builderRun.statusCode).toBe(402);
    expect(upstream.requests.length).toBe(upstreamBefore);

    await addCredit(owner.id, 300);
    const paidOwnCall = await call(slug, owner.key);
    expect(paidOwnCall.statusCode, paidOwnCall.body).toBe(200);
    // 100 × $10 + 200 × $30 per million = 7,000 µ$: the owner's first model cost, 1 cent once rounded up.
    expect((await balances(owner.token)).credits_cents).toBe(299);
    const paidRun = await api('POST', `/api/app/${slug}/prompt/test-config/`, owner.token, {
      prompt_template: '{{query}}',
      test_inputs: { query: 'hi' },
      run: true,
    });
    expect(paidRun.statusCode).toBe(200);
    expect(paidRun.json()).toMatchObject({ success: true, answer: 'owned answer' });
    // 14,000 µ$ in all now: 2 cents posted in all.
    expect((await balances(owner.token)).credits_cents).toBe(298);
    const runs = await ctx.database.db.query('SELECT model, status, model_cost_micros::int AS micros FROM test_runs WHERE user_id = $1', [owner.id]);
    expect(runs.rows).toEqual([{ model: 'gpt-4-turbo', status: 'success', micros: 7000 }]);
    // Test runs are apart from the app's calls: one invocation, the own call.
    const invocations = await ctx.database.db.query(
      "SELECT count(*)::int AS n FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 AND i.status = 'success'",
      [slug],
    );
    expect(invocations.rows[0]).toEqual({ n: 1 });
    await expectLedgerBalanced(ctx.database.db);
  });

  it("refuses callers' calls, uncharged, while the creator cannot cover the model cost their price does not", async () => {
    const creator = await newUser();
    const caller = await newUser();
    await addCredit(caller.id, 100);
    const slug = await liveApp(creator.token, {}, { max_tokens: 4000 });
    const upstreamBefore = upstream.requests.length;
    const refused = await call(slug, caller.key);
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ code: 'model_cost_not_covered' });
    expect(refused.json().message).toMatch(/creator has no credit or earnings left/);
    expect(upstream.requests.length).toBe(upstreamBefore);
    expect((await balances(caller.token)).credits_cents).toBe(100);
    const failure = await ctx.database.db.query(
      'SELECT error_type, outcome FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 ORDER BY i.created_at DESC LIMIT 1',
      [slug],
    );
    // The creator's problem, not the caller's mistake: it counts against the app.
    expect(failure.rows[0]).toEqual({ error_type: 'model_cost_not_covered', outcome: 'failed' });

    // A price that covers the worst case still reserves it from the creator: the answer may go
    // unpaid (a failed schema, a cut stream, a hang-up; issue 60 item 8). Once the creator can
    // cover it, the paid call draws nothing from it: the price pays the model.
    const wellPriced = await liveApp(creator.token, { price_cents: 50 }, { max_tokens: 100 });
    upstream.setBehaviour({ text: 'fine', usage: { inputTokens: 10, outputTokens: 10 } });
    expect((await call(wellPriced, caller.key)).json()).toMatchObject({ code: 'model_cost_not_covered' });
    await addCredit(creator.id, 5);
    const paid = await call(wellPriced, caller.key);
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await balances(caller.token)).credits_cents).toBe(50);
    expect((await balances(creator.token)).credits_cents).toBe(5);
    await expectLedgerBalanced(ctx.database.db);
  });

  it('with credit for exactly K worst cases, 4·K concurrent calls give K answers and never overdraw the creator', async () => {
    const creator = await newUser();
    const caller = await newUser();
    await addCredit(caller.id, 1_000);
    // max_tokens 1,000 on gpt-4-turbo: a worst case of about 3.1 cents, so each call reserves 4 cents of the creator's credit (issue 60 item 8).
    const slug = await liveApp(creator.token, {}, { max_tokens: 1000 });
    await addCredit(creator.id, 12);
    upstream.setBehaviour({ text: 'long', delayMs: 20, usage: { inputTokens: 50, outputTokens: 1000 } });
    const responses = await Promise.all(Array.from({ length: 12 }, () => call(slug, caller.key)));
    const answered = responses.filter((response) => response.statusCode === 200).length;
    // A settled call gives back what its price covered (1 cent), which may let a late fourth in.
    expect(answered).toBeGreaterThanOrEqual(3);
    expect(answered).toBeLessThanOrEqual(4);
    for (const response of responses.filter((r) => r.statusCode !== 200)) expect(response.json().code).toBe('model_cost_not_covered');
    const creatorAfter = await balances(creator.token);
    expect(creatorAfter.credits_cents).toBeGreaterThanOrEqual(0);
    await expectLedgerBalanced(ctx.database.db);
  });
});

describe('test runs and model choice', () => {
  it('test runs are rate-limited like calls, and a model without a known price cannot be picked', async () => {
    const limited = await createTestContext({
      OPENAI_BASE_URL: upstream.baseUrl,
      OPENAI_API_KEY: TEST_MODEL_API_KEY,
      RATE_LIMIT_PER_MINUTE: '3',
      MODEL_TABLE: '{"mixtral": {"provider": "openai", "upstreamModel": "our-own-mixtral-build"}}',
    });
    try {
      const token = await limited.tokenFor('test-runner');
      const created = await limited.api('POST', '/api/app/', token, { name: 'Unpriced', type: 'prompt' });
      const picked = await limited.api('PATCH', `/api/app/${created.json().slug}/prompt/`, token, { model: 'mixtral' });
      expect(picked.statusCode).toBe(400);
      expect(picked.json()).toMatchObject({ code: 'invalid_param', params: 'model' });
      expect(picked.json().message).toMatch(/mixtral has no known price/);
      const run = () =>
        limited.api('POST', '/api/prompt/test-config/', token, {
          prompt_template: 'Say {{x}}',
          test_inputs: { x: 'hi' },
          run: true,
          model: 'gpt-4-turbo',
          max_tokens: 50,
        });
      // The limiter's windows are clock minutes: a minute's turn between the runs starts a new one,
      // so the refusal comes after 3 runs, or after at most 6 when the runs straddle a turn.
      let answered = 0;
      let refused: Awaited<ReturnType<typeof run>> | null = null;
      while (refused === null && answered < 7) {
        const response = await run();
        if (response.statusCode === 429) refused = response;
        else {
          expect(response.statusCode, response.body).toBe(200);
          answered++;
        }
      }
      expect(answered).toBeGreaterThanOrEqual(3);
      expect(answered).toBeLessThanOrEqual(6);
      expect(refused?.json().code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});
