// Bad input on analytics (issue 59): a range of ten years or a huge limit is refused with a 400
// naming the field; every analytics, export and statement read runs in a READ ONLY transaction that
// sets READ_STATEMENT_TIMEOUT_MS (db/reads.ts, decision 0130), and on PostgreSQL a read that passes it
// is stopped and answered 503; a year of calls is exported as CSV a batch at a time (a cursor on
// PostgreSQL, keyset pages on PGlite), never read whole. Both databases.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../db/client.ts';
import { createTestContext, type TestContext } from '../test-support/app.ts';
import { EXPORT_BATCH_ROWS } from './service.ts';

const TIMEOUT_MS = 1234;
const SETTINGS = `SET TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${TIMEOUT_MS}; SET LOCAL jit = off`;

interface Seen {
  sql: string;
  /** The settings the statement's transaction ran first; null outside a transaction or without them. */
  settings: string | null;
}

/** The app's database, noting each statement with the settings of the transaction it ran in. */
function recording(db: Database, seen: Seen[]): Database {
  return {
    ...db,
    kind: db.kind,
    query: (async (sql: string, params?: readonly unknown[]) => {
      seen.push({ sql, settings: null });
      return db.query(sql, params);
    }) as Database['query'],
    exec: (sql) => db.exec(sql),
    transaction: (fn) =>
      db.transaction(async (tx) => {
        let settings: string | null = null;
        const watched: Queryable = {
          query: (async (sql: string, params?: readonly unknown[]) => {
            seen.push({ sql, settings });
            return tx.query(sql, params);
          }) as Queryable['query'],
          async exec(sql) {
            if (settings === null && sql.includes('statement_timeout')) settings = sql;
            else seen.push({ sql, settings });
            await tx.exec(sql);
          },
        };
        return fn(watched);
      }),
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
  };
}

const READ = /^\s*(SELECT|WITH|DECLARE|FETCH)\b/i;

let ctx: TestContext;
const seen: Seen[] = [];
let creator: { token: string; id: string };
let slug: string;
let appId: string;

beforeAll(async () => {
  ctx = await createTestContext({ READ_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_WORKER: 'off' }, { wrapDatabase: (db) => recording(db, seen) });
  creator = await ctx.newUser('bounded');
  ({ slug, id: appId } = await ctx.liveApp(creator.token, { name: 'Bounded' }));
}, 120_000);
afterAll(() => ctx?.close());

const get = (url: string, token: string | null = creator.token) => ctx.api('GET', url, token);

describe('bad input on analytics', () => {
  it('refuses a range of ten years and huge limits with a 400 naming the field', async () => {
    const refused: [string, string][] = [
      ['/api/analytics/dashboard/?days=3650', 'days'],
      [`/api/app/${slug}/analytics/usage/?days=3650`, 'days'],
      [`/api/app/${slug}/analytics/performance/?days=3650`, 'days'],
      [`/api/app/${slug}/analytics/usage.csv?days=3650`, 'days'],
      [`/api/app/${slug}/analytics/invocations.csv?days=3650`, 'days'],
      [`/api/app/${slug}/analytics/invocations.csv?days=367`, 'days'],
      [`/api/app/${slug}/analytics/invocations.csv?limit=1000000000`, 'limit'],
      [`/api/app/${slug}/analytics/invocations/?limit=1000000000`, 'limit'],
      ['/api/catalog/?limit=1000000000', 'limit'],
      ['/api/app/?limit=1000000000', 'limit'],
      ['/api/creators/?limit=1000000000', 'limit'],
      ['/api/billing/statements/1990-01/', 'month'],
    ];
    for (const [url, field] of refused) {
      const response = await get(url);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
      expect(response.json().params, url).toBe(field);
      expect(response.json().message, url).toContain(field);
    }
  });

  it('runs every analytics, export and statement read in a read-only transaction under READ_STATEMENT_TIMEOUT_MS', async () => {
    await ctx.app.settledReads();
    const urls = [
      '/api/analytics/dashboard/?days=90',
      `/api/app/${slug}/analytics/usage/?days=90`,
      `/api/app/${slug}/analytics/performance/?days=90`,
      `/api/app/${slug}/analytics/invocations/?limit=100`,
      `/api/app/${slug}/analytics/invocations.csv?days=366`,
      `/api/app/${slug}/analytics/usage.csv?days=90`,
      '/api/billing/statements/',
      `/api/billing/statements/${new Date().toISOString().slice(0, 7)}/?role=creator`,
      '/api/billing/statements/2026-01/',
      '/api/catalog/',
      '/api/app/',
      '/api/keys/',
      '/api/creators/',
    ];
    for (const url of urls) {
      seen.length = 0;
      const response = await get(url);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      const reads = seen.filter((statement) => READ.test(statement.sql));
      // The analytics tables, the call history, the ledger behind statements, the catalog and the owner's lists.
      const bounded = reads.filter((statement) =>
        /\b(app_daily_\w+|owner_daily_\w+|app_end_users|owner_end_users|invocations|ledger_entries|api_keys)\b|^\s*(DECLARE|FETCH)/.test(statement.sql),
      );
      expect(reads.filter((statement) => statement.settings === SETTINGS).length, url).toBeGreaterThan(0);
      for (const statement of bounded) expect({ url, sql: statement.sql.slice(0, 80), settings: statement.settings }).toMatchObject({ settings: SETTINGS });
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('stops a read that passes READ_STATEMENT_TIMEOUT_MS and answers 503 naming it (PostgreSQL)', async () => {
    const locker = new pg.Client({ connectionString: ctx.database.url! });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE app_daily_stats IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const response = await get(`/api/app/${slug}/analytics/usage/?days=30`);
      expect(response.statusCode, response.body).toBe(503);
      expect(response.json()).toMatchObject({ code: 'service_unavailable' });
      expect(response.json().message).toContain('READ_STATEMENT_TIMEOUT_MS');
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect((await get(`/api/app/${slug}/analytics/usage/?days=30`)).statusCode).toBe(200);

    // An export whose first batch cannot be read in time is a plain 503, not a CSV cut after its header.
    const exporter = new pg.Client({ connectionString: ctx.database.url! });
    await exporter.connect();
    try {
      await exporter.query('BEGIN');
      await exporter.query('LOCK TABLE invocations IN ACCESS EXCLUSIVE MODE');
      const response = await get(`/api/app/${slug}/analytics/invocations.csv?days=30`);
      expect(response.statusCode, response.body).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json().message).toContain('READ_STATEMENT_TIMEOUT_MS');
    } finally {
      await exporter.query('ROLLBACK');
      await exporter.end();
    }
  });
  if (!process.env.DATABASE_URL)
    console.info('bounds.test.ts: the 503 on a passed statement timeout is PostgreSQL only: PGlite has no timer to enforce statement_timeout');

  it('exports a year of calls as CSV, newest first, a batch at a time', async () => {
    // 2,600 calls over 400 days: 2,500 within the last 366 UTC days (today included), 100 before them.
    await ctx.sql(
      `INSERT INTO invocations (app_id, end_user, status, outcome, latency_ms, input_tokens, output_tokens, price_cents, created_at)
       SELECT $1, 'u' || n, 'success', 'success', n % 900, 3, 4, 0,
              date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 hour'
                - make_interval(days => CASE WHEN n <= 2500 THEN (n * 365) / 2500 ELSE 366 + n % 30 END, secs => n % 60)
         FROM generate_series(1, 2600) AS n`,
      [appId],
    );
    seen.length = 0;
    const response = await get(`/api/app/${slug}/analytics/invocations.csv?days=366`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${slug}-invocations-366d.csv"`);
    const lines = response.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,created_at,end_user,status,outcome,error_type,response_time_seconds,input_tokens,output_tokens,price_cents,model_cost_dollars,charge_dollars',
    );
    const rows = lines.slice(1).map((line) => line.split(','));
    expect(rows).toHaveLength(2500);
    const times = rows.map((row) => Date.parse(row[1]!));
    expect(times.every((time, i) => i === 0 || time <= times[i - 1]!)).toBe(true);
    expect(new Set(rows.map((row) => row[0])).size).toBe(2500);
    // Read a batch at a time: a cursor fetched 1,000 rows at a time, or keyset pages of 1,000.
    const batches = seen.filter((statement) =>
      ctx.appDb.kind === 'postgres' ? /^FETCH 1000 FROM/.test(statement.sql) : /FROM invocations WHERE app_id = \$1 AND created_at >= \$2/.test(statement.sql),
    );
    expect(batches).toHaveLength(Math.ceil(2500 / EXPORT_BATCH_ROWS));
    if (ctx.appDb.kind === 'postgres') expect(seen.some((statement) => /^DECLARE \w+ NO SCROLL CURSOR FOR SELECT/.test(statement.sql))).toBe(true);

    // With a limit, the newest of the period; without days, the newest 1,000.
    const limited = await get(`/api/app/${slug}/analytics/invocations.csv?days=366&limit=10`);
    expect(limited.body.trimEnd().split('\r\n').slice(1)).toEqual(lines.slice(1, 11));
    const newest = await get(`/api/app/${slug}/analytics/invocations.csv`);
    expect(newest.headers['content-disposition']).toBe(`attachment; filename="${slug}-invocations.csv"`);
    expect(newest.body.trimEnd().split('\r\n').slice(1)).toEqual(lines.slice(1, 1001));
  });
});
