// The rollups the dashboards read must equal a full recomputation from the invocations, whatever
// the mix of calls: a seeded random series of successful, failed and rejected calls recorded
// through recordInvocation (some concurrently), plus real calls through the gateway. Rejected
// calls (the caller's mistakes) are counted apart and stay out of success rates and response times.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInvocation } from '../billing/paid-call/queries.ts';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';
import { expectRollupsToMatchInvocations as expectRollupsToMatch } from '../test-support/rollup-checks.ts';
import { seededRandom as random, ANALYTICS_SEED as SEED } from '../test-support/seeded-random.ts';

let ctx: PaidTestContext;

// Calls are answered by the OpenAI-compatible fake (ctx.model).
beforeAll(async () => {
  ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(() => ctx?.close());

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

const DAY = "(i.created_at AT TIME ZONE 'UTC')::date";

const expectRollupsToMatchInvocations = () => expectRollupsToMatch(ctx.database.db);

/** The dashboard recomputed from the invocations of the owner's live apps, for a period ending today. */
async function dashboardFromInvocations(ownerId: string, days: number) {
  const { rows } = await ctx.database.db.query<{ invocations: number; successes: number; failed: number; rejected: number; users: number }>(
    `SELECT count(*)::int AS invocations, count(*) FILTER (WHERE i.status = 'success')::int AS successes,
            count(*) FILTER (WHERE i.outcome = 'failed')::int AS failed, count(*) FILTER (WHERE i.outcome = 'rejected')::int AS rejected,
            count(DISTINCT nullif(i.end_user, ''))::int AS users
     FROM invocations i JOIN apps a ON a.id = i.app_id
     WHERE a.owner_id = $1 AND a.deleted_at IS NULL AND ${DAY} > (now() AT TIME ZONE 'UTC')::date - $2::int`,
    [ownerId, days],
  );
  const groups = (outcome: string) =>
    ctx.database.db.query<{ error_type: string; count: number }>(
      `SELECT i.error_type, count(*)::int AS count FROM invocations i JOIN apps a ON a.id = i.app_id
       WHERE a.owner_id = $1 AND a.deleted_at IS NULL AND i.outcome = $3 AND ${DAY} > (now() AT TIME ZONE 'UTC')::date - $2::int
       GROUP BY 1 ORDER BY 2 DESC, 1`,
      [ownerId, days, outcome],
    );
  return { ...rows[0]!, errors: (await groups('failed')).rows, rejections: (await groups('rejected')).rows };
}

describe('rollups', () => {
  it('equal a full recomputation after a random series of calls (replay with ANALYTICS_SEED)', async () => {
    console.info(`rollups test seed: ${SEED}`);
    const next = random(SEED);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
    const ownerTokens = [await ctx.tokenFor('rollup-owner-1'), await ctx.tokenFor('rollup-owner-2')];
    const apps: { id: string; slug: string; owner: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const owner = i % 2;
      const created = await api('POST', '/api/app/', ownerTokens[owner]!, { name: `Rollup ${i}`, type: 'prompt', visibility: 'public' });
      expect(created.statusCode).toBe(201);
      apps.push({ ...created.json(), owner });
    }
    const users = ['', 'alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
    // Failed (the app's fault) and rejected (the caller's mistake) types.
    const errorTypes = [
      '',
      'provider_error',
      'provider_timeout',
      'output_schema_mismatch',
      'invalid_param',
      'rate_limited',
      'unauthorized',
      'client_disconnected',
    ];
    const now = Date.now();

    const randomCall = () => {
      const failed = next() < 0.3;
      return recordInvocation(ctx.database.db, {
        appId: pick(apps).id,
        callerId: null,
        apiKeyId: null,
        endUser: pick(users),
        mode: pick(['completion', 'chat'] as const),
        status: failed ? 'error' : 'success',
        errorType: failed ? pick(errorTypes) : '',
        latencyMs: next() * 5000,
        inputTokens: failed ? 0 : Math.floor(next() * 2000),
        outputTokens: failed ? 0 : Math.floor(next() * 1000),
        priceCents: failed ? 0 : Math.floor(next() * 500),
        conversationId: null,
        // Anywhere in the last 120 days, often near a UTC midnight.
        createdAt: new Date(next() < 0.2 ? Math.floor(now / 86_400_000 - next() * 120) * 86_400_000 - Math.floor(next() * 3) : now - next() * 120 * 86_400_000),
      });
    };
    for (let i = 0; i < 150; i++) await randomCall();
    // Concurrent recording: the upserts must not lose an increment.
    for (let batch = 0; batch < 15; batch++) await Promise.all(Array.from({ length: 10 }, randomCall));

    // Real calls through the gateway: the owner's own (free), a paying consumer's, and failures.
    const [first] = apps;
    await api('PATCH', `/api/app/${first!.slug}/update_status/`, ownerTokens[0]!, { status: 'live' });
    const consumerToken = await ctx.tokenFor('rollup-consumer');
    const key = (await api('POST', '/api/keys/', consumerToken, { name: 'rollups' })).json().key as string;
    const gatewayCall = (token: string, inputs: object, user?: string) =>
      ctx.api('POST', `/api/app/${first!.slug}/completion-messages`, token, { inputs, response_mode: 'blocking', ...(user ? { user } : {}) });
    expect((await gatewayCall(ownerTokens[0]!, { query: 'hi' })).statusCode).toBe(200);
    expect((await gatewayCall(key, { query: 'hi' }, 'gateway-user')).statusCode).toBe(200);
    expect((await gatewayCall(key, {}, 'gateway-user')).statusCode).toBe(400);
    expect((await gatewayCall('tb_not-a-key', { query: 'hi' }, 'gateway-user')).statusCode).toBe(401);
    ctx.model.setBehaviour({ status: 500 });
    expect((await gatewayCall(key, { query: 'hi' }, 'alice')).statusCode).toBe(502);
    ctx.model.resetBehaviour();

    await expectRollupsToMatchInvocations();

    // A deleted app drops out of its owner's dashboard, which still equals the recomputation;
    // restoring it (not offered by the API, but possible in the database) brings it back.
    expect((await api('DELETE', `/api/app/${apps[2]!.slug}/`, ownerTokens[0]!)).statusCode).toBe(204);
    await expectRollupsToMatchInvocations();
    await ctx.database.db.query('UPDATE apps SET deleted_at = NULL WHERE id = $1', [apps[2]!.id]);
    await expectRollupsToMatchInvocations();
    await ctx.database.db.query('UPDATE apps SET deleted_at = now() WHERE id = $1', [apps[2]!.id]);
    await expectRollupsToMatchInvocations();
    for (const [index, token] of ownerTokens.entries()) {
      const { rows } = await ctx.database.db.query<{ owner_id: string }>('SELECT owner_id FROM apps WHERE id = $1', [apps[index]!.id]);
      for (const days of [7, 30, 90]) {
        const expected = await dashboardFromInvocations(rows[0]!.owner_id, days);
        const body = (await api('GET', `/api/analytics/dashboard/?days=${days}`, token)).json();
        expect(body.overview, `owner ${index + 1}, ${days} days`).toEqual({
          total_applications: 2,
          total_invocations: expected.invocations,
          total_users: expected.users,
          success_rate: expected.successes + expected.failed ? Math.round((expected.successes * 10_000) / (expected.successes + expected.failed)) / 100 : 0,
          rejected_count: expected.rejected,
        });
        expect(body.errors).toEqual(expected.errors);
        expect(body.rejections).toEqual(expected.rejections);
        const fromSeries = body.time_series.data.reduce((sum: number, day: { invocations: number }) => sum + day.invocations, 0);
        expect(fromSeries).toBe(expected.invocations);
        const perApp = await ctx.database.db.query<{
          slug: string;
          invocations: number;
          successes: number;
          answered: number;
          rejected: number;
          latency: number;
        }>(
          `SELECT a.slug, count(i.id)::int AS invocations, count(i.id) FILTER (WHERE i.status = 'success')::int AS successes,
                  count(i.id) FILTER (WHERE i.outcome IN ('success', 'failed'))::int AS answered, count(i.id) FILTER (WHERE i.outcome = 'rejected')::int AS rejected,
                  coalesce(sum(i.latency_ms) FILTER (WHERE i.outcome <> 'rejected'), 0)::bigint AS latency
           FROM apps a LEFT JOIN invocations i ON i.app_id = a.id AND ${DAY} > (now() AT TIME ZONE 'UTC')::date - $2::int
           WHERE a.owner_id = $1 AND a.deleted_at IS NULL GROUP BY a.slug`,
          [rows[0]!.owner_id, days],
        );
        expect(
          body.applications
            .map((app: { application_slug: string; invocations: number; success_rate: number; rejected_count: number; avg_response_time: number }) => [
              app.application_slug,
              app.invocations,
              app.success_rate,
              app.rejected_count,
              app.avg_response_time,
            ])
            .sort(),
        ).toEqual(
          perApp.rows
            .map((app) => [
              app.slug,
              app.invocations,
              app.answered ? Math.round((app.successes * 10_000) / app.answered) / 100 : 0,
              app.rejected,
              app.answered ? Math.round(app.latency / app.answered) / 1000 : 0,
            ])
            .sort(),
        );
      }
    }
  });
});
