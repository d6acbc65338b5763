// Reads on a real streaming replica (issue 59, decision 0130): pg_basebackup of the test PostgreSQL
// started as a hot standby on another port (test-support/replica.ts), given to the app as its read
// replica. Analytics, the catalog and lists read from it; with replay paused (pg_wal_replay_pause), a
// creator's own change is still shown at once, through either of two app instances (two processes'
// worth of state), because their reads go to the primary until the replica has replayed it; anyone
// else keeps reading the replica's older state; paid calls charge on the primary and balances read
// it. PostgreSQL only, and only where the primary allows replication connections from 127.0.0.1
// (scripts/replica/allow-replication.sh); otherwise it prints why it skips.
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../app.ts';
import { createPaidTestContext, type PaidTestContext } from '../test-support/app.ts';
import { callCompletion } from '../test-support/paid-call.ts';
import { type Replica, replicaMissing, startReplica } from '../test-support/replica.ts';
import { type Database, openPostgres } from './client.ts';

const missing = await replicaMissing();
if (missing) console.info(`replica.test.ts skipped: ${missing}`);

const APPLICATION_NAME = 'tollbooth-replica-reads';
const METRICS_TOKEN = 'replica-metrics-token-0123';

describe.skipIf(missing !== null)('reads on a streaming replica (DATABASE_READ_URL)', () => {
  let replica: Replica;
  let ctx: PaidTestContext;
  let second: App;
  let secondReplica: Database;
  let database: string;
  /** The test's database as the replica holds it. */
  let onReplica: pg.Client;

  const replicaOf = (url: string) => {
    database = new URL(url).pathname.slice(1);
    return openPostgres(`${replica.url(database)}?application_name=${APPLICATION_NAME}`);
  };
  const get = (app: App, url: string, token: string | null): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const appNames = (response: LightMyRequestResponse): string[] => {
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    return (Array.isArray(body) ? body : body.results).map((item: { name: string }) => item.name);
  };
  const counters = (app: App) => ({ ...app.reads.counters });

  beforeAll(async () => {
    replica = await startReplica();
    ctx = await createPaidTestContext({ RATE_LIMIT_PER_MINUTE: '100000', METRICS_TOKEN: METRICS_TOKEN }, { readReplica: async (db) => replicaOf(db.url!) });
    await replica.catchUp();
    secondReplica = await replicaOf(ctx.database.url!);
    // A second app on the same primary and replica, as another process would be.
    second = await buildApp({ config: ctx.config, db: ctx.appDb, readReplica: secondReplica, logger: false, observability: { processMetrics: false } });
    await second.ready();
    onReplica = new pg.Client({ connectionString: replica.url(database) });
    await onReplica.connect();
  }, 180_000);

  // A failed test must not leave replay paused for the next.
  afterEach(async () => {
    await replica?.resume();
  });

  afterAll(async () => {
    await onReplica?.end().catch(() => undefined);
    await second?.close();
    await secondReplica?.close();
    await ctx?.close();
    await replica?.stop();
  });

  it('reads the catalog, analytics and lists from the replica, and each creator sees their own change at once while replay is paused', async () => {
    const creator = await ctx.newUser('creator');
    const other = await ctx.newUser('other');
    const { slug } = await ctx.liveApp(creator.token, { name: 'Alpha', price_cents: 5 });
    await replica.catchUp();

    // Caught up: everybody's reads are the replica's.
    let before = counters(ctx.app);
    expect(appNames(await get(ctx.app, '/api/catalog/', null))).toContain('Alpha');
    expect(appNames(await get(ctx.app, '/api/app/', creator.token))).toEqual(['Alpha']);
    expect((await get(ctx.app, '/api/analytics/dashboard/?days=7', creator.token)).json().applications[0].application_name).toBe('Alpha');
    let after = counters(ctx.app);
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(3);
    expect(after.primary).toBe(before.primary);
    expect(after.behind).toBe(before.behind);
    // The replica itself holds this app's connections to the test database.
    const sessions = await replica.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = $2', [
      APPLICATION_NAME,
      database,
    ]);
    expect(sessions[0]!.n).toBeGreaterThan(0);

    await replica.pause();
    const renamed = await ctx.api('PATCH', `/api/app/${slug}/`, creator.token, { name: 'Beta' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const { rows } = await onReplica.query<{ name: string }>('SELECT name FROM apps WHERE slug = $1', [slug]);
    expect(rows).toEqual([{ name: 'Alpha' }]);

    // The creator sees the new name through either process: the replica is behind their change.
    for (const app of [ctx.app, second]) {
      before = counters(app);
      expect(appNames(await get(app, '/api/app/', creator.token))).toEqual(['Beta']);
      expect((await get(app, '/api/analytics/dashboard/?days=7', creator.token)).json().applications[0].application_name).toBe('Beta');
      after = counters(app);
      expect(after.behind - before.behind).toBe(2);
      expect(after.replica).toBe(before.replica);
    }

    // Anyone else still reads the replica, which has not replayed the rename: the catalog shows the old name.
    before = counters(ctx.app);
    const catalog = appNames(await get(ctx.app, '/api/catalog/', null));
    expect(catalog).toContain('Alpha');
    expect(catalog).not.toContain('Beta');
    // A user whose own last change the replica has replayed reads it too.
    expect(appNames(await get(ctx.app, '/api/app/', other.token))).toEqual([]);
    after = counters(ctx.app);
    expect(after.replica - before.replica).toBe(2);
    expect(after.behind).toBe(before.behind);

    await replica.resume();
    await replica.catchUp();
    before = counters(second);
    expect(appNames(await get(second, '/api/app/', creator.token))).toEqual(['Beta']);
    expect(appNames(await get(second, '/api/catalog/', null))).toContain('Beta');
    after = counters(second);
    expect(after.replica - before.replica).toBe(2);
    expect(after.behind).toBe(before.behind);

    // What an operator sees: the same counts on /metrics.
    const scraped = (await get(ctx.app, '/metrics', METRICS_TOKEN)).body;
    const sample = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(scraped)?.[1]);
    expect(sample('tollbooth_db_read_statements{database="replica"}')).toBe(ctx.app.reads.counters.replica);
    expect(sample('tollbooth_db_read_fallbacks{reason="behind"}')).toBe(ctx.app.reads.counters.behind);
    expect(ctx.app.reads.counters.behind).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('keeps money on the primary: paid calls charge and balances read there while the replica is paused', async () => {
    const creator = await ctx.newUser('seller');
    const caller = await ctx.newUser('buyer');
    const { slug } = await ctx.liveApp(creator.token, { name: 'Paid', price_cents: 7 });
    const key = await ctx.api('POST', '/api/keys/', caller.token, { name: 'k' });
    expect(key.statusCode, key.body).toBe(201);
    await replica.catchUp();
    await replica.pause();

    // Each charge writes the ledger: a read-only replica would refuse it.
    for (let i = 0; i < 3; i++) await callCompletion(ctx.app, slug, key.json().key);
    await ctx.app.settledReads();
    const balance = (await get(second, '/api/billing/balance/', caller.token)).json();
    expect(balance.credits_cents).toBe(500 - 21);
    // The current month's statement is money still moving: read on the primary, with the three calls.
    const month = new Date().toISOString().slice(0, 7);
    const statement = (await get(second, `/api/billing/statements/${month}/`, caller.token)).json();
    expect(statement.caller[0]).toMatchObject({ spend_cents: 21, closing_balance_cents: 500 - 21 });
    // Calls are not the creator's changes: their recent invocations come from the replica, which has none yet.
    const invocations = await get(second, `/api/app/${slug}/analytics/invocations/`, creator.token);
    expect(invocations.json()).toHaveLength(0);
    const { rows } = await onReplica.query<{ calls: number }>(
      'SELECT count(*)::int AS calls FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1',
      [slug],
    );
    expect(rows[0]!.calls).toBe(0);
    const charged = await ctx.sql<{ calls: number }>('SELECT count(*)::int AS calls FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1', [
      slug,
    ]);
    expect(charged[0]!.calls).toBe(3);
    const onPrimary = await ctx.sql<{ total: number }>('SELECT coalesce(sum(amount_cents), 0)::bigint AS total FROM ledger_entries');
    expect(onPrimary[0]!.total).toBe(0);

    await replica.resume();
    await replica.catchUp();
  }, 120_000);
});
