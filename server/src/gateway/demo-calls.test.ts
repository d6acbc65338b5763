// Calls answered by the built-in demo model are never charged: recorded with price 0 and marked
// demo, said so in the answer's metadata, and listed in /api/config so the app page and the builder
// can tell the creator before publishing. The same app on a configured provider is charged.
import { afterAll, describe, expect, it } from 'vitest';
import { createModelRouter, DEFAULT_MODEL_TABLE, KNOWN_MODELS } from '../providers/registry.ts';
import { createPaidTestContext } from '../test-support/app.ts';

const PRICE = 25;
const ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
const ownerToken = await ctx.tokenFor('demo-owner');
const { api } = ctx;
afterAll(() => ctx.close());

let counter = 0;
/** A live public prompt app at PRICE cents answered by `model`. */
async function liveApp(model: string) {
  const created = await api('POST', '/api/app/', ownerToken, { name: `Demo ${++counter}`, type: 'prompt', visibility: 'public', price_cents: PRICE });
  expect(created.statusCode).toBe(201);
  const slug = created.json().slug as string;
  expect((await api('PATCH', `/api/app/${slug}/prompt/`, ownerToken, { model })).statusCode).toBe(200);
  expect((await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: 'live' })).statusCode).toBe(200);
  return slug;
}

const balances = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json() as { credits_cents: number; earnings_cents: number };
const invocationsOf = async (slug: string) =>
  (
    await ctx.database.db.query<{ status: string; price_cents: number; demo: boolean }>(
      'SELECT i.status, i.price_cents::int AS price_cents, i.demo FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 ORDER BY i.created_at',
      [slug],
    )
  ).rows;
const chargesOf = async (slug: string) =>
  (
    await ctx.database.db.query<{ count: number }>("SELECT count(*)::int AS count FROM ledger_transactions WHERE kind = 'call_charge' AND description = $1", [
      `Call to ${slug}`,
    ])
  ).rows[0]!.count;

describe('a call the demo model answers', () => {
  it('is not charged, is recorded with price 0 and marked demo, and says so in its metadata (blocking and streaming)', async () => {
    // No Anthropic key is configured: claude-3-haiku is answered by the demo model.
    const slug = await liveApp('claude-3-haiku');
    const caller = await ctx.tokenFor('demo-caller');
    const ownerBefore = await balances(ownerToken);

    const blocking = await api('POST', `/api/app/${slug}/completion-messages`, caller, { inputs: { query: 'owls' }, response_mode: 'blocking' });
    expect(blocking.statusCode).toBe(200);
    const answer = blocking.json();
    expect(answer.answer).toContain('demo answer');
    expect(answer.metadata.demo).toBe(true);
    expect(answer.metadata.demo_notice).toContain('built-in demo model');
    expect(answer.metadata.demo_notice).toContain('claude-3-haiku');
    expect(answer.metadata.demo_notice).toContain('not charged');
    expect(answer.metadata.demo_notice).toContain('ANTHROPIC_API_KEY');

    const streamed = await api('POST', `/api/app/${slug}/completion-messages`, caller, { inputs: { query: 'owls' }, response_mode: 'streaming' });
    expect(streamed.statusCode).toBe(200);
    const events = streamed.body
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)));
    const end = events.find((event) => event.event === 'message_end');
    expect(end.metadata).toMatchObject({ demo: true, demo_notice: expect.stringContaining('not charged') });

    // A price cap of 0 lets a demo call through: it costs nothing.
    const capped = await api('POST', `/api/app/${slug}/completion-messages`, caller, { inputs: { query: 'owls' } }, { 'x-max-price-cents': '0' });
    expect(capped.statusCode).toBe(200);

    expect(await balances(caller)).toMatchObject({ credits_cents: 500 });
    expect((await balances(ownerToken)).earnings_cents).toBe(ownerBefore.earnings_cents);
    expect(await chargesOf(slug)).toBe(0);
    expect(await invocationsOf(slug)).toEqual([
      { status: 'success', price_cents: 0, demo: true },
      { status: 'success', price_cents: 0, demo: true },
      { status: 'success', price_cents: 0, demo: true },
    ]);
    // The app earned nothing: its revenue is what its calls were charged.
    const usage = (await api('GET', `/api/app/${slug}/analytics/usage/?days=7`, ownerToken)).json();
    expect(usage).toMatchObject({ total_invocations: 3, total_revenue_cents: 0 });
  });

  it('the same app answered by a configured provider is charged, and its answer carries no demo mark', async () => {
    const slug = await liveApp('gpt-4');
    const caller = await ctx.tokenFor('real-caller');
    const ownerBefore = await balances(ownerToken);
    const response = await api('POST', `/api/app/${slug}/completion-messages`, caller, { inputs: { query: 'owls' } });
    expect(response.statusCode).toBe(200);
    expect(response.json().answer).toBe('Hello from the fake model.');
    expect(response.json().metadata).not.toHaveProperty('demo');
    expect(response.json().metadata).not.toHaveProperty('demo_notice');
    expect(await balances(caller)).toMatchObject({ credits_cents: 500 - PRICE });
    // The real model's answer cost the operator: the creator earns the price less that model cost
    // (the owner's first model cost, so the cents posted are its micro-dollars rounded up).
    const [cost] = (
      await ctx.database.db.query<{ micros: number }>(
        'SELECT model_cost_micros::int AS micros FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1',
        [slug],
      )
    ).rows;
    expect(cost!.micros).toBeGreaterThan(0);
    expect((await balances(ownerToken)).earnings_cents).toBe(ownerBefore.earnings_cents + PRICE - Math.ceil(cost!.micros / 10_000));
    expect(await invocationsOf(slug)).toEqual([{ status: 'success', price_cents: PRICE, demo: false }]);
    expect(await chargesOf(slug)).toBe(1);
  });

  it('a caller without credits may still call a demo app: nothing is reserved', async () => {
    const slug = await liveApp('gemini-pro');
    const caller = await ctx.tokenFor('broke-caller');
    expect((await balances(caller)).credits_cents).toBe(500);
    const account = await ctx.database.db.query<{ id: string }>(
      "SELECT a.id FROM ledger_accounts a JOIN users u ON u.id = a.user_id WHERE a.kind = 'user_credits' AND u.subject = $1",
      ['broke-caller'],
    );
    expect(account.rows).toHaveLength(1);
    await ctx.database.db.query('UPDATE ledger_accounts SET held_cents = balance_cents WHERE id = $1', [account.rows[0]!.id]);
    const response = await api('POST', `/api/app/${slug}/completion-messages`, caller, { inputs: { query: 'owls' } });
    expect(response.statusCode).toBe(200);
    expect(response.json().metadata).toMatchObject({ demo: true, demo_notice: expect.stringContaining('GEMINI_API_KEY') });
    // A paid app refuses the same caller.
    const paid = await liveApp('gpt-4');
    expect((await api('POST', `/api/app/${paid}/completion-messages`, caller, { inputs: { query: 'owls' } })).statusCode).toBe(402);
  });
});

describe('GET /api/config', () => {
  it('lists the models the demo model answers, with the provider that would serve them', async () => {
    const config = (await ctx.app.inject({ method: 'GET', url: '/api/config' })).json();
    const names = (config.demo_models as { name: string; provider: string }[]).map((model) => model.name);
    expect(names).toContain('claude-3-haiku');
    expect(names).toContain('gemini-pro');
    // OpenAI models have a (fake) provider here.
    expect(names).not.toContain('gpt-4');
    expect(config.demo_models).toContainEqual({ name: 'claude-3-opus', provider: 'anthropic' });
  });

  it('lists exactly the models whose provider is not configured, and none when the demo model is off', () => {
    const models = { openaiApiKey: null, openaiBaseUrl: 'https://api.openai.com/v1', anthropicApiKey: 'sk-a', geminiApiKey: null, demoModel: true };
    const demo = createModelRouter(models).demoModels();
    expect(demo.map((model) => model.name).sort()).toEqual(KNOWN_MODELS.filter((name) => DEFAULT_MODEL_TABLE[name].provider !== 'anthropic').sort());
    expect(demo).toContainEqual({ name: 'mixtral', provider: 'openai' });
    expect(createModelRouter({ ...models, demoModel: false }).demoModels()).toEqual([]);
  });

  it('offers only the models that answer here, marks the demo ones, and leaves out aliases (issue 25 item 10)', async () => {
    const config = (await ctx.app.inject({ method: 'GET', url: '/api/config' })).json();
    const offered = config.models as { name: string; provider: string; demo: boolean }[];
    const names = offered.map((model) => model.name);
    expect(offered).toContainEqual({ name: 'gpt-4', provider: 'openai', demo: false });
    expect(offered).toContainEqual({ name: 'claude-3-opus', provider: 'anthropic', demo: true });
    // gpt4, claude3 and gemini serve the same upstream models as gpt-4, claude-3-sonnet and gemini-pro.
    for (const alias of ['gpt4', 'claude3', 'gemini']) expect(names).not.toContain(alias);
    expect(new Set(names).size).toBe(names.length);

    // With the demo model off, a model whose provider is not configured is not offered at all.
    const models = { openaiApiKey: null, openaiBaseUrl: 'https://api.openai.com/v1', anthropicApiKey: 'sk-a', geminiApiKey: null, demoModel: false };
    expect(createModelRouter(models).offeredModels()).toEqual([
      { name: 'claude-3-opus', provider: 'anthropic', demo: false },
      { name: 'claude-3-sonnet', provider: 'anthropic', demo: false },
      { name: 'claude-3-haiku', provider: 'anthropic', demo: false },
    ]);
  });
});
