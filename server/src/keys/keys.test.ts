import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createInvalidationBus } from '../db/invalidation.ts';
import { createTestContext, expectInvalidParam } from '../test-support/app.ts';
import { capturedLog } from '../test-support/log-capture.ts';
import { watchedDatabase } from '../test-support/watched-database.ts';
import { createApiKeysService, encodeBase62, hashApiKey } from './service.ts';

const ctx = await createTestContext();
const ada = await ctx.tokenFor('ada');
const bob = await ctx.tokenFor('bob');
const keys = createApiKeysService({ db: ctx.database.db });
afterAll(() => ctx.close());

type Method = 'GET' | 'POST' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, token: string | null = ada) =>
  ctx.app.inject({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const createKey = async (payload: object = { name: 'CI' }, token = ada) => {
  const response = await call('POST', '/api/keys/', payload, token);
  expect(response.statusCode).toBe(201);
  return response.json();
};

const LISTED_FIELDS = [
  'created_at',
  'id',
  'kind',
  'last_used_at',
  'max_price_cents',
  'monthly_spend_limit_cents',
  'name',
  'prefix',
  'publishable',
  'revoked_at',
  'spent_this_month_cents',
];

describe('key format', () => {
  it('encodes 32 bytes as exactly 43 base62 characters, padding small values', () => {
    expect(encodeBase62(new Uint8Array(32), 43)).toBe('0'.repeat(43));
    expect(encodeBase62(new Uint8Array(32).fill(255), 43)).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(encodeBase62(Uint8Array.from([0, 61]), 3)).toBe('00z');
    expect(encodeBase62(Uint8Array.from([0, 62]), 3)).toBe('010');
  });
});

describe('POST /api/keys/', () => {
  it('creates a key and shows it once, with its prefix visible', async () => {
    const created = await createKey({ name: 'Production', monthly_spend_limit_cents: 2500 });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Production',
      prefix: created.key.slice(0, 11),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
      revoked_at: null,
      monthly_spend_limit_cents: 2500,
      max_price_cents: null,
      spent_this_month_cents: 0,
      kind: 'secret',
      publishable: null,
      key: expect.stringMatching(/^tb_[0-9A-Za-z]{43}$/),
    });
    expect(created.prefix).toMatch(/^tb_[0-9A-Za-z]{8}$/);

    const listed = (await call('GET', '/api/keys/')).json();
    const entry = listed.find((key: { id: string }) => key.id === created.id);
    expect(Object.keys(entry).sort()).toEqual(LISTED_FIELDS);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(JSON.stringify(listed)).not.toContain(hashApiKey(created.key));
  });

  it('makes a different key every time, with no limit unless asked', async () => {
    const first = await createKey({ name: 'one' });
    const second = await createKey({ name: 'two', monthly_spend_limit_cents: null });
    expect(first.key).not.toBe(second.key);
    expect(first.monthly_spend_limit_cents).toBeNull();
    expect(second.monthly_spend_limit_cents).toBeNull();
    expect((await createKey({ name: 'zero', monthly_spend_limit_cents: 0 })).monthly_spend_limit_cents).toBe(0);
  });

  it('stores only the SHA-256 of the key: no part of it is in any column of any table', async () => {
    const created = await createKey({ name: 'Secret keeper' });
    const { db } = ctx.database;
    const stored = await db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [created.id]);
    expect(stored.rows[0]?.key_hash).toBe(hashApiKey(created.key));
    expect(hashApiKey(created.key)).toMatch(/^[0-9a-f]{64}$/);
    await keys.authenticateApiKey(created.key);

    const columns = await db.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
         AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb') OR c.udt_name IN ('_text', '_varchar'))`,
    );
    const tables = new Set(columns.rows.map((column) => column.table_name));
    expect(tables).toContain('api_keys');
    expect(tables).toContain('users');
    const needles = [created.key, created.key.slice(11, 31), created.key.slice(-20)];
    const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
    // The scan does find what is there: the visible prefix is stored on purpose.
    const prefixHits = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE strpos(${quote('prefix')}::text, $1) > 0`, [
      created.prefix,
    ]);
    expect(prefixHits.rows[0]?.n).toBe(1);
    for (const { table_name, column_name } of columns.rows) {
      for (const needle of needles) {
        const found = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(table_name)} WHERE strpos(${quote(column_name)}::text, $1) > 0`, [
          needle,
        ]);
        expect(found.rows[0]?.n, `${table_name}.${column_name} holds part of the key`).toBe(0);
      }
    }
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{}, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'ok', monthly_spend_limit_cents: -1 }, 'monthly_spend_limit_cents'],
    [{ name: 'ok', monthly_spend_limit_cents: 12.5 }, 'monthly_spend_limit_cents'],
    [{ name: 'ok', monthly_spend_limit_cents: '100' }, 'monthly_spend_limit_cents'],
    [{ name: 'ok', colour: 'blue' }, 'colour'],
  ])('answers 400 naming the field for %j', async (payload, field) => {
    const response = await call('POST', '/api/keys/', payload);
    expectInvalidParam(response, field);
  });

  it('accepts a name of exactly 100 characters', async () => {
    expect((await createKey({ name: 'x'.repeat(100) })).name).toBe('x'.repeat(100));
  });

  it('requires a signed-in user', async () => {
    expect((await call('POST', '/api/keys/', { name: 'anon' }, null)).statusCode).toBe(401);
    expect((await call('GET', '/api/keys/', undefined, null)).statusCode).toBe(401);
  });
});

describe('GET /api/keys/', () => {
  it("lists only the signed-in user's keys, newest first", async () => {
    const bobKey = await createKey({ name: 'Bob only' }, bob);
    const adaKeys = (await call('GET', '/api/keys/')).json();
    expect(adaKeys.length).toBeGreaterThan(0);
    expect(adaKeys.map((key: { id: string }) => key.id)).not.toContain(bobKey.id);
    const created = adaKeys.map((key: { created_at: string }) => key.created_at);
    expect(created).toEqual([...created].sort().reverse());
    const bobKeys = (await call('GET', '/api/keys/', undefined, bob)).json();
    expect(bobKeys.map((key: { id: string }) => key.id)).toEqual([bobKey.id]);
  });

  it('validates include_revoked', async () => {
    const response = await call('GET', '/api/keys/?include_revoked=maybe');
    expect(response.statusCode).toBe(400);
    expect(response.json().params).toBe('include_revoked');
  });
});

describe('authenticateApiKey', () => {
  it('finds a live key by its hash and records when it was used', async () => {
    const created = await createKey({ name: 'Gateway', monthly_spend_limit_cents: 900 });
    const adaId = (await call('GET', '/api/auth/profile/')).json().user.id;
    expect(await keys.authenticateApiKey(created.key)).toMatchObject({
      keyId: created.id,
      userId: adaId,
      monthlySpendLimitCents: 900,
      user: { id: adaId, is_active: true, date_joined: expect.any(Date) },
    });
    const listed = (await call('GET', '/api/keys/')).json().find((key: { id: string }) => key.id === created.id);
    expect(listed.last_used_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect(Date.now() - Date.parse(listed.last_used_at)).toBeLessThan(60_000);
  });

  it('writes last_used_at at most once a minute', async () => {
    const created = await createKey({ name: 'Hot path' });
    const { db } = ctx.database;
    const lastUsed = async () => (await db.query<{ at: Date }>('SELECT last_used_at AS at FROM api_keys WHERE id = $1', [created.id])).rows[0]!.at;

    await db.query("UPDATE api_keys SET last_used_at = now() - interval '30 seconds' WHERE id = $1", [created.id]);
    const recent = await lastUsed();
    expect(await keys.authenticateApiKey(created.key)).not.toBeNull();
    expect((await lastUsed()).getTime()).toBe(recent.getTime());

    await db.query("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1", [created.id]);
    const stale = await lastUsed();
    expect(await keys.authenticateApiKey(created.key)).not.toBeNull();
    expect((await lastUsed()).getTime()).toBeGreaterThan(stale.getTime() + 60_000);
  });

  it('answers null for malformed, unknown and revoked keys', async () => {
    const created = await createKey({ name: 'Short lived' });
    expect(await keys.authenticateApiKey('')).toBeNull();
    expect(await keys.authenticateApiKey('not-a-key')).toBeNull();
    expect(await keys.authenticateApiKey(`${created.key}x`)).toBeNull();
    expect(await keys.authenticateApiKey(`tb_${'A'.repeat(43)}`)).toBeNull();
    expect(await keys.authenticateApiKey(created.key.toLowerCase())).toBeNull();

    expect((await call('DELETE', `/api/keys/${created.id}/`)).statusCode).toBe(204);
    expect(await keys.authenticateApiKey(created.key)).toBeNull();
  });

  it("answers null once the key's user is inactive", async () => {
    const carol = await ctx.tokenFor('carol');
    const created = await createKey({ name: 'Carol' }, carol);
    expect(await keys.authenticateApiKey(created.key)).not.toBeNull();
    await ctx.database.db.query("UPDATE users SET is_active = false WHERE subject = 'carol'");
    expect(await keys.authenticateApiKey(created.key)).toBeNull();
  });
});

describe('DELETE /api/keys/{id}/', () => {
  it('revokes: the key leaves the list, stays visible with include_revoked, and revoking again changes nothing', async () => {
    const created = await createKey({ name: 'Retired' });
    const response = await call('DELETE', `/api/keys/${created.id}/`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');

    const live = (await call('GET', '/api/keys/')).json();
    expect(live.map((key: { id: string }) => key.id)).not.toContain(created.id);
    const all = (await call('GET', '/api/keys/?include_revoked=true')).json();
    const revoked = all.find((key: { id: string }) => key.id === created.id);
    expect(revoked.revoked_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect(all.some((key: { revoked_at: string | null }) => key.revoked_at === null)).toBe(true);

    expect((await call('DELETE', `/api/keys/${created.id}/`)).statusCode).toBe(204);
    const again = (await call('GET', '/api/keys/?include_revoked=true')).json().find((key: { id: string }) => key.id === created.id);
    expect(again.revoked_at).toBe(revoked.revoked_at);
  });

  it("answers 404 for another user's key and leaves it working", async () => {
    const bobKey = await createKey({ name: 'Not yours' }, bob);
    const response = await call('DELETE', `/api/keys/${bobKey.id}/`);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'not_found', message: 'API key not found', status: 404, request_id: response.headers['x-request-id'] });
    expect(await keys.authenticateApiKey(bobKey.key)).not.toBeNull();
  });

  it('answers 404 for an unknown id and 400 naming id for a malformed one', async () => {
    const unknown = await call('DELETE', '/api/keys/00000000-0000-4000-8000-000000000000/');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('API key not found');
    const malformed = await call('DELETE', '/api/keys/not-a-uuid/');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'invalid_param', params: 'id' });
  });
});

describe('spend this month', () => {
  it('sums what calls with the key were charged since the start of the UTC month', async () => {
    const { db } = ctx.database;
    const created = await createKey({ name: 'Metered', monthly_spend_limit_cents: 1000 });
    const other = await createKey({ name: 'Other' });
    const bobId = (await call('GET', '/api/auth/profile/', undefined, bob)).json().user.id;
    const adaId = (await call('GET', '/api/auth/profile/')).json().user.id;
    const app = await db.query<{ id: string }>("INSERT INTO apps (owner_id, name, slug, type) VALUES ($1, 'Priced', 'priced', 'prompt') RETURNING id", [bobId]);
    const appId = app.rows[0]!.id;
    const startOfMonth = "(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')";
    const invoke = (keyId: string, priceCents: number, createdAt: string, status = 'success') =>
      db.query(`INSERT INTO invocations (app_id, caller_id, api_key_id, status, price_cents, created_at) VALUES ($1, $2, $3, $4, $5, ${createdAt})`, [
        appId,
        adaId,
        keyId,
        status,
        priceCents,
      ]);
    await invoke(created.id, 150, 'now()');
    await invoke(created.id, 250, startOfMonth);
    await invoke(created.id, 999, `${startOfMonth} - interval '1 second'`);
    await invoke(created.id, 0, 'now()', 'error');
    await invoke(other.id, 500, 'now()');

    expect(await keys.spentThisMonthCents(created.id)).toBe(400);
    expect(await keys.spentThisMonthCents(other.id)).toBe(500);
    expect(await keys.spentThisMonthCents('00000000-0000-4000-8000-000000000000')).toBe(0);

    const listed = (await call('GET', '/api/keys/')).json();
    const byId = new Map(listed.map((key: { id: string }) => [key.id, key]));
    expect(byId.get(created.id)).toMatchObject({ spent_this_month_cents: 400, monthly_spend_limit_cents: 1000 });
    expect(byId.get(other.id)).toMatchObject({ spent_this_month_cents: 500 });
  });
});

describe('logs', () => {
  it('never carry a key, even at trace level', async () => {
    const { lines, stream } = capturedLog();
    const app = await buildApp({ config: ctx.config, db: ctx.database.db, logger: { level: 'trace', stream } });
    await app.ready();
    try {
      const headers = { authorization: `Bearer ${ada}` };
      const created = (await app.inject({ method: 'POST', url: '/api/keys/', headers, payload: { name: 'Logged?' } })).json();
      await app.inject({ method: 'GET', url: '/api/keys/', headers });
      await app.inject({ method: 'GET', url: '/api/keys/', headers: { authorization: `Bearer ${created.key}` } });
      await app.inject({ method: 'DELETE', url: `/api/keys/${created.id}/`, headers });
      const log = lines.join('');
      expect(log).toContain('/api/keys/');
      expect(log).not.toContain(created.key.slice(11, 31));
    } finally {
      await app.close();
    }
  });
});

describe('the per-process key cache', () => {
  /** A keys service as another process would have it, counting its key lookups. */
  async function countedKeys({ live = true } = {}) {
    const db = ctx.database.db;
    let lookups = 0;
    // live: false stands for a process whose listening connection is down.
    const counted = watchedDatabase(db, {
      live,
      onQuery: (sql) => {
        if (/FROM api_keys k JOIN users u/.test(sql)) lookups++;
      },
    });
    const invalidation = await createInvalidationBus(counted);
    closers.push(() => invalidation.close());
    return { service: createApiKeysService({ db: counted, invalidation }), lookups: () => lookups };
  }
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('reads a live key once, then answers from memory', async () => {
    const created = await createKey({ name: 'Cached' });
    const { service, lookups } = await countedKeys();
    const first = await service.authenticateApiKey(created.key);
    expect(first).toMatchObject({ keyId: created.id });
    for (let i = 0; i < 5; i++) expect(await service.authenticateApiKey(created.key)).toEqual(first);
    expect(lookups()).toBe(1);
  });

  it('never caches an unknown key, and reads every time while notifications may be missed', async () => {
    const { service, lookups } = await countedKeys();
    const unknown = `tb_${'B'.repeat(43)}`;
    expect(await service.authenticateApiKey(unknown)).toBeNull();
    expect(await service.authenticateApiKey(unknown)).toBeNull();
    expect(lookups()).toBe(2);

    const created = await createKey({ name: 'Not trusted' });
    const down = await countedKeys({ live: false });
    await down.service.authenticateApiKey(created.key);
    await down.service.authenticateApiKey(created.key);
    expect(down.lookups()).toBe(2);
  });

  it('forgets a key revoked anywhere, and the keys of a user made inactive anywhere', async () => {
    const created = await createKey({ name: 'Revoked elsewhere' });
    const { service } = await countedKeys();
    expect(await service.authenticateApiKey(created.key)).not.toBeNull();
    // Revoked through the API, i.e. by another service instance: this one hears of it by NOTIFY.
    expect((await call('DELETE', `/api/keys/${created.id}/`)).statusCode).toBe(204);
    await expect.poll(() => service.authenticateApiKey(created.key), { timeout: 5_000, interval: 5 }).toBeNull();

    const dave = await ctx.tokenFor('dave');
    const daves = await createKey({ name: 'Dave' }, dave);
    expect(await service.authenticateApiKey(daves.key)).not.toBeNull();
    await ctx.database.db.query("UPDATE users SET is_active = false WHERE subject = 'dave'");
    await expect.poll(() => service.authenticateApiKey(daves.key), { timeout: 5_000, interval: 5 }).toBeNull();
  });

  it('forgets at once, in the same process, a key it revokes', async () => {
    const created = await createKey({ name: 'Revoked here' });
    const { service } = await countedKeys();
    expect(await service.authenticateApiKey(created.key)).not.toBeNull();
    const userId = (await service.authenticateApiKey(created.key))!.userId;
    await service.revokeKey(userId, created.id);
    expect(await service.authenticateApiKey(created.key)).toBeNull();
  });
});
