import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { type InvocationRecord, recordInvocation } from '../../server/src/billing/paid-call/queries.ts';
import { type Database, openPostgres, type Queryable } from '../../server/src/db/client.ts';
import { migrate } from '../../server/src/db/migrate.ts';
import { startTestIssuer } from '../../server/src/test-support/oidc-issuer.ts';
import { databaseOn, log, positiveOption, startBenchServer, withClient } from '../bench-server.ts';
import { agent, http, measureRead, ms, type ReadResult, readsTable, summary, table } from '../read-figures.ts';
import { finishInvocationsAndRollups, startBulkLoad } from '../seed-rollups.ts';

const { values: args } = parseArgs({
  options: {
    invocations: { type: 'string', default: '10000000' },
    apps: { type: 'string', default: '200' },
    users: { type: 'string', default: '2000' },
    days: { type: 'string', default: '90' },
    requests: { type: 'string', default: '200' },
    'record-calls': { type: 'string', default: '5000' },
    'gateway-calls': { type: 'string', default: '1000' },
    database: { type: 'string' },
    reseed: { type: 'boolean', default: false },
    drop: { type: 'boolean', default: false },
  },
});
const positive = positiveOption(args);
const N = positive('invocations');
const APPS = positive('apps');
const USERS = positive('users');
const DAYS = positive('days');
const REQUESTS = positive('requests');
const RECORD_CALLS = positive('record-calls');
const GATEWAY_CALLS = positive('gateway-calls');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = args.database ?? `tb_bench_analytics_${N >= 1_000_000 ? `${N / 1_000_000}m` : `${N / 1000}k`}`.replace('.', '_');
const OWNER = 'bench-owner';
const CALLER = 'bench-caller';
const PERIODS = [7, 30, 90] as const;
const WARMUP = 20;
const RERUN = `node --import tsx bench/analytics/run.ts --invocations ${N}${REQUESTS === 200 ? '' : ` --requests ${REQUESTS}`}`;

const databaseUrl = (name: string) => databaseOn(SERVER_URL, name);

// ---------------------------------------------------------------------------------------------
// Seeding

interface SeedMark {
  invocations: number;
  apps: number;
  users: number;
  days: number;
}

async function ensureDatabase(): Promise<void> {
  const exists = await withClient(SERVER_URL, async (admin) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME])).rowCount === 1);
  if (exists && args.reseed) {
    await withClient(SERVER_URL, (admin) => admin.query(`DROP DATABASE ${DB_NAME} WITH (FORCE)`));
  }
  if (!exists || args.reseed) await withClient(SERVER_URL, (admin) => admin.query(`CREATE DATABASE ${DB_NAME}`));
  const db = await openPostgres(databaseUrl(DB_NAME), 1);
  await migrate(db);
  await db.query(
    'CREATE TABLE IF NOT EXISTS bench_seed (invocations bigint, apps int, users int, days int, seconds numeric, seeded_at timestamptz DEFAULT now())',
  );
  await db.close();
}

async function seedMark(client: pg.Client): Promise<SeedMark | null> {
  const { rows } = await client.query<SeedMark>('SELECT invocations::int, apps, users, days FROM bench_seed LIMIT 1');
  return rows[0] ?? null;
}

/** Inserts the invocations with generate_series and computes every rollup from them. */
async function seed(ownerId: string): Promise<number> {
  const started = performance.now();
  await withClient(databaseUrl(DB_NAME), async (client) => {
    const step = async (label: string, sql: string, params: unknown[] = []) => {
      const t = performance.now();
      const result = await client.query(sql, params);
      log(`seed: ${label} (${result.rowCount ?? 0} rows, ${((performance.now() - t) / 1000).toFixed(1)} s)`);
    };
    await startBulkLoad(client);
    await step(
      'apps',
      `INSERT INTO apps (owner_id, name, slug, type, status, visibility, price_cents, created_at)
       SELECT $1, 'Bench App ' || g, 'bench-app-' || lpad(g::text, 4, '0'), CASE WHEN g % 5 = 0 THEN 'workflow' ELSE 'prompt' END,
              'live', 'public', 1 + g % 100, now() - interval '1 day' * ($2 + 30) + interval '1 second' * g
       FROM generate_series(1, $3::int) g`,
      [ownerId, DAYS, APPS],
    );
    await client.query('ALTER TABLE invocations DROP CONSTRAINT invocations_pkey');
    await client.query('DROP INDEX invocations_app_created');
    // Uniform over the apps, the end users and the last DAYS UTC days up to now; 5% failures
    // spread over five error types (one of them empty); response times skewed towards short.
    await step(
      `${N} invocations`,
      `INSERT INTO invocations (app_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, created_at)
       SELECT a.ids[1 + s.g % $2::int],
              'end-user-' || floor(s.r_user * $3::int)::int,
              'completion',
              CASE WHEN s.r_err < 0.05 THEN 'error' ELSE 'success' END,
              CASE WHEN s.r_err < 0.05 THEN (ARRAY['provider_error', 'provider_timeout', 'rate_limited', 'invalid_param', ''])[1 + floor(s.r_err * 100)::int] ELSE '' END,
              (50 + s.r_lat * s.r_lat * 4000)::int,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE (20 + s.r_tok * 800)::int END,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE (5 + s.r_tok * s.r_lat * 400)::int END,
              CASE WHEN s.r_err < 0.05 THEN 0 ELSE 1 + (s.g % $2::int) % 100 END,
              p.start + (now() - p.start) * s.r_time
       FROM (SELECT g, random() AS r_user, random() AS r_err, random() AS r_lat, random() AS r_tok, random() AS r_time FROM generate_series(1, $1::int) g) s,
            (SELECT array_agg(id ORDER BY slug) AS ids FROM apps WHERE owner_id = $5) a,
            (SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') - interval '1 day' * ($4::int - 1)) AT TIME ZONE 'UTC' AS start) p`,
      [N, APPS, USERS, DAYS, ownerId],
    );
    await finishInvocationsAndRollups(step);
    await client.query('INSERT INTO bench_seed (invocations, apps, users, days, seconds) VALUES ($1, $2, $3, $4, $5)', [
      N,
      APPS,
      USERS,
      DAYS,
      ((performance.now() - started) / 1000).toFixed(1),
    ]);
  });
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------
// What keeping the rollups costs a recorded call

/** recordInvocation without any rollup: the invocation row alone. */
async function insertInvocationOnly(tx: Queryable, record: InvocationRecord) {
  await tx.query(
    `INSERT INTO invocations (app_id, caller_id, api_key_id, end_user, mode, status, error_type, latency_ms, input_tokens, output_tokens, price_cents, conversation_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
    [
      record.appId,
      record.callerId,
      record.apiKeyId,
      record.endUser,
      record.mode,
      record.status,
      record.errorType,
      Math.round(record.latencyMs),
      record.inputTokens,
      record.outputTokens,
      record.priceCents,
      record.conversationId,
      record.createdAt ?? new Date(),
    ],
  );
}

async function measureRecording(db: Database, appId: string) {
  const variants = {
    'with rollups (recordInvocation)': (tx: Queryable, record: InvocationRecord) => recordInvocation(tx, record),
    'invocation row only': insertInvocationOnly,
  };
  const samples: Record<keyof typeof variants, number[]> = { 'with rollups (recordInvocation)': [], 'invocation row only': [] };
  const record = (i: number): InvocationRecord => {
    const failed = Math.random() < 0.05;
    return {
      appId,
      callerId: null,
      apiKeyId: null,
      endUser: `end-user-${Math.floor(Math.random() * USERS)}`,
      mode: 'completion',
      status: failed ? 'error' : 'success',
      errorType: failed ? 'provider_error' : '',
      latencyMs: 100 + (i % 900),
      inputTokens: failed ? 0 : 100,
      outputTokens: failed ? 0 : 50,
      priceCents: failed ? 0 : 1,
      conversationId: null,
    };
  };
  // Paired and interleaved call by call (the order flips every pair), so load from anything else
  // on the machine hits both variants alike; the added cost is the median of the pair differences.
  const names = Object.keys(variants) as (keyof typeof variants)[];
  const differences: number[] = [];
  for (let warm = 0; warm < 200; warm++) {
    for (const name of names) await db.transaction(async (tx) => void (await variants[name](tx, record(warm))));
  }
  for (let i = 0; i < RECORD_CALLS; i++) {
    const pair: Partial<Record<keyof typeof variants, number>> = {};
    for (const name of i % 2 === 0 ? names : [...names].reverse()) {
      const input = record(i);
      const started = performance.now();
      await db.transaction(async (tx) => void (await variants[name](tx, input)));
      pair[name] = performance.now() - started;
      samples[name].push(pair[name]);
    }
    differences.push(pair['with rollups (recordInvocation)']! - pair['invocation row only']!);
  }
  const added = summary(differences).p50;
  const stats = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summary(values)])) as Record<
    keyof typeof variants,
    ReturnType<typeof summary>
  >;
  return { stats, added };
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
  log(`database ${DB_NAME} on ${SERVER_URL}`);
  await ensureDatabase();

  const issuer = await startTestIssuer();
  const url = databaseUrl(DB_NAME);
  // The issuer's port changes between runs; the bench users keep their rows (and their apps).
  await withClient(url, (client) => client.query('UPDATE users SET issuer = $1 WHERE subject = ANY($2)', [issuer.issuer, [OWNER, CALLER]]));

  const server = await startBenchServer(url, issuer, { owner: OWNER, caller: CALLER });
  const { port, ownerToken, callerToken, recorder, pool } = server;

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  machine.postgres = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  const ownerId = (await client.query<{ id: string }>('SELECT id FROM users WHERE subject = $1', [OWNER])).rows[0]!.id;
  const mark = await seedMark(client);
  let seedSeconds: number | null = null;
  if (mark && (mark.invocations !== N || mark.apps !== APPS || mark.users !== USERS || mark.days !== DAYS)) {
    throw new Error(`${DB_NAME} holds a different seed (${JSON.stringify(mark)}); pass --reseed or --database`);
  }
  if (!mark) {
    log(`seeding ${N} invocations, ${APPS} apps, ${USERS} end users, ${DAYS} days`);
    seedSeconds = await seed(ownerId);
    log(`seeded in ${seedSeconds.toFixed(0)} s`);
  } else {
    log('reusing the seeded database (pass --reseed to seed again)');
  }
  const counts = (
    await client.query<{
      invocations: number;
      stats: number;
      users: number;
      errors: number;
      owner_errors: number;
      app_users: number;
      owner_users: number;
      bytes: string;
    }>(
      `SELECT (SELECT reltuples::bigint FROM pg_class WHERE relname = 'invocations') AS invocations,
              (SELECT count(*) FROM app_daily_stats)::int AS stats, (SELECT count(*) FROM app_daily_users)::int AS users,
              (SELECT count(*) FROM app_daily_errors)::int AS errors, (SELECT count(*) FROM owner_daily_errors)::int AS owner_errors,
              (SELECT count(*) FROM app_end_users)::int AS app_users,
              (SELECT count(*) FROM owner_end_users)::int AS owner_users, pg_size_pretty(pg_database_size(current_database())) AS bytes`,
    )
  ).rows[0]!;
  const slugs = (await client.query<{ slug: string }>('SELECT slug FROM apps WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY slug', [ownerId])).rows.map(
    (row) => row.slug,
  );

  // Endpoints × periods, through HTTP.
  const endpoints: { name: string; path: (slug: string) => string }[] = [];
  for (const days of PERIODS) endpoints.push({ name: `dashboard days=${days}`, path: () => `/api/analytics/dashboard/?days=${days}` });
  for (const days of PERIODS) endpoints.push({ name: `usage days=${days}`, path: (slug) => `/api/app/${slug}/analytics/usage/?days=${days}` });
  for (const days of PERIODS) endpoints.push({ name: `performance days=${days}`, path: (slug) => `/api/app/${slug}/analytics/performance/?days=${days}` });
  endpoints.push({ name: 'invocations limit=20', path: (slug) => `/api/app/${slug}/analytics/invocations/?limit=20` });
  endpoints.push({ name: 'invocations limit=100', path: (slug) => `/api/app/${slug}/analytics/invocations/?limit=100` });

  const results: ReadResult[] = [];
  for (const endpoint of endpoints) {
    const paths = (count: number) => Array.from({ length: count }, (_, i) => endpoint.path(slugs[i % slugs.length]!));
    const result = await measureRead(
      { port, token: ownerToken, recorder, client },
      { name: endpoint.name, warmUp: paths(WARMUP), measured: paths(REQUESTS), explained: endpoint.path(slugs[0]!) },
    );
    const { stats, scan } = result;
    results.push(result);
    log(`${endpoint.name}: p50 ${ms(stats.p50)} ms, p95 ${ms(stats.p95)} ms, ${scan.rows} rows read`);
  }

  // The cost of the rollups on the write path, in an app of the second user (not on the dashboard).
  const created = await http(port, 'POST', '/api/app/', callerToken, {
    name: `Record bench ${Date.now()}`,
    type: 'prompt',
    visibility: 'public',
    price_cents: 1,
  });
  if (created.status !== 201) throw new Error(`creating the record app answered ${created.status}: ${created.body}`);
  const recordApp = JSON.parse(created.body) as { id: string; slug: string };
  log(`recordInvocation: ${RECORD_CALLS} calls per variant`);
  const recording = await measureRecording(pool, recordApp.id);

  // The gateway's own per-call time (demo model: no upstream wait), owner calls and paid calls.
  await http(port, 'PATCH', `/api/app/${recordApp.slug}/update_status/`, callerToken, { status: 'live' });
  const key = JSON.parse((await http(port, 'POST', '/api/keys/', ownerToken, { name: 'bench' })).body).key as string;
  const gatewayRuns: Record<string, ReturnType<typeof summary>> = {};
  for (const [name, token] of [
    ['gateway call, owner (free)', callerToken],
    ['gateway call, paid (API key)', key],
  ] as const) {
    const call = () =>
      http(port, 'POST', `/api/app/${recordApp.slug}/completion-messages`, token, { inputs: { query: 'hi' }, response_mode: 'blocking', user: 'bench-user' });
    for (let i = 0; i < 100; i++) await call();
    const samples: number[] = [];
    for (let i = 0; i < GATEWAY_CALLS; i++) {
      const started = performance.now();
      const response = await call();
      samples.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`${name} answered ${response.status}: ${response.body}`);
    }
    gatewayRuns[name] = summary(samples);
    log(`${name}: mean ${ms(gatewayRuns[name]!.mean)} ms`);
  }

  await client.end();
  await server.close();
  await issuer.close();
  agent.destroy();

  // Report.
  const withRollups = recording.stats['with rollups (recordInvocation)'];
  const { added } = recording;
  const out: string[] = [];
  out.push(
    `Analytics benchmark, ${machine.date}: ${counts.invocations.toLocaleString('en-US')} invocations, ${APPS} apps of one creator, ${USERS} end users, ${DAYS} days`,
  );
  out.push(
    `Machine: ${machine.cpus}, ${machine.memory} RAM, PostgreSQL ${machine.postgres}, Node ${machine.node}; database ${counts.bytes}; load average at start ${machine.load}, at end ${os.loadavg()[0]!.toFixed(1)}`,
  );
  out.push(
    `Rollups: app_daily_stats ${counts.stats}, app_daily_users ${counts.users}, app_daily_errors ${counts.errors}, owner_daily_errors ${counts.owner_errors}, app_end_users ${counts.app_users}, owner_end_users ${counts.owner_users} rows${seedSeconds === null ? '' : `; seeded in ${seedSeconds.toFixed(0)} s`}`,
  );
  out.push('');
  out.push(`Endpoints through HTTP (${REQUESTS} sequential requests each after ${WARMUP} warm-up, per-app requests over all ${slugs.length} apps; ms):`);
  out.push('');
  out.push(readsTable('endpoint', results));
  out.push('');
  out.push(`Recording one call (${withRollups.n} calls per variant, interleaved, each in its own transaction; ms):`);
  out.push('');
  out.push(
    table(
      ['variant', 'mean', 'p50', 'p95', 'p99'],
      [
        ...Object.entries(recording.stats).map(([name, s]) => [name, ms(s.mean), ms(s.p50), ms(s.p95), ms(s.p99)]),
        ...Object.entries(gatewayRuns).map(([name, s]) => [`${name} (${s.n} calls)`, ms(s.mean), ms(s.p50), ms(s.p95), ms(s.p99)]),
      ],
    ),
  );
  out.push('');
  const owner = gatewayRuns['gateway call, owner (free)']!;
  const paid = gatewayRuns['gateway call, paid (API key)']!;
  out.push(
    `The rollups add ${ms(added)} ms per recorded call (median of ${withRollups.n} paired differences): ${((added / owner.p50) * 100).toFixed(1)}% of a free gateway call (median ${ms(owner.p50)} ms), ${((added / paid.p50) * 100).toFixed(1)}% of a paid one (median ${ms(paid.p50)} ms).`,
  );
  out.push('');
  out.push(`Re-run: ${RERUN}   (add --reseed to seed again, --drop to drop ${DB_NAME} afterwards)`);
  console.log(out.join('\n'));

  if (args.drop) {
    await withClient(SERVER_URL, (admin) => admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`));
    log(`dropped ${DB_NAME}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
