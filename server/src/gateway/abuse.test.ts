// Attacks on callers' money and on shared limits, reproduced: a creator raising a live app's price,
// callers capping what one call may cost, API keys multiplied to multiply the rate limit, and
// template variables that name Object.prototype properties.

import { renderTemplate } from '@tollbooth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';
import { aFreshMinute } from '../test-support/wait-for.ts';

// Paid calls are answered by a real (OpenAI-compatible, loopback fake) provider: demo answers are never charged.
let ctx: PaidTestContext;
let ownerToken: string;

beforeAll(async () => {
  ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '5', USER_RATE_LIMIT_PER_MINUTE: '8' });
  ownerToken = await ctx.tokenFor('abuse-owner');
});
afterAll(async () => {
  await ctx?.close();
});

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers }, ...(payload ? { payload } : {}) });

let counter = 0;
async function liveApp(priceCents: number) {
  const created = await api('POST', '/api/app/', ownerToken, { name: `Priced ${++counter}`, type: 'prompt', visibility: 'public', price_cents: priceCents });
  const slug = created.json().slug as string;
  await api('PATCH', `/api/app/${slug}/update_status/`, ownerToken, { status: 'live' });
  return slug;
}
const call = (slug: string, token: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/app/${slug}/completion-messages`,
    headers: { authorization: `Bearer ${token}`, ...headers },
    payload: { inputs: { query: 'hi' } },
  });
const credits = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json().credits_cents as number;

describe('price changes', () => {
  it('a price increase on a live app with callers waits for the notice period, and the save says when and what the calls until then cost; a decrease applies at once', async () => {
    const slug = await liveApp(1);
    const caller = await ctx.tokenFor('reprice-victim');
    expect((await call(slug, caller)).statusCode).toBe(200);
    expect(await credits(caller)).toBe(499);
    const raised = await api('PATCH', `/api/app/${slug}/`, ownerToken, { price_cents: 9995 });
    expect(raised.statusCode).toBe(200);
    expect(raised.json().price_cents).toBe(1);
    expect(raised.json().upcoming_price_cents).toBe(9995);
    const days = (new Date(raised.json().upcoming_price_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);
    // The save's answer says when, why, and what the calls until then cost the creator.
    const notice = raised.json().price_notice;
    expect(notice).toMatchObject({ applies_at: raised.json().upcoming_price_at, notice_days: 7, calls_last_period: 1, subscribers: 0 });
    const { rows } = await ctx.database.db.query<{ model_cost_micros: string }>(
      'SELECT model_cost_micros FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1',
      [slug],
    );
    const typical = Number(rows[0]!.model_cost_micros);
    expect(notice.typical_model_cost_micros).toBe(typical);
    expect(notice.loss_until_then_micros).toBe(Math.max(0, typical - 10_000));
    // Everyone sees the upcoming price and its date; only the owner's save carries the notice.
    const seen = (await api('GET', `/api/app/${slug}/`, caller)).json();
    expect(seen).toMatchObject({ price_cents: 1, upcoming_price_cents: 9995 });
    expect(seen.price_notice).toBeUndefined();

    expect((await call(slug, caller)).statusCode).toBe(200);
    expect(await credits(caller)).toBe(498);

    // Once the date has passed the new price is in force.
    await ctx.database.db.query("UPDATE apps SET upcoming_price_at = now() - interval '1 second' WHERE slug = $1", [slug]);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // call-target cache
    expect((await api('GET', `/api/app/${slug}/`, caller)).json()).toMatchObject({ price_cents: 9995, upcoming_price_cents: null });

    const lowered = await api('PATCH', `/api/app/${slug}/`, ownerToken, { price_cents: 2 });
    expect(lowered.json()).toMatchObject({ price_cents: 2, upcoming_price_cents: null, upcoming_price_at: null });
  });

  it('a live app nobody but its owner called in the notice period takes an increase at once (issue 61)', async () => {
    const slug = await liveApp(1);
    // The owner's own test calls protect nobody.
    expect((await call(slug, ownerToken)).statusCode).toBe(200);
    const raised = await api('PATCH', `/api/app/${slug}/`, ownerToken, { price_cents: 10 });
    expect(raised.statusCode).toBe(200);
    expect(raised.json()).toMatchObject({ price_cents: 10, upcoming_price_cents: null, upcoming_price_at: null });
    expect(raised.json().price_notice).toBeUndefined();
    // A caller from before the notice period is no longer protected either.
    const caller = await ctx.tokenFor('reprice-old-caller');
    expect((await call(slug, caller)).statusCode).toBe(200);
    await ctx.database.db.query(
      "UPDATE invocations SET created_at = now() - interval '8 days' FROM apps WHERE apps.id = invocations.app_id AND apps.slug = $1",
      [slug],
    );
    expect((await api('PATCH', `/api/app/${slug}/`, ownerToken, { price_cents: 20 })).json()).toMatchObject({ price_cents: 20, upcoming_price_cents: null });
  });

  it('an app that was never live takes any price at once', async () => {
    const created = await api('POST', '/api/app/', ownerToken, { name: 'Draft priced', type: 'prompt', price_cents: 5 });
    const updated = await api('PATCH', `/api/app/${created.json().slug}/`, ownerToken, { price_cents: 500 });
    expect(updated.json()).toMatchObject({ price_cents: 500, upcoming_price_cents: null });
  });
});

describe('price caps', () => {
  it('X-Max-Price-Cents below the price answers 402 price_above_limit and charges nothing', async () => {
    const slug = await liveApp(50);
    const caller = await ctx.tokenFor('header-capper');
    const refused = await call(slug, caller, { 'x-max-price-cents': '49' });
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'price_above_limit', status: 402 });
    expect(await credits(caller)).toBe(500);
    expect((await call(slug, caller, { 'x-max-price-cents': '50' })).statusCode).toBe(200);
    expect(await credits(caller)).toBe(450);
    expect((await call(slug, caller, { 'x-max-price-cents': 'lots' })).statusCode).toBe(400);
  });

  it("an API key's max_price_cents caps every call made with it", async () => {
    const slug = await liveApp(50);
    const caller = await ctx.tokenFor('key-capper');
    const created = await api('POST', '/api/keys/', caller, { name: 'capped', max_price_cents: 10 });
    expect(created.statusCode).toBe(201);
    expect(created.json().max_price_cents).toBe(10);
    const refused = await call(slug, created.json().key);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().code).toBe('price_above_limit');
    expect(await credits(caller)).toBe(500);
    const { rows } = await ctx.database.db.query<{ error_type: string }>(
      'SELECT i.error_type FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1',
      [slug],
    );
    expect(rows).toEqual([{ error_type: 'price_above_limit' }]);
  });
});

describe('API keys', () => {
  it('are capped at 50 live keys per user (60 concurrent creations)', async () => {
    const user = await ctx.tokenFor('key-hoarder');
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => api('POST', '/api/keys/', user, { name: `k${i}` })));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(50);
    const refused = results.find((r) => r.statusCode !== 201)!;
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain('50');
    const keys = (await api('GET', '/api/keys/', user)).json() as { id: string }[];
    await api('DELETE', `/api/keys/${keys[0]!.id}/`, user);
    expect((await api('POST', '/api/keys/', user, { name: 'after revoke' })).statusCode).toBe(201);
  });

  it('the per-user limit holds across keys: more keys do not mean more calls', async () => {
    const slug = await liveApp(1);
    const user = await ctx.tokenFor('key-multiplier');
    const keys = await Promise.all([1, 2, 3].map(async (i) => (await api('POST', '/api/keys/', user, { name: `m${i}` })).json().key as string));
    const statuses: number[] = [];
    await aFreshMinute();
    for (const key of keys) for (let i = 0; i < 5; i++) statuses.push((await call(slug, key)).statusCode);
    // 5 per key per minute, 8 per user: 15 attempts, 8 answered.
    expect(statuses.filter((status) => status === 200)).toHaveLength(8);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  });
});

describe('template variables', () => {
  it('{{constructor}} and {{__proto__}} are missing unless given', () => {
    expect(renderTemplate('{{constructor}} {{toString}}', {})).toMatchObject({ ok: false, error: 'Missing value for {{constructor}}, {{toString}}' });
    expect(renderTemplate('{{__proto__}}', {})).toMatchObject({ ok: false });
    expect(renderTemplate('{{constructor}}', { constructor: 'x' })).toMatchObject({ ok: true, text: 'x' });
  });
});
