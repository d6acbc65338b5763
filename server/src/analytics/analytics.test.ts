// Exact figures on a small known dataset: zero-filled days, success-rate rounding, unique users
// across days, revenue sums in cents, error grouping, period boundaries in UTC, owner-only access.
// Rejected calls (the caller's mistakes: here a bad key and invalid inputs) count as invocations
// but apart, by type: never in the success rate, the response times or the errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInvocation } from '../billing/paid-call/queries.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { awayFromMidnight, isoDay } from '../test-support/utc-days.ts';

let ctx: TestContext;
let ownerToken: string;
let strangerToken: string;

/** A moment `ago` days before today at the given UTC time of day. */
const at = (ago: number, time: string) => new Date(`${isoDay(ago)}T${time}Z`);

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, token: string | null = ownerToken, payload?: object) =>
  ctx.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload } : {}) });

async function createApp(token: string, body: object): Promise<{ id: string; slug: string }> {
  const response = await call('POST', '/api/app/', token, body);
  expect(response.statusCode).toBe(201);
  return response.json();
}

interface Call {
  ago: number;
  time: string;
  user: string;
  status?: 'success' | 'error';
  errorType?: string;
  latencyMs: number;
  tokens?: [number, number];
  priceCents?: number;
  modelCostMicros?: number;
  feeCents?: number;
}

async function record(appId: string, calls: Call[]) {
  for (const c of calls) {
    await recordInvocation(ctx.database.db, {
      appId,
      callerId: null,
      apiKeyId: null,
      endUser: c.user,
      mode: 'completion',
      status: c.status ?? 'success',
      errorType: c.errorType ?? '',
      latencyMs: c.latencyMs,
      inputTokens: c.tokens?.[0] ?? 0,
      outputTokens: c.tokens?.[1] ?? 0,
      priceCents: c.priceCents ?? 0,
      modelCostMicros: c.modelCostMicros,
      feeCents: c.feeCents,
      conversationId: null,
      createdAt: at(c.ago, c.time),
    });
  }
}

let alpha: { id: string; slug: string };
let beta: { id: string; slug: string };
let theirs: { id: string; slug: string };

beforeAll(async () => {
  // The dataset is laid out relative to today: do not start a few seconds before midnight UTC.
  await awayFromMidnight();

  ctx = await createTestContext();
  ownerToken = await ctx.tokenFor('analytics-owner');
  strangerToken = await ctx.tokenFor('analytics-stranger');

  alpha = await createApp(ownerToken, { name: 'Alpha', type: 'prompt', price_cents: 100 });
  beta = await createApp(ownerToken, { name: 'Beta Flow', type: 'workflow', provider_config: { app_id: 'dify-app', api_key: 'app-secret-1234' } });
  const doomed = await createApp(ownerToken, { name: 'Doomed', type: 'prompt' });
  theirs = await createApp(strangerToken, { name: 'Not Yours', type: 'prompt' });

  await record(alpha.id, [
    // Rejected: the caller's mistakes, counted apart.
    { ago: 0, time: '09:30:00.000', user: '', status: 'error', errorType: 'unauthorized', latencyMs: 5 },
    { ago: 0, time: '10:30:00.000', user: 'u1', status: 'error', errorType: 'invalid_param', latencyMs: 7 },
    { ago: 0, time: '10:00:00.000', user: 'u1', latencyMs: 1000, tokens: [10, 5], priceCents: 100 },
    { ago: 0, time: '11:00:00.000', user: 'u2', latencyMs: 2000, tokens: [20, 10], priceCents: 150 },
    { ago: 0, time: '12:00:00.000', user: 'u1', status: 'error', errorType: 'provider_timeout', latencyMs: 3001 },
    { ago: 1, time: '00:00:00.000', user: 'u3', latencyMs: 500, tokens: [7, 3], priceCents: 100, modelCostMicros: 123_456, feeCents: 10 },
    // First instant of the 7-day period: in; the instant before: out (30 days: in).
    { ago: 6, time: '00:00:00.000', user: 'u1', latencyMs: 100, tokens: [1, 1], priceCents: 25 },
    { ago: 7, time: '23:59:59.999', user: 'u4', status: 'error', errorType: '', latencyMs: 250 },
    // The same around the 30-day period.
    { ago: 29, time: '00:00:00.000', user: 'u5', latencyMs: 1000, priceCents: 100 },
    { ago: 30, time: '23:59:59.999', user: 'u6', latencyMs: 1000, priceCents: 1 },
    // Outside every period, anonymous.
    { ago: 100, time: '08:00:00.000', user: '', latencyMs: 1000, priceCents: 100 },
  ]);
  // A call charged its exact amount (issue 60), beside the cents posted; the others read as calls recorded before.
  await ctx.database.db.query("UPDATE invocations SET charge_micros = 12345 WHERE app_id = $1 AND end_user = 'u2'", [alpha.id]);
  await record(beta.id, [
    { ago: 0, time: '09:00:00.000', user: 'u1', status: 'error', errorType: 'provider_error', latencyMs: 400 },
    { ago: 2, time: '15:30:00.000', user: 'u8', latencyMs: 600, tokens: [3, 4] },
  ]);
  // A deleted app's calls and users no longer count.
  await record(doomed.id, [
    { ago: 0, time: '08:00:00.000', user: 'u9', latencyMs: 50, priceCents: 100 },
    { ago: 1, time: '08:00:00.000', user: 'u9', status: 'error', errorType: 'provider_error', latencyMs: 50 },
  ]);
  expect((await call('DELETE', `/api/app/${doomed.slug}/`)).statusCode).toBe(204);
  // Nor do another user's.
  await record(theirs.id, [
    { ago: 0, time: '08:00:00.000', user: 'u10', latencyMs: 70 },
    { ago: 3, time: '08:00:00.000', user: 'u1', status: 'error', errorType: 'invalid_param', latencyMs: 30 },
  ]);
});
afterAll(async () => {
  await ctx?.close();
});

describe('GET /api/analytics/dashboard/', () => {
  it('totals the last 7 days over the user’s live apps, zero-filled, with exact rounding', async () => {
    const response = await call('GET', '/api/analytics/dashboard/?days=7');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    // Alpha 5 answered or failed calls (4 ok) and 2 rejected, Beta 2 (1 ok): 5 / 7 = 71.428…% → 71.43.
    expect(body.overview).toEqual({ total_applications: 2, total_invocations: 9, total_users: 4, success_rate: 71.43, rejected_count: 2 });
    expect(body.time_series.data.map((d: { date: string }) => d.date)).toEqual([6, 5, 4, 3, 2, 1, 0].map(isoDay));
    expect(body.time_series.data).toEqual([
      // 1000 + 2000 + 3001 + 400 ms over 4 calls = 1600.25 ms → 1.6 s (the rejected calls' 12 ms left out).
      { date: isoDay(6), invocations: 1, success_count: 1, error_count: 0, rejected_count: 0, avg_response_time: 0.1, input_tokens: 1, output_tokens: 1 },
      { date: isoDay(5), invocations: 0, success_count: 0, error_count: 0, rejected_count: 0, avg_response_time: 0, input_tokens: 0, output_tokens: 0 },
      { date: isoDay(4), invocations: 0, success_count: 0, error_count: 0, rejected_count: 0, avg_response_time: 0, input_tokens: 0, output_tokens: 0 },
      { date: isoDay(3), invocations: 0, success_count: 0, error_count: 0, rejected_count: 0, avg_response_time: 0, input_tokens: 0, output_tokens: 0 },
      { date: isoDay(2), invocations: 1, success_count: 1, error_count: 0, rejected_count: 0, avg_response_time: 0.6, input_tokens: 3, output_tokens: 4 },
      { date: isoDay(1), invocations: 1, success_count: 1, error_count: 0, rejected_count: 0, avg_response_time: 0.5, input_tokens: 7, output_tokens: 3 },
      { date: isoDay(0), invocations: 6, success_count: 2, error_count: 2, rejected_count: 2, avg_response_time: 1.6, input_tokens: 30, output_tokens: 15 },
    ]);
    expect(body.applications).toEqual([
      // 6601 ms / 5 = 1320.2 ms → 1.32 s.
      {
        application_name: 'Alpha',
        application_slug: alpha.slug,
        application_type: 'prompt',
        invocations: 7,
        success_rate: 80,
        rejected_count: 2,
        avg_response_time: 1.32,
        last_used: at(0, '12:00:00.000').toISOString(),
      },
      {
        application_name: 'Beta Flow',
        application_slug: beta.slug,
        application_type: 'workflow',
        invocations: 2,
        success_rate: 50,
        rejected_count: 0,
        avg_response_time: 0.5,
        last_used: at(0, '09:00:00.000').toISOString(),
      },
    ]);
    expect(body.errors).toEqual([
      { error_type: 'provider_error', count: 1 },
      { error_type: 'provider_timeout', count: 1 },
    ]);
    expect(body.rejections).toEqual([
      { error_type: 'invalid_param', count: 1 },
      { error_type: 'unauthorized', count: 1 },
    ]);
  });

  it('widens to 30 and 90 days at UTC day boundaries; 30 is the default', async () => {
    const thirty = (await call('GET', '/api/analytics/dashboard/')).json();
    expect(thirty.time_series.data).toHaveLength(30);
    expect(thirty.time_series.data[0].date).toBe(isoDay(29));
    expect(thirty.time_series.data[0]).toMatchObject({ invocations: 1, success_count: 1, avg_response_time: 1 });
    expect(thirty.time_series.data[22]).toMatchObject({ date: isoDay(7), invocations: 1, error_count: 1, avg_response_time: 0.25 });
    // 6 of 9 → 66.666…% → 66.67; users u1 u2 u3 u4 u5 u8.
    expect(thirty.overview).toEqual({ total_applications: 2, total_invocations: 11, total_users: 6, success_rate: 66.67, rejected_count: 2 });
    // 7851 ms / 7 = 1121.57 ms → 1.122 s.
    expect(thirty.applications[0]).toMatchObject({
      application_slug: alpha.slug,
      invocations: 9,
      success_rate: 71.43,
      rejected_count: 2,
      avg_response_time: 1.122,
    });
    // An error without a type is its own group; ties sort by type.
    expect(thirty.errors).toEqual([
      { error_type: '', count: 1 },
      { error_type: 'provider_error', count: 1 },
      { error_type: 'provider_timeout', count: 1 },
    ]);

    const ninety = (await call('GET', '/api/analytics/dashboard/?days=90')).json();
    expect(ninety.time_series.data).toHaveLength(90);
    expect(ninety.overview).toEqual({ total_applications: 2, total_invocations: 12, total_users: 7, success_rate: 70, rejected_count: 2 });
    expect(ninety.applications[0]).toMatchObject({ invocations: 10, success_rate: 75 });
  });

  it('shows a user only their own apps; an app never called is listed with zeros and no last use', async () => {
    const fresh = await createApp(strangerToken, { name: 'Never Called', type: 'prompt' });
    const body = (await call('GET', '/api/analytics/dashboard/?days=7', strangerToken)).json();
    // One answered call and one rejected (invalid inputs): the app never failed.
    expect(body.overview).toEqual({ total_applications: 2, total_invocations: 2, total_users: 2, success_rate: 100, rejected_count: 1 });
    expect(body.applications).toEqual([
      expect.objectContaining({ application_slug: theirs.slug, invocations: 2 }),
      {
        application_name: 'Never Called',
        application_slug: fresh.slug,
        application_type: 'prompt',
        invocations: 0,
        success_rate: 0,
        rejected_count: 0,
        avg_response_time: 0,
        last_used: null,
      },
    ]);
    expect(body.errors).toEqual([]);
    expect(body.rejections).toEqual([{ error_type: 'invalid_param', count: 1 }]);
    const empty = (await call('GET', '/api/analytics/dashboard/', await ctx.tokenFor('analytics-newcomer'))).json();
    expect(empty.overview).toEqual({ total_applications: 0, total_invocations: 0, total_users: 0, success_rate: 0, rejected_count: 0 });
    expect(empty.time_series.data).toHaveLength(30);
    expect(empty.applications).toEqual([]);
    expect(empty.errors).toEqual([]);
    expect(empty.rejections).toEqual([]);
  });

  it('answers 400 for any other period and 401 without a token', async () => {
    for (const days of ['14', '0', '365', 'week', '7.5']) {
      const response = await call('GET', `/api/analytics/dashboard/?days=${days}`);
      expect(response.statusCode, days).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_param', status: 400 });
    }
    expect((await call('GET', '/api/analytics/dashboard/', null)).statusCode).toBe(401);
  });
});

describe('per-application analytics', () => {
  it('usage: totals, distinct users across days, revenue in dollars from cents, and the margin after fee and model cost', async () => {
    const seven = (await call('GET', `/api/app/${alpha.slug}/analytics/usage/?days=7`)).json();
    expect(seven).toMatchObject({ total_invocations: 7, total_users: 3, total_revenue: 3.75, total_revenue_cents: 375 });
    // One call cost 123,456 µ$ upstream and paid a 10-cent fee: the margin is 375 − 10 cents less $0.123456.
    expect(seven).toMatchObject({ total_platform_fee_cents: 10, total_model_cost: 0.123456, total_model_cost_micros: 123_456, total_net: 3.526544 });
    expect(seven.data).toEqual([
      { date: isoDay(6), invocations: 1, revenue: 0.25, model_cost: 0, net: 0.25 },
      { date: isoDay(5), invocations: 0, revenue: 0, model_cost: 0, net: 0 },
      { date: isoDay(4), invocations: 0, revenue: 0, model_cost: 0, net: 0 },
      { date: isoDay(3), invocations: 0, revenue: 0, model_cost: 0, net: 0 },
      { date: isoDay(2), invocations: 0, revenue: 0, model_cost: 0, net: 0 },
      { date: isoDay(1), invocations: 1, revenue: 1, model_cost: 0.123456, net: 0.776544 },
      { date: isoDay(0), invocations: 5, revenue: 2.5, model_cost: 0, net: 2.5 },
    ]);
    const thirty = (await call('GET', `/api/app/${alpha.slug}/analytics/usage/`)).json();
    expect(thirty).toMatchObject({ total_invocations: 9, total_users: 5, total_revenue: 4.75, total_revenue_cents: 475 });
    expect(thirty.data).toHaveLength(30);
    const ninety = (await call('GET', `/api/app/${alpha.slug}/analytics/usage/?days=90`)).json();
    expect(ninety).toMatchObject({ total_invocations: 10, total_users: 6, total_revenue: 4.76, total_revenue_cents: 476 });
  });

  it('performance: success rate and mean response times per day, in seconds, with failed and rejected calls by type', async () => {
    const seven = (await call('GET', `/api/app/${alpha.slug}/analytics/performance/?days=7`)).json();
    expect(seven.success_rate).toBe(80);
    expect(seven.average_response_time).toBe(1.32);
    expect(seven.failed_count).toBe(1);
    expect(seven.rejected_count).toBe(2);
    expect(seven.errors).toEqual([{ error_type: 'provider_timeout', count: 1 }]);
    expect(seven.rejections).toEqual([
      { error_type: 'invalid_param', count: 1 },
      { error_type: 'unauthorized', count: 1 },
    ]);
    expect(seven.data).toHaveLength(7);
    expect(seven.data[0]).toEqual({ date: isoDay(6), success_count: 1, error_count: 0, rejected_count: 0, response_time: 0.1 });
    expect(seven.data[1]).toEqual({ date: isoDay(5), success_count: 0, error_count: 0, rejected_count: 0, response_time: 0 });
    // (1000 + 2000 + 3001) / 3 = 2000.33 ms → 2 s.
    expect(seven.data[6]).toEqual({ date: isoDay(0), success_count: 2, error_count: 1, rejected_count: 2, response_time: 2 });
    const beta30 = (await call('GET', `/api/app/${beta.slug}/analytics/performance/`)).json();
    expect(beta30).toMatchObject({ success_rate: 50, average_response_time: 0.5, failed_count: 1, rejected_count: 0, rejections: [] });
    expect(beta30.data).toHaveLength(30);
  });

  it('invocations: newest first by default 20, limit 1–100, anonymous as null', async () => {
    const all = (await call('GET', `/api/app/${alpha.slug}/analytics/invocations/`)).json();
    expect(all).toHaveLength(11);
    expect(all[0]).toEqual({
      id: expect.any(String),
      end_user: 'u1',
      status: 'error',
      outcome: 'failed',
      error_type: 'provider_timeout',
      response_time: 3.001,
      input_tokens: 0,
      output_tokens: 0,
      price_cents: 0,
      charge_micros: 0,
      model_cost: 0,
      created_at: at(0, '12:00:00.000').toISOString(),
    });
    expect(all[1]).toMatchObject({
      end_user: 'u2',
      status: 'success',
      outcome: 'success',
      response_time: 2,
      input_tokens: 20,
      output_tokens: 10,
      price_cents: 150,
      charge_micros: 12_345,
    });
    // A call recorded before charges were kept exactly reads its cents as its charge.
    expect(all[3]).toMatchObject({ end_user: 'u1', price_cents: 100, charge_micros: 1_000_000 });
    expect(all[2]).toMatchObject({ end_user: 'u1', status: 'error', outcome: 'rejected', error_type: 'invalid_param' });
    expect(all[4]).toMatchObject({ end_user: null, status: 'error', outcome: 'rejected', error_type: 'unauthorized' });
    expect(all.map((row: { created_at: string }) => row.created_at)).toEqual([...all.map((row: { created_at: string }) => row.created_at)].sort().reverse());
    expect(all.at(-1)).toMatchObject({ end_user: null, created_at: at(100, '08:00:00.000').toISOString() });

    const two = (await call('GET', `/api/app/${alpha.slug}/analytics/invocations/?limit=2`)).json();
    expect(two.map((row: { id: string }) => row.id)).toEqual(all.slice(0, 2).map((row: { id: string }) => row.id));
    expect((await call('GET', `/api/app/${alpha.slug}/analytics/invocations/?limit=1`)).json()).toHaveLength(1);
    expect((await call('GET', `/api/app/${alpha.slug}/analytics/invocations/?limit=100`)).statusCode).toBe(200);
    for (const limit of ['0', '101', '-1', '2.5', 'ten']) {
      expect((await call('GET', `/api/app/${alpha.slug}/analytics/invocations/?limit=${limit}`)).statusCode, limit).toBe(400);
    }
  });

  it('returns at most 20 by default', async () => {
    const busy = await createApp(ownerToken, { name: 'Busy', type: 'prompt' });
    await record(
      busy.id,
      Array.from({ length: 25 }, (_, i) => ({ ago: 0, time: `00:00:${String(i).padStart(2, '0')}.000`, user: `user-${i}`, latencyMs: i })),
    );
    const rows = (await call('GET', `/api/app/${busy.slug}/analytics/invocations/`)).json();
    expect(rows).toHaveLength(20);
    expect(rows[0].end_user).toBe('user-24');
    expect(rows[19].end_user).toBe('user-5');
  });

  it('answers 400 for a period other than 7, 30 or 90', async () => {
    for (const path of ['usage/', 'performance/', 'usage.csv']) {
      expect((await call('GET', `/api/app/${alpha.slug}/analytics/${path}?days=14`)).statusCode, path).toBe(400);
    }
    expect((await call('GET', `/api/app/${alpha.slug}/analytics/invocations.csv?limit=10001`)).statusCode).toBe(400);
  });

  it('is for the owner only: 404 for anyone else, 401 without a token, 404 for a deleted app', async () => {
    const paths = ['usage/', 'performance/', 'invocations/', 'invocations.csv', 'usage.csv'];
    for (const path of paths) {
      const url = `/api/app/${alpha.slug}/analytics/${path}`;
      const response = await call('GET', url, strangerToken);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not_found', message: 'Application not found' });
      expect((await call('GET', url, null)).statusCode, url).toBe(401);
      expect((await call('GET', `/api/app/no-such-app/analytics/${path}`)).statusCode, path).toBe(404);
    }
    expect((await call('GET', `/api/app/${theirs.slug}/analytics/usage/`)).statusCode).toBe(404);
  });
});

describe('CSV export', () => {
  it('exports the newest invocations with a header row, as an attachment', async () => {
    const response = await call('GET', `/api/app/${alpha.slug}/analytics/invocations.csv?limit=3`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${alpha.slug}-invocations.csv"`);
    const lines = response.body.split('\r\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(
      'id,created_at,end_user,status,outcome,error_type,response_time_seconds,input_tokens,output_tokens,price_cents,model_cost_dollars,charge_dollars',
    );
    expect(lines[1]).toMatch(
      new RegExp(`^[0-9a-f-]{36},${at(0, '12:00:00.000').toISOString()},u1,error,failed,provider_timeout,3.001,0,0,0,0.000000,0.000000$`),
    );
    expect(lines[2]).toMatch(/,u2,success,success,,2,20,10,\d+,0.000000,0.012345$/);
    expect(lines[3]).toMatch(/,u1,error,rejected,invalid_param,0.007,0,0,0,0.000000,0.000000$/);
    expect(lines[4]).toBe('');
    const all = (await call('GET', `/api/app/${alpha.slug}/analytics/invocations.csv`)).body.trim().split('\r\n');
    expect(all).toHaveLength(12);
  });

  it('exports one line per day of the period', async () => {
    const response = await call('GET', `/api/app/${alpha.slug}/analytics/usage.csv?days=7`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${alpha.slug}-usage-7d.csv"`);
    const lines = response.body.trim().split('\r\n');
    expect(lines).toEqual([
      'date,invocations,success_count,error_count,rejected_count,success_rate_percent,avg_response_time_seconds,input_tokens,output_tokens,revenue_dollars,revenue_cents,platform_fee_cents,model_cost_dollars,net_dollars,unique_users,rejected_invalid_param,rejected_unauthorized',
      `${isoDay(6)},1,1,0,0,100,0.1,1,1,0.25,25,0,0.000000,0.250000,1,0,0`,
      `${isoDay(5)},0,0,0,0,0,0,0,0,0.00,0,0,0.000000,0.000000,0,0,0`,
      `${isoDay(4)},0,0,0,0,0,0,0,0,0.00,0,0,0.000000,0.000000,0,0,0`,
      `${isoDay(3)},0,0,0,0,0,0,0,0,0.00,0,0,0.000000,0.000000,0,0,0`,
      `${isoDay(2)},0,0,0,0,0,0,0,0,0.00,0,0,0.000000,0.000000,0,0,0`,
      `${isoDay(1)},1,1,0,0,100,0.5,7,3,1.00,100,10,0.123456,0.776544,1,0,0`,
      `${isoDay(0)},5,2,1,2,66.67,2,30,15,2.50,250,0,0.000000,2.500000,2,1,1`,
    ]);
    expect((await call('GET', `/api/app/${alpha.slug}/analytics/usage.csv`)).body.trim().split('\r\n')).toHaveLength(31);
  });

  it('quotes and defuses end-user ids that a spreadsheet would misread', async () => {
    const app = await createApp(ownerToken, { name: 'Csv Edge', type: 'prompt' });
    await record(app.id, [
      { ago: 0, time: '01:00:00.000', user: '=HYPERLINK("http://x")', latencyMs: 1 },
      { ago: 0, time: '02:00:00.000', user: 'last, first', latencyMs: 1 },
    ]);
    const lines = (await call('GET', `/api/app/${app.slug}/analytics/invocations.csv`)).body.trim().split('\r\n');
    expect(lines[1]).toContain(',"last, first",');
    expect(lines[2]).toContain(`,"'=HYPERLINK(""http://x"")",`);
  });
});

describe('OpenAPI', () => {
  it('documents the units of the analytics answers', async () => {
    const document = (await call('GET', '/api/docs/json', null)).json();
    const dashboard = document.paths['/api/analytics/dashboard/'].get;
    expect(dashboard.description).toContain('Response times in seconds, success rates in percent (0–100), revenue in dollars computed from integer cents');
    // The answer's schema is the contract's named component.
    const schema = JSON.stringify(document.components.schemas[dashboard.responses['200'].content['application/json'].schema.$ref.split('/').pop()]);
    expect(schema).toContain('in seconds');
    expect(schema).toContain('in percent (0–100)');
    expect(document.paths['/api/app/{slug}/analytics/usage.csv'].get.responses['200'].content).toHaveProperty('text/csv');
  });
});
