import { describe, expect, it } from 'vitest';
import { expectInvalidParam, testContextForFile } from '../test-support/app.ts';

const ctx = await testContextForFile();
const owner = await ctx.tokenFor('owner', { name: 'Olivia Owner' });
const stranger = await ctx.tokenFor('stranger');

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: object, token: string | null = owner) =>
  ctx.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload } : {}) });

const create = async (payload: object, token = owner) => {
  const response = await call('POST', '/api/app/', payload, token);
  expect(response.statusCode).toBe(201);
  return response.json();
};

const workflow = (name: string) => ({ name, type: 'workflow', provider_config: { app_id: 'dify-app-1', api_key: 'app-SuperSecretKey1234' } });

describe('POST /api/app/', () => {
  it('creates a prompt app with the spec defaults', async () => {
    const app = await create({ name: 'Haiku Writer', type: 'prompt' });
    expect(app).toMatchObject({
      name: 'Haiku Writer',
      slug: 'haiku-writer',
      description: '',
      type: 'prompt',
      interaction_mode: 'completion',
      visibility: 'private',
      status: 'draft',
      price_cents: 100,
      creator_name: 'Olivia Owner',
      is_owner: true,
    });
    expect(app.provider_config).toBeUndefined();
  });

  it('gives -2, -3 on slug collisions, across users', async () => {
    expect((await create({ name: 'Twin', type: 'prompt' })).slug).toBe('twin');
    expect((await create({ name: 'twin!', type: 'prompt' }, stranger)).slug).toBe('twin-2');
    expect((await create({ name: 'TWIN', type: 'prompt' })).slug).toBe('twin-3');
  });

  it('gives distinct slugs to concurrent creations with one name', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => call('POST', '/api/app/', { name: 'Race', type: 'prompt' })));
    const slugs = responses.map((response) => response.json().slug).sort();
    expect(slugs).toEqual(['race', 'race-2', 'race-3', 'race-4', 'race-5', 'race-6']);
  });

  it('stores the workflow key encrypted and only returns it masked', async () => {
    const app = await create(workflow('Dify Flow'));
    expect(app.provider_config).toEqual({ app_id: 'dify-app-1', api_key: '••••••••1234', base_url: 'https://api.dify.ai/v1' });
    expect(JSON.stringify(app)).not.toContain('SuperSecret');
    const { rows } = await ctx.database.db.query<{ provider_secret_sealed: string; provider_config: object }>(
      'SELECT provider_secret_sealed, provider_config FROM apps WHERE slug = $1',
      [app.slug],
    );
    expect(rows[0]!.provider_secret_sealed).not.toContain('SuperSecret');
    expect(JSON.stringify(rows[0]!.provider_config)).not.toContain('SuperSecret');
    const listed = (await call('GET', '/api/app/')).body;
    expect(listed).not.toContain('SuperSecret');
  });

  it.each([
    [{ type: 'prompt' }, 'name'],
    [{ name: '', type: 'prompt' }, 'name'],
    [{ name: '   ', type: 'prompt' }, 'name'],
    [{ name: 'x'.repeat(101), type: 'prompt' }, 'name'],
    [{ name: 'A' }, 'type'],
    [{ name: 'A', type: 'agent' }, 'type'],
    [{ name: 'A', type: 'prompt', visibility: 'secret' }, 'visibility'],
    [{ name: 'A', type: 'prompt', interaction_mode: 'voice' }, 'interaction_mode'],
    [{ name: 'A', type: 'prompt', price_cents: 0 }, 'price_cents'],
    [{ name: 'A', type: 'prompt', price_cents: 1.5 }, 'price_cents'],
    [{ name: 'A', type: 'prompt', price_cents: '100' }, 'price_cents'],
    [{ name: 'A', type: 'workflow' }, 'provider_config.app_id'],
    [{ name: 'A', type: 'workflow', provider_config: { app_id: 'x', api_key: '' } }, 'provider_config.api_key'],
    [{ name: 'A', type: 'workflow', provider_config: { app_id: 'x', api_key: 'k', base_url: 'ftp://x' } }, 'provider_config.base_url'],
  ])('answers 400 naming the field for %j', async (payload, field) => {
    const response = await call('POST', '/api/app/', payload);
    expectInvalidParam(response, field);
  });

  it('answers 400 for malformed JSON and 401 without a token', async () => {
    const bad = await ctx.app.inject({
      method: 'POST',
      url: '/api/app/',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(bad.statusCode).toBe(400);
    expect((await call('POST', '/api/app/', { name: 'A', type: 'prompt' }, null)).statusCode).toBe(401);
  });
});

describe('reading applications', () => {
  it('lists only the signed-in user’s apps, newest first', async () => {
    const mine = (await call('GET', '/api/app/')).json();
    const slugs = mine.map((app: { slug: string }) => app.slug);
    expect(slugs).not.toContain('twin-2');
    const times = mine.map((app: { created_at: string }) => app.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    for (const app of mine) {
      expect(Object.keys(app)).toEqual(
        expect.arrayContaining([
          'id',
          'name',
          'slug',
          'description',
          'type',
          'status',
          'visibility',
          'interaction_mode',
          'price_cents',
          'created_at',
          'updated_at',
          'creator_name',
        ]),
      );
    }
  });

  it('shows a private or draft app only to its owner, and a live public one to anyone without secrets', async () => {
    const app = await create(workflow('Shared Flow'));
    expect((await call('GET', `/api/app/${app.slug}/`, undefined, stranger)).statusCode).toBe(404);
    await call('PATCH', `/api/app/${app.slug}/`, { visibility: 'public' });
    expect((await call('GET', `/api/app/${app.slug}/`, undefined, stranger)).statusCode).toBe(404); // still draft
    await call('PATCH', `/api/app/${app.slug}/update_status/`, { status: 'live' });
    const publicView = await call('GET', `/api/app/${app.slug}/`, undefined, stranger);
    expect(publicView.statusCode).toBe(200);
    expect(publicView.json().is_owner).toBe(false);
    expect(publicView.json().provider_config).toBeUndefined();
    const anonymous = await call('GET', `/api/app/${app.slug}/`, undefined, null);
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json().provider_config).toBeUndefined();
  });

  it('answers 404 "Application not found" for an unknown slug', async () => {
    const response = await call('GET', '/api/app/no-such-app/');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'not_found', message: 'Application not found', status: 404, request_id: response.headers['x-request-id'] });
  });
});

describe('changing applications', () => {
  it('updates name, description, visibility, status, price and mode; price may be 0', async () => {
    const app = await create({ name: 'Editable', type: 'prompt' });
    const response = await call('PATCH', `/api/app/${app.slug}/`, {
      name: 'Edited',
      description: 'Now with words',
      visibility: 'embed',
      status: 'live',
      price_cents: 0,
      interaction_mode: 'chat',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      name: 'Edited',
      slug: 'editable',
      description: 'Now with words',
      visibility: 'embed',
      status: 'live',
      price_cents: 0,
      interaction_mode: 'chat',
    });
  });

  it('keeps the slug locked and validates updates', async () => {
    const app = await create({ name: 'Locked', type: 'prompt' });
    const cases: [object, string][] = [
      [{ slug: 'other' }, 'slug'],
      [{ price_cents: -1 }, 'price_cents'],
      [{ status: 'deleted' }, 'status'],
      [{ name: '' }, 'name'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [payload, field] of cases) {
      const response = await call('PATCH', `/api/app/${app.slug}/`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().params).toBe(field);
    }
    expect((await call('PATCH', `/api/app/${app.slug}/`, { slug: 'locked' })).statusCode).toBe(200);
  });

  it('refuses interaction_mode on workflow apps and keeps the stored key when the masked one comes back', async () => {
    const app = await create(workflow('Flow Edit'));
    expect((await call('PATCH', `/api/app/${app.slug}/`, { interaction_mode: 'chat' })).json().params).toBe('interaction_mode');
    const kept = await call('PATCH', `/api/app/${app.slug}/`, { provider_config: { app_id: 'dify-app-2', api_key: app.provider_config.api_key } });
    expect(kept.json().provider_config).toMatchObject({ app_id: 'dify-app-2', api_key: '••••••••1234' });
    const replaced = await call('PATCH', `/api/app/${app.slug}/`, { provider_config: { api_key: 'app-NewKeyValue9876' } });
    expect(replaced.json().provider_config.api_key).toBe('••••••••9876');
  });

  it('sets any status from any other', async () => {
    const app = await create({ name: 'Statuses', type: 'prompt' });
    for (const status of ['live', 'archived', 'draft', 'archived', 'live', 'draft']) {
      const response = await call('PATCH', `/api/app/${app.slug}/update_status/`, { status });
      expect(response.statusCode).toBe(200);
      expect(response.json().status).toBe(status);
    }
    expect((await call('PATCH', `/api/app/${app.slug}/update_status/`, { status: 'gone' })).json().params).toBe('status');
  });

  it('duplicates as a draft "{name} copy" with the configuration copied', async () => {
    const app = await create({ ...workflow('Original'), visibility: 'public', price_cents: 250 });
    await call('PATCH', `/api/app/${app.slug}/update_status/`, { status: 'live' });
    const response = await call('POST', `/api/app/${app.slug}/duplicate/`);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      name: 'Original copy',
      slug: 'original-copy',
      status: 'draft',
      visibility: 'public',
      price_cents: 250,
      type: 'workflow',
      provider_config: { app_id: 'dify-app-1', api_key: '••••••••1234' },
    });
    expect((await call('POST', `/api/app/${app.slug}/duplicate/`)).json().slug).toBe('original-copy-2');
  });

  it('deletes, keeps invocation and ledger history, and never reuses the slug', async () => {
    const app = await create({ name: 'Doomed', type: 'prompt' });
    const { db } = ctx.database;
    await db.query("INSERT INTO invocations (app_id, status, price_cents) VALUES ($1, 'success', 100)", [app.id]);
    const ledgerBefore = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM ledger_entries');
    const response = await call('DELETE', `/api/app/${app.slug}/`);
    expect(response.statusCode).toBe(204);
    expect((await call('GET', `/api/app/${app.slug}/`)).statusCode).toBe(404);
    expect((await call('GET', '/api/app/')).json().map((a: { slug: string }) => a.slug)).not.toContain('doomed');
    const invocations = await db.query('SELECT 1 FROM invocations WHERE app_id = $1', [app.id]);
    expect(invocations.rows).toHaveLength(1);
    const ledgerAfter = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM ledger_entries');
    expect(ledgerAfter.rows[0]!.count).toBe(ledgerBefore.rows[0]!.count);
    expect((await create({ name: 'Doomed', type: 'prompt' })).slug).toBe('doomed-2');
  });
});

describe('tenant isolation', () => {
  it('gives another user 404 on every owner-only call and hides the app from their list', async () => {
    const app = await create({ name: 'Private Thing', type: 'prompt' });
    const base = `/api/app/${app.slug}/`;
    const attempts: [Method, string, object?][] = [
      ['GET', base],
      ['PATCH', base, { name: 'Hijacked' }],
      ['PATCH', `${base}update_status/`, { status: 'live' }],
      ['POST', `${base}duplicate/`],
      ['GET', `${base}analytics/usage/`],
      ['DELETE', base],
    ];
    for (const [method, url, payload] of attempts) {
      const response = await call(method, url, payload, stranger);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json().message).toBe('Application not found');
    }
    const theirs = (await call('GET', '/api/app/', undefined, stranger)).json();
    expect(theirs.map((a: { slug: string }) => a.slug)).not.toContain(app.slug);
    const still = (await call('GET', base)).json();
    expect(still).toMatchObject({ name: 'Private Thing', status: 'draft' });
  });
});

describe('GET /api/app/{slug}/analytics/usage/', () => {
  it('sums the rollups over the period, zero-filled, revenue in dollars', async () => {
    const app = await create({ name: 'Metered', type: 'prompt' });
    const today = new Date().toISOString().slice(0, 10);
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
    const { db } = ctx.database;
    await db.query('INSERT INTO app_daily_stats (app_id, day, invocations, successes, revenue_cents) VALUES ($1, $2, 3, 3, 350), ($1, $3, 10, 10, 1000)', [
      app.id,
      today,
      old,
    ]);
    await db.query("INSERT INTO app_daily_users (app_id, day, end_user) VALUES ($1, $2, 'u1'), ($1, $2, 'u2'), ($1, $3, 'u3')", [app.id, today, old]);
    const usage = (await call('GET', `/api/app/${app.slug}/analytics/usage/`)).json();
    expect(usage).toMatchObject({ total_invocations: 3, total_users: 2, total_revenue: 3.5, total_revenue_cents: 350 });
    expect(usage.data).toHaveLength(30);
    // No model cost recorded: the margin is the revenue.
    expect(usage.data.at(-1)).toEqual({ date: today, invocations: 3, revenue: 3.5, model_cost: 0, net: 3.5 });
    expect(usage.data[0]).toMatchObject({ invocations: 0, revenue: 0 });
    const ninety = (await call('GET', `/api/app/${app.slug}/analytics/usage/?days=90`)).json();
    expect(ninety).toMatchObject({ total_invocations: 13, total_users: 3, total_revenue: 13.5 });
    expect((await call('GET', `/api/app/${app.slug}/analytics/usage/?days=14`)).statusCode).toBe(400);
  });
});
