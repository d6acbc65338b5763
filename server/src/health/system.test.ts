import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.ts';
import { listMigrations, migrate, NewerSchemaError } from '../db/migrate.ts';
import { createLifecycle } from '../http/drain.ts';
import { ConfigError, loadConfig } from '../platform/config.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { createReadiness } from './probes.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

describe('system endpoints', () => {
  it('GET /api/health checks the database', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', database: ctx.database.db.kind });
  });

  it('GET /livez answers without asking anything; GET /readyz checks the database and its migrations', async () => {
    const live = await ctx.app.inject({ method: 'GET', url: '/livez' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'live' });
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', database: ctx.database.db.kind });
    expect(ready.headers['cache-control']).toBe('no-store');
  });

  it('GET /readyz answers 503 with the reason: draining, a migration missing, a database that does not answer', async () => {
    const lifecycle = createLifecycle();
    const { db } = ctx.database;
    const migrations = listMigrations().map(({ name }) => name);
    const readiness = createReadiness({ db, lifecycle, migrations: [...migrations, '9998_not_applied_yet.sql'] });
    expect(await readiness()).toEqual({ status: 'unavailable', reason: 'migrations_pending', message: 'Migrations not applied: 9998_not_applied_yet.sql.' });
    expect(await createReadiness({ db, lifecycle, migrations })()).toEqual({ status: 'ready', database: db.kind });
    lifecycle.startDraining();
    expect(await createReadiness({ db, lifecycle, migrations })()).toEqual({
      status: 'unavailable',
      reason: 'draining',
      message: 'This process is shutting down.',
    });
    const silent = { ...db, query: () => new Promise<never>(() => undefined) } as unknown as Database;
    const started = performance.now();
    expect(await createReadiness({ db: silent, lifecycle: createLifecycle(), migrations })()).toEqual({
      status: 'unavailable',
      reason: 'database_unreachable',
      message: 'The database does not answer: no answer within 2000 ms.',
    });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('GET /api/config exposes only public settings', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      product_name: 'Tollbooth',
      oidc: { issuer: ctx.issuer.issuer, client_id: 'test-client', embedded: false },
      stripe_publishable_key: null,
      // Creators' margins show the platform's fee (issue 60): the test context's PLATFORM_FEE_BPS.
      platform_fee_bps: ctx.config.platformFeeBps,
    });
    expect(JSON.stringify(body)).not.toContain('a'.repeat(64));
  });

  it('serves the OpenAPI document at /api/docs', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    const paths = Object.keys(response.json().paths);
    expect(paths).toEqual(expect.arrayContaining(['/api/auth/profile/', '/api/creators/me/', '/api/auth/roles/', '/api/health']));
  });

  it('answers JSON 404 for an unknown API path', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('migrations', () => {
  it('are idempotent: a second run applies nothing and keeps data', async () => {
    const { db } = ctx.database;
    await db.query("INSERT INTO users (issuer, subject) VALUES ('x', 'kept')");
    expect(await migrate(db)).toEqual([]);
    expect(await migrate(db)).toEqual([]);
    const kept = await db.query("SELECT 1 FROM users WHERE subject = 'kept'");
    expect(kept.rows).toHaveLength(1);
  });

  it('have a number each', () => {
    const numbers = listMigrations().map(({ name }) => name.slice(0, 4));
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('are not applied again under a new name on a database that recorded the old one', async () => {
    const { db } = ctx.database;
    // As a database migrated before 0017_demo_calls.sql became 0015_demo_calls.sql has it.
    await db.query("UPDATE schema_migrations SET name = '0017_demo_calls.sql' WHERE name = '0015_demo_calls.sql'");
    expect(await migrate(db)).toEqual([]);
    const { rows } = await db.query<{ name: string }>("SELECT name FROM schema_migrations WHERE name LIKE '%demo_calls.sql' ORDER BY name");
    expect(rows.map((row) => row.name)).toEqual(['0015_demo_calls.sql', '0017_demo_calls.sql']);
  });

  it('refuse a database on a newer schema, writing nothing', async () => {
    const { db } = ctx.database;
    await db.query("INSERT INTO schema_migrations (name) VALUES ('9999_newer.sql')");
    try {
      await expect(migrate(db)).rejects.toThrow(NewerSchemaError);
      await expect(migrate(db)).rejects.toThrow(/it has migration 9999_newer\.sql, which this version does not know/);
    } finally {
      await db.query("DELETE FROM schema_migrations WHERE name = '9999_newer.sql'");
    }
    expect(await migrate(db)).toEqual([]);
  });

  it('run once each when several processes start together', async () => {
    const { db } = ctx.database;
    const results = await Promise.all([migrate(db), migrate(db), migrate(db)]);
    expect(results.flat()).toEqual([]);
    const { rows } = await db.query<{ count: number; distinct: number }>(
      'SELECT count(*)::int AS count, count(DISTINCT name)::int AS distinct FROM schema_migrations',
    );
    expect(rows[0]!.count).toBe(rows[0]!.distinct);
  });
});

describe('configuration', () => {
  it('lists every problem at once in a readable error', () => {
    try {
      loadConfig({ PORT: 'eighty', SIGNUP_CREDITS_CENTS: '-5', OIDC_ISSUER: 'https://id.example.com', SECRET_KEY: 'short', MODEL_TABLE: '{"gpt4": 5}' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of ['PORT', 'SIGNUP_CREDITS_CENTS', 'OIDC_CLIENT_ID', 'OIDC_AUDIENCE', 'SECRET_KEY', 'MODEL_TABLE']) expect(message).toContain(name);
    }
  });
});
