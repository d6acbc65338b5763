// The embed widget and its publishable keys (issue 28): creating a pk_ key bound to origins, apps
// and caps; the widget page framed only on those origins; calls paid by the key's owner exactly
// like any call; and each abuse refused with nothing charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';
import { aFreshMinute } from '../test-support/wait-for.ts';

let ctx: PaidTestContext;
let creatorToken: string;
let siteOwnerToken: string;
const SITE = 'https://shop.example';
const OWN_ORIGIN = 'http://tollbooth.test';

beforeAll(async () => {
  // Many calls at once (the cap tests): the per-key limit of 600 a minute is not what they test.
  ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '1000000' });
  creatorToken = await ctx.tokenFor('embed-creator');
  siteOwnerToken = await ctx.tokenFor('embed-site-owner');
});
afterAll(async () => {
  await ctx?.close();
});

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

let counter = 0;
async function liveApp(options: { priceCents: number; visibility?: string; mode?: 'chat' | 'completion'; token?: string; pricing?: object }) {
  const token = options.token ?? creatorToken;
  const created = await api('POST', '/api/app/', token, {
    name: `Embedded ${++counter}`,
    type: 'prompt',
    visibility: options.visibility ?? 'public',
    ...(options.pricing ? { pricing: options.pricing } : { price_cents: options.priceCents }),
    interaction_mode: options.mode ?? 'chat',
  });
  expect(created.statusCode).toBe(201);
  const slug = created.json().slug as string;
  await api('PATCH', `/api/app/${slug}/update_status/`, token, { status: 'live' });
  return slug;
}

async function publishableKey(appSlugs: string[], overrides: Record<string, unknown> = {}, token = siteOwnerToken) {
  const created = await api('POST', '/api/keys/', token, {
    name: 'Shop widget',
    kind: 'publishable',
    allowed_origins: [SITE, 'http://localhost:3200'],
    app_slugs: appSlugs,
    daily_spend_limit_cents: 1000,
    monthly_spend_limit_cents: 5000,
    visitor_rate_limit_per_minute: 20,
    ...overrides,
  });
  expect(created.statusCode, created.body).toBe(201);
  return created.json() as { id: string; key: string };
}

const widget = (slug: string, key: string, headers: Record<string, string> = { 'sec-fetch-dest': 'iframe', referer: `${SITE}/products/1` }) =>
  ctx.app.inject({ method: 'GET', url: `/embed/${slug}?key=${encodeURIComponent(key)}&theme=dark`, headers });

/** The settings the page hands its script, as a browser in the allowed frame would read them. */
async function frameSettings(slug: string, key: string) {
  const page = await widget(slug, key);
  expect(page.statusCode, page.body).toBe(200);
  const json = /<script type="application\/json" id="tollbooth-embed">(.*?)<\/script>/.exec(page.body)?.[1];
  return JSON.parse(json!) as { token: string; name: string; priceCents: number; price: string; mode: string; fields: { name: string }[]; theme: string };
}

const embedCall = (
  slug: string,
  key: string,
  token: string | undefined,
  options: { origin?: string | null; visitor?: string; streaming?: boolean; mode?: 'chat' | 'completion' } = {},
) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/embed/${slug}/${options.mode ?? 'chat'}-messages`,
    headers: {
      authorization: `Bearer ${key}`,
      ...(token ? { 'x-embed-token': token } : {}),
      ...(options.origin === null ? {} : { origin: options.origin ?? OWN_ORIGIN }),
    },
    payload: {
      inputs: {},
      query: 'Do you ship to Norway?',
      user: options.visitor ?? 'visitor-abcdefgh',
      response_mode: options.streaming ? 'streaming' : 'blocking',
    },
  });

const credits = async (token: string) => (await api('GET', '/api/billing/balance/', token)).json().credits_cents as number;
const rejectedCalls = async (slug: string) => {
  const { rows } = await ctx.database.db.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 AND i.outcome = 'rejected' AND i.price_cents = 0",
    [slug],
  );
  return rows[0]!.count;
};

describe('publishable keys', () => {
  it('are created bound to origins, apps and caps, listed whole with their spend, and refuse bad bindings naming the field', async () => {
    const slug = await liveApp({ priceCents: 3 });
    const created = await publishableKey([slug], { allowed_origins: ['https://Shop.Example/', 'http://localhost:3200'] });
    expect(created.key).toMatch(/^pk_[0-9A-Za-z]{43}$/);
    const listed = (await api('GET', '/api/keys/?kind=publishable', siteOwnerToken)).json() as { id: string; kind: string; publishable: unknown }[];
    expect(listed.find((key) => key.id === created.id)).toMatchObject({
      kind: 'publishable',
      monthly_spend_limit_cents: 5000,
      publishable: {
        key: created.key,
        allowed_origins: [SITE, 'http://localhost:3200'],
        app_slugs: [slug],
        daily_spend_limit_cents: 1000,
        visitor_rate_limit_per_minute: 20,
        spent_today_cents: 0,
      },
    });
    const secret = (await api('GET', '/api/keys/?kind=secret', siteOwnerToken)).json() as { id: string }[];
    expect(secret.some((key) => key.id === created.id)).toBe(false);

    const bad = async (body: Record<string, unknown>, field: string) => {
      const answer = await api('POST', '/api/keys/', siteOwnerToken, {
        name: 'Bad',
        kind: 'publishable',
        allowed_origins: [SITE],
        app_slugs: [slug],
        daily_spend_limit_cents: 10,
        monthly_spend_limit_cents: 10,
        ...body,
      });
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json()).toMatchObject({ code: 'invalid_param', params: field });
    };
    await bad({ allowed_origins: ['https://shop.example/checkout'] }, 'allowed_origins.0');
    await bad({ allowed_origins: [SITE, 'javascript:alert(1)'] }, 'allowed_origins.1');
    await bad({ allowed_origins: undefined }, 'allowed_origins');
    await bad({ daily_spend_limit_cents: undefined }, 'daily_spend_limit_cents');
    await bad({ monthly_spend_limit_cents: null }, 'monthly_spend_limit_cents');
    // Someone else's private app cannot be bound (its owner may, below).
    const privateSlug = await liveApp({ priceCents: 3, visibility: 'private' });
    await bad({ app_slugs: [slug, privateSlug] }, 'app_slugs.1');
    await bad({ app_slugs: ['no-such-app'] }, 'app_slugs.0');
    await publishableKey([privateSlug], {}, creatorToken);
  });

  it('never authenticate a secret-key call, and a secret key never authenticates an embed call', async () => {
    const slug = await liveApp({ priceCents: 3 });
    const { key } = await publishableKey([slug]);
    const direct = await ctx.api('POST', `/api/app/${slug}/chat-messages`, key, { inputs: {}, query: 'hi', user: 'curl-user' });
    expect(direct.statusCode).toBe(401);
    expect(direct.json().message).toMatch(/Publishable keys \(pk_…\) call only from the embed widget/);
    const secret = (await api('POST', '/api/keys/', siteOwnerToken, { name: 'server' })).json().key as string;
    const { token } = await frameSettings(slug, key);
    expect((await embedCall(slug, secret, token)).statusCode).toBe(401);
  });
});

describe('the widget page', () => {
  it('is framed only on the key’s origins, and shows the app’s name, price, mode and form', async () => {
    const slug = await liveApp({ priceCents: 7, mode: 'completion' });
    const { key } = await publishableKey([slug]);
    const page = await widget(slug, key);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors ${SITE} http://localhost:3200`);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<script src="/embed/widget.js" defer></script>');
    const settings = await frameSettings(slug, key);
    expect(settings).toMatchObject({ name: expect.stringMatching(/^Embedded/), priceCents: 7, price: '$0.07 per answer', mode: 'completion', theme: 'dark' });
    expect(settings.fields.map((field) => field.name)).toContain('query');
  });

  it('shows a per-token app’s rate card, not its least call in cents (issue 60); the key owner’s own app is free to them', async () => {
    const slug = await liveApp({ priceCents: 0, pricing: { form: 'per_token', input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000 } });
    const { key } = await publishableKey([slug]);
    expect(await frameSettings(slug, key)).toMatchObject({ priceCents: 0, price: '$2.00 in / $8.00 out per million tokens' });
    const own = await liveApp({ priceCents: 0, token: siteOwnerToken, pricing: { form: 'cost_plus', markup_bps: 15_000 } });
    const { key: ownKey } = await publishableKey([own]);
    expect(await frameSettings(own, ownKey)).toMatchObject({ priceCents: 0, price: 'Free' });
  });

  it('is refused on another origin, opened on its own, with an unknown or revoked key, or for an app the key does not name', async () => {
    const slug = await liveApp({ priceCents: 7 });
    const other = await liveApp({ priceCents: 7 });
    const { id, key } = await publishableKey([slug]);

    const elsewhere = await widget(slug, key, { 'sec-fetch-dest': 'iframe', referer: 'https://evil.example/' });
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.body).toContain('not allowed on this website');
    expect(elsewhere.body).not.toContain(key);
    expect(elsewhere.headers['content-security-policy']).toContain(`frame-ancestors ${SITE} http://localhost:3200`);

    const topLevel = await widget(slug, key, { 'sec-fetch-dest': 'document' });
    expect(topLevel.statusCode).toBe(403);
    expect((await widget(slug, key, {})).statusCode).toBe(403);

    const unknown = await widget(slug, `pk_${'x'.repeat(43)}`);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    expect((await widget(other, key)).statusCode).toBe(404);

    expect((await api('DELETE', `/api/keys/${id}/`, siteOwnerToken)).statusCode).toBe(204);
    const revoked = await widget(slug, key);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.body).toContain('revoked');
  });
});

describe('the snippet’s check before drawing (issue 61)', () => {
  const check = (slug: string, key: string, headers: Record<string, string> = {}, origin?: string) =>
    ctx.app.inject({
      method: 'GET',
      url: `/embed/${slug}/check?key=${encodeURIComponent(key)}${origin ? `&origin=${encodeURIComponent(origin)}` : ''}`,
      headers,
    });

  it('says whether the page’s origin is one of the key’s websites, readable from any website, with the near misses', async () => {
    const slug = await liveApp({ priceCents: 7 });
    const other = await liveApp({ priceCents: 7 });
    const { id, key } = await publishableKey([slug]);

    const allowed = await check(slug, key, { origin: SITE });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('*');
    expect(allowed.json()).toMatchObject({ allowed: true, reason: 'ok', origin: SITE });

    const www = await check(slug, key, { origin: 'https://www.shop.example' });
    expect(www.json()).toMatchObject({ allowed: false, reason: 'origin_not_allowed', origin: 'https://www.shop.example' });
    expect(www.json().message).toContain('This site is not allowed for this key');
    expect(www.json().hints).toEqual([
      'https://shop.example is listed, but this page is https://www.shop.example: "www." counts, so list both if the site answers on both.',
    ]);
    const loopback = await check(slug, key, { origin: 'http://127.0.0.1:3200' });
    expect(loopback.json().hints[0]).toContain('localhost and 127.0.0.1 are different origins');
    // Without an Origin header (a same-origin GET), the page's own word is taken: the check only informs.
    expect((await check(slug, key, {}, 'http://localhost:3200')).json()).toMatchObject({ allowed: true });
    expect((await check(slug, key, {})).json()).toMatchObject({ allowed: false, reason: 'origin_not_allowed', origin: null });

    expect((await check(other, key, { origin: SITE })).json()).toMatchObject({ allowed: false, reason: 'app_not_embeddable' });
    expect((await check(slug, `pk_${'x'.repeat(43)}`, { origin: SITE })).json()).toMatchObject({ allowed: false, reason: 'invalid_key' });
    expect((await api('DELETE', `/api/keys/${id}/`, siteOwnerToken)).statusCode).toBe(204);
    expect((await check(slug, key, { origin: SITE })).json()).toMatchObject({ allowed: false, reason: 'revoked' });
  });
});

describe('embed calls', () => {
  it('are charged to the key’s owner exactly like any call, once per answer, with the visitor as the end user', async () => {
    const slug = await liveApp({ priceCents: 4 });
    const { id, key } = await publishableKey([slug]);
    const { token } = await frameSettings(slug, key);
    const before = await credits(siteOwnerToken);

    const blocking = await embedCall(slug, key, token, { visitor: 'visitor-one-abc' });
    expect(blocking.statusCode, blocking.body).toBe(200);
    expect(blocking.json()).toMatchObject({ answer: 'Hello from the fake model.', mode: 'chat' });
    const streamed = await embedCall(slug, key, token, { visitor: 'visitor-two-abc', streaming: true });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.body).toContain('"event":"message_end"');

    expect(await credits(siteOwnerToken)).toBe(before - 8);
    const { rows } = await ctx.database.db.query<{ end_user: string; price_cents: number; api_key_id: string }>(
      "SELECT end_user, price_cents, api_key_id FROM invocations WHERE api_key_id = $1 AND status = 'success' ORDER BY created_at",
      [id],
    );
    expect(rows).toEqual([
      { end_user: 'visitor-one-abc', price_cents: 4, api_key_id: id },
      { end_user: 'visitor-two-abc', price_cents: 4, api_key_id: id },
    ]);
    // The app's owner reads the widget's callers as Anonymous: a visitor id names nobody (issue 61).
    const recent = (await api('GET', `/api/app/${slug}/analytics/invocations/`, creatorToken)).json() as { end_user: string | null }[];
    expect(recent.map((invocation) => invocation.end_user)).toEqual([null, null]);
    const listed = (await api('GET', '/api/keys/?kind=publishable', siteOwnerToken)).json() as {
      id: string;
      spent_this_month_cents: number;
      publishable: { spent_today_cents: number };
    }[];
    expect(listed.find((listedKey) => listedKey.id === id)).toMatchObject({ spent_this_month_cents: 8, publishable: { spent_today_cents: 8 } });
  });

  it('refuse a copied key (curl, another site, a forged or foreign frame token), a revoked key and another app, charging nothing', async () => {
    const slug = await liveApp({ priceCents: 5 });
    const other = await liveApp({ priceCents: 5 });
    const { id, key } = await publishableKey([slug]);
    const second = await publishableKey([slug]);
    const { token } = await frameSettings(slug, key);
    const secondToken = (await frameSettings(slug, second.key)).token;
    const before = await credits(siteOwnerToken);

    const expectRefused = async (answer: Awaited<ReturnType<typeof embedCall>>, status: number, message: RegExp) => {
      expect(answer.statusCode, answer.body).toBe(status);
      expect(answer.json().message).toMatch(message);
    };
    await expectRefused(await embedCall(slug, key, token, { origin: null }), 403, /only from the embed widget frame \(this call came from no browser page\)/);
    await expectRefused(await embedCall(slug, key, token, { origin: 'https://evil.example' }), 403, /came from https:\/\/evil\.example/);
    await expectRefused(await embedCall(slug, key, undefined), 403, /widget session is not valid/);
    await expectRefused(await embedCall(slug, key, `${token.slice(0, -2)}xx`), 403, /widget session is not valid/);
    await expectRefused(await embedCall(slug, key, secondToken), 403, /widget session is not valid/);
    await expectRefused(await embedCall(other, key, token), 403, /may not call/);
    await expectRefused(await embedCall(slug, key, token, { visitor: '' }), 400, /^user:/);
    expect((await api('DELETE', `/api/keys/${id}/`, siteOwnerToken)).statusCode).toBe(204);
    await expectRefused(await embedCall(slug, key, token), 401, /revoked/);

    expect(await credits(siteOwnerToken)).toBe(before);
    expect(await rejectedCalls(slug)).toBe(7);
    expect(await rejectedCalls(other)).toBe(1);
  });

  it('refuse a visitor flooding the widget (429 with Retry-After) while other visitors go on, charging nothing for the refused', async () => {
    const slug = await liveApp({ priceCents: 1 });
    const { key } = await publishableKey([slug], { visitor_rate_limit_per_minute: 2 });
    const { token } = await frameSettings(slug, key);
    const before = await credits(siteOwnerToken);
    await aFreshMinute();
    expect((await embedCall(slug, key, token, { visitor: 'flooding-visitor' })).statusCode).toBe(200);
    expect((await embedCall(slug, key, token, { visitor: 'flooding-visitor' })).statusCode).toBe(200);
    const flood = await embedCall(slug, key, token, { visitor: 'flooding-visitor' });
    expect(flood.statusCode).toBe(429);
    expect(flood.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(flood.headers['retry-after'])).toBeGreaterThan(0);
    expect((await embedCall(slug, key, token, { visitor: 'another-visitor' })).statusCode).toBe(200);
    expect(await credits(siteOwnerToken)).toBe(before - 3);
  });

  it('reaching a cap mid-stream: the stream in flight finishes and is charged, the next call is refused and free (daily and monthly)', async () => {
    const slug = await liveApp({ priceCents: 10 });
    // Monthly cap: one call's price. A second call while the first streams finds it held.
    const monthly = await publishableKey([slug], { monthly_spend_limit_cents: 10, daily_spend_limit_cents: 1000 });
    const monthlyToken = (await frameSettings(slug, monthly.key)).token;
    const before = await credits(siteOwnerToken);
    ctx.model.setBehaviour({ text: 'one two three four five six', chunkDelayMs: 150 });
    try {
      const inFlight = embedCall(slug, monthly.key, monthlyToken, { streaming: true, visitor: 'visitor-stream-1' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const during = await embedCall(slug, monthly.key, monthlyToken, { visitor: 'visitor-stream-2' });
      expect(during.statusCode).toBe(402);
      expect(during.json()).toMatchObject({ code: 'key_limit_exceeded' });
      const finished = await inFlight;
      expect(finished.statusCode).toBe(200);
      expect(finished.body).toContain('"event":"message_end"');
      expect(finished.body).toContain('six');
    } finally {
      ctx.model.resetBehaviour();
    }
    const next = await embedCall(slug, monthly.key, monthlyToken, { visitor: 'visitor-stream-3' });
    expect(next.statusCode).toBe(402);
    expect(next.json().message).toMatch(/monthly spend limit/);
    expect(await credits(siteOwnerToken)).toBe(before - 10);

    // Daily cap: two calls' price. The second streams, is charged, and then the day is spent.
    const daily = await publishableKey([slug], { monthly_spend_limit_cents: 1000, daily_spend_limit_cents: 20 });
    const dailyToken = (await frameSettings(slug, daily.key)).token;
    expect((await embedCall(slug, daily.key, dailyToken)).statusCode).toBe(200);
    const streamed = await embedCall(slug, daily.key, dailyToken, { streaming: true });
    expect(streamed.body).toContain('"event":"message_end"');
    const refused = await embedCall(slug, daily.key, dailyToken);
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'key_limit_exceeded', message: expect.stringMatching(/daily spend limit/) });
    expect(await credits(siteOwnerToken)).toBe(before - 30);
  });

  it('hold the daily cap exactly under concurrency: of 20 calls at once, exactly the cap’s worth are answered and charged, the rest refused free', async () => {
    const ownerToken = await ctx.tokenFor('embed-concurrent-owner');
    const slug = await liveApp({ priceCents: 10 });
    // Exactly 5 calls fit the day (the month has room for many more).
    const { id, key } = await publishableKey(
      [slug],
      { daily_spend_limit_cents: 50, monthly_spend_limit_cents: 5000, visitor_rate_limit_per_minute: 10000 },
      ownerToken,
    );
    const { token } = await frameSettings(slug, key);
    const before = await credits(ownerToken);
    ctx.model.setBehaviour({ delayMs: 30 });
    let results: Awaited<ReturnType<typeof embedCall>>[];
    try {
      results = await Promise.all(Array.from({ length: 20 }, (_, i) => embedCall(slug, key, token, { visitor: `visitor-concurrent-${i}` })));
    } finally {
      ctx.model.resetBehaviour();
    }
    expect(results.filter((result) => result.statusCode === 200)).toHaveLength(5);
    const refused = results.filter((result) => result.statusCode !== 200);
    expect(refused).toHaveLength(15);
    for (const result of refused) {
      expect(result.statusCode).toBe(402);
      expect(result.json()).toMatchObject({ code: 'key_limit_exceeded', message: expect.stringMatching(/daily spend limit \(\$0\.50 a UTC day\)/) });
    }
    expect(await credits(ownerToken)).toBe(before - 50);
    expect(await rejectedCalls(slug)).toBe(15);
    const { rows } = await ctx.database.db.query<{ day_spent_cents: number; day_held_cents: number; spent_cents: number; held_cents: number }>(
      'SELECT day_spent_cents::int, day_held_cents::int, spent_cents::int, held_cents::int FROM api_key_spend WHERE api_key_id = $1',
      [id],
    );
    expect(rows).toEqual([{ day_spent_cents: 50, day_held_cents: 0, spent_cents: 50, held_cents: 0 }]);
  });

  it('fit a credit lease’s slice into what is left of the day: 60 calls at once on a 45-call day answer exactly 45', async () => {
    const ownerToken = await ctx.tokenFor('embed-slice-owner');
    const slug = await liveApp({ priceCents: 1 });
    const { key } = await publishableKey(
      [slug],
      { daily_spend_limit_cents: 45, monthly_spend_limit_cents: 5000, visitor_rate_limit_per_minute: 10000 },
      ownerToken,
    );
    const { token } = await frameSettings(slug, key);
    const before = await credits(ownerToken);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => embedCall(slug, key, token, { visitor: `visitor-slice-${i}` })));
    expect(results.filter((result) => result.statusCode === 200)).toHaveLength(45);
    expect(results.filter((result) => result.statusCode === 402)).toHaveLength(15);
    expect(await credits(ownerToken)).toBe(before - 45);
    // The next day (the counter's day moved back), the cap starts again at zero.
    await ctx.database.db.query('UPDATE api_key_spend SET day = day - 1 WHERE api_key_id = (SELECT id FROM api_keys WHERE publishable_key = $1)', [key]);
    expect((await embedCall(slug, key, token, { visitor: 'visitor-slice-next-day' })).statusCode).toBe(200);
  });

  it('a private app is embedded only by its owner, whose own calls are free', async () => {
    const slug = await liveApp({ priceCents: 9, visibility: 'private' });
    const { key } = await publishableKey([slug], {}, creatorToken);
    const before = await credits(creatorToken);
    const { token, priceCents } = await frameSettings(slug, key);
    expect(priceCents).toBe(0);
    expect((await embedCall(slug, key, token)).statusCode).toBe(200);
    expect(await credits(creatorToken)).toBe(before);
  });
});
