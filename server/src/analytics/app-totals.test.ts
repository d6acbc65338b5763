// The dashboard's and the catalog's rollups of the rollups (migration 0060, decision 0135): the
// owner-by-day totals and each app's running totals with the part before each period. Their answers
// must be those of the old computation (summing app_daily_stats per app and per day), which is what
// the reads fall back to while an app's totals are not rolled to today: so each answer is read twice,
// once from fresh totals and once with every app's totals made stale, and must not change; and the
// totals must equal app_daily_stats after calls in any day, settled calls, deletions and rolls forward,
// some of them concurrent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInvocation } from '../billing/paid-call/queries.ts';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';
import { expectOwnerAndAppTotalsToMatchDailyStats, expectRollupsToMatchInvocations } from '../test-support/rollup-checks.ts';
import { seededRandom as random, ANALYTICS_SEED as SEED } from '../test-support/seeded-random.ts';
import { rollAppTotals } from './queries.ts';
import { rollAllAppTotals } from './service.ts';

let ctx: PaidTestContext;

// Calls are answered by the OpenAI-compatible fake (ctx.model).
beforeAll(async () => {
  ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(() => ctx?.close());

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string | null, payload?: object) =>
  ctx.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload } : {}) });

const DAY_MS = 86_400_000;

describe('owner-by-day and per-app running totals', () => {
  const apps: { id: string; slug: string; owner: number }[] = [];
  const tokens: string[] = [];
  let next: () => number;

  const randomCall = (daysBack: number, daysAhead = 0) => {
    const failed = next() < 0.3;
    const app = apps[Math.floor(next() * apps.length)]!;
    const day = Math.floor(Date.now() / DAY_MS) - Math.floor(next() * daysBack) + Math.floor(next() * (daysAhead + 1));
    return recordInvocation(ctx.database.db, {
      appId: app.id,
      callerId: null,
      apiKeyId: null,
      endUser: `user-${Math.floor(next() * 5)}`,
      mode: 'completion',
      status: failed ? 'error' : 'success',
      errorType: failed ? (next() < 0.5 ? 'provider_error' : 'invalid_param') : '',
      latencyMs: next() * 3000,
      inputTokens: 10,
      outputTokens: 20,
      priceCents: failed ? 0 : 3,
      conversationId: null,
      // Often the first or last millisecond of a UTC day, where periods begin and end.
      createdAt: new Date(day * DAY_MS + (next() < 0.3 ? (next() < 0.5 ? 0 : DAY_MS - 1) : Math.floor(next() * DAY_MS))),
    });
  };

  /** Every dashboard and the popular catalog, read from fresh totals and again from stale ones (the old computation): both must agree. */
  async function expectFastReadsToEqualTheOldComputation(label: string) {
    const read = async () => {
      const answers: unknown[] = [];
      for (const token of tokens) for (const days of [7, 30, 90]) answers.push((await api('GET', `/api/analytics/dashboard/?days=${days}`, token)).json());
      const catalog = await api('GET', '/api/catalog/?sort=popular&limit=50', null);
      expect(catalog.statusCode, catalog.body).toBe(200);
      answers.push(catalog.json());
      return answers;
    };
    const { rows } = await ctx.database.db.query<{ stale: number }>(
      "SELECT count(*)::int AS stale FROM app_totals WHERE as_of <> (now() AT TIME ZONE 'UTC')::date",
    );
    expect(rows[0]!.stale, `${label}: totals rolled to today`).toBe(0);
    const fresh = await read();
    // Stale totals: every read sums the apps' days, as before migration 0060.
    await ctx.database.db.query('UPDATE app_totals SET as_of = as_of - 1000');
    const old = await read();
    await ctx.database.db.query('UPDATE app_totals SET as_of = as_of + 1000');
    expect(fresh, label).toEqual(old);
    return fresh;
  }

  beforeAll(async () => {
    console.info(`app totals test seed: ${SEED}`);
    next = random(SEED);
    tokens.push(await ctx.tokenFor('totals-owner-1'), await ctx.tokenFor('totals-owner-2'));
    for (let i = 0; i < 6; i++) {
      const owner = i % 2;
      const created = await api('POST', '/api/app/', tokens[owner]!, { name: `Totals ${i}`, type: 'prompt', visibility: 'public' });
      expect(created.statusCode, created.body).toBe(201);
      const slug = created.json().slug as string;
      expect((await api('PATCH', `/api/app/${slug}/update_status/`, tokens[owner]!, { status: 'live' })).statusCode).toBe(200);
      apps.push({ id: created.json().id, slug, owner });
    }
  });

  it('answer as the old computation did, after calls in any day, settled calls and a deletion', async () => {
    for (let i = 0; i < 120; i++) await randomCall(120);
    for (let batch = 0; batch < 6; batch++) await Promise.all(Array.from({ length: 8 }, () => randomCall(120)));
    await expectRollupsToMatchInvocations(ctx.database.db);
    const before = await expectFastReadsToEqualTheOldComputation('recorded calls');
    // Each period's figures differ (the calls are spread over 120 days), so the comparison means something.
    const invocations = (answer: unknown) => (answer as { overview: { total_invocations: number } }).overview.total_invocations;
    expect(invocations(before[0])).toBeLessThan(invocations(before[1]));
    expect(invocations(before[1])).toBeLessThan(invocations(before[2]));
    const popular = (before.at(-1) as { results: { slug: string; calls_30d: number }[] }).results;
    expect(popular.some((item) => item.calls_30d > 0)).toBe(true);

    // Calls answered by the gateway and settled: a paying consumer's, the owner's own, a failure.
    const consumer = await ctx.tokenFor('totals-consumer');
    const key = (await api('POST', '/api/keys/', consumer, { name: 'totals' })).json().key as string;
    const call = (token: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/api/app/${apps[0]!.slug}/completion-messages`,
        headers: { authorization: `Bearer ${token}` },
        payload: { inputs: { query: 'hi' }, response_mode: 'blocking', user: 'settled-user' },
      });
    for (let i = 0; i < 3; i++) expect((await call(key)).statusCode).toBe(200);
    expect((await call(tokens[0]!)).statusCode).toBe(200);
    ctx.model.setBehaviour({ status: 500 });
    expect((await call(key)).statusCode).toBe(502);
    ctx.model.resetBehaviour();
    await expectRollupsToMatchInvocations(ctx.database.db);
    const after = await expectFastReadsToEqualTheOldComputation('settled calls');
    expect(invocations(after[0])).toBe(invocations(before[0]) + 5);

    // A deleted app leaves its owner's days; restored (in the database), it comes back.
    expect((await api('DELETE', `/api/app/${apps[2]!.slug}/`, tokens[0]!)).statusCode).toBe(204);
    await expectRollupsToMatchInvocations(ctx.database.db);
    await expectFastReadsToEqualTheOldComputation('a deleted app');
    await ctx.database.db.query('UPDATE apps SET deleted_at = NULL WHERE id = $1', [apps[2]!.id]);
    await expectRollupsToMatchInvocations(ctx.database.db);
    await expectFastReadsToEqualTheOldComputation('a restored app');
    // Nothing is behind today, so a roll moves nothing.
    expect(await rollAllAppTotals(ctx.database.db)).toBe(0);
  });

  it('roll forward day by day or many days at once, while calls are recorded, and keep equal to the daily rollups', async () => {
    const today = Math.floor(Date.now() / DAY_MS);
    const iso = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
    // The days to come, one at a time and in jumps past each period's length, with calls recorded
    // meanwhile in the past and in the days rolled to (concurrently with the roll on PostgreSQL).
    let ahead = 0;
    for (const step of [1, 1, 6, 1, 29, 3, 95, 2]) {
      ahead += step;
      await Promise.all([
        rollAppTotals(ctx.database.db, 2, iso(today + ahead)).then(() => rollAppTotals(ctx.database.db, 1000, iso(today + ahead))),
        ...Array.from({ length: 6 }, () => randomCall(150, ahead)),
      ]);
      await expectOwnerAndAppTotalsToMatchDailyStats(ctx.database.db);
      const { rows } = await ctx.database.db.query<{ behind: number }>('SELECT count(*)::int AS behind FROM app_totals WHERE as_of < $1::date', [
        iso(today + ahead),
      ]);
      expect(rows[0]!.behind, `rolled to today + ${ahead}`).toBe(0);
    }
    await expectRollupsToMatchInvocations(ctx.database.db);
  });
});
