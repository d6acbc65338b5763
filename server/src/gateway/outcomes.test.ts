// Every call's outcome: success, failed (the app or its provider failed) or rejected (the caller's
// own mistake, by type). A creator whose model never failed sees a 100% success rate however
// many callers send bad keys or bad inputs; rejected calls are shown apart, by type; Recent
// Invocations show the user the caller sent, never an account id.
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../platform/errors.ts';
import { createPaidTestContext } from '../test-support/app.ts';
import { errorTypeOf } from './outcomes.ts';

const ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000' });
const ownerToken = await ctx.tokenFor('outcome-owner');
const { api } = ctx;
afterAll(() => ctx.close());

async function app(visibility: 'public' | 'private', name: string) {
  const created = await api('POST', '/api/app/', ownerToken, { name, type: 'prompt', visibility, price_cents: 10 });
  expect(created.statusCode).toBe(201);
  const slug = created.json().slug as string;
  expect((await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: 'live' })).statusCode).toBe(200);
  return slug;
}

const complete = (slug: string, token: string | null, inputs: object = { query: 'hi' }, user?: string) =>
  api('POST', `/api/app/${slug}/completion-messages`, token, { inputs, response_mode: 'blocking', ...(user === undefined ? {} : { user }) });

describe('call outcomes', () => {
  it('record the error type of whatever ended a call', () => {
    expect(errorTypeOf(new AppError('app_unavailable', 'schema', undefined, undefined, 'invalid_schema'))).toBe('invalid_schema');
    expect(errorTypeOf(Object.assign(new Error('gone'), { name: 'AbortError' }))).toBe('client_disconnected');
    expect(errorTypeOf(new Error('boom'))).toBe('internal_error');
  });

  it('through the gateway: the success rate counts only the app’s failures, rejections are shown apart by type', async () => {
    const slug = await app('public', 'Outcomes Public');
    const hidden = await app('private', 'Outcomes Private');
    const caller = await ctx.tokenFor('outcome-caller');
    const callerId = (await api('GET', '/api/auth/profile/', caller)).json().user.id as string;
    const broke = await ctx.tokenFor('outcome-broke');
    expect((await api('GET', '/api/billing/balance/', broke)).statusCode).toBe(200);
    await ctx.database.db.query(
      "UPDATE ledger_accounts SET held_cents = balance_cents WHERE kind = 'user_credits' AND user_id = (SELECT id FROM users WHERE subject = 'outcome-broke')",
    );

    expect((await complete(slug, null)).statusCode).toBe(401); // no key
    expect((await complete(slug, 'tb_not-a-real-key')).statusCode).toBe(401); // a bad key
    expect((await complete(slug, caller, {}, 'reader-1')).statusCode).toBe(400); // invalid inputs
    expect((await complete(slug, broke, { query: 'hi' }, 'reader-2')).statusCode).toBe(402); // no credit
    expect((await complete(hidden, caller)).statusCode).toBe(404); // a private app
    expect((await complete(slug, caller, { query: 'hi' }, 'reader-1')).statusCode).toBe(200);
    expect((await complete(slug, caller)).statusCode).toBe(200); // no user sent
    ctx.model.setBehaviour({ status: 500 });
    expect((await complete(slug, caller, { query: 'hi' }, 'reader-3')).statusCode).toBe(502); // the provider failed
    ctx.model.resetBehaviour();

    const performance = (await api('GET', `/api/app/${slug}/analytics/performance/?days=7`, ownerToken)).json();
    // 2 answered, 1 failed: 66.67%, whatever the 4 rejected calls.
    expect(performance).toMatchObject({ success_rate: 66.67, failed_count: 1, rejected_count: 4 });
    expect(performance.errors).toEqual([{ error_type: 'provider_error', count: 1 }]);
    expect(performance.rejections).toEqual([
      { error_type: 'unauthorized', count: 2 },
      { error_type: 'insufficient_credits', count: 1 },
      { error_type: 'invalid_param', count: 1 },
    ]);
    expect(performance.data.at(-1)).toMatchObject({ success_count: 2, error_count: 1, rejected_count: 4 });
    expect((await api('GET', `/api/app/${slug}/analytics/usage/?days=7`, ownerToken)).json().total_invocations).toBe(7);

    const dashboard = (await api('GET', '/api/analytics/dashboard/?days=7', ownerToken)).json();
    expect(dashboard.overview).toMatchObject({ total_invocations: 8, success_rate: 66.67, rejected_count: 5 });
    expect(dashboard.errors).toEqual([{ error_type: 'provider_error', count: 1 }]);
    expect(dashboard.rejections).toEqual([
      { error_type: 'unauthorized', count: 2 },
      { error_type: 'insufficient_credits', count: 1 },
      { error_type: 'invalid_param', count: 1 },
      { error_type: 'not_found', count: 1 },
    ]);
    const row = dashboard.applications.find((entry: { application_slug: string }) => entry.application_slug === slug);
    expect(row).toMatchObject({ invocations: 7, success_rate: 66.67, rejected_count: 4 });
    expect(dashboard.applications.find((entry: { application_slug: string }) => entry.application_slug === hidden)).toMatchObject({
      invocations: 1,
      success_rate: 0,
      rejected_count: 1,
    });

    // Recent Invocations: the user the caller sent, or none — never the account id; the outcome and type.
    const recent = (await api('GET', `/api/app/${slug}/analytics/invocations/`, ownerToken)).json() as {
      end_user: string | null;
      status: string;
      outcome: string;
      error_type: string;
    }[];
    expect(recent.map(({ end_user, status, outcome, error_type }) => [end_user, status, outcome, error_type])).toEqual([
      ['reader-3', 'error', 'failed', 'provider_error'],
      [null, 'success', 'success', ''],
      ['reader-1', 'success', 'success', ''],
      ['reader-2', 'error', 'rejected', 'insufficient_credits'],
      ['reader-1', 'error', 'rejected', 'invalid_param'],
      [null, 'error', 'rejected', 'unauthorized'],
      [null, 'error', 'rejected', 'unauthorized'],
    ]);
    const csv = (await api('GET', `/api/app/${slug}/analytics/invocations.csv`, ownerToken)).body;
    expect(csv).toContain(',reader-3,error,failed,provider_error,');
    expect(csv).toContain(',reader-1,error,rejected,invalid_param,');
    // The caller's account id is recorded (unique users count callers) but never shown.
    const { rows } = await ctx.database.db.query<{ count: number }>('SELECT count(*)::int AS count FROM invocations WHERE end_user = $1', [callerId]);
    expect(rows[0]!.count).toBeGreaterThan(0);
    expect(JSON.stringify(recent)).not.toContain(callerId);
    expect(csv).not.toContain(callerId);
  });
});
