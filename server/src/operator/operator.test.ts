// The operator's view: only a signed-in account whose *verified* email ADMIN_EMAILS lists (any
// case) may read it; everyone else, signed in or not, gets the 404 of a route that does not exist,
// before anything else is checked. Figures are exact on rows seeded straight into the rollups of
// migration 0019 (platform_daily_model_stats, app_daily_stats, test_runs): periods in UTC days,
// zero-filled series, net = paid − fee − model cost in micro-dollars, the top accounts counting
// their test runs, deleted apps included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { awayFromMidnight, DAY_MS, isoDay, todayStart } from '../test-support/utc-days.ts';

let ctx: TestContext;
let bossToken: string;
let unverifiedBossToken: string;
let creatorToken: string;
let otherToken: string;

const get = (url: string, token: string | null) => ctx.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function userId(token: string): Promise<string> {
  const response = await get('/api/auth/profile/', token);
  expect(response.statusCode).toBe(200);
  return response.json().user.id;
}

async function createApp(token: string, name: string): Promise<{ id: string; slug: string }> {
  const response = await ctx.api('POST', '/api/app/', token, { name, type: 'prompt', price_cents: 2 });
  expect(response.statusCode).toBe(201);
  return response.json();
}

let creatorId: string;
let otherId: string;
let cheap: { id: string; slug: string };
let costly: { id: string; slug: string };
let gone: { id: string; slug: string };

beforeAll(async () => {
  await awayFromMidnight();

  ctx = await createTestContext({ ADMIN_EMAILS: ' Boss@Example.com ,ops@example.com' });
  bossToken = await ctx.tokenFor('boss', { email: 'boss@example.COM', email_verified: true });
  unverifiedBossToken = await ctx.tokenFor('boss-impostor', { email: 'boss@example.com', email_verified: false });
  creatorToken = await ctx.tokenFor('creator', { email: 'creator@example.com', email_verified: true, name: 'Cara Creator' });
  otherToken = await ctx.tokenFor('other', { email: 'other@example.com', email_verified: true });
  creatorId = await userId(creatorToken);
  otherId = await userId(otherToken);

  cheap = await createApp(creatorToken, 'Cheap Summary');
  costly = await createApp(creatorToken, 'Costly Essay');
  gone = await createApp(otherToken, 'Gone Translator');
  expect((await ctx.app.inject({ method: 'DELETE', url: `/api/app/${gone.slug}/`, headers: { authorization: `Bearer ${otherToken}` } })).statusCode).toBe(204);

  const db = ctx.database.db;
  // The platform's rollup: today two models, 3 days ago one, 40 days ago one (in 90 days only).
  for (const [ago, provider, model, calls, testRuns, paid, fee, micros] of [
    [0, 'openai', 'gpt-4-turbo', 1000, 4, 1000, 100, 48_000_000],
    [0, 'anthropic', 'claude-3-haiku', 10, 0, 50, 5, 12_345],
    [3, 'openai', 'gpt-4-turbo', 5, 1, 10, 1, 250_001],
    [40, 'gemini', 'gemini-pro', 7, 0, 70, 7, 9_999],
  ] as const) {
    await db.query(
      `INSERT INTO platform_daily_model_stats (day, provider, model, calls, test_runs, paid_cents, fee_cents, model_cost_micros)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [isoDay(ago), provider, model, calls, testRuns, paid, fee, micros],
    );
  }
  // Per app: the costly app loses money, the cheap one earns; the deleted app's day 40 is outside 30
  // days. Two more calls a day were refused (not answered): they are not counted as calls.
  for (const [app, ago, calls, paid, fee, micros] of [
    [costly.id, 0, 1000, 1000, 100, 48_000_000],
    [costly.id, 3, 5, 10, 1, 250_001],
    [cheap.id, 0, 10, 50, 5, 12_345],
    [gone.id, 1, 3, 30, 3, 3_000_000],
    [gone.id, 40, 7, 70, 7, 9_999],
  ] as const) {
    await db.query(
      `INSERT INTO app_daily_stats (app_id, day, invocations, successes, revenue_cents, fee_cents, model_cost_micros) VALUES ($1, $2, $3::bigint + 2, $3, $4, $5, $6)`,
      [app, isoDay(ago), calls, paid, fee, micros],
    );
  }
  // Test runs: the other account's today, and one 40 days ago (outside 30 days); the creator's today.
  const run = (user: string, micros: number, ago: number) =>
    db.query(
      `INSERT INTO test_runs (user_id, app_id, model, provider, status, model_cost_micros, created_at)
       VALUES ($1, NULL, 'gpt-4-turbo', 'openai', 'success', $2, $3)`,
      [user, micros, new Date(todayStart() - ago * DAY_MS + 3_600_000)],
    );
  // Subscriptions paid in other currencies (decision 0035): in their own minor units, kept apart.
  for (const [app, ago, currency, amount] of [
    [costly.id, 0, 'vnd', 100_000],
    [cheap.id, 2, 'vnd', 50_000],
    [cheap.id, 0, 'jpy', 1500],
    [costly.id, 40, 'jpy', 9],
  ] as const) {
    await db.query('INSERT INTO app_daily_currency_revenue (app_id, day, currency, revenue_minor) VALUES ($1, $2, $3, $4)', [
      app,
      isoDay(ago),
      currency,
      amount,
    ]);
  }
  await run(otherId, 60_000_000, 0);
  await run(otherId, 1, 40);
  await run(creatorId, 7, 0);
}, 180_000);

afterAll(async () => {
  await ctx?.close();
});

describe('who sees the operator view', () => {
  const urls = ['/api/operator/access/', '/api/operator/overview/?days=30', '/api/operator/top-costs/?days=7'];

  it('answers an operator whose verified email is listed, whatever its case', async () => {
    const response = await get('/api/operator/access/', bossToken);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ operator: true, email: 'boss@example.com' });
    for (const url of urls) expect((await get(url, bossToken)).statusCode).toBe(200);
  });

  it('is a 404 like an unknown route for everyone else: unverified email, unlisted, anonymous, bad token, API key', async () => {
    const key = await ctx.api('POST', '/api/keys/', bossToken, { name: 'ops' });
    expect(key.statusCode).toBe(201);
    const apiKey: string = key.json().key;
    for (const token of [unverifiedBossToken, creatorToken, otherToken, null, 'not-a-token', apiKey]) {
      for (const url of urls) {
        const response = await get(url, token);
        expect(response.statusCode, `${url} with ${token?.slice(0, 8)}`).toBe(404);
        expect(response.json()).toMatchObject({ code: 'not_found', message: `Route GET ${url.split('?')[0]} not found` });
      }
      // Even a bad period is not looked at: nothing tells them the route exists.
      expect((await get('/api/operator/overview/?days=5', token)).statusCode).toBe(404);
    }
    const unknown = await get('/api/operator/nothing-here/', creatorToken);
    expect(unknown.statusCode).toBe(404);
  });

  it('checks the period for the operator', async () => {
    const response = await get('/api/operator/overview/?days=5', bossToken);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('invalid_param');
  });

  it('reads ADMIN_EMAILS comma-separated and lower-cased, and refuses what is not an address', () => {
    const base = { DATA_DIR: '/tmp', SECRET_KEY: 'a'.repeat(64) };
    expect(loadConfig({ ...base, ADMIN_EMAILS: 'A@B.com, ,c@d.org,a@b.COM' }).adminEmails).toEqual(['a@b.com', 'c@d.org']);
    expect(loadConfig(base).adminEmails).toEqual([]);
    expect(() => loadConfig({ ...base, ADMIN_EMAILS: 'ops@example.com,nobody' })).toThrow(
      /ADMIN_EMAILS must be comma-separated email addresses \(not "nobody"\)/,
    );
  });
});

describe('the figures', () => {
  it('totals, days, providers and models over 30 days: net = paid − fee − model cost, exactly', async () => {
    const response = await get('/api/operator/overview/?days=30', bossToken);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.totals).toEqual({
      calls: 1015,
      test_runs: 5,
      paid_cents: 1060,
      fee_cents: 106,
      model_cost_micros: 48_262_346,
      creators_net_micros: (1060 - 106) * 10_000 - 48_262_346,
    });
    // Other currencies: per currency over the period, never converted or added to the dollar figures.
    expect(body.other_currency_revenue).toEqual([
      { currency: 'jpy', amount_minor: 1500 },
      { currency: 'vnd', amount_minor: 150_000 },
    ]);
    expect(body.daily).toHaveLength(30);
    expect(body.daily[0].date).toBe(isoDay(29));
    expect(body.daily[29]).toEqual({
      date: isoDay(0),
      calls: 1010,
      test_runs: 4,
      paid_cents: 1050,
      fee_cents: 105,
      model_cost_micros: 48_012_345,
      creators_net_micros: 945 * 10_000 - 48_012_345,
    });
    expect(body.daily[26]).toMatchObject({ date: isoDay(3), calls: 5, model_cost_micros: 250_001, creators_net_micros: 9 * 10_000 - 250_001 });
    expect(body.daily[28]).toMatchObject({ date: isoDay(1), calls: 0, paid_cents: 0, model_cost_micros: 0, creators_net_micros: 0 });
    expect(body.by_provider.map((row: { provider: string; model_cost_micros: number }) => [row.provider, row.model_cost_micros])).toEqual([
      ['openai', 48_250_001],
      ['anthropic', 12_345],
    ]);
    expect(body.by_model[0]).toEqual({
      provider: 'openai',
      model: 'gpt-4-turbo',
      calls: 1005,
      test_runs: 5,
      paid_cents: 1010,
      fee_cents: 101,
      model_cost_micros: 48_250_001,
      creators_net_micros: 909 * 10_000 - 48_250_001,
    });
  });

  it('90 days reach the older day; 7 days do not', async () => {
    const ninety = (await get('/api/operator/overview/?days=90', bossToken)).json();
    expect(ninety.daily).toHaveLength(90);
    expect(ninety.totals.model_cost_micros).toBe(48_262_346 + 9_999);
    expect(ninety.by_provider.map((row: { provider: string }) => row.provider)).toEqual(['openai', 'anthropic', 'gemini']);
    const seven = (await get('/api/operator/overview/?days=7', bossToken)).json();
    expect(seven.totals.model_cost_micros).toBe(48_262_346);
  });

  it('the accounts and apps that cost the most, test runs and deleted apps included', async () => {
    const body = (await get('/api/operator/top-costs/?days=30', bossToken)).json();
    expect(body.accounts).toEqual([
      {
        user_id: otherId,
        email: 'other@example.com',
        display_name: expect.any(String),
        apps: 1,
        calls: 3,
        test_runs: 1,
        paid_cents: 30,
        fee_cents: 3,
        model_cost_micros: 63_000_000,
        creators_net_micros: 27 * 10_000 - 63_000_000,
      },
      {
        user_id: creatorId,
        email: 'creator@example.com',
        display_name: 'Cara Creator',
        apps: 2,
        calls: 1015,
        test_runs: 1,
        paid_cents: 1060,
        fee_cents: 106,
        model_cost_micros: 48_262_353,
        creators_net_micros: 954 * 10_000 - 48_262_353,
      },
    ]);
    expect(body.apps.map((row: { slug: string; model_cost_micros: number; deleted: boolean }) => [row.slug, row.model_cost_micros, row.deleted])).toEqual([
      [costly.slug, 48_250_001, false],
      [gone.slug, 3_000_000, true],
      [cheap.slug, 12_345, false],
    ]);
    expect(body.apps[0]).toMatchObject({
      name: 'Costly Essay',
      owner_email: 'creator@example.com',
      calls: 1005,
      paid_cents: 1010,
      price_cents: 2,
      status: 'draft',
    });
  });
});
