// The scale benchmark (issue 59). Seeds N invocations (default one million; --invocations
// 100000000 for the issue's full size) into a PostgreSQL database of its own, over the last 365
// days in month partitions (migration 0043), 10,000 apps of 100 creators, 1,000 of them busy (90 %
// of the calls; all the busy ones belong to the largest creator, whose dashboard is the worst case),
// computes the rollups from them, starts the real server (buildApp + listen) against it and measures
// through HTTP, one request at a time:
//   - every dashboard, analytics, catalog and statement read for 7, 30 and 90 days, global and per
//     app (p50/p95/p99; per-app requests rotate over the busy apps);
//   - keyset paging of recent invocations (the second page, by the first page's cursor);
//   - the CSV export, with the server's resident memory before and after;
//   - the paid path (a paid call through /api/app/{slug}/completion-messages with an API key on the
//     demo model): p50/p99 one at a time and calls/s at 10 connections, on an empty database and on
//     the loaded one, in the same run.
// It prints the load time, the disk per million invocations, the figures and the re-run command.
//
//   node --import tsx bench/scale/run.ts [--invocations 1000000] [--requests 100] [--keep]
//   env: DATABASE_URL (a PostgreSQL server URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../../server/src/app.ts';
import { openPostgres } from '../../server/src/db/client.ts';
import { migrate } from '../../server/src/db/migrate.ts';
import { loadConfig } from '../../server/src/platform/config.ts';
import { startTestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { agent, explain, http, ms, recordingDatabase, type ScanFigures, summary, table } from '../read-figures.ts';

const { values: args } = parseArgs({
  options: {
    invocations: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '10000' },
    busy: { type: 'string', default: '1000' },
    creators: { type: 'string', default: '100' },
    users: { type: 'string', default: '20000' },
    days: { type: 'string', default: '365' },
    requests: { type: 'string', default: '100' },
    'paid-calls': { type: 'string', default: '500' },
    keep: { type: 'boolean', default: false },
  },
});
const positive = (name: keyof typeof args) => {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
  return value;
};
const N = positive('invocations');
const APPS = positive('apps');
const BUSY = positive('busy');
const CREATORS = positive('creators');
const USERS = positive('users');
const DAYS = positive('days');
const REQUESTS = positive('requests');
const PAID_CALLS = positive('paid-calls');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUN = Date.now().toString(36);
const OWNER = 'bench-owner';
const CALLER = 'bench-caller';
const PERIODS = [7, 30, 90] as const;
const WARMUP = 10;
const RERUN = `nice -n 10 node --import tsx bench/scale/run.ts --invocations ${N}${REQUESTS === 100 ? '' : ` --requests ${REQUESTS}`}`;

const log = (message: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const databaseUrl = (name: string) => {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Seeding

/**
 * Month partitions over the last DAYS days (the fresh database's first partition, the empty table
 * as it was, covers everything before the cut-over: replaced here by months, as a database that ran
 * partitioned for a year has them).
 */
async function partitionThePastYear(client: pg.Client) {
  for (const table of ['invocations', 'test_runs']) {
    const { rows } = await client.query<{ ends: Date }>('SELECT ends FROM history_partitions WHERE name = $1', [`${table}_before_partitioning`]);
    const cutover = rows[0]!.ends;
    await client.query(`ALTER TABLE ${table} DETACH PARTITION ${table}_before_partitioning`);
    await client.query(`DROP TABLE ${table}_before_partitioning`);
    await client.query('DELETE FROM history_partitions WHERE name = $1', [`${table}_before_partitioning`]);
    let start = new Date(Date.UTC(cutover.getUTCFullYear(), cutover.getUTCMonth() - Math.ceil(DAYS / 28), 1));
    await client.query(`CREATE TABLE ${table}_before_bench PARTITION OF ${table} FOR VALUES FROM (MINVALUE) TO ('${start.toISOString()}')`);
    await client.query('INSERT INTO history_partitions (name, parent, starts, ends) VALUES ($1, $2, NULL, $3)', [`${table}_before_bench`, table, start]);
    while (start < cutover) {
      const next = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
      const ends = next < cutover ? next : cutover;
      const name = `${table}_p${start.toISOString().slice(0, 10).replaceAll('-', '')}`;
      await client.query(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${start.toISOString()}') TO ('${ends.toISOString()}')`);
      await client.query('INSERT INTO history_partitions (name, parent, starts, ends) VALUES ($1, $2, $3, $4)', [name, table, start, ends]);
      start = ends;
    }
  }
}

/** Inserts the invocations with generate_series and computes every rollup from them; returns seconds per step. */
async function seed(url: string, ownerId: string): Promise<{ total: number; steps: [string, number][] }> {
  const started = performance.now();
  const steps: [string, number][] = [];
  await withClient(url, async (client) => {
    const step = async (label: string, sql: string, params: unknown[] = []) => {
      const t = performance.now();
      const result = await client.query(sql, params);
      const seconds = (performance.now() - t) / 1000;
      steps.push([label, seconds]);
      log(`seed: ${label} (${result.rowCount ?? 0} rows, ${seconds.toFixed(1)} s)`);
    };
    await partitionThePastYear(client);
    // Bulk load: no reference checks or triggers (the rollups are computed below), indexes built afterwards.
    await client.query("SET session_replication_role = 'replica'");
    await client.query("SET maintenance_work_mem = '1GB'");
    await client.query("SET work_mem = '256MB'");
    await client.query('SET synchronous_commit = off');
    await client.query('SELECT setseed(0.42)');
    await step(
      'creators',
      `INSERT INTO users (issuer, subject, email) SELECT 'https://issuer.bench', 'bench-creator-' || g, 'creator' || g || '@bench.test' FROM generate_series(1, $1::int - 1) g`,
      [CREATORS],
    );
    // The busy apps are the bench owner's; the others are spread over the other creators.
    await step(
      'apps',
      `INSERT INTO apps (owner_id, name, slug, type, status, visibility, price_cents, created_at)
       SELECT CASE WHEN g <= $2 THEN $1 ELSE (SELECT array_agg(id ORDER BY subject) FROM users WHERE subject LIKE 'bench-creator-%')[1 + g % ($4::int - 1)] END,
              'Bench App ' || g, 'bench-app-' || lpad(g::text, 5, '0'), CASE WHEN g % 5 = 0 THEN 'workflow' ELSE 'prompt' END,
              'live', 'public', 1 + g % 100, now() - interval '1 day' * ($5 + 30) + interval '1 second' * g
       FROM generate_series(1, $3::int) g`,
      [ownerId, BUSY, APPS, CREATORS, DAYS],
    );
    await client.query('ALTER TABLE invocations DROP CONSTRAINT invocations_pkey');
    await client.query('DROP INDEX invocations_app_created');
    // 90 % of the calls on the busy apps, the rest over all the others; uniform over the end users
    // and the last DAYS UTC days up to now; 5 % failures over five error types.
    await step(
      `${N} invocations`,
      `INSERT INTO invocations (app_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, created_at)
       SELECT CASE WHEN s.r_busy < 0.9 THEN a.ids[1 + s.g % $2::int] ELSE a.ids[1 + $2::int + s.g % ($5::int - $2::int)] END,
              'end-user-' || floor(s.r_user * $3::int)::int,
              'completion',
              CASE WHEN s.r_err < 0.05 THEN 'error' ELSE 'success' END,
              CASE WHEN s.r_err < 0.05 THEN (ARRAY['provider_error', 'provider_timeout', 'rate_limited', 'invalid_param', ''])[1 + floor(s.r_err * 100)::int] ELSE '' END,
              (50 + s.r_lat * s.r_lat * 4000)::int,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE (20 + s.r_tok * 800)::int END,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE (5 + s.r_tok * s.r_lat * 400)::int END,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE 1 + (s.g % $2::int) % 100 END,
              p.start + (now() - p.start) * s.r_time
       FROM (SELECT g, random() AS r_busy, random() AS r_user, random() AS r_err, random() AS r_lat, random() AS r_tok, random() AS r_time FROM generate_series(1, $1::int) g) s,
            (SELECT array_agg(id ORDER BY slug) AS ids FROM apps WHERE slug LIKE 'bench-app-%') a,
            (SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') - interval '1 day' * ($4::int - 1)) AT TIME ZONE 'UTC' AS start) p`,
      [N, BUSY, USERS, DAYS, APPS],
    );
    await step('primary key', 'ALTER TABLE invocations ADD CONSTRAINT invocations_pkey PRIMARY KEY (id, created_at)');
    await step('index invocations_app_created', 'CREATE INDEX invocations_app_created ON invocations (app_id, created_at DESC, id DESC)');
    const day = "(created_at AT TIME ZONE 'UTC')::date";
    await step(
      'app_daily_stats',
      `INSERT INTO app_daily_stats (app_id, day, invocations, successes, errors, latency_ms_sum, input_tokens, output_tokens, revenue_cents, last_used_at)
       SELECT app_id, ${day}, count(*), count(*) FILTER (WHERE status = 'success'), count(*) FILTER (WHERE status = 'error'),
              sum(latency_ms), sum(input_tokens), sum(output_tokens), sum(price_cents), max(created_at)
       FROM invocations GROUP BY 1, 2`,
    );
    // The dashboard's and the catalog's rollups of the rollups (migration 0060), as its backfill computes them.
    await step(
      'owner_daily_stats',
      `INSERT INTO owner_daily_stats (owner_id, day, invocations, successes, errors, rejections, latency_ms_sum, input_tokens, output_tokens, revenue_cents, fee_cents, model_cost_micros)
       SELECT a.owner_id, s.day, sum(s.invocations), sum(s.successes), sum(s.errors), sum(s.rejections), sum(s.latency_ms_sum), sum(s.input_tokens), sum(s.output_tokens), sum(s.revenue_cents), sum(s.fee_cents), sum(s.model_cost_micros)
       FROM app_daily_stats s JOIN apps a ON a.id = s.app_id WHERE a.deleted_at IS NULL GROUP BY 1, 2`,
    );
    await step(
      'app_totals',
      `INSERT INTO app_totals (app_id, as_of, last_used_at, invocations, successes, errors, rejections, latency_ms_sum, before7_invocations, before7_successes, before7_errors, before7_rejections, before7_latency_ms_sum, before30_invocations, before30_successes, before30_errors, before30_rejections, before30_latency_ms_sum, before90_invocations, before90_successes, before90_errors, before90_rejections, before90_latency_ms_sum)
       SELECT a.id, (now() AT TIME ZONE 'UTC')::date, max(s.last_used_at), coalesce(sum(s.invocations), 0), coalesce(sum(s.successes), 0), coalesce(sum(s.errors), 0), coalesce(sum(s.rejections), 0), coalesce(sum(s.latency_ms_sum), 0),
              coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 7), 0), coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 30), 0), coalesce(sum(s.invocations) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.successes) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.errors) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.rejections) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0), coalesce(sum(s.latency_ms_sum) FILTER (WHERE s.day <= (now() AT TIME ZONE 'UTC')::date - 90), 0)
       FROM apps a LEFT JOIN app_daily_stats s ON s.app_id = a.id GROUP BY a.id`,
    );
    await step(
      'app_daily_errors',
      `INSERT INTO app_daily_errors (app_id, day, error_type, count)
       SELECT app_id, ${day}, error_type, count(*) FROM invocations WHERE status = 'error' GROUP BY 1, 2, 3`,
    );
    await step(
      'owner_daily_errors',
      `INSERT INTO owner_daily_errors (owner_id, day, error_type, count)
       SELECT a.owner_id, e.day, e.error_type, sum(e.count) FROM app_daily_errors e JOIN apps a ON a.id = e.app_id WHERE a.deleted_at IS NULL GROUP BY 1, 2, 3`,
    );
    await step(
      'app_daily_users',
      `INSERT INTO app_daily_users (app_id, day, end_user) SELECT DISTINCT app_id, ${day}, end_user FROM invocations WHERE end_user <> ''`,
    );
    await step('app_end_users', 'INSERT INTO app_end_users (app_id, end_user, last_day) SELECT app_id, end_user, max(day) FROM app_daily_users GROUP BY 1, 2');
    await step(
      'owner_end_users',
      `INSERT INTO owner_end_users (owner_id, end_user, last_day)
       SELECT a.owner_id, u.end_user, max(u.last_day) FROM app_end_users u JOIN apps a ON a.id = u.app_id GROUP BY 1, 2`,
    );
    await step('vacuum analyze', 'VACUUM (ANALYZE)');
  });
  return { total: (performance.now() - started) / 1000, steps };
}

// ---------------------------------------------------------------------------------------------
// One server on one database

interface Server {
  port: number;
  ownerToken: string;
  callerToken: string;
  recorder: ReturnType<typeof recordingDatabase>;
  close(): Promise<void>;
}

async function startServer(url: string, issuer: Awaited<ReturnType<typeof startTestIssuer>>): Promise<Server> {
  const pool = await openPostgres(url, 10);
  const recorder = recordingDatabase(pool);
  const config = loadConfig({
    DATABASE_URL: url,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'tollbooth-bench-')),
    SECRET_KEY: 'b'.repeat(64),
    PUBLIC_URL: 'http://tollbooth.bench',
    OIDC_ISSUER: issuer.issuer,
    OIDC_CLIENT_ID: 'bench',
    OIDC_AUDIENCE: issuer.audience,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_PER_MINUTE: '10000000',
    SIGNUP_CREDITS_CENTS: '100000000',
  });
  const app = await buildApp({ config, db: recorder.db, ...(process.env.BENCH_LOG_LEVEL ? {} : { logger: false }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const ownerToken = await issuer.sign({ sub: OWNER, email: 'owner@bench.test', name: 'Bench Owner' }, { expiresIn: '6h' });
  const callerToken = await issuer.sign({ sub: CALLER, email: 'caller@bench.test', name: 'Bench Caller' }, { expiresIn: '6h' });
  for (const token of [ownerToken, callerToken]) {
    const response = await http(port, 'GET', '/api/app/', token);
    if (response.status !== 200) throw new Error(`GET /api/app/ answered ${response.status}: ${response.body}`);
  }
  return {
    port,
    ownerToken,
    callerToken,
    recorder,
    async close() {
      await app.close();
      await pool.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** Paid calls (an API key of the owner on an app of the caller, demo model): one at a time, then 10 at a time. */
async function paidPath(server: Server) {
  const { port, ownerToken, callerToken } = server;
  const created = await http(port, 'POST', '/api/app/', callerToken, {
    name: `Paid bench ${Date.now()}`,
    type: 'prompt',
    visibility: 'public',
    price_cents: 1,
  });
  if (created.status !== 201) throw new Error(`creating the paid app answered ${created.status}: ${created.body}`);
  const paidApp = JSON.parse(created.body) as { slug: string };
  await http(port, 'PATCH', `/api/app/${paidApp.slug}/update_status/`, callerToken, { status: 'live' });
  const key = JSON.parse((await http(port, 'POST', '/api/keys/', ownerToken, { name: `bench ${Date.now()}` })).body).key as string;
  const call = (via: Agent = agent) =>
    http(port, 'POST', `/api/app/${paidApp.slug}/completion-messages`, key, { inputs: { query: 'hi' }, response_mode: 'blocking', user: 'bench-user' }, via);
  for (let i = 0; i < 50; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < PAID_CALLS; i++) {
    const started = performance.now();
    const response = await call();
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`a paid call answered ${response.status}: ${response.body}`);
  }
  const wide = new Agent({ keepAlive: true, maxSockets: 10 });
  let left = PAID_CALLS * 2;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (left-- > 0) {
        const response = await call(wide);
        if (response.status !== 200) throw new Error(`a paid call answered ${response.status}: ${response.body}`);
      }
    }),
  );
  const perSecond = (PAID_CALLS * 2) / ((performance.now() - started) / 1000);
  wide.destroy();
  return { ...summary(samples), perSecond };
}

async function createDatabase(name: string) {
  await withClient(SERVER_URL, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const db = await openPostgres(databaseUrl(name), 1);
  await migrate(db);
  await db.close();
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const machine = {
    date: new Date().toISOString().slice(0, 10),
    cpus: `${os.availableParallelism()} × ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    postgres: '',
    load: os.loadavg()[0]!.toFixed(1),
  };
  const emptyName = `tb_bench_scale_empty_${RUN}`;
  const loadedName = `tb_bench_scale_${RUN}`;
  const issuer = await startTestIssuer();
  try {
    // The paid path on an empty database first.
    await createDatabase(emptyName);
    const emptyServer = await startServer(databaseUrl(emptyName), issuer);
    log('paid path, empty database');
    const emptyPaid = await paidPath(emptyServer);
    log(`empty: p50 ${ms(emptyPaid.p50)} ms, p99 ${ms(emptyPaid.p99)} ms, ${emptyPaid.perSecond.toFixed(0)} calls/s`);
    await emptyServer.close();

    // The loaded database.
    await createDatabase(loadedName);
    const url = databaseUrl(loadedName);
    const server = await startServer(url, issuer);
    const client = new pg.Client({ connectionString: url });
    client.on('error', (error) => log(`bench connection: ${error.message}`));
    await client.connect();
    machine.postgres = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    const ownerId = (await client.query<{ id: string }>('SELECT id FROM users WHERE subject = $1', [OWNER])).rows[0]!.id;
    log(`seeding ${N} invocations, ${APPS} apps (${BUSY} busy), ${CREATORS} creators, ${USERS} end users, ${DAYS} days`);
    const seeded = await seed(url, ownerId);
    log(`seeded in ${seeded.total.toFixed(0)} s`);
    const sizes = (
      await client.query<{ database: string; invocations: string; partitions: number }>(
        `SELECT pg_database_size(current_database())::text AS database,
                (SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = 'invocations'::regclass)::text AS invocations,
                (SELECT count(*)::int FROM pg_inherits i WHERE i.inhparent = 'invocations'::regclass) AS partitions`,
      )
    ).rows[0]!;
    const busySlugs = (
      await client.query<{ slug: string }>('SELECT slug FROM apps WHERE owner_id = $1 AND deleted_at IS NULL AND slug LIKE $2 ORDER BY slug', [
        ownerId,
        'bench-app-%',
      ])
    ).rows.map((row) => row.slug);
    // Statements: the owner's, as the monthly job leaves them (read through the API, which makes the current one).
    const endpoints: { name: string; path: (slug: string) => string; next?: boolean }[] = [];
    for (const days of PERIODS) endpoints.push({ name: `dashboard days=${days}`, path: () => `/api/analytics/dashboard/?days=${days}` });
    for (const days of PERIODS) endpoints.push({ name: `usage days=${days}`, path: (slug) => `/api/app/${slug}/analytics/usage/?days=${days}` });
    for (const days of PERIODS) endpoints.push({ name: `performance days=${days}`, path: (slug) => `/api/app/${slug}/analytics/performance/?days=${days}` });
    endpoints.push({ name: 'recent invocations limit=100', path: (slug) => `/api/app/${slug}/analytics/invocations/?limit=100` });
    endpoints.push({ name: 'recent invocations limit=20, 2nd page', path: (slug) => `/api/app/${slug}/analytics/invocations/?limit=20`, next: true });
    endpoints.push({ name: 'usage.csv days=90', path: (slug) => `/api/app/${slug}/analytics/usage.csv?days=90` });
    endpoints.push({ name: 'catalog', path: () => '/api/catalog/' });
    endpoints.push({ name: 'catalog app', path: (slug) => `/api/catalog/${slug}` });
    endpoints.push({ name: 'statements', path: () => '/api/billing/statements/' });
    endpoints.push({ name: 'app list', path: () => '/api/app/' });

    const { port, ownerToken, recorder } = server;
    const get = async (endpoint: (typeof endpoints)[number], slug: string) => {
      let target = endpoint.path(slug);
      if (endpoint.next) {
        const first = await http(port, 'GET', target, ownerToken);
        const cursor = first.headers['x-next-cursor'];
        if (typeof cursor !== 'string') throw new Error(`${endpoint.name}: no X-Next-Cursor`);
        target = `${target}&cursor=${encodeURIComponent(cursor)}`;
      }
      return target;
    };
    const results: { name: string; stats: ReturnType<typeof summary>; scan: ScanFigures }[] = [];
    for (const endpoint of endpoints) {
      const targets: string[] = [];
      for (let i = 0; i < WARMUP + REQUESTS; i++) targets.push(await get(endpoint, busySlugs[i % busySlugs.length]!));
      for (let i = 0; i < WARMUP; i++) await http(port, 'GET', targets[i]!, ownerToken);
      const samples: number[] = [];
      for (let i = WARMUP; i < targets.length; i++) {
        const started = performance.now();
        const response = await http(port, 'GET', targets[i]!, ownerToken);
        samples.push(performance.now() - started);
        if (response.status !== 200) throw new Error(`${endpoint.name} answered ${response.status}: ${response.body.slice(0, 300)}`);
      }
      const statements = await recorder.capture(() => http(port, 'GET', targets[0]!, ownerToken));
      const scan = await explain(client, statements);
      const stats = summary(samples);
      results.push({ name: endpoint.name, stats, scan });
      log(`${endpoint.name}: p50 ${ms(stats.p50)} ms, p95 ${ms(stats.p95)} ms, ${scan.rows} rows read`);
    }

    // The CSV export of the newest calls at its largest, with the process's memory around it.
    const rssBefore = process.memoryUsage().rss;
    const csvSamples: number[] = [];
    let csvBytes = 0;
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const response = await http(port, 'GET', `/api/app/${busySlugs[i]!}/analytics/invocations.csv?limit=10000`, ownerToken);
      csvSamples.push(performance.now() - started);
      csvBytes = Buffer.byteLength(response.body);
      if (response.status !== 200) throw new Error(`invocations.csv answered ${response.status}`);
    }
    const csv = { ...summary(csvSamples), bytes: csvBytes, rssGrowth: process.memoryUsage().rss - rssBefore };

    log('paid path, loaded database');
    const loadedPaid = await paidPath(server);
    log(`loaded: p50 ${ms(loadedPaid.p50)} ms, p99 ${ms(loadedPaid.p99)} ms, ${loadedPaid.perSecond.toFixed(0)} calls/s`);
    await client.end();
    await server.close();

    // Report.
    const perMillion = (bytes: string) => `${(((Number(bytes) / N) * 1_000_000) / 1024 ** 2).toFixed(0)} MB`;
    const out: string[] = [];
    out.push(
      `Scale benchmark, ${machine.date}: ${N.toLocaleString('en-US')} invocations over ${DAYS} days in ${sizes.partitions} partitions, ${APPS} apps of ${CREATORS} creators (${BUSY} busy, 90 % of calls, all of the bench owner), ${USERS} end users`,
    );
    out.push(
      `Machine: ${machine.cpus}, ${machine.memory} RAM, PostgreSQL ${machine.postgres}, Node ${machine.node}; load average at start ${machine.load}, at end ${os.loadavg()[0]!.toFixed(1)}`,
    );
    out.push(
      `Load: ${seeded.total.toFixed(0)} s (${seeded.steps.map(([label, s]) => `${label} ${s.toFixed(0)} s`).join(', ')}); ${(N / seeded.steps.find(([label]) => label.endsWith('invocations'))![1] / 1000).toFixed(0)}k invocations/s inserted`,
    );
    out.push(
      `Disk: database ${(Number(sizes.database) / 1024 ** 3).toFixed(2)} GiB, invocations with indexes ${(Number(sizes.invocations) / 1024 ** 3).toFixed(2)} GiB = ${perMillion(sizes.invocations)} per million (whole database: ${perMillion(sizes.database)} per million)`,
    );
    out.push('');
    out.push(`Reads through HTTP (${REQUESTS} sequential requests each after ${WARMUP} warm-up; per-app requests over the ${busySlugs.length} busy apps; ms):`);
    out.push('');
    out.push(
      table(
        ['read', 'p50', 'p95', 'p99', 'max', 'rows read', 'of invocations', 'buffers', 'SQL ms'],
        results.map(({ name, stats, scan }) => [
          name,
          ms(stats.p50),
          ms(stats.p95),
          ms(stats.p99),
          ms(stats.max),
          scan.rows,
          scan.invocationRows,
          scan.blocks,
          scan.executionMs.toFixed(2),
        ]),
      ),
    );
    out.push('');
    out.push(
      `invocations.csv?limit=10000 (the largest export; 20 requests): p50 ${ms(csv.p50)} ms, p95 ${ms(csv.p95)} ms, ${(csv.bytes / 1024).toFixed(0)} KiB each; the bench process (server included) grew ${(csv.rssGrowth / 1024 ** 2).toFixed(0)} MB over them`,
    );
    out.push('');
    out.push(`Paid path (API key, demo model; ${PAID_CALLS} calls one at a time, then ${PAID_CALLS * 2} at 10 connections):`);
    out.push('');
    out.push(
      table(
        ['database', 'p50', 'p95', 'p99', 'calls/s at 10'],
        [
          ['empty', ms(emptyPaid.p50), ms(emptyPaid.p95), ms(emptyPaid.p99), emptyPaid.perSecond.toFixed(0)],
          [`${N.toLocaleString('en-US')} invocations`, ms(loadedPaid.p50), ms(loadedPaid.p95), ms(loadedPaid.p99), loadedPaid.perSecond.toFixed(0)],
        ],
      ),
    );
    out.push(`p99 loaded / empty: ${((loadedPaid.p99 / emptyPaid.p99 - 1) * 100).toFixed(1)} % (the issue allows +10 %)`);
    out.push('');
    out.push(`Re-run: ${RERUN}`);
    console.log(out.join('\n'));
  } finally {
    await issuer.close();
    agent.destroy();
    for (const name of [emptyName, ...(args.keep ? [] : [loadedName])]) {
      await withClient(SERVER_URL, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
