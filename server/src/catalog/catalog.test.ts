import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';

let ctx: TestContext;
let upstream: FakeProviderServer;
let ownerToken: string;
let otherOwnerToken: string;
let visitorToken: string;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const api = (method: Method, url: string, token: string | null, payload?: object) =>
  ctx.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload } : {}) });

interface Listed {
  slug: string;
  name: string;
  price_cents: number;
  calls_30d: number;
  creator_name: string;
  mode: string;
  type: string;
}
const list = async (query = '') => {
  const response = await api('GET', `/api/catalog/${query ? `?${query}` : ''}`, null);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { results: Listed[]; has_more: boolean; next_cursor: string | null };
};
/** Every page of a listing, following next_cursor. */
async function listAll(query: string, limit: number) {
  const slugs: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const result = await list(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(result.results.length).toBeLessThanOrEqual(limit);
    slugs.push(...result.results.map((item) => item.slug));
    expect(result.next_cursor === null).toBe(!result.has_more);
    if (!result.has_more) return slugs;
    cursor = result.next_cursor;
  }
  throw new Error('paging never ended');
}

async function createApp(token: string, body: object, status: 'live' | 'draft' | 'archived' = 'live') {
  const created = await api('POST', '/api/app/', token, { type: 'prompt', visibility: 'public', ...body });
  expect(created.statusCode, created.body).toBe(201);
  const slug = created.json().slug as string;
  if (status !== 'draft') expect((await api('PATCH', `/api/app/${slug}/update_status/`, token, { status })).statusCode).toBe(200);
  return slug;
}

const slugs: Record<string, string> = {};

beforeAll(async () => {
  upstream = await startOpenAIFake({ apiKey: 'sk-catalog' });
  ctx = await createTestContext({ OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-catalog', RATE_LIMIT_PER_MINUTE: '100000' });
  // A creator whose display name is an e-mail address: the catalog must never show it.
  ownerToken = await ctx.tokenFor('catalog-owner', { name: 'ada.lovelace@example.com', email: 'ada.lovelace@example.com' });
  otherOwnerToken = await ctx.tokenFor('catalog-owner-2', { name: 'Grace Hopper' });
  visitorToken = await ctx.tokenFor('catalog-visitor');

  slugs.haiku = await createApp(ownerToken, { name: 'Haiku Writer', description: 'Seventeen syllables about anything', price_cents: 100 });
  await api('PATCH', `/api/app/${slugs.haiku}/prompt/`, ownerToken, {
    prompt_template: 'Write a {{style}} haiku about {{topic}}. Lines: {{lines}}',
    input_schema: {
      type: 'object',
      properties: {
        lines: { type: 'integer', minimum: 3, maximum: 3, description: 'Always three' },
        topic: { type: 'string', maxLength: 100, description: 'What the haiku is about' },
        style: { type: 'string', enum: ['classic', 'modern'] },
      },
      required: ['topic', 'style', 'lines'],
      additionalProperties: false,
    },
  });
  slugs.chat = await createApp(otherOwnerToken, { name: 'Chat Buddy', description: 'Talks 100% of the time', interaction_mode: 'chat', price_cents: 40 });
  slugs.cheap = await createApp(otherOwnerToken, { name: 'Free Summariser', description: 'Summaries for everyone', price_cents: 5 });
  expect((await api('PATCH', `/api/app/${slugs.cheap}/`, otherOwnerToken, { price_cents: 0 })).statusCode).toBe(200);
  slugs.pricey = await createApp(ownerToken, { name: 'Legal Drafter', description: 'Contracts', price_cents: 900 });

  // Never in the catalog.
  slugs.private = await createApp(ownerToken, { name: 'Secret Haiku', visibility: 'private' });
  slugs.embed = await createApp(ownerToken, { name: 'Embedded Haiku', visibility: 'embed' });
  slugs.draft = await createApp(ownerToken, { name: 'Draft Haiku' }, 'draft');
  slugs.archived = await createApp(ownerToken, { name: 'Archived Haiku' }, 'archived');
  slugs.deleted = await createApp(ownerToken, { name: 'Deleted Haiku' });
  expect((await api('DELETE', `/api/app/${slugs.deleted}/`, ownerToken)).statusCode).toBe(204);
  // Generous: a dozen apps are set up through the API on a machine that may be busy.
}, 240_000);
afterAll(async () => {
  await ctx?.close();
  await upstream?.close();
});

const hidden = ['private', 'embed', 'draft', 'archived', 'deleted'];
const listed = ['haiku', 'chat', 'cheap', 'pricey'];

describe('who appears in the catalog', () => {
  it('lists live public apps to anonymous visitors, and never a private, embed, draft, archived or deleted one', async () => {
    const all = await listAll('sort=newest', 50);
    expect(new Set(all)).toEqual(new Set(listed.map((key) => slugs[key])));
    for (const key of hidden) {
      expect((await list(`q=${encodeURIComponent(slugs[key]!)}`)).results).toEqual([]);
      expect((await api('GET', `/api/catalog/${slugs[key]}`, null)).statusCode, key).toBe(404);
      // Not even its owner finds it in the public catalog.
      expect((await api('GET', `/api/catalog/${slugs[key]}`, ownerToken)).statusCode, key).toBe(404);
    }
  });

  it('drops an app the moment it stops being live and public', async () => {
    const slug = await createApp(otherOwnerToken, { name: 'Fleeting App' });
    expect((await list('q=Fleeting')).results.map((item) => item.slug)).toEqual([slug]);
    await api('PATCH', `/api/app/${slug}/`, otherOwnerToken, { visibility: 'private' });
    expect((await list('q=Fleeting')).results).toEqual([]);
    await api('PATCH', `/api/app/${slug}/`, otherOwnerToken, { visibility: 'public' });
    await api('PATCH', `/api/app/${slug}/update_status/`, otherOwnerToken, { status: 'archived' });
    expect((await list('q=Fleeting')).results).toEqual([]);
    expect((await api('GET', `/api/catalog/${slug}`, null)).statusCode).toBe(404);
  });

  it('shows the creator by display name, never by e-mail address', async () => {
    const page = await api('GET', '/api/catalog/?limit=50', null);
    expect(page.body).not.toContain('@example.com');
    const haiku = (page.json().results as Listed[]).find((item) => item.slug === slugs.haiku)!;
    expect(haiku.creator_name).toBe('ada.lovelace');
    const chat = (page.json().results as Listed[]).find((item) => item.slug === slugs.chat)!;
    expect(chat.creator_name).toBe('Grace Hopper');
    expect((await api('GET', `/api/catalog/${slugs.haiku}`, null)).body).not.toContain('@example.com');
  });
});

describe('search and filters', () => {
  it('finds apps by every word of the query in name, description, slug or creator, case-insensitively', async () => {
    expect((await list('q=haiku')).results.map((item) => item.slug)).toEqual([slugs.haiku]);
    expect((await list('q=SYLLABLES')).results.map((item) => item.slug)).toEqual([slugs.haiku]);
    expect(new Set((await list('q=grace')).results.map((item) => item.slug))).toEqual(new Set([slugs.chat, slugs.cheap]));
    expect((await list('q=grace%20summar')).results.map((item) => item.slug)).toEqual([slugs.cheap]);
    expect((await list('q=nothing-like-this')).results).toEqual([]);
  });

  it('takes LIKE wildcards in the query literally', async () => {
    expect((await list(`q=${encodeURIComponent('100%')}`)).results.map((item) => item.slug)).toEqual([slugs.chat]);
    expect((await list(`q=${encodeURIComponent('%')}`)).results.map((item) => item.slug)).toEqual([slugs.chat]);
    expect((await list(`q=${encodeURIComponent('_')}`)).results).toEqual([]);
  });

  it('filters by type, mode and price', async () => {
    expect((await list('type=workflow')).results).toEqual([]);
    expect(new Set((await list('type=prompt')).results.map((item) => item.slug))).toEqual(new Set(listed.map((key) => slugs[key])));
    expect((await list('mode=chat')).results.map((item) => item.slug)).toEqual([slugs.chat]);
    expect((await list('mode=completion')).results.map((item) => item.slug)).not.toContain(slugs.chat);
    expect((await list('price=free')).results.map((item) => item.slug)).toEqual([slugs.cheap]);
    expect((await list('price=paid')).results.map((item) => item.slug)).not.toContain(slugs.cheap);
    expect(new Set((await list('max_price_cents=100')).results.map((item) => item.slug))).toEqual(new Set([slugs.haiku, slugs.chat, slugs.cheap]));
  });

  it('refuses unknown filter values with 400', async () => {
    expect((await api('GET', '/api/catalog/?sort=random', null)).statusCode).toBe(400);
    expect((await api('GET', '/api/catalog/?limit=500', null)).statusCode).toBe(400);
    expect((await api('GET', '/api/catalog/?type=agent', null)).statusCode).toBe(400);
  });
});

describe('sorting and paging', () => {
  it('sorts by price both ways', async () => {
    expect((await list('sort=price_asc')).results.map((item) => item.price_cents)).toEqual([0, 40, 100, 900]);
    expect((await list('sort=price_desc')).results.map((item) => item.price_cents)).toEqual([900, 100, 40, 0]);
  });

  it('sorts newest first by when the app went live', async () => {
    // Went live in the order they were created above.
    expect((await list('sort=newest')).results.map((item) => item.slug)).toEqual([slugs.pricey, slugs.cheap, slugs.chat, slugs.haiku]);
  });

  it('sorts by successful calls over the last 30 days, read from the rollups', async () => {
    const key = (await api('POST', '/api/keys/', visitorToken, { name: 'catalog' })).json().key as string;
    const call = (slug: string, body: object) => ctx.api('POST', `/api/app/${slug}/${'query' in body ? 'chat' : 'completion'}-messages`, key, body);
    for (let index = 0; index < 2; index++) {
      const response = await call(slugs.cheap!, { inputs: { query: 'Summarise this' }, response_mode: 'blocking' });
      expect(response.statusCode, response.body).toBe(200);
    }
    expect((await call(slugs.chat!, { inputs: {}, query: 'Hi', response_mode: 'blocking' })).statusCode).toBe(200);
    // A failed call does not make an app popular.
    expect((await call(slugs.haiku!, { inputs: { topic: 'x' }, response_mode: 'blocking' })).statusCode).toBe(400);
    // Calls older than 30 days no longer count.
    const { rows } = await ctx.database.db.query<{ id: string }>('SELECT id FROM apps WHERE slug = $1', [slugs.pricey]);
    await ctx.database.db.query(
      `INSERT INTO app_daily_stats (app_id, day, invocations, successes) VALUES ($1, (now() AT TIME ZONE 'UTC')::date - 31, 50, 50), ($1, (now() AT TIME ZONE 'UTC')::date - 29, 1, 1)`,
      [rows[0]!.id],
    );

    const popular = (await list('sort=popular')).results;
    expect(popular.map((item) => [item.slug, item.calls_30d])).toEqual([
      [slugs.cheap, 2],
      [slugs.pricey, 1],
      [slugs.chat, 1],
      [slugs.haiku, 0],
    ]);
    // popular is the default sort
    expect((await list()).results.map((item) => item.slug)).toEqual(popular.map((item) => item.slug));
  });

  it('pages with limit and cursor through every sort without gaps or repeats', async () => {
    for (const extra of ['Page App A', 'Page App B', 'Page App C']) await createApp(otherOwnerToken, { name: extra, price_cents: 100 });
    for (const sort of ['popular', 'newest', 'price_asc', 'price_desc']) {
      const whole = (await list(`sort=${sort}&limit=50`)).results.map((item) => item.slug);
      expect(whole.length).toBeGreaterThanOrEqual(7);
      for (const limit of [1, 2, 3]) expect(await listAll(`sort=${sort}`, limit), `${sort} by ${limit}`).toEqual(whole);
    }
    const first = await list('sort=newest&limit=2');
    expect(first.has_more).toBe(true);
    // A cursor is tied to its sort, and a forged one is refused.
    expect((await api('GET', `/api/catalog/?sort=price_asc&cursor=${first.next_cursor}`, null)).statusCode).toBe(400);
    expect((await api('GET', '/api/catalog/?cursor=bm90LWEtY3Vyc29y', null)).statusCode).toBe(400);
    const forged = Buffer.from(JSON.stringify(['newest', '1 OR 1=1', '00000000-0000-0000-0000-000000000000'])).toString('base64url');
    expect((await api('GET', `/api/catalog/?sort=newest&cursor=${forged}`, null)).statusCode).toBe(400);
  });

  it('answers the one page shape of every object list: results, has_more, next_cursor, and the page headers (issue 26)', async () => {
    const response = await api('GET', '/api/catalog/?sort=newest&limit=2', null);
    const page = response.json() as Record<string, unknown>;
    expect(Object.keys(page).sort()).toEqual(['has_more', 'next_cursor', 'results']);
    expect(response.headers['x-has-more']).toBe('true');
    expect(response.headers['x-next-cursor']).toBe(page.next_cursor);
    expect(response.headers.link).toBe(`</api/catalog/?sort=newest&limit=2&cursor=${page.next_cursor}>; rel="next"`);
    const last = await api('GET', '/api/catalog/?sort=newest&limit=50', null);
    expect(last.statusCode).toBe(200);
    expect(last.headers['x-has-more']).toBe('false');
    expect(last.headers['x-next-cursor']).toBeUndefined();
    expect(last.headers.link).toBeUndefined();
  });
});

describe("an app's public page", () => {
  it("gives a plan's price in its currency's major unit: ¥ and ₫ have no minor unit", async () => {
    const plan = await api('POST', `/api/app/${slugs.cheap}/packages/`, otherOwnerToken, { name: 'Dong', price: 100_000, currency: 'VND' });
    expect(plan.statusCode, plan.body).toBe(201);
    const page = (await api('GET', `/api/catalog/${slugs.cheap}`, null)).json();
    expect(page.plans).toContainEqual(expect.objectContaining({ name: 'Dong', price: 100_000, price_cents: 100_000, currency: 'vnd' }));
  });

  it('shows description, creator, price, the upcoming price, active plans, inputs and endpoints', async () => {
    const plan = await api('POST', `/api/app/${slugs.haiku}/packages/`, ownerToken, {
      name: 'Pro',
      description: 'For poets',
      price: 9.99,
      features: { Support: 'email' },
      included_calls: 100,
    });
    expect(plan.statusCode, plan.body).toBe(201);
    const inactive = await api('POST', `/api/app/${slugs.haiku}/packages/`, ownerToken, { name: 'Retired', price: 1, is_active: false });
    expect(inactive.statusCode, inactive.body).toBe(201);
    // A price increase waits for its notice period (when someone called the app in it) and is shown meanwhile.
    await ctx.database.db.query("INSERT INTO invocations (app_id, status, price_cents) SELECT id, 'success', 100 FROM apps WHERE slug = $1", [slugs.haiku]);
    expect((await api('PATCH', `/api/app/${slugs.haiku}/`, ownerToken, { price_cents: 150 })).statusCode).toBe(200);

    const response = await api('GET', `/api/catalog/${slugs.haiku}`, null);
    expect(response.statusCode).toBe(200);
    const page = response.json();
    expect(page).toMatchObject({
      slug: slugs.haiku,
      name: 'Haiku Writer',
      description: 'Seventeen syllables about anything',
      creator_name: 'ada.lovelace',
      type: 'prompt',
      mode: 'completion',
      price_cents: 100,
      upcoming_price_cents: 150,
      text_input: 'topic',
      billing_path: `/applications/${slugs.haiku}/billing`,
      endpoints: {
        call: `http://tollbooth.test/api/app/${slugs.haiku}/completion-messages`,
        dify_base_url: `http://tollbooth.test/api/app/${slugs.haiku}`,
        openai_base_url: 'http://tollbooth.test/v1',
        openapi: `http://tollbooth.test/api/app/${slugs.haiku}/openapi.json`,
      },
    });
    expect(typeof page.upcoming_price_at).toBe('string');
    expect(page.plans).toEqual([
      {
        id: plan.json().id,
        name: 'Pro',
        description: 'For poets',
        price: 9.99,
        price_cents: 999,
        currency: 'usd',
        features: { Support: 'email' },
        included_calls: 100,
        included_usage_micros: 0,
      },
    ]);
    // Fields in the order the template uses them, with their real names, controls and bounds.
    expect(page.fields).toEqual([
      { name: 'style', label: 'Style', description: '', control: 'select', required: true, options: ['classic', 'modern'] },
      { name: 'topic', label: 'Topic', description: 'What the haiku is about', control: 'text', required: true, maxLength: 100 },
      { name: 'lines', label: 'Lines', description: 'Always three', control: 'integer', required: true, minimum: 3, maximum: 3 },
    ]);
    expect(page.snippets.curl).toContain(`'http://tollbooth.test/api/app/${slugs.haiku}/completion-messages'`);
    expect(page.snippets.curl).toContain('"style": "classic"');
    expect(page.snippets.curl).toContain('"lines": 3');
    expect(page.snippets.python).toContain('import requests');
    expect(page.snippets.dify_sdk).toContain(`new CompletionClient('YOUR_API_KEY', 'http://tollbooth.test/api/app/${slugs.haiku}')`);
    expect(page.snippets.openai_sdk).toContain(`model: '${slugs.haiku}'`);
  });

  it('gives a chat app its query as the text and the chat endpoint', async () => {
    const page = (await api('GET', `/api/catalog/${slugs.chat}`, null)).json();
    expect(page).toMatchObject({ mode: 'chat', text_input: null, fields: [], plans: [] });
    expect(page.endpoints.call).toBe(`http://tollbooth.test/api/app/${slugs.chat}/chat-messages`);
    expect(page.snippets.curl).toContain('"query": "Hello! What can you do?"');
    expect(page.snippets.dify_sdk).toContain('new ChatClient(');
  });
});

describe("an app's OpenAPI document", () => {
  it('documents the call with a request body generated from the input schema', async () => {
    const response = await api('GET', `/api/app/${slugs.haiku}/openapi.json`, null);
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: `http://tollbooth.test/api/app/${slugs.haiku}` }]);
    expect(Object.keys(doc.paths)).toEqual(['/completion-messages', '/v1/chat/completions']);
    expect(doc.components.schemas.Inputs).toEqual({
      type: 'object',
      properties: {
        style: { title: 'Style', enum: ['classic', 'modern'], type: 'string' },
        topic: { title: 'Topic', description: 'What the haiku is about', type: 'string', maxLength: 100 },
        lines: { title: 'Lines', description: 'Always three', type: 'integer', minimum: 3, maximum: 3 },
      },
      required: ['style', 'topic', 'lines'],
      additionalProperties: false,
    });
    const post = doc.paths['/completion-messages'].post;
    expect(Object.keys(post.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    // The answer's headers: request id, rate limit, the price charged; Retry-After on 429.
    expect(Object.keys(post.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Price-Cents']),
    );
    expect(Object.keys(post.responses['429'].headers)).toContain('Retry-After');
    expect(Object.keys(doc.paths['/v1/chat/completions'].post.responses['200'].headers)).toContain('X-Price-Cents');
    expect(post.requestBody.content['application/json'].example.inputs).toEqual({ style: 'classic', topic: 'Hello! What can you do?', lines: 3 });
  });

  it('follows the read rule: live public or embed for anyone, any status for the owner, else 404', async () => {
    expect((await api('GET', `/api/app/${slugs.embed}/openapi.json`, null)).statusCode).toBe(200);
    expect((await api('GET', `/api/app/${slugs.chat}/openapi.json`, null)).json().paths['/chat-messages']).toBeDefined();
    for (const key of ['private', 'draft', 'archived', 'deleted']) {
      expect((await api('GET', `/api/app/${slugs[key]}/openapi.json`, null)).statusCode, key).toBe(404);
      expect((await api('GET', `/api/app/${slugs[key]}/openapi.json`, visitorToken)).statusCode, key).toBe(404);
    }
    expect((await api('GET', `/api/app/${slugs.draft}/openapi.json`, ownerToken)).statusCode).toBe(200);
    expect((await api('GET', `/api/app/${slugs.private}/openapi.json`, ownerToken)).statusCode).toBe(200);
  });
});

describe('caching: Cache-Control and ETag, 304 on If-None-Match (issue 26)', () => {
  const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

  it('the catalog list and an app page are public for a minute and revalidate to 304', async () => {
    for (const url of ['/api/catalog/?sort=price_asc', `/api/catalog/${slugs.haiku}`]) {
      const first = await get(url);
      expect(first.statusCode, url).toBe(200);
      expect(first.headers['cache-control'], url).toBe('public, max-age=60');
      const etag = first.headers.etag as string;
      expect(etag, url).toMatch(/^W\/"[\w-]+"$/);
      const again = await get(url, { 'if-none-match': etag });
      expect(again.statusCode, url).toBe(304);
      expect(again.body, url).toBe('');
      expect(again.headers.etag, url).toBe(etag);
      expect((await get(url, { 'if-none-match': 'W/"other"' })).statusCode, url).toBe(200);
    }
    // Another page is another document.
    expect((await get('/api/catalog/?sort=price_desc')).headers.etag).not.toBe((await get('/api/catalog/?sort=price_asc')).headers.etag);
    // A 404 is not cached.
    expect((await get('/api/catalog/no-such-app')).headers.etag).toBeUndefined();
  });

  it("an app's OpenAPI document and inputs: public without a token, private to an owner, 304 when unchanged, a new ETag after an edit", async () => {
    for (const path of ['openapi.json', 'inputs']) {
      const url = `/api/app/${slugs.pricey}/${path}`;
      const anonymous = await get(url);
      expect(anonymous.headers['cache-control']).toBe('public, max-age=300');
      expect(anonymous.headers.vary).toContain('Authorization');
      const etag = anonymous.headers.etag as string;
      expect((await get(url, { 'if-none-match': etag })).statusCode).toBe(304);
      const owner = await get(url, { authorization: `Bearer ${ownerToken}` });
      expect(owner.headers['cache-control']).toBe('private, no-cache');
      expect(owner.headers.etag).toBe(etag);
    }
    const before = (await get(`/api/app/${slugs.pricey}/openapi.json`)).headers.etag as string;
    expect((await api('PATCH', `/api/app/${slugs.pricey}/`, ownerToken, { description: 'Contracts and NDAs' })).statusCode).toBe(200);
    const after = await get(`/api/app/${slugs.pricey}/openapi.json`, { 'if-none-match': before });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before);
  });

  it("an app's document describes the headers of every answer: the request id on refusals too, 406 for an Accept it cannot answer", async () => {
    const doc = (await get(`/api/app/${slugs.haiku}/openapi.json`)).json();
    for (const operation of [doc.paths['/completion-messages'].post, doc.paths['/v1/chat/completions'].post]) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, { headers?: object }>)) {
        expect(Object.keys(response.headers ?? {}), status).toContain('X-Request-Id');
      }
      expect(operation.responses['406']).toBeDefined();
    }
  });
});

describe('GET /api/app/{slug}/inputs (the console’s fields, issue 25)', () => {
  it('gives the inputs of any app the caller may call, embed apps included, by the read rule', async () => {
    // Not in the catalog, but callable: its required input is there for the console.
    expect((await api('GET', `/api/catalog/${slugs.embed}`, null)).statusCode).toBe(404);
    const embed = await api('GET', `/api/app/${slugs.embed}/inputs`, visitorToken);
    expect(embed.statusCode).toBe(200);
    expect(embed.json()).toMatchObject({ mode: 'completion', text_input: 'query', fields: [{ name: 'query', required: true }] });
    expect((await api('GET', `/api/app/${slugs.chat}/inputs`, null)).json().mode).toBe('chat');
    for (const key of ['private', 'draft', 'archived', 'deleted']) {
      expect((await api('GET', `/api/app/${slugs[key]}/inputs`, visitorToken)).statusCode, key).toBe(404);
    }
    expect((await api('GET', `/api/app/${slugs.private}/inputs`, ownerToken)).statusCode).toBe(200);
  });
});

describe('demo-model apps are marked (issue 25 item 8)', () => {
  it('sets demo_model in the list, the app page and the inputs when the model is answered by the demo model', async () => {
    const demo = await createApp(ownerToken, { name: 'Demo Model Poet', description: 'answered by the demo', price_cents: 7 });
    const patched = await api('PATCH', `/api/app/${demo}/prompt/`, ownerToken, { model: 'claude-3-opus', prompt_template: 'A poem on {{query}}' });
    expect(patched.statusCode, patched.body).toBe(200);
    const real = await createApp(ownerToken, { name: 'Real Model Poet', description: 'answered by OpenAI', price_cents: 7 });
    expect((await api('PATCH', `/api/app/${real}/prompt/`, ownerToken, { model: 'gpt-4-turbo', prompt_template: 'A poem on {{query}}' })).statusCode).toBe(200);

    const items = (await list('q=Model+Poet')).results as (Listed & { demo_model: boolean })[];
    expect(items.find((item) => item.slug === demo)?.demo_model).toBe(true);
    expect(items.find((item) => item.slug === real)?.demo_model).toBe(false);
    expect((await api('GET', `/api/catalog/${demo}`, null)).json().demo_model).toBe(true);
    expect((await api('GET', `/api/catalog/${real}`, null)).json().demo_model).toBe(false);
    expect((await api('GET', `/api/app/${demo}/inputs`, visitorToken)).json().demo_model).toBe(true);
    expect((await api('GET', `/api/app/${real}/inputs`, visitorToken)).json().demo_model).toBe(false);
  });
});

// Last in the file: the app it adds would change the listings above.
describe('an app priced per token (issue 60): the rate card wherever the price is shown', () => {
  it('lists its card and its announced card with their date, and its OpenAPI document says the card in words and the X-Max-Price header', async () => {
    const slug = await createApp(otherOwnerToken, {
      name: 'Token Poet',
      description: 'Paid by the token',
      pricing: { form: 'per_token', input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000, minimum_micros: 1_000 },
    });
    // Someone called it lately, so a dearer card waits for its notice period.
    await ctx.database.db.query("INSERT INTO invocations (app_id, status, price_cents) SELECT id, 'success', 1 FROM apps WHERE slug = $1", [slug]);
    const dearer = await api('PATCH', `/api/app/${slug}/`, otherOwnerToken, {
      pricing: { form: 'per_token', input_per_mtok_micros: 3_000_000, output_per_mtok_micros: 12_000_000, minimum_micros: 1_000 },
    });
    expect(dearer.statusCode, dearer.body).toBe(200);

    const card = { form: 'per_token', call_micros: 0, cached_input_per_mtok_micros: null, markup_bps: 0, minimum_micros: 1_000, max_call_micros: null };
    const listedApp = (await list('q=Token+Poet')).results[0] as unknown as Record<string, unknown>;
    expect(listedApp.pricing).toEqual({ ...card, input_per_mtok_micros: 2_000_000, output_per_mtok_micros: 8_000_000 });
    expect(listedApp.upcoming_pricing).toEqual({ ...card, input_per_mtok_micros: 3_000_000, output_per_mtok_micros: 12_000_000 });
    expect(typeof listedApp.upcoming_price_at).toBe('string');
    const page = (await api('GET', `/api/catalog/${slug}`, null)).json();
    expect(page.pricing).toEqual(listedApp.pricing);
    expect(page.upcoming_pricing).toEqual(listedApp.upcoming_pricing);
    // A per-call app without an announced change has no upcoming card.
    expect((await api('GET', `/api/catalog/${slugs.chat}`, null)).json()).toMatchObject({ upcoming_pricing: null });

    const doc = (await api('GET', `/api/app/${slug}/openapi.json`, null)).json();
    expect(doc.info.description).toContain(
      'Price: $2.00 per million input tokens; $8.00 per million output tokens; minimum $0.001 per call. Each successful call is charged its exact amount',
    );
    expect(doc.info.description).toContain('X-Max-Price');
    expect(doc.info.description).not.toContain('Each successful call costs');
    const headers = doc.paths['/completion-messages'].post.parameters.map((parameter: { name: string }) => parameter.name);
    expect(headers).toEqual(['Idempotency-Key', 'X-Max-Price-Cents', 'X-Max-Price']);
    // A whole-cent price per call reads as before.
    expect((await api('GET', `/api/app/${slugs.haiku}/openapi.json`, null)).json().info.description).toContain('Each successful call costs 1.00 USD');
  });

  it('never counts an app paid by the token as free, though its least call is 0 cents', async () => {
    const slug = await createApp(otherOwnerToken, { name: 'Token Prose', pricing: { form: 'per_token', input_per_mtok_micros: 1_000_000 } });
    expect((await list('q=Token+Prose')).results[0]).toMatchObject({ slug, price_cents: 0 });
    expect((await list('price=free')).results.map((item) => item.slug)).toEqual([slugs.cheap]);
    expect((await list('price=paid')).results.map((item) => item.slug)).toContain(slug);
  });
});
